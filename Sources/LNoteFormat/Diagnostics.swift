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
    /// A short stable rule name, e.g. `points-length`, `radius-range`, `background-color`.
    public var rule: String
    /// A human sentence saying what is wrong.
    public var message: String

    public init(severity: Severity = .warning, file: String, elementIndex: Int? = nil, elementID: String? = nil,
                offset: Int? = nil, rule: String, message: String) {
        self.severity = severity
        self.file = file
        self.elementIndex = elementIndex
        self.elementID = elementID
        self.offset = offset
        self.rule = rule
        self.message = message
    }

    /// `warning: pages/X.content: element 3 (id ABC…): [points-length] points has 7 values…`
    public var description: String {
        var s = "\(severity.rawValue): \(file)"
        if let offset { s += " @\(offset)" }
        if let elementIndex {
            s += ": element \(elementIndex)"
            s += elementID.map { " (id \($0))" } ?? " (no id)"
        } else if let elementID {
            s += ": id \(elementID)"
        }
        s += ": [\(rule)] \(message)"
        return s
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
    public var rule: String
    public var message: String

    public init(_ kind: Kind, file: String, rule: String, message: String) {
        self.kind = kind
        self.file = file
        self.rule = rule
        self.message = message
    }

    public var description: String { "\(file): [\(rule)] \(message)" }

    static func json(_ e: JSONError, file: String) -> LNoteError {
        LNoteError(.invalidJSON, file: file, rule: "json", message: e.description)
    }
}
