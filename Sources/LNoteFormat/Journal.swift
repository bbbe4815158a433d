// Page journal (section 5): frame decoding, replay onto a snapshot, and frame encoding.
//
//   offset 0  u32 LE  length   payload bytes
//   offset 4  u32 LE  crc      CRC-32 (zlib) of the type byte followed by the payload
//   offset 8  u8      type     1 add, 2 replace, 3 delete
//   offset 9  payload
//
// Replay never throws for a bad frame (it is discarded and reported); only the page element
// limit makes replay, and so the page, fail.

import CZlib

/// The three frame types. Any other type byte is discarded on replay.
public enum JournalFrameType: UInt8, Sendable {
    case add = 1
    case replace = 2
    case delete = 3
}

/// What replay did with the journal.
public struct JournalReport: Sendable, Equatable {
    /// What one applied frame did.
    public enum Effect: Sendable, Equatable {
        /// The element was appended on top (add, or replace of an id that did not exist).
        case appended
        /// The element replaced the one at this index (replace, or add of an existing id).
        case replaced(index: Int)
        /// The element at this index was deleted.
        case deleted(index: Int)
        /// A delete of an id that does not exist.
        case noOp
    }

    public struct AppliedFrame: Sendable, Equatable {
        public var offset: Int
        public var type: JournalFrameType
        public var elementID: String?
        public var effect: Effect
    }

    public struct DiscardedFrame: Sendable, Equatable {
        public enum Reason: Sendable, Equatable {
            case crcMismatch
            case unknownType(UInt8)
            case zeroLength
            /// The payload is not a valid element (or, for delete, not UTF-8 text).
            case invalidPayload(ElementProblem)
        }
        public var offset: Int
        public var typeByte: UInt8
        public var length: Int
        public var reason: Reason

        /// The code of its diagnostic.
        public var code: Code {
            switch reason {
            case .crcMismatch: return .journalCrc
            case .unknownType: return .journalType
            case .zeroLength: return .journalEmpty
            case .invalidPayload: return .journalPayload
            }
        }

        public var message: String {
            switch reason {
            case .crcMismatch: return "frame discarded: CRC mismatch"
            case .unknownType(let t): return "frame discarded: unknown type \(t)"
            case .zeroLength: return "frame discarded: zero-length payload"
            case .invalidPayload(let p): return "frame discarded: invalid payload: \(p)"
            }
        }
    }

    /// Discarded frames recorded one by one per journal; beyond this they are only counted (a
    /// 1 GiB journal of 10-byte bad frames must not become 100 million records and warnings).
    /// The same number as content files' warnings.
    public static let maxRecordedDiscards = ContentLimits.maxWarningsPerPage

    /// Applied frames recorded one by one (about 10 MB of records at most); beyond this they are
    /// only counted. A 1 GiB journal of 10-byte deletes of an absent id is 100 million frames,
    /// which must not become as many records (about 5 GB); nothing but tests and reports reads
    /// single records.
    public static let maxRecordedApplied = 200_000

    private var appliedFrames = Capped<AppliedFrame>(limit: JournalReport.maxRecordedApplied)
    private var discardedFrames = Capped<DiscardedFrame>(limit: JournalReport.maxRecordedDiscards)
    /// The first `maxRecordedApplied` applied frames; `appliedCount` counts them all.
    public var applied: [AppliedFrame] { appliedFrames.kept }
    /// How many frames were applied (all of them, not only those in `applied`).
    public var appliedCount: Int { appliedFrames.total }
    /// The first `maxRecordedDiscards` discarded frames; `discardedCount` counts them all.
    public var discarded: [DiscardedFrame] { discardedFrames.kept }
    /// How many frames were discarded (all of them, not only those in `discarded`).
    public var discardedCount: Int { discardedFrames.total }
    /// Offset of a torn tail (a header shorter than 9 bytes, or a declared length past the end
    /// of the file), where replay stopped; nil when the journal ends cleanly.
    public var tornTailOffset: Int? = nil
    /// The journal's size in bytes.
    public var byteCount: Int = 0

    public init() {}

    public var frameCount: Int { appliedCount + discardedCount }

    mutating func record(_ frame: AppliedFrame) {
        appliedFrames.add(frame)
    }

    /// `frame` is built only while it is still recorded.
    mutating func record(_ frame: @autoclosure () -> DiscardedFrame) {
        discardedFrames.add(frame())
    }

