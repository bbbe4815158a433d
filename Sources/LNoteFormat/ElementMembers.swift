// The members of an element's JSON object, as text: for a store that keeps the fields it knows in
// columns of their own and must keep every other member (keys a newer app added) unchanged.

import Glibc

/// One member of an element's JSON object, as read.
public struct ElementMember: Sendable, Equatable {
    /// The decoded key.
    public var key: String
    /// `"key":value` exactly as in the element's text.
    public var text: [UInt8]
    /// The value, when it is a JSON string.
    public var stringValue: String?
}

extension Element {
    /// The members of the element's JSON object in order, duplicates included. Empty when the
    /// text is not a JSON object (a parsed element's always is).
    public var members: [ElementMember] {
        let json = self.json
        return json.withUnsafeBufferPointer { buf -> [ElementMember] in
            var s = JSONScanner(buf)
            var out: [ElementMember] = []
            var key: [UInt8] = []
            var first = true
            do {
                try s.beginObject()
                var searchStart = s.pos
                while try s.nextMember(first: &first, key: &key) {
                    // Between the previous value and the key there is only whitespace and at most
                    // one comma, so the key starts at the first quote after it.
                    var keyStart = searchStart
                    while buf[keyStart] != _quote { keyStart += 1 }
                    var value: String? = nil
                    if s.peek() == _quote {
                        value = try s.readString()
                    } else if let end = Self.endOfIntegerArray(buf, at: s.pos) {
                        s.pos = end  // a stroke's points: most of the text, skipped by one tight loop
                    } else {
                        try s.walk(.skip)
                    }
                    let end = s.pos
                    out.append(ElementMember(key: String(decoding: key, as: UTF8.self),
                                             text: Array(buf[keyStart..<end]), stringValue: value))
                    searchStart = end
                }
            } catch {
                return []
            }
            return out
        }
    }

    /// The end (after `]`) of an array at `start` that holds no array, object or string: its
    /// first `]` closes it. Nil for anything else, which the scanner then skips by the full
    /// grammar. memchr, because a stroke's points are most of an element's bytes. The text is an
    /// element that has been parsed already, so it is valid JSON.
    private static func endOfIntegerArray(_ buf: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        guard start < buf.count, buf[start] == _lbracket, let base = buf.baseAddress else { return nil }
        let from = base + start + 1
        let rest = buf.count - start - 1
        guard let close = memchr(from, Int32(_rbracket), rest) else { return nil }
        let length = UnsafeRawPointer(close) - UnsafeRawPointer(from)
        for c in [_lbracket, _lbrace, _quote] where memchr(from, Int32(c), length) != nil { return nil }
        return start + 1 + length + 1
    }
}
