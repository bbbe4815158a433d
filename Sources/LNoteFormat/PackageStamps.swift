// Reads of a package that also say which file the bytes came from (`FileStamp`), for callers
// that keep stamps to skip the next read (the thumbnail regenerator's stat index).

extension LNotePackage {
    /// `readPageSource`, with the stamps of the content file and the journal (if any), each taken
    /// from the descriptor the bytes were read through.
    public func readPageSourceAndStamps(_ entry: PageEntry) throws(LNoteError) -> (source: PageSource, content: FileStamp, journal: FileStamp?) {
        let contentFile = try pageFile(entry.id, extension: "content", required: true)!
        let (content, contentStamp) = try FileIO.readRegularFileAndStamp(relative: contentFile, under: path, display: contentFile,
                                                                         maxBytes: FileLimits.content)
        var journal: [UInt8]? = nil
        var journalStamp: FileStamp? = nil
        let journalFile = try pageFile(entry.id, extension: "journal", required: false)
        if let journalFile {
            (journal, journalStamp) = try FileIO.readRegularFileAndStamp(relative: journalFile, under: path, display: journalFile,
                                                                         maxBytes: FileLimits.journal)
        }
        return (PageSource(contentFile: contentFile, content: content, journalFile: journalFile, journal: journal),
                contentStamp, journalStamp)
    }

    /// `readAsset`, with the file it resolved to (relative to the package) and its stamp.
    public func readAssetAndStamp(_ name: String, maxBytes: Int = FileLimits.asset) throws(LNoteError) -> (bytes: [UInt8], file: String, stamp: FileStamp) {
        let rel = try resolveAsset(name)
        let (bytes, stamp) = try FileIO.readRegularFileAndStamp(relative: rel, under: path, display: rel, maxBytes: maxBytes)
        return (bytes, rel, stamp)
    }

    /// The file `pageFile(id, extension:, required: false)` would find, judged from a listing of
    /// `pages/` instead of a lookup per page: the exact name first, then the first name (in
    /// sorted order) whose id part matches case-insensitively. Kinds are not checked here: the
    /// caller stats what it gets and reads through `pageFile` when anything is in doubt.
    public static func pageFile(_ id: LNoteID, extension ext: String, inListing names: [String], exactNames: Set<String>) -> String? {
        let dir = LNotePackage.pagesDirectory
        let exact = "\(id.original).\(ext)"
        if exactNames.contains(exact) { return "\(dir)/\(exact)" }
        let suffix = "." + ext
        for name in names where name.hasSuffix(suffix) && name.utf8.count == 36 + suffix.utf8.count {
            if let other = LNoteID(String(name.dropLast(suffix.count))), other == id { return "\(dir)/\(name)" }
        }
        return nil
    }
}
