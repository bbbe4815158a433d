// libFuzzer target: journal replay (lnote-format.md section 5).
//
// The input is a journal replayed over a small fixed snapshot. Random bytes almost never have
// a valid CRC, so when the first byte is odd the frames' CRCs are recomputed before replay
// (the length and type bytes stay as fuzzed), which lets the fuzzer reach the payload parser
// and the add / replace / delete logic.
import LNoteFormat
import CZlib

let snapshotJSON = Array("""
    {"format":1,"elements":[
    {"type":"stroke","id":"A","color":"#000000","points":[0,0,10,500,0, 100,100,10,500,8]},
    {"type":"image","id":"B","asset":"C0A80101-0000-4000-8000-00000000A001.png","frame":[0,0,10,10]},
    {"type":"mystery","id":"a"},
    {"type":"stroke","color":"#FF000080","tool":"pencil","points":[]}
    ]}
    """.utf8)

let snapshot: [Element] = try! ContentParser.parse(snapshotJSON, file: "pages/fuzz.content").elements

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJournal(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    var journal = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 1 { fixCRCs(&journal) }
    var elements = snapshot
    let limit = 64
    do {
        let report = try Journal.replay(journal, onto: &elements, file: "pages/fuzz.journal", elementLimit: limit)
        precondition(elements.count <= limit)
        precondition(report.byteCount == journal.count)
        if let t = report.tornTailOffset { precondition(t >= 0 && t < journal.count) }
        for f in report.applied { precondition(f.offset >= 0 && f.offset + Journal.headerSize <= journal.count) }
        for f in report.discarded { precondition(f.offset >= 0 && f.offset + Journal.headerSize + f.length <= journal.count) }
        _ = report.diagnostics(file: "pages/fuzz.journal")
        // Replay is deterministic.
        var again = snapshot
        let second = try Journal.replay(journal, onto: &again, file: "pages/fuzz.journal", elementLimit: limit)
        precondition(again == elements && second == report)
    } catch {
        precondition(error.code == .elementLimit)
    }
    return 0
}

/// Rewrites each complete frame's CRC field so that the frame passes the CRC check.
func fixCRCs(_ j: inout [UInt8]) {
    var offset = 0
    while j.count - offset >= Journal.headerSize {
        let length = Int(j[offset]) | Int(j[offset + 1]) << 8 | Int(j[offset + 2]) << 16 | Int(j[offset + 3]) << 24
        guard length <= j.count - offset - Journal.headerSize else { return }
        let crc = j.withUnsafeBufferPointer { buf in
            Journal.crc(type: buf[offset + 8],
                        payload: UnsafeBufferPointer(rebasing: buf[(offset + 9)..<(offset + 9 + length)]))
        }
        for k in 0..<4 { j[offset + 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
        offset += Journal.headerSize + length
    }
}
