import LNoteFormat

/// What regeneration did to one document.
public struct DocumentRegeneration: Sendable {
    public enum ManifestOutcome: String, Sendable {
        case written, unchanged
        /// Not written: the cover it would name does not exist (the first page failed).
        case skippedNoCover = "skipped-no-cover"
        /// Not written: the document itself failed.
        case skipped
    }

    public var path: String
    public var title: String?
    public var rendered = 0
    public var upToDate = 0
    /// Of `upToDate`, the pages found so from their files' stamps alone, without reading them.
    public var trustedByStat = 0
    public var removed = 0
    public var failed = 0
    public var manifest: ManifestOutcome = .skipped
    /// A failure of one page, or of the document itself.
    public struct Failure: Sendable, CustomStringConvertible {
        /// What failed, naming its file (relative to the package, or the package's own path):
        /// for a page, the file that failed, which may be an asset it shows.
        public var error: LNoteError
        /// The page's 1-based position in document.json and its id as written there; nil for a
        /// failure of the document (it could not be opened, its manifest or stat index not written).
        public var page: Int?
        public var pageID: String?

        public init(_ error: LNoteError, page: Int? = nil, pageID: String? = nil) {
            (self.error, self.page, self.pageID) = (error, page, pageID)
        }

        public var description: String { error.description }
    }

    /// Page failures and the document's own failures.
    public var failures: [Failure] = []

    public var succeeded: Bool { failed == 0 && failures.isEmpty }
}
