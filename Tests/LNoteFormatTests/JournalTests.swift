// Section 5: journal frames and every replay rule.

import XCTest
import CZlib
@testable import LNoteFormat
import LNoteTestSupport

final class JournalTests: XCTestCase {
    let file = "pages/\(IDs.p1).journal"

    func stroke(_ id: String, x: Int32 = 1) -> Element {
        Element.stroke(id: id, color: Color(r: 0, g: 0, b: 0), points: [x, 2, 3, 4, 5])
    }

    func replay(_ frames: [[UInt8]], onto snapshot: [Element], limit: Int = ContentLimits.maxElementsPerPage) throws -> ([Element], JournalReport) {
        var elements = snapshot
        let report = try Journal.replay(frames.flatMap { $0 }, onto: &elements, file: file, elementLimit: limit)
        return (elements, report)
    }

    func testFrameEncodingMatchesTheLayout() {
        let payload = bytes("ABC")
        let f = Journal.encodeFrame(.delete, payload: payload)
        XCTAssertEqual(Array(f[0..<4]), [3, 0, 0, 0])
        let expected = ([UInt8(3)] + payload).withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, 4)) }
        XCTAssertEqual(UInt32(f[4]) | UInt32(f[5]) << 8 | UInt32(f[6]) << 16 | UInt32(f[7]) << 24, expected)
        XCTAssertEqual(f[8], 3)
        XCTAssertEqual(Array(f[9...]), payload)
    }

    func testAddAppendsAndAddOfExistingIdReplacesInPlace() throws {
        let (els, report) = try replay([Journal.addFrame(stroke("C")), Journal.addFrame(stroke("a", x: 9))],
                                       onto: [stroke("A"), stroke("B")])
        XCTAssertEqual(els.map(\.id), ["a", "B", "C"])
        XCTAssertEqual(els[0], stroke("a", x: 9))
        XCTAssertEqual(report.applied.map(\.effect), [.appended, .replaced(index: 0)])
        XCTAssertEqual(report.applied.map(\.offset), [0, Journal.addFrame(stroke("C")).count])
        XCTAssertTrue(report.discarded.isEmpty)
        XCTAssertNil(report.tornTailOffset)
    }

    func testReplaceInPlaceAndReplaceOfMissingAppends() throws {
        let (els, report) = try replay([Journal.replaceFrame(stroke("b", x: 7)), Journal.replaceFrame(stroke("Z"))],
                                       onto: [stroke("A"), stroke("B"), stroke("C")])
        XCTAssertEqual(els.map(\.id), ["A", "b", "C", "Z"])
        XCTAssertEqual(report.applied.map(\.effect), [.replaced(index: 1), .appended])
    }

    func testDeleteAndDeleteOfMissingIsNoOp() throws {
        let (els, report) = try replay([Journal.deleteFrame(id: "b"), Journal.deleteFrame(id: "nope")],
                                       onto: [stroke("A"), stroke("B")])
        XCTAssertEqual(els.map(\.id), ["A"])
        XCTAssertEqual(report.applied.map(\.effect), [.deleted(index: 1), .noOp])
    }

    func testDuplicateIdsAddressTheFirst() throws {
        let snapshot = [stroke("D", x: 1), stroke("E"), stroke("D", x: 2)]
        var (els, _) = try replay([Journal.replaceFrame(stroke("D", x: 3))], onto: snapshot)
        XCTAssertEqual(els, [stroke("D", x: 3), stroke("E"), stroke("D", x: 2)])
        (els, _) = try replay([Journal.addFrame(stroke("d", x: 4))], onto: snapshot)
        XCTAssertEqual(els, [stroke("d", x: 4), stroke("E"), stroke("D", x: 2)])
        (els, _) = try replay([Journal.deleteFrame(id: "D")], onto: snapshot)
        XCTAssertEqual(els, [stroke("E"), stroke("D", x: 2)])
    }

    func testCRCMismatchIsDiscardedAndReplayContinues() throws {
        var bad = Journal.addFrame(stroke("X"))
        bad[bad.count - 3] ^= 0x01                          // payload corrupted
        var badCRC = Journal.deleteFrame(id: "A")
        badCRC[4] ^= 0xFF                                   // stored CRC corrupted
        var badType = Journal.deleteFrame(id: "A")
        badType[8] = 2                                      // type byte changed: CRC covers it
        let (els, report) = try replay([bad, badCRC, badType, Journal.addFrame(stroke("Y"))], onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), ["A", "Y"])
        XCTAssertEqual(report.discarded.map(\.reason), [.crcMismatch, .crcMismatch, .crcMismatch])
        XCTAssertEqual(report.discarded.map(\.offset), [0, bad.count, bad.count + badCRC.count])
        XCTAssertEqual(report.appliedCount, 1)
    }

    func testDiscardedFramesAreCountedButRecordedOnlyUpToTheWarningLimit() throws {
        // 10-byte frames (one payload byte) whose CRC does not match: a 1 GiB journal of them is
        // 100 million frames, which must not become as many records and warnings.
        var frame = Journal.deleteFrame(id: "A")
        frame[4] ^= 0xFF
        let n = 10_000
        let (els, report) = try replay(Array(repeating: frame, count: n) + [Array(frame.prefix(4))], onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), ["A"])
        XCTAssertEqual(report.discardedCount, n)
        XCTAssertEqual(report.frameCount, n)
        XCTAssertEqual(report.discarded.count, ContentLimits.maxWarningsPerPage)
        XCTAssertEqual(report.discarded.last?.offset, (ContentLimits.maxWarningsPerPage - 1) * frame.count)
        let diagnostics = report.diagnostics(file: file)
        XCTAssertEqual(diagnostics.count, ContentLimits.maxWarningsPerPage + 2)
        XCTAssertEqual(diagnostics[ContentLimits.maxWarningsPerPage].code.rawValue, "journal-more-discarded")
        XCTAssertEqual(diagnostics[ContentLimits.maxWarningsPerPage].message,
                       "… and \(n - ContentLimits.maxWarningsPerPage) more discarded frames")
        XCTAssertEqual(diagnostics.last?.code.rawValue, "journal-torn-tail")
    }

    func testAppliedFramesAreCountedButRecordedOnlyUpToTheLimit() throws {
        // 10-byte deletes of an id the page does not have: each applies as a no-op, and a 1 GiB
        // journal of them must not become 100 million records.
        let n = JournalReport.maxRecordedApplied + 2_000
        let frames = Array(repeating: Journal.deleteFrame(id: "Z"), count: n) + [Journal.deleteFrame(id: "A")]
        let (els, report) = try replay(frames, onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), [])
        XCTAssertEqual(report.appliedCount, n + 1)
        XCTAssertEqual(report.frameCount, n + 1)
        XCTAssertEqual(report.applied.count, JournalReport.maxRecordedApplied)
        XCTAssertEqual(report.applied.last?.effect, .noOp)
    }

    func testUnknownTypeDiscarded() throws {
        let (els, report) = try replay([Journal.encodeFrame(type: 7, payload: stroke("X").json),
                                        Journal.encodeFrame(type: 0, payload: bytes("A"))], onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), ["A"])
        XCTAssertEqual(report.discarded.map(\.reason), [.unknownType(7), .unknownType(0)])
        XCTAssertEqual(report.discarded.first?.code.rawValue, "journal-type")
    }

    func testInvalidPayloadDiscarded() throws {
        let frames = [
            Journal.encodeFrame(.add, payload: bytes("{\"type\":\"stroke\",\"id\":")),                   // not JSON
            Journal.encodeFrame(.add, payload: bytes(strokeJSON("X", color: "nope"))),                   // invalid element
            Journal.encodeFrame(.replace, payload: bytes(strokeJSON("A", points: "[1,2,3]"))),           // invalid element
            Journal.encodeFrame(.add, payload: bytes(strokeJSON("X") + " x")),                           // trailing garbage
            Journal.encodeFrame(.add, payload: bytes("[1]")),                                            // not an object
            Journal.encodeFrame(.delete, payload: [0x41, 0xFF]),                                         // not UTF-8
        ]
        let (els, report) = try replay(frames, onto: [stroke("A")])
        XCTAssertEqual(els, [stroke("A")])
        XCTAssertEqual(report.discardedCount, 6)
        let rules = report.discarded.map { d -> String in
            if case .invalidPayload(let p) = d.reason { return p.code.rawValue } else { return "?" }
        }
        XCTAssertEqual(rules, ["json", "color", "points-length", "json", "element-object", "id"])
    }

    func testZeroLengthPayloadDiscarded() throws {
        let (els, report) = try replay([Journal.encodeFrame(.add, payload: []), Journal.encodeFrame(.delete, payload: []),
                                        Journal.addFrame(stroke("B"))], onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), ["A", "B"])
        XCTAssertEqual(report.discarded.map(\.reason), [.zeroLength, .zeroLength])
    }

    func testTornTailShortHeader() throws {
        let good = Journal.addFrame(stroke("B"))
        for tail in 1...8 {
            let (els, report) = try replay([good, Array(Journal.deleteFrame(id: "A").prefix(tail))], onto: [stroke("A")])
            XCTAssertEqual(els.map(\.id), ["A", "B"])
            XCTAssertEqual(report.tornTailOffset, good.count)
        }
    }

    func testTornTailLongDeclaredLength() throws {
        let good = Journal.deleteFrame(id: "A")
        let torn = Array(Journal.addFrame(stroke("B")).dropLast(1))
        var (els, report) = try replay([good, torn, Journal.addFrame(stroke("C"))].prefix(2).map { $0 }, onto: [stroke("A")])
        XCTAssertEqual(els, [])
        XCTAssertEqual(report.tornTailOffset, good.count)
        // A declared length near UInt32.max does not overflow anything.
        var huge = Journal.deleteFrame(id: "A")
        huge[0] = 0xFF; huge[1] = 0xFF; huge[2] = 0xFF; huge[3] = 0xFF
        (els, report) = try replay([huge], onto: [stroke("A")])
        XCTAssertEqual(els.map(\.id), ["A"])
        XCTAssertEqual(report.tornTailOffset, 0)
        XCTAssertEqual(report.diagnostics(file: file).last?.code.rawValue, "journal-torn-tail")
    }

    func testElementLimitAfterReplayFailsThePage() throws {
        // Replacing in place never grows the page; appends past the limit fail it.
        XCTAssertNoThrow(try replay([Journal.addFrame(stroke("C")), Journal.replaceFrame(stroke("A"))],
                                    onto: [stroke("A"), stroke("B")], limit: 3))
        XCTAssertThrowsError(try replay([Journal.addFrame(stroke("C")), Journal.addFrame(stroke("D"))],
                                        onto: [stroke("A"), stroke("B")], limit: 3)) { error in
            XCTAssertEqual((error as? LNoteError)?.kind, .limit)
            XCTAssertEqual((error as? LNoteError)?.file, self.file)
        }
    }

    func testEmptyJournalAndDiagnostics() throws {
        let (els, report) = try replay([], onto: [stroke("A")])
        XCTAssertEqual(els.count, 1)
        XCTAssertEqual(report.frameCount, 0)
        XCTAssertTrue(report.diagnostics(file: file).isEmpty)
    }

    func testAppendWritesWholeFramesThatReplay() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let path = dir.appendingPathComponent("x.journal").path
        try JournalWriter.append(Journal.addFrame(stroke("B")), toPath: path)
        try JournalWriter.append(Journal.deleteFrame(id: "A"), toPath: path)
        let data = try FileIO.readRegularFile(atPath: path, display: "x")
        var els = [stroke("A")]
        let r = try Journal.replay(data, onto: &els, file: "x")
        XCTAssertEqual(els.map(\.id), ["B"])
        XCTAssertEqual(r.appliedCount, 2)
    }
}
