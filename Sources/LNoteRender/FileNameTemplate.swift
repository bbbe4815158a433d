/// The names of pages exported into a directory: a template such as `page-{page:3}.{ext}` (the
/// default: `page-001.png`, …) or `{title}-{page}.{ext}`.
///
/// Placeholders: `{page}` the 1-based page number, `{page:N}` zero-padded to N digits (1–9),
/// `{id}` the page's UUID (upper case), `{title}` the document's title made safe for a file name,
/// `{ext}` the format's extension (`png`, `jpg`). A template for several pages must name each
/// differently, so it holds `{page…}` or `{id}` (`refusal(pageCount:)`); it names a file in the
/// directory, so it holds no `/`.
public struct FileNameTemplate: Sendable, Equatable {
    enum Part: Sendable, Equatable {
        case literal(String)
        case page(width: Int)
        case id, title, ext
    }

    let parts: [Part]
    public let text: String

    /// `page-{page:3}.{ext}`.
    public static let standard = try! FileNameTemplate("page-{page:3}.{ext}")

    /// Why a template is refused, in words for the user.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public init(_ text: String) throws(Invalid) {
        self.text = text
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            guard c == "{" else { literal.append(c); continue }
            guard let close = rest.firstIndex(of: "}") else { throw Invalid(message: "'{' without '}' in '\(text)'") }
            let name = rest[..<close]
            rest = rest[rest.index(after: close)...]
            if !literal.isEmpty { parts.append(.literal(literal)); literal = "" }
            switch name {
            case "page": parts.append(.page(width: 1))
            case "id": parts.append(.id)
            case "title": parts.append(.title)
            case "ext": parts.append(.ext)
            default:
                if name.hasPrefix("page:"), let w = Int(name.dropFirst(5)), (1...9).contains(w) {
                    parts.append(.page(width: w))
                } else {
                    throw Invalid(message: "unknown placeholder {\(name)} in '\(text)' (use {page}, {page:3}, {id}, {title}, {ext})")
                }
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        if text.contains("/") || text.contains("\0") { throw Invalid(message: "'\(text)' names a file inside the output directory: no '/'") }
        self.parts = parts
    }

    /// Whether each page gets its own name (`{page…}` or `{id}`): what a template needs for
    /// more than one page.
    public var namesEachPage: Bool {
        parts.contains(where: { if case .page = $0 { return true }; return $0 == .id })
    }

    /// Why this template cannot name `pageCount` pages, nil when it can.
    public func refusal(pageCount: Int) -> Invalid? {
        pageCount > 1 && !namesEachPage ? Invalid(message: "'\(text)' would give every page the same name: include {page} or {id}") : nil
    }

    /// The literal extension the template ends with (`.png` in `{page}.png`), if any.
    public var literalExtension: String? {
        guard case .literal(let tail)? = parts.last, let dot = tail.lastIndex(of: ".") else { return nil }
        let ext = tail[tail.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }

    /// The file name of a page. Never empty, never `.` or `..`, never with a `/`.
    public func name(page number: Int, id: String, title: String, format: ExportFormat) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .page(let width):
                let digits = String(number)
                out += String(repeating: "0", count: max(0, width - digits.count)) + digits
            case .id: out += id
            case .title: out += Self.safe(title)
            case .ext: out += format.fileExtension
            }
        }
        return out
    }

    /// A title as part of a file name: path separators, control characters and a leading dot
    /// replaced, at most 80 characters; "untitled" when nothing is left.
    static func safe(_ title: String) -> String {
        var s = String(title.unicodeScalars.map { u -> Character in
            u == "/" || u == "\\" || u.value < 0x20 || (0x7F...0x9F).contains(u.value) ? "_" : Character(u)
        }.prefix(80))
        while s.hasPrefix(".") { s = "_" + s.dropFirst() }
        s = s.trimmingSpaces()
        return s.isEmpty ? "untitled" : s
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