    /// One warning per recorded discarded frame, one summary for the rest, and one for a torn
    /// tail.
    public func diagnostics(file: String) -> [Diagnostic] {
        var out = discarded.map {
            Diagnostic(severity: .warning, file: file, offset: $0.offset, code: $0.code, message: $0.message)
        }
        if discardedFrames.more > 0 {
            out.append(Diagnostic(severity: .warning, file: file, code: .journalMoreDiscarded,
                                  message: "… and \(discardedFrames.more) more discarded frames"))
        }
        if let t = tornTailOffset {
            out.append(Diagnostic(severity: .warning, file: file, offset: t, code: .journalTornTail,
                                  message: "torn tail: \(byteCount - t) bytes at the end are an incomplete frame; replay stopped there"))
        }
        return out
    }
}

public enum Journal {
    public static let headerSize = 9

    /// CRC-32 (IEEE, as zlib's `crc32`) of the type byte followed by the payload.
    public static func crc(type: UInt8, payload: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var t = type
        var c = withUnsafePointer(to: &t) { CZlib.crc32(0, $0, 1) }
        // zlib takes a uInt length; feed large payloads in chunks so nothing is truncated.
        var offset = 0
        while offset < payload.count {
            let n = min(payload.count - offset, 1 << 30)
            c = CZlib.crc32(c, payload.baseAddress! + offset, uInt(n))
            offset += n
        }
        return UInt32(truncatingIfNeeded: c)
    }

    /// Encodes one frame.
    public static func encodeFrame(type: UInt8, payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(headerSize + payload.count)
        appendLE(UInt32(truncatingIfNeeded: payload.count), to: &out)
        let c = payload.withUnsafeBufferPointer { crc(type: type, payload: $0) }
        appendLE(c, to: &out)
        out.append(type)
        out.append(contentsOf: payload)
        return out
    }

    public static func encodeFrame(_ type: JournalFrameType, payload: [UInt8]) -> [UInt8] {
        encodeFrame(type: type.rawValue, payload: payload)
    }

    /// Frames for common edits.
    public static func addFrame(_ element: Element) -> [UInt8] { encodeFrame(.add, payload: element.json) }
    public static func replaceFrame(_ element: Element) -> [UInt8] { encodeFrame(.replace, payload: element.json) }
    public static func deleteFrame(id: String) -> [UInt8] { encodeFrame(.delete, payload: Array(id.utf8)) }

    private static func appendLE(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(v & 0xFF)); out.append(UInt8((v >> 8) & 0xFF))
        out.append(UInt8((v >> 16) & 0xFF)); out.append(UInt8(v >> 24))
    }

    /// Applies every frame of `journal` to `elements` in order (section 5).
    /// - Throws: `LNoteError` of kind `.limit` when replay pushes the page past `elementLimit`.
    public static func replay(_ journal: [UInt8], onto elements: inout [Element], file: String,
                              elementLimit: Int = ContentLimits.maxElementsPerPage) throws(LNoteError) -> JournalReport {
        var report = JournalReport()
        report.byteCount = journal.count
        // Each frame costs O(log n), not a scan of the page: a journal is untrusted input, and
        // with a scan per frame (and an array removal per delete) a 1 MB journal of distinct
        // adds took minutes.
        var state = ReplayState(elements)
        defer { elements = state.elements }

        try journal.withUnsafeBufferPointer { (buf) throws(LNoteError) in
            var offset = 0
            let total = buf.count
            while offset < total {
                guard total - offset >= headerSize else {
                    report.tornTailOffset = offset
                    break
                }
                let length = Int(readLE(buf, offset))
                let storedCRC = readLE(buf, offset + 4)
                let typeByte = buf[offset + 8]
                // A declared length past the end of the file: a torn tail (compared by
                // subtraction so a huge length cannot overflow).
                guard length <= total - offset - headerSize else {
                    report.tornTailOffset = offset
                    break
                }
                let payload = UnsafeBufferPointer(rebasing: buf[(offset + headerSize)..<(offset + headerSize + length)])
                let frameOffset = offset
                offset += headerSize + length
                func discard(_ reason: @autoclosure () -> JournalReport.DiscardedFrame.Reason) {
                    report.record(.init(offset: frameOffset, typeByte: typeByte, length: length, reason: reason()))
                }
                guard crc(type: typeByte, payload: payload) == storedCRC else { discard(.crcMismatch); continue }
                guard let type = JournalFrameType(rawValue: typeByte) else { discard(.unknownType(typeByte)); continue }
                guard length > 0 else { discard(.zeroLength); continue }
                switch type {
                case .add, .replace:
                    let element: Element
                    switch ContentParser.parseElement(payload) {
                    case .success(let e): element = e
                    case .failure(let p): discard(.invalidPayload(p)); continue
                    }
                    // An element without an id cannot match anything: it is appended.
                    let key = element.id.map(idKey)
                    if let key, let slot = state.firstSlot(of: key) {
                        state.slots[slot] = element
                        report.record(.init(offset: frameOffset, type: type, elementID: element.id,
                                                    effect: .replaced(index: state.index(ofSlot: slot))))
                    } else {
                        state.append(element, key: key)
                        report.record(.init(offset: frameOffset, type: type, elementID: element.id, effect: .appended))
                        if state.liveCount > elementLimit {
                            throw LNoteError(.limit, file: file, code: .elementLimit,
                                             message: "journal replay (frame at offset \(frameOffset)) pushes the page past \(elementLimit) elements")
                        }
                    }
                case .delete:
                    guard let id = String(validating: payload, as: UTF8.self) else {
                        discard(.invalidPayload(ElementProblem(id: nil, code: .id, message: "the deleted id is not UTF-8 text")))
                        continue
                    }
                    let key = idKey(id)
                    if let slot = state.firstSlot(of: key) {
                        let i = state.index(ofSlot: slot)
                        state.deleteFirst(of: key)
                        report.record(.init(offset: frameOffset, type: type, elementID: id, effect: .deleted(index: i)))
                    } else {
                        report.record(.init(offset: frameOffset, type: type, elementID: id, effect: .noOp))
                    }
                }
            }
        }
        return report
    }

    private static func readLE(_ buf: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        UInt32(buf[i]) | UInt32(buf[i + 1]) << 8 | UInt32(buf[i + 2]) << 16 | UInt32(buf[i + 3]) << 24
    }
}

