// The members of an element's JSON object, as text: for a store that keeps the fields it knows in
// columns of their own and must keep every other member (keys a newer app added) unchanged.

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
                    if s.peek() == _quote { value = try s.readString() } else { try s.skipValue() }
                    var end = s.pos
                    while end > keyStart, JSONScanner.isWhitespace(buf[end - 1]) { end -= 1 }
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
}
