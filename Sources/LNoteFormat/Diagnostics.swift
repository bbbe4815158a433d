// Diagnostics (warnings about input that was repaired or skipped) and the error type for input
// that makes a page or the whole document fail. Both name the file relative to the package, so
// a message is useful without knowing where the package lives.

/// One finding about a package: a skipped element, a background value replaced by its default,
/// a discarded journal frame...
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case error, warning
    }

    public var severity: Severity
    /// Path relative to the package, e.g. `pages/<UUID>.content` or `document.json`.
    public var file: String
    /// Index of the element (in a content file) or of the page (in document.json), if any.
    public var elementIndex: Int?
    /// The element's id as written, if it had one.
    public var elementID: String?
    /// Byte offset in the file (journal frames), if meaningful.
    public var offset: Int?
    /// The stable code, e.g. `.pointsLength`, `.radiusRange`, `.backgroundColor`.
    public var code: Code
    /// A human sentence saying what is wrong.
    public var message: String

    public init(severity: Severity = .warning, file: String, elementIndex: Int? = nil, elementID: String? = nil,
                offset: Int? = nil, code: Code, message: String) {
        self.severity = severity
        self.file = file
        self.elementIndex = elementIndex
        self.elementID = elementID
        self.offset = offset
        self.code = code
        self.message = message
    }

    /// `warning: pages/X.content: element 3 (id ABC…): [points-length] points has 7 values…`
    public var description: String {
        ProblemLine.text(severity: severity.rawValue, file: file, offset: offset, element: elementIndex, id: elementID,
                         code: code, message: message)
    }
}

/// A failure: the document, a page, or a file operation could not be completed. Names the file
/// (relative to the package where there is one) and what is wrong.
public struct LNoteError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// A required file is missing.
        case missing
        /// The file is not valid UTF-8 JSON (syntax, nesting, encoding).
        case invalidJSON
        /// The file was written by a newer app (`format` > 1).
        case newerFormat
        /// The file is valid JSON but breaks a rule of the format (a bad page entry, a bad value).
        case invalid
        /// A limit of section 7 is exceeded.
        case limit
        /// A path that must not be followed: a symbolic link, a non-UUID id, a bad asset name.
        case unsafePath
        /// The operating system refused a read or write.
        case io
    }

    public var kind: Kind
    public var file: String
    /// The stable code (the README's table), e.g. `.json`, `.missing`, `.write`.
    public var code: Code
    public var message: String

    public init(_ kind: Kind, file: String, code: Code, message: String) {
        self.kind = kind
        self.file = file
        self.code = code
        self.message = message
    }

    /// `pages/X.content: [json] invalid JSON at byte 25: …`
    public var description: String { ProblemLine.text(severity: nil, file: file, code: code, message: message) }

    static func json(_ e: JSONError, file: String) -> LNoteError {
        LNoteError(.invalidJSON, file: file, code: .json, message: e.description)
    }
}

/// The one way a problem is written as a line of text, for `Diagnostic`, `LNoteError` and the
/// CLI's report alike:
/// `warning: page 2: doc.lnote/pages/X.content @120: element 3 (id A1): [points-length] …`.
/// Each part is left out when it is nil; the page is also left out when the message already
/// starts with it (`page 2: …`).
public enum ProblemLine {
    public static func text(severity: String?, page: Int? = nil, file: String?, offset: Int? = nil,
                            element: Int? = nil, id: String? = nil, code: Code, message: String) -> String {
        var s = ""
        var started = false
        func part(_ p: String) {
            s += started ? ": " + p : p
            started = true
        }
        if let severity { part(severity) }
        if let page, !message.hasPrefix("page \(page):") { part("page \(page)") }
        if let file { part(file) }
        if let offset { s += " @\(offset)" }
        if let element {
            part("element \(element)" + (id.map { " (id \($0))" } ?? " (no id)"))
        } else if let id {
            part("id \(id)")
        }
        part("[\(code.rawValue)] \(message)")
        return s
    }
}
