// Page content (section 4): `pages/<UUID>.content` and the element payloads of journal frames.
//
// The `points` arrays are most of the bytes of a page, so they are decoded by a dedicated loop
// straight into a reusable Int32 scratch buffer (one copy into the stroke's array at the end, no
// per-number allocation). Everything else in an element is small and goes through the generic
// `JSONValue` path, which keeps the rules readable; values whose contents are never looked at
// (a `format` or `frame` of the wrong type) are only validated, not built (`JSONShape`).

/// The decoded content of one page: its elements in z-order, and warnings for what was skipped.
public struct PageContent: Sendable, Equatable {
    public var format: Int
    public var elements: [Element]
    /// One warning per skipped element, up to `ContentLimits.maxWarningsPerPage`, then one
    /// summary warning for the rest.
    public var diagnostics: [Diagnostic]
    /// How many elements were skipped as invalid (all of them, not only those with a warning).
    public var skippedElements: Int
    /// The file's top-level members other than `format` and `elements` (keys a newer app added),
    /// each as its text `"key": value` exactly as read, in file order, duplicates included.
    /// Compaction writes them back, as it does the unknown keys inside elements. The slices
    /// share the file's bytes.
    public var unknownMembers: [ArraySlice<UInt8>]

    public init(format: Int = 1, elements: [Element], diagnostics: [Diagnostic] = [], skippedElements: Int? = nil,
                unknownMembers: [ArraySlice<UInt8>] = []) {
        self.format = format
        self.elements = elements
        self.diagnostics = diagnostics
        self.skippedElements = skippedElements ?? diagnostics.count
        self.unknownMembers = unknownMembers
    }
}

/// Why one element is invalid (it is skipped with a warning; the rest of the page renders).
public struct ElementProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The element's id, when it had a string one.
    public var id: String?
    /// Short rule name: `json`, `element-object`, `type`, `id`, `color`, `points`,
    /// `points-integer`, `points-length`, `coordinate-range`, `radius-range`, `pressure-range`,
    /// `time-range`, `sample-limit`, `asset`, `frame`, `rotation`, `opacity`.
    public var rule: String
    public var message: String

    public init(id: String?, rule: String, message: String) {
        self.id = id
        self.rule = rule
        self.message = message
    }

    public var description: String { "[\(rule)] \(message)" }
}

/// The limits of section 7 that the content parser enforces.
public enum ContentLimits {
    /// Invalid elements reported one by one per page; beyond this they are counted in one
    /// summary warning (a hostile page of a million bad elements must not print a million lines).
    public static let maxWarningsPerPage = 100
    /// More elements than this on one page makes the page fail.
    public static let maxElementsPerPage = 1_000_000
    /// More samples than this in one stroke makes the element invalid.
    public static let maxSamplesPerStroke = 1_000_000
    /// Radius range in 0.1 pt.
    public static let radiusRange: ClosedRange<Int32> = 0...100_000
    /// Pressure range in thousandths.
    public static let pressureRange: ClosedRange<Int32> = 0...1000
    /// Opacity range in thousandths.
    public static let opacityRange: ClosedRange<Int64> = 0...1000
}

public enum ContentParser {
    /// Parses a content file. Throws (the page fails) when the file is not valid UTF-8 JSON, is
    /// not an object, has no `elements` array, has a newer `format`, or has more than
    /// `elementLimit` elements. Invalid elements are skipped and reported in `diagnostics`.
    /// - Parameter file: the file's path relative to the package, used in messages.
    public static func parse(_ bytes: [UInt8], file: String,
                             elementLimit: Int = ContentLimits.maxElementsPerPage) throws(LNoteError) -> PageContent {
        do {
            return try bytes.withUnsafeBufferPointer { (buf) throws(ContentFailure) -> PageContent in
                try parseContent(buf, source: bytes, file: file, elementLimit: elementLimit)
            }
        } catch {
            switch error {
            case .json(let e): throw LNoteError.json(e, file: file)
            case .rule(let e): throw e
            }
        }
    }

