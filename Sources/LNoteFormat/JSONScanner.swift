// A purpose-built, validating JSON byte scanner (RFC 8259) over a contiguous UTF-8 buffer.
//
// Why not Foundation: JSONDecoder/JSONSerialization take ~300 ms on a dense 4.6 MB page; this
// scanner is a single forward pass with no allocation per number. It is still a complete JSON
// validator: everything it skips (unknown keys, values of any shape) is checked against the
// grammar, strings are checked for valid escapes, surrogate pairs, control characters and valid
// UTF-8, and nesting deeper than `JSONLimits.maxDepth` is an error. One walker (`walk`) goes over
// a value, in a mode that says what is kept; it recurses at most `maxDepth` levels because every
// container entry checks the depth first.

/// Limits of the JSON grammar as the format contract applies it.
public enum JSONLimits {
    /// Nesting deeper than this many containers is invalid (section 4 and 7).
    public static let maxDepth = 64
}

/// A syntax error in a JSON text, with the byte offset where it was detected.
public struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    public var offset: Int
    public var message: String

    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    public var description: String { "invalid JSON at byte \(offset): \(message)" }
}

/// A JSON number as scanned: whether it is a JSON integer (no fraction, no exponent) and, when
/// it is one that fits, its value. `int` is nil for non-integers and for integers outside the
/// Int64 range, so callers never trap on overflow.
public struct JSONNumber: Sendable, Equatable {
    public var isInteger: Bool
    public var int: Int64?
    /// The number's text exactly as written.
    public var text: String
}

/// A parsed JSON value, for the small files (document.json, manifest.json) and for the scalar
/// fields of elements. Objects keep their members in order, duplicates included; lookups take
/// the last occurrence (RFC 8259 leaves it open; the contract says the last counts).
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// The value of the last member named `key`, if this is an object that has one.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members.reversed() where member.key == key { return member.value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The value if this is a JSON integer that fits in Int64; nil for `12.0`, `1e3`, strings...
    public var integerValue: Int64? {
        if case .number(let n) = self, n.isInteger { return n.int }
        return nil
    }

    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }

    /// A short name of the value's JSON type, for messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number(let n): return n.isInteger ? "an integer" : "a non-integer number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parses a complete JSON text (BOM tolerated, trailing garbage rejected).
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try parse(bytes, shape: .all)
    }

    /// Parses a complete JSON text, building only `shape` of it (see `JSONShape`); the rest is
    /// validated exactly as `parse` would, with the same errors.
    static func parse(_ bytes: [UInt8], shape: JSONShape) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buf) throws(JSONError) -> JSONValue in
            var s = JSONScanner(buf)
            s.skipBOM()
            let v = try s.walk(.keep(shape))
            try s.finish()
            return v
        }
    }
}

/// What of a value `JSONScanner.walk(.keep(_:))` builds. A general `JSONValue` tree costs about
/// 36 bytes of memory per input byte (a boxed value per number), so a 1 GiB content file whose
/// `format` is a huge array, or a 256 MiB document.json, would need tens of GB; values whose
/// contents nobody reads are validated but not built.
indirect enum JSONShape: Sendable {
    /// Everything is built.
    case all
    /// Scalars are built; an array or object comes back empty (its `typeName` is right, its
    /// contents are not there).
    case typeOnly
    /// An object keeps only the members with these names, each built to its shape, and of
    /// duplicates only the last (the one that counts). Any other value is as `typeOnly`.
    case object([String: JSONShape])
}

// ASCII bytes used by the scanner.
@usableFromInline let _quote: UInt8 = 0x22, _backslash: UInt8 = 0x5C, _comma: UInt8 = 0x2C, _colon: UInt8 = 0x3A
@usableFromInline let _lbrace: UInt8 = 0x7B, _rbrace: UInt8 = 0x7D, _lbracket: UInt8 = 0x5B, _rbracket: UInt8 = 0x5D
@usableFromInline let _minus: UInt8 = 0x2D, _plus: UInt8 = 0x2B, _dot: UInt8 = 0x2E, _zero: UInt8 = 0x30, _nine: UInt8 = 0x39