/// The page during replay. Elements stay in slots (a deleted one becomes nil), each id maps to
/// the slots holding it in z-order, and a Fenwick tree over the live slots turns a slot into
/// the element's current index, so add, replace and delete cost O(log n).
private struct ReplayState {
    var slots: [Element?]
    /// Id key → the slots with that id, ascending; those before `head` were deleted. Only the
    /// first live one is ever deleted (a frame addresses the first element with its id), and
    /// appends come last, so the live ones are always `slots[head...]`.
    private var byKey: [String: (slots: [Int], head: Int)] = [:]
    /// Fenwick tree (1-based) of 1 per live slot, over `tree.count - 1` slots.
    private var tree: [Int]
    private(set) var liveCount: Int

    init(_ elements: [Element]) {
        slots = elements
        liveCount = elements.count
        tree = []
        for (i, e) in elements.enumerated() {
            if let key = e.id.map(idKey) { byKey[key, default: ([], 0)].slots.append(i) }
        }
        rebuildTree(capacity: max(16, elements.count * 2))
    }

    var elements: [Element] { slots.compactMap { $0 } }

    func firstSlot(of key: String) -> Int? {
        guard let entry = byKey[key], entry.head < entry.slots.count else { return nil }
        return entry.slots[entry.head]
    }

    /// The element's index in the page as it is now: the live slots before it.
    func index(ofSlot slot: Int) -> Int {
        var i = slot, sum = 0   // prefix sum over slots 0..<slot = tree positions 1...slot
        while i > 0 { sum += tree[i]; i -= i & -i }
        return sum
    }

    mutating func append(_ element: Element, key: String?) {
        let slot = slots.count
        slots.append(element)
        liveCount += 1
        if let key { byKey[key, default: ([], 0)].slots.append(slot) }
        if slot + 1 >= tree.count { rebuildTree(capacity: 2 * (slot + 1)) } else { add(slot, 1) }
    }

    mutating func deleteFirst(of key: String) {
        guard let slot = firstSlot(of: key) else { return }
        byKey[key]!.head += 1
        slots[slot] = nil
        liveCount -= 1
        add(slot, -1)
    }

    private mutating func add(_ slot: Int, _ delta: Int) {
        var i = slot + 1
        while i < tree.count { tree[i] += delta; i += i & -i }
    }

    /// Builds the tree for `capacity` slots from `slots` in linear time.
    private mutating func rebuildTree(capacity: Int) {
        tree = [Int](repeating: 0, count: capacity + 1)
        for (i, e) in slots.enumerated() where e != nil { tree[i + 1] = 1 }
        for i in 1...capacity {
            let j = i + (i & -i)
            if j <= capacity { tree[j] += tree[i] }
        }
    }
}

/// Ids are compared case-insensitively (ASCII case: UUIDs are hex); this is the comparison key.
@inline(__always) func idKey(_ id: String) -> String {
    String(decoding: id.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 32 : $0 }, as: UTF8.self)
}

extension Element {
    /// Whether this element's id equals `id`, compared case-insensitively.
    public func hasID(_ id: String) -> Bool {
        guard let own = self.id else { return false }
        return idKey(own) == idKey(id)
    }
}