    /// Parses one element (a whole JSON text, as in a journal payload). A payload that is not
    /// valid JSON is reported with rule `json`.
    public static func parseElement(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Element, ElementProblem> {
        parseElement(bytes, source: nil)
    }

    public static func parseElement(_ bytes: [UInt8]) -> Result<Element, ElementProblem> {
        bytes.withUnsafeBufferPointer { parseElement($0, source: bytes) }
    }

    private static func parseElement(_ bytes: UnsafeBufferPointer<UInt8>, source: [UInt8]?) -> Result<Element, ElementProblem> {
        var s = JSONScanner(bytes)
        var reader = ElementReader(source: source)
        do {
            let outcome = try reader.read(&s)
            try s.finish()
            return outcome
        } catch {
            return .failure(ElementProblem(id: nil, rule: "json", message: error.description))
        }
    }

    private enum ContentFailure: Error {
        case json(JSONError)
        case rule(LNoteError)
    }

    /// - Parameter source: the array `buf` points into; the elements' JSON texts share it.
    private static func parseContent(_ buf: UnsafeBufferPointer<UInt8>, source: [UInt8], file: String,
                                     elementLimit: Int) throws(ContentFailure) -> PageContent {
        var s = JSONScanner(buf)
        var reader = ElementReader(source: source)
        var format: JSONValue? = nil
        var elements: [Element]? = nil
        var diagnostics: [Diagnostic] = []
        var skippedCount = 0
        var unknownMembers: [ArraySlice<UInt8>] = []
        do {
            s.skipBOM()
            s.skipWhitespace()
            guard s.peek() == _lbrace else {
                // Still a JSON error if it is not JSON at all; otherwise the wrong type.
                try s.validateValue()
                try s.finish()
                throw ContentFailure.rule(LNoteError(.invalid, file: file, rule: "content-object",
                                                     message: "the content is not a JSON object"))
            }
            try s.beginObject()
            var first = true
            var key: [UInt8] = []
            var memberSearchStart = s.pos
            while try s.nextMember(first: &first, key: &key) {
                defer { memberSearchStart = s.pos }
                if key == keyElements {
                    // Duplicate keys: the last `elements` counts, so start afresh each time.
                    guard s.peek() == _lbracket else {
                        let v = try s.parseValue(.typeOnly)
                        throw ContentFailure.rule(LNoteError(.invalid, file: file, rule: "elements",
                                                             message: "elements is \(v.typeName), not an array"))
                    }
                    var list: [Element] = []
                    var found: [Diagnostic] = []
                    var skipped = 0
                    try s.beginArray()
                    var firstElement = true
                    var index = 0
                    while try s.nextElement(first: &firstElement) {
                        if index >= elementLimit {
                            throw ContentFailure.rule(LNoteError(.limit, file: file, rule: "element-limit",
                                                                 message: "more than \(elementLimit) elements on the page"))
                        }
                        switch try reader.read(&s) {
                        case .success(let element): list.append(element)
                        case .failure(let p):
                            skipped += 1
                            if found.count < ContentLimits.maxWarningsPerPage {
                                found.append(Diagnostic(severity: .warning, file: file, elementIndex: index,
                                                        elementID: p.id, rule: p.rule, message: p.message))
                            }
                        }
                        index += 1
                    }
                    if skipped > found.count {
                        found.append(Diagnostic(severity: .warning, file: file, rule: "more-invalid-elements",
                                                message: "\(skipped - found.count) more invalid element(s) skipped without a warning each"))
                    }
                    elements = list
                    diagnostics = found
                    skippedCount = skipped
                } else if key == keyFormat {
                    format = try s.parseValue(.typeOnly)
                } else {
                    // Kept as text, not as a parsed value: it is only written back. Between the
                    // end of the previous member and the key there is only whitespace and at most
                    // one comma, so the key starts at the first quote after it.
                    var keyStart = memberSearchStart
                    while buf[keyStart] != _quote { keyStart += 1 }
                    try s.skipValue()
                    // `skipValue` also consumes the whitespace after the value.
                    var end = s.pos
                    while end > keyStart, JSONScanner.isWhitespace(buf[end - 1]) { end -= 1 }
                    unknownMembers.append(source[keyStart..<end])
                }
            }
            try s.finish()
        } catch let e as JSONError {
            throw .json(e)
        } catch let e as ContentFailure {
            throw e
        } catch {
            fatalError("unreachable: \(error)")
        }
        let version = try checkFormat(format, file: file)
        guard let elements else {
            throw .rule(LNoteError(.invalid, file: file, rule: "elements", message: "the content has no elements array"))
        }
        return PageContent(format: version, elements: elements, diagnostics: diagnostics, skippedElements: skippedCount,
                           unknownMembers: unknownMembers)
    }

    /// `format`: missing means 1; a higher one fails; anything but a positive integer is invalid.
    private static func checkFormat(_ v: JSONValue?, file: String) throws(ContentFailure) -> Int {
        guard let v else { return 1 }
        guard let n = v.integerValue, n >= 1 else {
            throw .rule(LNoteError(.invalid, file: file, rule: "format",
                                   message: "format must be a positive integer, found \(v.typeName)"))
        }
        if n > 1 {
            throw .rule(LNoteError(.newerFormat, file: file, rule: "format",
                                   message: "format \(n) was written by a newer app (this version reads format 1)"))
        }
        return 1
    }
}

private let keyElements = Array("elements".utf8)
private let keyFormat = Array("format".utf8)

/// The members of an element that the reader looks at, recognised from the key's bytes without
/// making a String.
private enum FieldName {
    case points, type, id, tool, color, asset, frame, rotation, opacity, other