/// The scanner. It reads a buffer it does not own: create it inside `withUnsafeBufferPointer`
/// and do not let it escape. Reading past the end yields 0, which no JSON token accepts (a raw
/// NUL is neither whitespace nor allowed in a string), so end-of-input needs no separate check
/// in the hot paths.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var pos: Int = 0
    /// Containers currently open (the top-level value counts as level 1 when it is one).
    var depth: Int = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        // An empty buffer has a nil base address; point at a static zero byte instead.
        self.base = buffer.baseAddress ?? JSONScanner.emptyBase
        self.count = buffer.count
    }

    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    @inline(__always) var atEnd: Bool { pos >= count }

    @inline(__always) func peek() -> UInt8 { pos < count ? base[pos] : 0 }

    @inline(__always) func byte(at i: Int) -> UInt8 { i < count ? base[i] : 0 }

    func error(_ message: String, at offset: Int? = nil) -> JSONError {
        JSONError(offset: offset ?? pos, message: message)
    }

    /// Skips a UTF-8 byte-order mark at the very start (tolerated by the contract).
    mutating func skipBOM() {
        if count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF { pos = 3 }
    }

    /// JSON whitespace is exactly space, tab, LF, CR.
    @inline(__always) static func isWhitespace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    @inline(__always) mutating func skipWhitespace() {
        while pos < count, JSONScanner.isWhitespace(base[pos]) { pos += 1 }
    }

    /// After the top-level value: only whitespace may follow.
    mutating func finish() throws(JSONError) {
        skipWhitespace()
        if pos != count { throw error("unexpected data after the end of the JSON value") }
    }

    @inline(__always) mutating func expect(_ c: UInt8, _ what: StaticString) throws(JSONError) {
        skipWhitespace()
        guard peek() == c else { throw error("expected \(what)") }
        pos += 1
    }

    // MARK: containers

    @inline(__always) mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > JSONLimits.maxDepth { throw error("nesting deeper than \(JSONLimits.maxDepth) levels") }
    }

    /// Consumes `{` (after whitespace). Then call `nextMember` until it returns false.
    mutating func beginObject() throws(JSONError) {
        skipWhitespace()
        guard peek() == _lbrace else { throw error("expected an object") }
        pos += 1
        try enterContainer()
    }

    /// Moves to the next member of the object being read: returns false (having consumed `}`)
    /// at the end, or true with the key decoded into `key` and the `:` consumed, positioned at
    /// the value, which the caller must consume.
    mutating func nextMember(first: inout Bool, key: inout [UInt8]) throws(JSONError) -> Bool {
        guard let found = try nextMemberKey(first: &first, key: &key) else { return false }
        if case .plain(let start, let count) = found {
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count))
        }
        return true
    }

    /// Where `nextMemberKey` left the key.
    enum MemberKey {
        /// The key had no escapes and only printable ASCII: its bytes are `base[start..<start+count]`.
        case plain(start: Int, count: Int)
        /// The key was decoded into the caller's buffer.
        case decoded
    }

    /// `nextMember` without copying plain keys: returns nil (having consumed `}`) at the end of
    /// the object, or where the key is, with the `:` consumed and positioned at the value. Keys
    /// with escapes or non-ASCII bytes take the full path and are decoded into `key`.
    mutating func nextMemberKey(first: inout Bool, key: inout [UInt8]) throws(JSONError) -> MemberKey? {
        guard try nextEntry(first: &first, close: _rbrace, "expected ',' or '}' in an object") else { return nil }
        guard peek() == _quote else { throw error("expected a string key") }
        let result: MemberKey
        if let r = scanPlainString() {
            result = .plain(start: r.lowerBound, count: r.count)
        } else {
            key.removeAll(keepingCapacity: true)
            try readStringBytes(into: &key)
            result = .decoded
        }
        try expect(_colon, "':' after an object key")
        skipWhitespace()
        return result
    }

    /// At a string's opening quote: when the string holds only printable ASCII and no escape,
    /// consumes it and returns its content's range (nothing to validate or decode); otherwise
    /// returns nil and leaves `pos` alone, for the full scanner.
    @inline(__always)
    mutating func scanPlainString() -> Range<Int>? {
        var i = pos &+ 1
        while i < count {
            let c = base[i]
            if c == _quote {
                let r = (pos &+ 1)..<i
                pos = i &+ 1
                return r
            }
            if c < 0x20 || c >= 0x80 || c == _backslash { return nil }
            i &+= 1
        }
        return nil
    }

    /// Consumes `[` (after whitespace). Then call `nextElement` until it returns false.
    mutating func beginArray() throws(JSONError) {
        skipWhitespace()
        guard peek() == _lbracket else { throw error("expected an array") }
        pos += 1
        try enterContainer()
    }

    /// Returns false (having consumed `]`) at the end of the array, or true positioned at the
    /// next value, which the caller must consume.
    @inline(__always)
    mutating func nextElement(first: inout Bool) throws(JSONError) -> Bool {
        let afterComma = !first
        guard try nextEntry(first: &first, close: _rbracket, "expected ',' or ']' in an array") else { return false }
        // `[1,]` is not JSON: a value must follow the comma.
        if afterComma && peek() == _rbracket { throw error("expected a value after ','") }
        return true
    }

    /// The entry grammar of both containers: false (having consumed `close`, leaving the
    /// container) at its end, or true positioned at the next entry, past its `,` unless it is
    /// the first; `message` is the error where neither follows an entry.
    @inline(__always)
    private mutating func nextEntry(first: inout Bool, close: UInt8, _ message: StaticString) throws(JSONError) -> Bool {
        skipWhitespace()
        let c = peek()
        if c == close { pos += 1; depth -= 1; return false }
        if first {
            first = false
        } else {
            guard c == _comma else { throw error("\(message)") }
            pos += 1
            skipWhitespace()
        }
        return true
    }

    // MARK: strings

    /// Reads a string (positioned at its opening quote), appending its decoded UTF-8 to `out`.
    mutating func readStringBytes(into out: inout [UInt8]) throws(JSONError) {
        try scanString(output: &out, keep: true)
    }

    mutating func readString() throws(JSONError) -> String {
        var bytes: [UInt8] = []
        try scanString(output: &bytes, keep: true)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Validates a string without keeping it.
    mutating func skipString() throws(JSONError) {
        var none: [UInt8] = []
        try scanString(output: &none, keep: false)
    }

    private mutating func scanString(output out: inout [UInt8], keep: Bool) throws(JSONError) {
        guard peek() == _quote else { throw error("expected a string") }
        pos += 1
        var runStart = pos
        while true {
            // Fast path: plain printable ASCII.
            while pos < count {
                let c = base[pos]
                if c >= 0x20 && c < 0x80 && c != _quote && c != _backslash { pos += 1 } else { break }
            }
            if keep && pos > runStart { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: pos - runStart)) }
            guard pos < count else { throw error("unterminated string") }
            let c = base[pos]
            if c == _quote {
                pos += 1
                return
            } else if c == _backslash {
                try scanEscape(output: &out, keep: keep)
            } else if c < 0x20 {
                throw error("unescaped control character in a string")
            } else {
                let start = pos
                try scanUTF8Sequence()
                if keep { out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: pos - start)) }
            }
            runStart = pos
        }
    }

    /// Validates one multi-byte UTF-8 sequence at `pos` (Unicode table 3-7: no overlong forms, no
    /// surrogates, nothing above U+10FFFF).
    private mutating func scanUTF8Sequence() throws(JSONError) {
        let b0 = base[pos]
        var n = 0
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: n = 1
        case 0xE0: n = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 2
        case 0xED: n = 2; hi = 0x9F
        case 0xF0: n = 3; lo = 0x90
        case 0xF1...0xF3: n = 3
        case 0xF4: n = 3; hi = 0x8F
        default: throw error("invalid UTF-8")
        }
        let b1 = byte(at: pos + 1)
        guard b1 >= lo && b1 <= hi else { throw error("invalid UTF-8") }
        var i = 2
        while i <= n {
            let b = byte(at: pos + i)
            guard b >= 0x80 && b <= 0xBF else { throw error("invalid UTF-8") }
            i += 1
        }
        pos += n + 1
    }

    private mutating func scanHex4() throws(JSONError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = peek()
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw error("invalid \\u escape")
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    private mutating func scanEscape(output out: inout [UInt8], keep: Bool) throws(JSONError) {
        let start = pos
        pos += 1 // the backslash
        let c = peek()
        pos += 1
        var decoded: UInt8
        switch c {
        case _quote: decoded = _quote
        case _backslash: decoded = _backslash
        case 0x2F: decoded = 0x2F          // \/
        case 0x62: decoded = 0x08          // \b
        case 0x66: decoded = 0x0C          // \f
        case 0x6E: decoded = 0x0A          // \n
        case 0x72: decoded = 0x0D          // \r
        case 0x74: decoded = 0x09          // \t
        case 0x75:                          // \uXXXX
            var scalar = try scanHex4()
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard peek() == _backslash, byte(at: pos + 1) == 0x75 else {
                    throw error("lone surrogate in \\u escape", at: start)
                }
                pos += 2
                let low = try scanHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw error("lone surrogate in \\u escape", at: start) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw error("lone surrogate in \\u escape", at: start)
            }
            if keep { JSONScanner.appendUTF8(scalar, to: &out) }
            return
        default:
            throw error("invalid escape sequence", at: start)
        }
        if keep { out.append(decoded) }
    }

    static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
        switch v {
        case 0..<0x80:
            out.append(UInt8(v))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (v >> 6))); out.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (v >> 12))); out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (v >> 18))); out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F))); out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: numbers

    /// Scans a number per the JSON grammar `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    /// Integers are accumulated with overflow detection; nothing here can trap.
    mutating func readNumber() throws(JSONError) -> JSONNumber {
        let start = pos
        let (isInteger, value) = try scanNumber()
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self)
        return JSONNumber(isInteger: isInteger, int: isInteger ? value : nil, text: text)
    }

    /// The number at `pos`: (is a JSON integer, its value when an integer within Int64).
    @inline(__always)
    mutating func scanNumber() throws(JSONError) -> (Bool, Int64?) {
        var negative = false
        if peek() == _minus { negative = true; pos += 1 }
        var c = peek()
        var magnitude: UInt64 = 0
        var overflow = false
        if c == _zero {
            pos += 1
        } else if c > _zero && c <= _nine {
            while true {
                c = peek()
                guard c >= _zero && c <= _nine else { break }
                let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (a, o2) = m.addingReportingOverflow(UInt64(c - _zero))
                if o1 || o2 { overflow = true } else { magnitude = a }
                pos += 1
            }
        } else {
            throw error("invalid number")
        }
        var isInteger = true
        if peek() == _dot {
            isInteger = false
            pos += 1
            guard peek() >= _zero && peek() <= _nine else { throw error("invalid number: digit expected after '.'") }
            while peek() >= _zero && peek() <= _nine { pos += 1 }
        }
        c = peek()
        if c == 0x65 || c == 0x45 { // e E
            isInteger = false
            pos += 1
            if peek() == _plus || peek() == _minus { pos += 1 }
            guard peek() >= _zero && peek() <= _nine else { throw error("invalid number: digit expected in exponent") }
            while peek() >= _zero && peek() <= _nine { pos += 1 }
        }
        guard isInteger, !overflow else { return (isInteger, nil) }
        if negative {
            if magnitude <= UInt64(Int64.max) { return (true, -Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return (true, Int64.min) }
            return (true, nil)
        }
        return (true, magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil)
    }

    // MARK: literals and generic values

    private mutating func scanLiteral(_ word: StaticString) throws(JSONError) {
        let n = word.utf8CodeUnitCount
        let p = word.utf8Start
        for i in 0..<n where byte(at: pos + i) != p[i] { throw error("invalid literal") }
        pos += n
    }

    /// Walks one value in `mode`: validates all of it and builds what the mode keeps. This is
    /// the only walk over a JSON value (skipping an unknown member, validating a value nobody
    /// reads and building a `JSONValue` are its modes), so the grammar, the depth limit and the
    /// errors are the same whatever is kept. Recursion is bounded: each container level first
    /// passes `enterContainer`, which fails beyond `JSONLimits.maxDepth`. Each mode is a type of
    /// its own, so the walk is specialised per mode at compile time.
    @discardableResult
    mutating func walk<Mode: JSONWalkMode>(_ mode: Mode) throws(JSONError) -> Mode.Value {
        skipWhitespace()
        switch peek() {
        case _lbrace:
            try beginObject()
            var members: [(key: String, value: Mode.Value)] = []
            var first = true
            var key: [UInt8] = []
            if mode.readsKeys {
                while try nextMember(first: &first, key: &key) {
                    let k = String(decoding: key, as: UTF8.self)
                    if let inner = mode.member(k) { mode.add(k, try walk(inner), to: &members) } else { try walk(.skip) }
                }
            } else {
                while try nextMemberKey(first: &first, key: &key) != nil { try walk(.skip) }
            }
            return mode.object(members)
        case _lbracket:
            try beginArray()
            var items: [Mode.Value] = []
            var first = true
            if let inner = mode.element {
                while try nextElement(first: &first) { items.append(try walk(inner)) }
            } else {
                while try nextElement(first: &first) { try walk(.skip) }
            }
            return mode.array(items)
        case _quote: return try mode.string(&self)
        case 0x74: try scanLiteral("true"); return mode.literal(.bool(true))
        case 0x66: try scanLiteral("false"); return mode.literal(.bool(false))
        case 0x6E: try scanLiteral("null"); return mode.literal(.null)
        case _minus, _zero..._nine: return try mode.number(&self)
        default: throw error(atEnd ? "unexpected end of input" : "expected a value")
        }
    }
}

