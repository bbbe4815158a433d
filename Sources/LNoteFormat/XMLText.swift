// Text inside the XML and HTML this project writes (SVG pages, the JUnit file, the snapshot
// report): the one place markup characters are escaped and characters XML 1.0 does not allow
// are dropped, so a title or a message can never break the document it lands in.

public enum XMLText {
    /// For an attribute value: markup characters and both quotes escaped, and line breaks and
    /// tabs as character references (an attribute's whitespace is otherwise normalized away).
    public static func attribute(_ s: String) -> String { escape(s, whitespaceAsReferences: true) }

    /// For element content: the same, with line breaks kept as they are.
    public static func content(_ s: String) -> String { escape(s, whitespaceAsReferences: false) }

    private static func escape(_ s: String, whitespaceAsReferences: Bool) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += whitespaceAsReferences ? "&#10;" : "\n"
            case "\t", "\r": out += "&#\(u.value);"
            default:
                // C0 controls other than tab, LF and CR, and U+FFFE/U+FFFF, are not XML 1.0 characters.
                if u.value < 0x20 || (0xFFFE...0xFFFF).contains(u.value) { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