    init(_ p: UnsafePointer<UInt8>, _ n: Int) {
        @inline(__always) func isKey(_ k: StaticString) -> Bool {
            let q = k.utf8Start
            for i in 0..<n where p[i] != q[i] { return false }
            return true
        }
        switch n {
        case 2: self = isKey("id") ? .id : .other
        case 4: self = isKey("type") ? .type : isKey("tool") ? .tool : .other
        case 5: self = isKey("color") ? .color : isKey("asset") ? .asset : isKey("frame") ? .frame : .other
        case 6: self = isKey("points") ? .points : .other
        case 7: self = isKey("opacity") ? .opacity : .other
        case 8: self = isKey("rotation") ? .rotation : .other
        default: self = .other
        }
    }
}

/// A member value that is usually a string: kept as a String without boxing it in a JSONValue.
private enum Field {
    case string(String)
    case value(JSONValue)

    /// Reads the value at the scanner's position; a plain string (ASCII, no escapes) goes
    /// straight from the input to a String.
    static func read(_ s: inout JSONScanner) throws(JSONError) -> Field {
        if s.peek() == _quote, let r = s.scanPlainString() {
            return .string(String(decoding: UnsafeBufferPointer(start: s.base + r.lowerBound, count: r.count), as: UTF8.self))
        }
        let v = try s.parseValue(.typeOnly)
        if case .string(let text) = v { return .string(text) }
        return .value(v)
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var typeName: String {
        switch self {
        case .string: return "a string"
        case .value(let v): return v.typeName
        }
    }
}

/// A growable Int32 buffer reused across strokes, so the hot loop writes through a raw pointer.
private final class PointScratch {
    var pointer: UnsafeMutablePointer<Int32>
    var capacity: Int

    init() {
        capacity = 4096
        pointer = .allocate(capacity: capacity)
    }

    deinit { pointer.deallocate() }

    func grow() {
        let bigger = capacity * 2
        let p = UnsafeMutablePointer<Int32>.allocate(capacity: bigger)
        p.moveInitialize(from: pointer, count: capacity)
        pointer.deallocate()
        pointer = p
        capacity = bigger
    }
}

/// Reads elements one after another, reusing its buffers.
struct ElementReader {
    private let scratch = PointScratch()
    private var key: [UInt8] = []
    /// The array the scanner reads, when there is one: element texts are ranges of it. Without
    /// one (a journal payload seen through a pointer), each element copies its text.
    private let source: [UInt8]?

    init(source: [UInt8]? = nil) {
        self.source = source
    }

    /// The most `points` values stored; beyond this the stroke is invalid anyway, and the rest of
    /// the array is only validated, so a huge array never makes us allocate more.
    static let maxValues = ContentLimits.maxSamplesPerStroke * Stroke.fieldsPerSample

    private struct PointsScan {
        var count = 0
        var problem: ElementProblem? = nil
        var notArray: String? = nil
    }

