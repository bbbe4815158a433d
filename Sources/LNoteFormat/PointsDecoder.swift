// The hot loop of parsing: a stroke's `points` array decoded into a reusable Int32 buffer, eight
// bytes at a time where the values are short integers (`decodeIntegerRun`, `fastInteger`), by
// the full JSON grammar otherwise (`slowValue`).

extension ElementReader {
    struct PointsScan {
        var count = 0
        var problem: ElementProblem? = nil
        var notArray: String? = nil
    }

    /// The hot loop: a `points` array decoded into the scratch buffer. Values that are not JSON
    /// integers, or do not fit their field, are remembered as the first problem while the rest of
    /// the array is still validated (the file must be valid JSON whatever the element's fate).
    ///
    /// Most values are short integers followed directly by `,`: those are decoded eight bytes at
    /// a time (`fastInteger`), with no branch per digit. Anything else (9+ digits, a leading zero,
    /// a fraction or exponent, a non-number, the last few bytes of the buffer) takes `slowValue`,
    /// which applies the full grammar and reports exactly as before.
    mutating func readPoints(_ s: inout JSONScanner) throws(JSONError) -> PointsScan {
        var result = PointsScan()
        guard s.peek() == _lbracket else {
            result.notArray = try s.walk(.keep(.typeOnly)).typeName
            return result
        }
        try s.beginArray()
        let base = s.base, end = s.count
        var pos = s.pos
        var out = scratch.p
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
                scratch.reserve(scratch.capacity * 2, keep: n)
                out = scratch.p
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
                scratch.reserve(scratch.capacity * 2, keep: n)
                out = scratch.p
                limit = min(scratch.capacity, ElementReader.maxValues)
                out[n] = value
            } else if n == ElementReader.maxValues && result.problem == nil {
                result.problem = ElementProblem(id: nil, code: .sampleLimit,
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
    fileprivate func slowValue(_ s: inout JSONScanner, at start: Int, index n: Int,
                           problem: inout ElementProblem?) throws(JSONError) -> (Int32, Int) {
        let base = s.base, end = s.count
        var pos = start
        @inline(__always) func at(_ i: Int) -> UInt8 { i < end ? base[i] : 0 }
        let numberStart = pos
        var c = at(pos)
        guard c == _minus || (c >= _zero && c <= _nine) else {
            // A string, object, literal... validated and skipped.
            s.pos = pos
            let v = try s.walk(.keep(.typeOnly))
            pos = s.pos
            if problem == nil {
                problem = ElementProblem(id: nil, code: .pointsInteger, message: "points value \(n) is \(v.typeName), not an integer")
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
                problem = ElementProblem(id: nil, code: .pointsInteger,
                                         message: "points value \(n) is \(text), not a JSON integer")
            }
            return (0, pos)
        }
        if negative { value = -value }
        if digits > 10 || value < Int64(Int32.min) || value > Int64(Int32.max) {
            if problem == nil {
                let text = String(decoding: UnsafeBufferPointer(start: base + numberStart, count: pos - numberStart), as: UTF8.self)
                problem = ElementProblem(id: nil, code: ElementReader.rangeCode(field: n % 5),
                                         message: "points value \(n) (\(ElementReader.fieldName(n % 5)) of sample \(n / 5)) is \(text), outside the 32-bit range")
            }
            return (0, pos)
        }
        return (Int32(truncatingIfNeeded: value), pos)
    }

    static func fieldName(_ f: Int) -> String { ["x", "y", "r", "p", "t"][f] }

    static func rangeCode(field: Int) -> Code {
        switch field {
        case 0, 1: return .coordinateRange
        case 2: return .radiusRange
        case 3: return .pressureRange
        default: return .timeRange
        }
    }
}