/// What `JSONScanner.walk` makes of a value; the walker decides everything else. A container
/// whose contents the mode does not keep is still walked (in `.skip`), so it is validated.
protocol JSONWalkMode {
    associatedtype Value
    /// Whether object keys are decoded for `member`; false where no member is kept.
    var readsKeys: Bool { get }
    /// The mode for the value of the member named `key`; nil: validated only.
    func member(_ key: String) -> Self?
    /// The mode for an array's elements; nil: validated only.
    var element: Self? { get }
    /// Keeps a walked member.
    func add(_ key: String, _ value: Value, to members: inout [(key: String, value: Value)])
    func object(_ members: [(key: String, value: Value)]) -> Value
    func array(_ items: [Value]) -> Value
    /// Consumes the string or number at the scanner's position (its grammar is the scanner's).
    func string(_ s: inout JSONScanner) throws(JSONError) -> Value
    func number(_ s: inout JSONScanner) throws(JSONError) -> Value
    /// `true`, `false` or `null`, already consumed.
    func literal(_ v: JSONValue) -> Value
}

/// Validates a value and builds nothing: unknown members, values nobody reads.
struct JSONSkip: JSONWalkMode {
    var readsKeys: Bool { false }
    func member(_ key: String) -> JSONSkip? { nil }
    var element: JSONSkip? { nil }
    func add(_ key: String, _ value: Void, to members: inout [(key: String, value: Void)]) {}
    func object(_ members: [(key: String, value: Void)]) {}
    func array(_ items: [Void]) {}
    @inline(__always) func string(_ s: inout JSONScanner) throws(JSONError) { try s.skipString() }
    @inline(__always) func number(_ s: inout JSONScanner) throws(JSONError) { _ = try s.scanNumber() }
    func literal(_ v: JSONValue) {}
}