    /// Reads one element value at the scanner's position. Syntax errors throw (the enclosing file
    /// is invalid); rule violations come back as `.failure`.
    mutating func read(_ s: inout JSONScanner) throws(JSONError) -> Result<Element, ElementProblem> {
        s.skipWhitespace()
        let start = s.pos
        guard s.peek() == _lbrace else {
            let v = try s.parseValue(.typeOnly)
            return .failure(ElementProblem(id: nil, rule: "element-object", message: "the element is \(v.typeName), not an object"))
        }
        try s.beginObject()
        var first = true
        var type: Field? = nil, id: Field? = nil, tool: Field? = nil, color: Field? = nil
        var asset: JSONValue? = nil, frame: JSONValue? = nil, rotation: JSONValue? = nil, opacity: JSONValue? = nil
        var points: PointsScan? = nil
        while let k = try s.nextMemberKey(first: &first, key: &key) {
            let name: FieldName
            switch k {
            case .plain(let start, let count): name = FieldName(s.base + start, count)
            case .decoded: name = key.withUnsafeBufferPointer { FieldName($0.baseAddress ?? s.base, $0.count) }
            }
            switch name {
            case .points: points = try readPoints(&s)
            case .type: type = try Field.read(&s)
            case .id: id = try Field.read(&s)
            case .tool: tool = try Field.read(&s)
            case .color: color = try Field.read(&s)
            case .asset: asset = try s.parseValue(.typeOnly)
            case .frame: frame = try ElementReader.readFrame(&s)
            case .rotation: rotation = try s.parseValue(.typeOnly)
            case .opacity: opacity = try s.parseValue(.typeOnly)
            case .other: try s.skipValue()
            }
        }
        let end = s.pos

        // id: optional, but a string when present (null counts as absent).
        var idString: String? = nil
        switch id {
        case nil, .value(.null)?: break
        case .string(let v)?: idString = v
        case let other?:
            return .failure(ElementProblem(id: nil, rule: "id", message: "id is \(other.typeName), not a string"))
        }
        func fail(_ rule: String, _ message: String) -> Result<Element, ElementProblem> {
            .failure(ElementProblem(id: idString, rule: rule, message: message))
        }
        guard let typeName = type?.stringValue else {
            return fail("type", type == nil ? "the element has no type" : "type is \(type!.typeName), not a string")
        }
        let kind: Element.Kind
        switch typeName {
        case "stroke":
            guard let colorText = color?.stringValue else {
                return fail("color", color == nil ? "a stroke needs a color" : "color is \(color!.typeName), not a string")
            }
            guard let parsedColor = Color(hex: colorText) else {
                return fail("color", "color \"\(colorText)\" is not #RRGGBB or #RRGGBBAA")
            }
            // A missing or unknown tool is drawn as a pen.
            let parsedTool = tool?.stringValue.flatMap(Tool.init(rawValue:)) ?? .pen
            guard let points else { return fail("points", "a stroke needs a points array") }
            if let t = points.notArray { return fail("points", "points is \(t), not an array") }
            if var p = points.problem { p.id = idString; return .failure(p) }
            let n = points.count
            if n % Stroke.fieldsPerSample != 0 {
                return fail("points-length", "points has \(n) values, not a multiple of 5")
            }
            let values = scratch.pointer
            var i = 0
            while i < n {
                let r = values[i + 2], pr = values[i + 3]
                if !ContentLimits.radiusRange.contains(r) {
                    return fail("radius-range", "sample \(i / 5) has radius \(r), outside 0...100000")
                }
                if !ContentLimits.pressureRange.contains(pr) {
                    return fail("pressure-range", "sample \(i / 5) has pressure \(pr), outside 0...1000")
                }
                i += 5
            }
            kind = .stroke(Stroke(tool: parsedTool, color: parsedColor,
                                  points: Array(UnsafeBufferPointer(start: values, count: n))))
        case "image":
            guard let name = asset?.stringValue else {
                return fail("asset", asset == nil ? "an image needs an asset" : "asset is \(asset!.typeName), not a string")
            }
            guard AssetName.isValid(name) else {
                return fail("asset", "asset \"\(name)\" is not <UUID>.jpg or <UUID>.png")
            }
            guard case .array(let f)? = frame, f.count == 4 else {
                return fail("frame", frame == nil ? "an image needs a frame" : "frame is not an array of 4 integers")
            }
            var xywh: [Int32] = []
            for v in f {
                guard let n = v.integerValue, let n32 = Int32(exactly: n) else {
                    return fail("frame", "frame values must be integers in the 32-bit range, found \(v.typeName)")
                }
                xywh.append(n32)
            }
            guard xywh[2] > 0, xywh[3] > 0 else {
                return fail("frame", "frame width and height must be > 0 (found \(xywh[2]) x \(xywh[3]))")
            }
            var rot = 0
            if let rotation, rotation != .null {
                guard let r = rotation.integerValue, let r32 = Int32(exactly: r) else {
                    return fail("rotation", "rotation must be an integer (thousandths of a degree), found \(rotation.typeName)")
                }
                rot = Int(r32)
            }
            var op = 1000
            if let opacity, opacity != .null {
                guard let o = opacity.integerValue, ContentLimits.opacityRange.contains(o) else {
                    return fail("opacity", "opacity must be an integer from 0 to 1000, found \(opacity.integerValue.map(String.init) ?? opacity.typeName)")
                }
                op = Int(o)
            }
            kind = .image(ImagePlacement(asset: name, x: xywh[0], y: xywh[1], width: xywh[2], height: xywh[3],
                                         rotation: rot, opacity: op))
        default:
            // Kept (the journal may address it, compaction writes it back) but not drawn.
            kind = .unknown(type: typeName)
        }
        if let source {
            return .success(Element(id: idString, kind: kind, source: source, range: start..<end))
        }
        let json = Array(UnsafeBufferPointer(start: s.base + start, count: end - start))
        return .success(Element(id: idString, kind: kind, json: json))
    }

