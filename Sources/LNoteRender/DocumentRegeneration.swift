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
    /// Page failures and the document's own failure, each naming its file (relative to the
    /// package, or the package's own path).
    public var failures: [LNoteError] = []

    public var succeeded: Bool { failed == 0 && failures.isEmpty }
}