/// Builds a `JSONValue` to `shape`: scalars always, containers as far as the shape says.
struct JSONKeep: JSONWalkMode {
    var shape: JSONShape

    var readsKeys: Bool {
        switch shape {
        case .all, .object: return true
        case .typeOnly: return false
        }
    }

    func member(_ key: String) -> JSONKeep? {
        switch shape {
        case .all: return self
        case .object(let fields): return fields[key].map(JSONKeep.init)
        case .typeOnly: return nil
        }
    }

    var element: JSONKeep? {
        if case .all = shape { return self }
        return nil
    }

    func add(_ key: String, _ value: JSONValue, to members: inout [(key: String, value: JSONValue)]) {
        // Of a shape's members only the last of duplicates counts: a million repeats of a kept
        // key stay one. A whole value keeps them all, in order.
        if case .object = shape, let i = members.firstIndex(where: { $0.key == key }) { members.remove(at: i) }
        members.append((key, value))
    }

    func object(_ members: [(key: String, value: JSONValue)]) -> JSONValue { .object(members) }
    func array(_ items: [JSONValue]) -> JSONValue { .array(items) }
    func string(_ s: inout JSONScanner) throws(JSONError) -> JSONValue { .string(try s.readString()) }
    func number(_ s: inout JSONScanner) throws(JSONError) -> JSONValue { .number(try s.readNumber()) }
    func literal(_ v: JSONValue) -> JSONValue { v }
}

extension JSONWalkMode where Self == JSONSkip {
    /// Validates the value only.
    static var skip: JSONSkip { JSONSkip() }
}

extension JSONWalkMode where Self == JSONKeep {
    /// Builds the value to `shape`.
    static func keep(_ shape: JSONShape) -> JSONKeep { JSONKeep(shape: shape) }
}