    /// `frame`: only an array of exactly 4 integers is valid, so only its first 5 items are built
    /// (a fifth is enough to tell it is too long); the rest is validated. Anything else comes
    /// back by its type only.
    private static func readFrame(_ s: inout JSONScanner) throws(JSONError) -> JSONValue {
        guard s.peek() == _lbracket else { return try s.parseValue(.typeOnly) }
        try s.beginArray()
        var items: [JSONValue] = []
        var first = true
        while try s.nextElement(first: &first) {
            if items.count <= 4 { items.append(try s.parseValue(.typeOnly)) } else { try s.validateValue() }
        }
        return .array(items)
    }

    /// The hot loop: a `points` array decoded into the scratch buffer. Values that are not JSON
    /// integers, or do not fit their field, are remembered as the first problem while the rest of
    /// the array is still validated (the file must be valid JSON whatever the element's fate).
    ///
    /// Most values are short integers followed directly by `,`: those are decoded eight bytes at
    /// a time (`fastInteger`), with no branch per digit. Anything else (9+ digits, a leading zero,
    /// a fraction or exponent, a non-number, the last few bytes of the buffer) takes `slowValue`,
    /// which applies the full grammar and reports exactly as before.
    private mutating func readPoints(_ s: inout JSONScanner) throws(JSONError) -> PointsScan {
        var result = PointsScan()
        guard s.peek() == _lbracket else {
            result.notArray = try s.parseValue(.typeOnly).typeName
            return result
        }
        try s.beginArray()
        let base = s.base, end = s.count
        var pos = s.pos
        var out = scratch.pointer
        // Values below `limit` are stored directly; reaching it means grow or stop storing.
        var limit = min(scratch.capacity, ElementReader.maxValues)
        var n = 0
        @inline(__always) func at(_ i: Int) -> UInt8 { i < end ? base[i] : 0 }
        @inline(__always) func skipWS(_ pos: inout Int) {
            while pos < end {
                let c = base[pos]
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { pos += 1 } else { return }
            }
        }
        skipWS(&pos)
        if at(pos) == _rbracket {
            s.pos = pos + 1
            s.depth -= 1
            return result
        }
        while true {
            // At a value: whitespace skipped, not `]`. First the common run of `digits,`.
            if limit &- n < ElementReader.runBlockValues && limit < ElementReader.maxValues {
                scratch.grow()
                out = scratch.pointer
                limit = min(scratch.capacity, ElementReader.maxValues)
            }
            (pos, n) = ElementReader.decodeIntegerRun(base, end, pos, out, n, limit)
            // Stopped at a value it could not take whole (or after a comma at whitespace or `]`:
            // entry guarantees neither, so here they follow a comma).
            var c = at(pos)
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                skipWS(&pos)
                c = at(pos)
            }
            if c == _rbracket { s.pos = pos; throw s.error("expected a value after ','") }
            let value: Int32
            if let v = ElementReader.fastInteger(base, end, &pos) {
                value = v
                c = base[pos]   // the fast path decoded at most 8 of the 9+ bytes left
            } else {
                (value, pos) = try slowValue(&s, at: pos, index: n, problem: &result.problem)
                c = at(pos)
            }
            if n < limit {
                out[n] = value
            } else if n < ElementReader.maxValues {
                scratch.grow()
                out = scratch.pointer
                limit = min(scratch.capacity, ElementReader.maxValues)
                out[n] = value
            } else if n == ElementReader.maxValues && result.problem == nil {
                result.problem = ElementProblem(id: nil, rule: "sample-limit",
                                                message: "the stroke has more than \(ContentLimits.maxSamplesPerStroke) samples")
            }
            n += 1
            if c == _comma {
                pos += 1
                c = at(pos)
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                    skipWS(&pos)
                    c = at(pos)
                }
                if c == _rbracket { s.pos = pos; throw s.error("expected a value after ','") }
                continue
            }
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                skipWS(&pos)
                c = at(pos)
                if c == _comma {
                    pos += 1
                    skipWS(&pos)
                    if at(pos) == _rbracket { s.pos = pos; throw s.error("expected a value after ','") }
                    continue
                }
            }
            if c == _rbracket {
                pos += 1
                break
            }
            s.pos = pos
            throw s.error("expected ',' or ']' in an array")
        }
        s.pos = pos
        s.depth -= 1
        result.count = n
        return result
    }

    /// The most values `decodeIntegerRun` stores from one 64-byte block (each takes a digit and a
    /// comma at least).
    static let runBlockValues = 32

    /// The hot loop proper: decodes consecutive `integer,` pairs (up to 8 digits, optionally
    /// negative, the comma right after the digits) into `out[n...]`, and returns where it stopped:
    /// at the start of a value it did not take, which may be whitespace or `]` after the last
    /// comma it consumed. It needs `start` to be a value's start, and 72 bytes and
    /// `limit - n >= runBlockValues` to do anything.
    ///
    /// It reads 64-byte blocks: first the block's commas as a bit mask (eight bytes at a time),
    /// then each comma-terminated token from one 8-byte load at its first digit, checked to be
    /// `-?digits` without a leading zero and decoded by a pairwise multiply. Positions come from
    /// the mask rather than from decoding the previous number, so consecutive numbers do not wait
    /// for each other. A token that is not such an integer (whitespace, `]`, a fraction, 9+
    /// digits, a syntax error...) stops the run there; no byte after it is looked at.
    @inline(never)
    static func decodeIntegerRun(_ base: UnsafePointer<UInt8>, _ end: Int, _ start: Int,
                                 _ out: UnsafeMutablePointer<Int32>, _ first: Int, _ limit: Int) -> (Int, Int) {
        @inline(__always) func load(_ i: Int) -> UInt64 {
            UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
        }
        let low7e: UInt64 = 0x7E7E_7E7E_7E7E_7E7E
        let high: UInt64 = 0x8080_8080_8080_8080
        var tokenStart = start, n = first
        // 64 bytes of block plus the 8-byte load at a token's first digit, which may start at
        // the block's 63rd byte.
        while tokenStart &+ 72 <= end && limit &- n >= runBlockValues {
            let block = tokenStart
            // Bit i of `commas` is set when block[i] == ','. Per byte, after the xor a comma is 0
            // and a '-' is 1; `(x & 0x7E) + 0x7E` sets the top bit of every other byte without
            // carrying into the next one; bit 0 of x (moved to bit 7) tells '-' from ','; the
            // multiply gathers the eight top bits into one byte.
            var commas: UInt64 = 0
            var minus: UInt64 = 0
            var k = 0
            while k < 64 {
                let x = load(block &+ k) ^ 0x2C2C_2C2C_2C2C_2C2C
                let commaOrMinus = ~(((x & low7e) &+ low7e) | x) & high
                let isComma = commaOrMinus & ~(x &<< 7)
                minus |= commaOrMinus & (x &<< 7)
                commas |= (((isComma &>> 7) &* 0x0102_0408_1020_4080) &>> 56) &<< UInt64(k)
                k &+= 8
            }
            if commas == 0 { break }
            // Decodes the block's tokens; false when one is not a plain integer. `signed` is a
            // constant in each call, so a block without any '-' skips the sign handling.
            @inline(__always) func tokens(signed: Bool) -> Bool {
                repeat {
                    let comma = block &+ commas.trailingZeroBitCount
                    let negative = signed && base[tokenStart] == _minus
                    let first = negative ? tokenStart &+ 1 : tokenStart
                    let digits = comma &- first
                    guard UInt(bitPattern: digits &- 1) < 8 else { return false }   // 1...8 digits
                    // The digits are the low `digits` bytes of the word at the first one; shifting
                    // left by the rest drops what follows them and leaves the most significant
                    // digit first, with zeros before it, as the pairwise multiply wants.
                    let t = load(first) ^ 0x3030_3030_3030_3030
                    let shift = UInt64((8 &- digits) &* 8)
                    // Top bit set in each byte that is not an ASCII digit (0...9 after the xor):
                    // adding 0x76 sets it for 10...0x89, `| t` for 0x80 and up. A byte >= 0x8A
                    // carries into the next one, but it is flagged itself, and only the first
                    // non-digit matters.
                    let nonDigit = ((t &+ 0x7676_7676_7676_7676) | t) & high
                    // Top bit of byte 1 set when the first digit is 0 (the borrow of `t - 1`
                    // reaches bit 7 only from a zero byte 0); the shift below drops it when the 0
                    // is the only digit, so it flags a leading zero. No branch: the digit count
                    // changes from value to value.
                    let leadingZero = (((t &- 1) & ~t) & 0x80) &<< 8
                    guard (nonDigit | leadingZero) &<< shift == 0 else { return false }
                    var v = t &<< shift
                    v = (v &* 2561) &>> 8
                    v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
                    v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
                    let magnitude = Int32(truncatingIfNeeded: v)
                    out[n] = negative ? 0 &- magnitude : magnitude
                    n &+= 1
                    tokenStart = comma &+ 1
                    commas &= commas &- 1
                } while commas != 0
                return true
            }
            guard minus == 0 ? tokens(signed: false) : tokens(signed: true) else { return (tokenStart, n) }
        }
        return (tokenStart, n)
    }

    /// Decodes a JSON integer of 1 to 7 digits (optionally negative) at `pos` from one 8-byte
    /// load, when at least 9 bytes remain. Returns nil, with `pos` unchanged, for anything it does
    /// not fully decide: no digit, 8+ digits, a leading zero followed by a digit (`01`, a syntax
    /// error), or a `.`/`e`/`E` after the digits (not an integer). Such values go to `slowValue`.
    @inline(__always)
    static func fastInteger(_ base: UnsafePointer<UInt8>, _ end: Int, _ pos: inout Int) -> Int32? {
        guard pos &+ 9 <= end else { return nil }
        let negative = base[pos] == _minus
        let p = negative ? pos &+ 1 : pos
        let word = UInt64(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
        // Byte-wise: digits become 0...9. A byte is a non-digit when it is >= 10 after the xor;
        // adding 0x76 sets its top bit then (a carry out of a non-digit byte only disturbs the
        // bytes after it, and only the first non-digit matters).
        let t = word ^ 0x3030_3030_3030_3030
        let nonDigit = ((t &+ 0x7676_7676_7676_7676) | t) & 0x8080_8080_8080_8080
        let length = nonDigit.trailingZeroBitCount &>> 3       // digits before the first non-digit
        guard UInt(bitPattern: length &- 1) < 7 else { return nil }   // 1...7 digits
        if length > 1 && t & 0xFF == 0 { return nil }           // leading zero
        let terminator = UInt8(truncatingIfNeeded: word &>> UInt64(length &* 8))
        if terminator == _dot || terminator | 0x20 == 0x65 { return nil }   // . e E
        // The digits moved to the top bytes (most significant first), then combined pairwise.
        var v = t &<< UInt64((8 &- length) &* 8)
        v = ((v & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) &>> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
        let magnitude = Int32(truncatingIfNeeded: v)
        pos = p &+ length
        return negative ? 0 &- magnitude : magnitude
    }

    /// One `points` value by the full grammar, at `pos` (no leading whitespace). Returns the value
    /// to store (0 when it is not an integer in the 32-bit range, recording the first problem).
    @inline(never)
    private func slowValue(_ s: inout JSONScanner, at start: Int, index n: Int,
                           problem: inout ElementProblem?) throws(JSONError) -> (Int32, Int) {
        let base = s.base, end = s.count
        var pos = start
        @inline(__always) func at(_ i: Int) -> UInt8 { i < end ? base[i] : 0 }
        let numberStart = pos
        var c = at(pos)
        guard c == _minus || (c >= _zero && c <= _nine) else {
            // A string, object, literal... validated and skipped.
            s.pos = pos
            let v = try s.parseValue(.typeOnly)
            pos = s.pos
            if problem == nil {
                problem = ElementProblem(id: nil, rule: "points-integer", message: "points value \(n) is \(v.typeName), not an integer")
            }
            return (0, pos)
        }
        var value: Int64 = 0
        let negative = c == _minus
        if negative { pos += 1; c = at(pos) }
        var digits = 0
        if c == _zero {
            pos += 1
            digits = 1
        } else if c > _zero && c <= _nine {
            repeat {
                // No leading zeros, so 11+ digits is beyond Int32 whatever they are.
                if digits < 11 { value = value &* 10 &+ Int64(c &- _zero) }
                digits += 1
                pos += 1
                c = at(pos)
            } while c >= _zero && c <= _nine
        } else {
            s.pos = pos
            throw s.error("invalid number")
        }
        c = at(pos)
        if c == _dot || c == 0x65 || c == 0x45 {
            // Not a JSON integer: validate it with the general number scanner.
            s.pos = numberStart
            _ = try s.scanNumber()
            pos = s.pos
            if problem == nil {
                let text = String(decoding: UnsafeBufferPointer(start: base + numberStart, count: pos - numberStart), as: UTF8.self)
                problem = ElementProblem(id: nil, rule: "points-integer",
                                         message: "points value \(n) is \(text), not a JSON integer")
            }
            return (0, pos)
        }
        if negative { value = -value }
        if digits > 10 || value < Int64(Int32.min) || value > Int64(Int32.max) {
            if problem == nil {
                let text = String(decoding: UnsafeBufferPointer(start: base + numberStart, count: pos - numberStart), as: UTF8.self)
                problem = ElementProblem(id: nil, rule: ElementReader.rangeRule(field: n % 5),
                                         message: "points value \(n) (\(ElementReader.fieldName(n % 5)) of sample \(n / 5)) is \(text), outside the 32-bit range")
            }
            return (0, pos)
        }
        return (Int32(truncatingIfNeeded: value), pos)
    }

    static func fieldName(_ f: Int) -> String { ["x", "y", "r", "p", "t"][f] }

    static func rangeRule(field: Int) -> String {
        switch field {
        case 0, 1: return "coordinate-range"
        case 2: return "radius-range"
        case 3: return "pressure-range"
        default: return "time-range"
        }
    }
}

/// Asset file names: `<UUID>.jpg` or `<UUID>.png`, extension of either case, nothing else.
public enum AssetName {
    public static func isValid(_ name: String) -> Bool {
        let u = Array(name.utf8)
        guard u.count == 40, u[36] == _dot else { return false }
        guard LNoteID(String(decoding: u[0..<36], as: UTF8.self)) != nil else { return false }
        let ext = String(decoding: u[37...], as: UTF8.self).lowercased()
        return ext == "jpg" || ext == "png"
    }

    /// The UUID part of a valid asset name.
    public static func id(of name: String) -> LNoteID? {
        guard isValid(name) else { return nil }
        return LNoteID(String(name.utf8.prefix(36))!)
    }
}
