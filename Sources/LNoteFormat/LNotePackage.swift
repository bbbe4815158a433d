// Reading (and the few sanctioned writes into) one `.lnote` package directory.
//
// Safety rules applied everywhere here:
// - A path is built from an id only after the id is checked to be a UUID (`LNoteID`), and from
//   an asset name only after it is checked to be `<UUID>.jpg|png` (`AssetName`).
// - Symbolic links are never followed inside the package: the package directory, `pages/`,
//   `assets/`, `thumbnails/` are checked with lstat, and files are opened with O_NOFOLLOW.
//   Reads, writes and deletes go through a descriptor of the file's directory, reached from the
//   package with O_NOFOLLOW at every step (`FileIO.openDirectory(_:under:)`; openat, renameat,
//   unlinkat), so a directory swapped for a link after the check is refused.

import Foundation
import Glibc

/// A page read from disk: the snapshot with the journal replayed.
public struct LoadedPage: Sendable, Equatable {
    public var entry: PageEntry
    /// The page's current elements in z-order.
    public var elements: [Element]
    /// Warnings: skipped elements of the snapshot, discarded journal frames, a torn tail.
    public var diagnostics: [Diagnostic]
    /// What replay did; nil when the page has no journal.
    public var journal: JournalReport?
    /// The content file read, relative to the package (`pages/<UUID>.content`).
    public var contentFile: String
    /// The journal read, relative to the package, if there is one.
    public var journalFile: String?
    /// How many elements of the snapshot were skipped as invalid.
    public var skippedSnapshotElements: Int
    /// The snapshot's top-level keys other than `format` and `elements`, as text (see
    /// `PageContent.unknownMembers`); compaction keeps them.
    public var unknownContentMembers: [ArraySlice<UInt8>] = []
}

/// A page's source files as read from disk, not yet parsed.
public struct PageSource: Sendable {
    /// `pages/<UUID>.content`, relative to the package.
    public var contentFile: String
    public var content: [UInt8]
    /// `pages/<UUID>.journal` when the page has a journal.
    public var journalFile: String?
    public var journal: [UInt8]?
}

/// A file in `assets/` with a valid asset name.
public struct AssetFile: Sendable, Equatable {
    public var name: String
    public var id: LNoteID
    /// Relative to the package: `assets/<name>`.
    public var relativePath: String
}

/// An entry of `thumbnails/`. `pageID` is set when the name is `<UUID>.jpg`.
public struct ThumbnailFile: Sendable, Equatable {
    public var name: String
    public var pageID: LNoteID?
    public var kind: FileKind
    public var relativePath: String
}

/// What `compact` did.
public struct CompactionResult: Sendable, Equatable {
    /// False when there was no journal (nothing to do).
    public var compacted: Bool
    public var elementCount: Int
    public var report: JournalReport?
    /// True when the snapshot was written but the journal was left in place because frames were
    /// appended to it (or it was replaced) after it was read. Replaying it over the new snapshot
    /// gives the page with those frames (replay is idempotent, section 5); a later compaction
    /// folds them in.
    public var journalLeftInPlace = false
}

/// The largest files a package's reader loads. These are not limits of the format (section 7):
/// they refuse files that no app writes, such as a sparse file claiming 64 GB while using no
/// disk, whose whole-file read would otherwise be an allocation that kills the process. A file
/// over its limit fails like an unreadable one (the document, the page, or the image).
public enum FileLimits {
    public static let document = 256 << 20
    public static let content = 1 << 30
    public static let journal = 1 << 30
    public static let asset = 1 << 30
    public static let manifest = 16 << 20
}

public struct LNotePackage: Sendable {
    public static let pagesDirectory = "pages"
    public static let assetsDirectory = "assets"
    public static let thumbnailsDirectory = "thumbnails"

    /// Temporary files of source files (document.json, pages/, assets/) may belong to a write
    /// the app is making right now, so they are deleted only once they are this old (seconds
    /// since their last change); see `removableTemporaryFiles`.
    public static let sourceTemporaryFileGraceSeconds: Double = 600

    /// Temporary files of derived files (thumbnails/, manifest.json) are deleted only once they
    /// are this old (seconds since their last change): another regeneration of the same package
    /// (a second `thumbnails`, a `watch`, a shard on another machine) may be writing one right
    /// now, and deleting it would fail that run's rename. A temporary file lives for one write:
    /// its mtime moves with each write(2), so what it must outlast is the time from its last
    /// write to its rename (an fsync, a close: milliseconds on a local disk, up to seconds on a
    /// busy NFS server) plus the skew between this machine's clock and the one that stamped the
    /// mtime (an NFS server's). A minute covers both many times over, while a killed run's
    /// leftover is still gone by the first run a minute later.
    public static let derivedTemporaryFileGraceSeconds: Double = 60

    /// Seconds since the regular file `relative` was last modified, read through its directory
    /// as every access here is; nil when it is not a regular file or cannot be examined.
    func age(ofFile relative: String, now: Double = Date().timeIntervalSince1970) -> Double? {
        let (dir, name) = AtomicFile.split(relative)
        guard let dfd = try? FileIO.openDirectory(dir, under: path, display: relative, action: "read") else { return nil }
        defer { close(dfd) }
        var st = stat()
        guard fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        return now - (Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    }

    public let url: URL
    /// The package directory's path, without a trailing slash.
    public let path: String
    public let document: DocumentInfo

    /// The page order: each slot a valid entry or an invalid page with its error.
    public var pages: [PageSlot] { document.pages }

    /// Opens a package: checks the directory and reads and validates `document.json`.
    /// - Throws: when the package is not a real directory, or the document fails (document.json
    ///   missing, not valid JSON, not an object, a newer format, no pages array).
    public static func open(at url: URL) throws(LNoteError) -> LNotePackage {
        var path = url.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        switch FileIO.kind(atPath: path) {
        case .directory: break
        case .missing: throw LNoteError(.missing, file: path, code: .package, message: "the package directory does not exist")
        case .symlink: throw LNoteError(.unsafePath, file: path, code: .symlink, message: "the package is a symbolic link, which is never followed")
        default: throw LNoteError(.invalid, file: path, code: .package, message: "the package is not a directory")
        }
        let bytes = try FileIO.readRegularFile(relative: DocumentParser.fileName, under: path, display: DocumentParser.fileName,
                                               maxBytes: FileLimits.document)
        let document = try DocumentParser.parse(bytes)
        return LNotePackage(url: url, path: path, document: document)
    }

    private init(url: URL, path: String, document: DocumentInfo) {
        self.url = url
        self.path = path
        self.document = document
    }

    /// Absolute path of a path relative to the package.
    public func absolutePath(_ relative: String) -> String { path + "/" + relative }

    // MARK: pages

    /// Loads the page in slot `index` of the page order. An invalid slot throws its error.
    public func loadPage(at index: Int) throws(LNoteError) -> LoadedPage {
        guard pages.indices.contains(index) else {
            throw LNoteError(.invalid, file: DocumentParser.fileName, code: .pageIndex,
                             message: "there is no page \(index + 1) (the document has \(pages.count))")
        }
        switch pages[index] {
        case .valid(let entry): return try loadPage(entry)
        case .invalid(_, _, let error): throw error
        }
    }

    /// Loads a page: reads the snapshot, replays the journal.
    /// - Throws: when the content file is missing, unreadable, a symbolic link, not valid JSON,
    ///   of a newer format, or over the element limit (also after replay).
    public func loadPage(_ entry: PageEntry) throws(LNoteError) -> LoadedPage {
        try loadPage(entry, from: readPageSource(entry))
    }

    /// Reads a page's source files without parsing them, so a caller can fingerprint exactly
    /// the bytes it then parses with `loadPage(_:from:)`.
    public func readPageSource(_ entry: PageEntry) throws(LNoteError) -> PageSource {
        try readPageSourceAndJournalIdentity(entry).source
    }

    /// `readPageSource`, with the identity of the journal file read, if any.
    private func readPageSourceAndJournalIdentity(_ entry: PageEntry) throws(LNoteError) -> (source: PageSource, journal: FileIO.FileIdentity?) {
        let contentFile = try pageFile(entry.id, extension: "content", required: true)!
        let content = try FileIO.readRegularFile(relative: contentFile, under: path, display: contentFile, maxBytes: FileLimits.content)
        var journal: [UInt8]? = nil
        var identity: FileIO.FileIdentity? = nil
        let journalFile = try pageFile(entry.id, extension: "journal", required: false)
        if let journalFile {
            let (bytes, id) = try FileIO.readRegularFileAndIdentity(relative: journalFile, under: path, display: journalFile,
                                                                   maxBytes: FileLimits.journal)
            journal = bytes
            identity = id
        }
        return (PageSource(contentFile: contentFile, content: content, journalFile: journalFile, journal: journal), identity)
    }

    /// Parses a page's source files: the snapshot, then the journal replayed over it.
    public func loadPage(_ entry: PageEntry, from source: PageSource) throws(LNoteError) -> LoadedPage {
        let content = try ContentParser.parse(source.content, file: source.contentFile)
        var elements = content.elements
        var diagnostics = content.diagnostics
        var report: JournalReport? = nil
        if let journalFile = source.journalFile, let bytes = source.journal {
            let r = try Journal.replay(bytes, onto: &elements, file: journalFile)
            diagnostics += r.diagnostics(file: journalFile)
            report = r
        }
        return LoadedPage(entry: entry, elements: elements, diagnostics: diagnostics, journal: report,
                          contentFile: source.contentFile, journalFile: source.journalFile,
                          skippedSnapshotElements: content.skippedElements, unknownContentMembers: content.unknownMembers)
    }

    /// Finds `pages/<id>.<ext>`: the exact name (as the id is written) first, then any file whose
    /// id part matches case-insensitively. Returns the relative path, or nil when absent and not
    /// required. A symbolic link is refused, never skipped over.
    public func pageFile(_ id: LNoteID, extension ext: String, required: Bool) throws(LNoteError) -> String? {
        let dir = LNotePackage.pagesDirectory
        let exact = "\(dir)/\(id.original).\(ext)"
        func missing() -> LNoteError {
            LNoteError(.missing, file: exact, code: .missing, message: "the page's \(ext) file does not exist")
        }
        guard try directoryKind(dir) == .directory else {
            if required { throw missing() } else { return nil }
        }
        if try checkedKind(exact) != .missing { return exact }
        let suffix = "." + ext
        for name in try entries(of: dir).map(\.name) where name.hasSuffix(suffix) && name.utf8.count == 36 + suffix.utf8.count {
            if let other = LNoteID(String(name.dropLast(suffix.count))), other == id {
                let rel = "\(dir)/\(name)"
                _ = try checkedKind(rel)
                return rel
            }
        }
        if required { throw missing() }
        return nil
    }

    /// lstat of a relative path; a symbolic link or a non-file is an error.
    private func checkedKind(_ relative: String) throws(LNoteError) -> FileKind {
        let k = FileIO.kind(atPath: absolutePath(relative))
        switch k {
        case .missing, .regular: return k
        case .symlink: throw LNoteError(.unsafePath, file: relative, code: .symlink, message: "a symbolic link is never followed")
        default: throw LNoteError(.unsafePath, file: relative, code: .notRegularFile, message: "not a regular file")
        }
    }

    /// The entries of the package directory `dir` (pages, assets, thumbnails), sorted by name;
    /// none when it is missing, an error when it is a link or not a directory. Listed through a
    /// descriptor reached with O_NOFOLLOW (`FileIO.entries`), so a directory swapped for a link
    /// after the check is refused too: no name from outside the package is ever returned.
    public func entries(of dir: String) throws(LNoteError) -> [FileIO.DirectoryEntry] {
        guard try directoryKind(dir) == .directory else { return [] }
        do {
            return try FileIO.entries(of: dir, under: path, display: dir)
        } catch {
            if error.kind == .missing { return [] }  // removed since the check
            throw error
        }
    }

    /// A subdirectory of the package that must be a real directory (not a link) when present.
    private func directoryKind(_ dir: String) throws(LNoteError) -> FileKind {
        let k = FileIO.kind(atPath: absolutePath(dir))
        switch k {
        case .directory, .missing: return k
        case .symlink: throw LNoteError(.unsafePath, file: dir, code: .symlink, message: "\(dir)/ is a symbolic link, which is never followed")
        default: throw LNoteError(.invalid, file: dir, code: .directory, message: "\(dir)/ is not a directory")
        }
    }

    // MARK: assets

    /// Resolves an asset name to a regular file in `assets/`: the name must be `<UUID>.jpg` or
    /// `<UUID>.png` (any extension case); exact name first, then a case-insensitive match.
    /// Returns the relative path.
    public func resolveAsset(_ name: String) throws(LNoteError) -> String {
        let dir = LNotePackage.assetsDirectory
        guard AssetName.isValid(name) else {
            throw LNoteError(.unsafePath, file: "\(dir)/", code: .asset,
                             message: "asset name \(name.debugDescription) is not <UUID>.jpg or <UUID>.png")
        }
        let exact = "\(dir)/\(name)"
        guard try directoryKind(dir) == .directory else {
            throw LNoteError(.missing, file: exact, code: .missing, message: "the asset does not exist (no assets/ directory)")
        }
        if try checkedKind(exact) == .regular { return exact }
        let wanted = name.lowercased()
        for candidate in try entries(of: dir).map(\.name) where candidate.lowercased() == wanted {
            let rel = "\(dir)/\(candidate)"
            if try checkedKind(rel) == .regular { return rel }
        }
        throw LNoteError(.missing, file: exact, code: .missing, message: "the asset does not exist")
    }

    /// The bytes of an asset (see `resolveAsset`), read without following links.
    public func readAsset(_ name: String, maxBytes: Int = FileLimits.asset) throws(LNoteError) -> [UInt8] {
        let rel = try resolveAsset(name)
        return try FileIO.readRegularFile(relative: rel, under: path, display: rel, maxBytes: maxBytes)
    }

    /// Regular files in `assets/` with a valid asset name, sorted by name. Links and other names
    /// are left out.
    public func assetFiles() throws(LNoteError) -> [AssetFile] {
        let dir = LNotePackage.assetsDirectory
        return try entries(of: dir).compactMap { entry in
            guard let id = AssetName.id(of: entry.name), entry.kind == .regular else { return nil }
            return AssetFile(name: entry.name, id: id, relativePath: "\(dir)/\(entry.name)")
        }
    }

    // MARK: thumbnails and manifest

    /// Every entry of `thumbnails/` (so `gc` can find orphans), sorted by name.
    public func thumbnailFiles() throws(LNoteError) -> [ThumbnailFile] {
        let dir = LNotePackage.thumbnailsDirectory
        return try entries(of: dir).map { entry in
            let name = entry.name
            var pageID: LNoteID? = nil
            if name.utf8.count == 40, name.lowercased().hasSuffix(".jpg") { pageID = LNoteID(String(name.prefix(36))) }
            return ThumbnailFile(name: name, pageID: pageID, kind: entry.kind, relativePath: "\(dir)/\(name)")
        }
    }

    /// `thumbnails/<UUID>.jpg` for a page (canonical upper-case id).
    public static func thumbnailPath(for page: LNoteID) -> String { Manifest.coverPath(for: page) }

    /// Writes a page's thumbnail atomically, creating `thumbnails/` if needed. Returns the stamp
    /// of the file written, taken after it was put in place (`AtomicFile.writeAndStamp`).
    @discardableResult
    public func writeThumbnail(_ jpeg: [UInt8], for page: LNoteID) throws(LNoteError) -> FileStamp? {
        let dir = LNotePackage.thumbnailsDirectory
        if try directoryKind(dir) == .missing {
            guard mkdir(absolutePath(dir), 0o755) == 0 || errno == EEXIST else {
                throw LNoteError(.io, file: dir, code: .write, message: "cannot create thumbnails/: \(FileIO.errnoText())")
            }
            _ = try directoryKind(dir)
            FileIO.syncDirectory(atPath: path)
        }
        let rel = LNotePackage.thumbnailPath(for: page)
        return try AtomicFile.writeAndStamp(jpeg, relative: rel, under: path)
    }

    /// Reads `manifest.json` (throws `.missing` when absent).
    public func readManifest() throws(LNoteError) -> Manifest {
        let bytes = try FileIO.readRegularFile(relative: Manifest.fileName, under: path, display: Manifest.fileName,
                                               maxBytes: FileLimits.manifest)
        return try Manifest.parse(bytes)
    }

    /// Writes `manifest.json` atomically. The caller writes the cover thumbnail first (section 3).
    public func writeManifest(_ manifest: Manifest) throws(LNoteError) {
        try AtomicFile.write(manifest.jsonBytes(), relative: Manifest.fileName, under: path)
    }

    /// Writes any file of the package atomically. `relative` must be `<name>` or `<dir>/<name>`
    /// with dir one of pages, assets, thumbnails (an existing real directory) and a plain name.
    public func writeFile(_ bytes: [UInt8], relativePath relative: String) throws(LNoteError) {
        try checkPlainRelativePath(relative)
        try AtomicFile.write(bytes, relative: relative, under: path)
    }

    /// Deletes a regular file of the package (for `gc`: stray temporary files, orphan thumbnails).
    /// Same path rules as `writeFile`.
    public func deleteFile(relativePath relative: String) throws(LNoteError) {
        try checkPlainRelativePath(relative)
        try FileIO.removeFile(relative: relative, under: path, display: relative)
    }

    private func checkPlainRelativePath(_ relative: String) throws(LNoteError) {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let dirs = [LNotePackage.pagesDirectory, LNotePackage.assetsDirectory, LNotePackage.thumbnailsDirectory]
        let name = parts.last ?? ""
        guard parts.count <= 2, parts.count == 1 || dirs.contains(parts[0]),
              !name.isEmpty, name != ".", name != "..", !name.utf8.contains(0) else {
            throw LNoteError(.unsafePath, file: relative, code: .path, message: "not a plain file path inside the package")
        }
        if parts.count == 2, try directoryKind(parts[0]) != .directory {
            throw LNoteError(.missing, file: parts[0], code: .missing, message: "\(parts[0])/ does not exist")
        }
    }

    /// Temporary files left by interrupted atomic writes, relative to the package: in the
    /// package directory, pages/, assets/ and thumbnails/. A directory that is missing or a
    /// link has none (it is listed through O_NOFOLLOW descriptors, like every package directory).
    public func strayTemporaryFiles() -> [String] {
        strayTemporaryFiles(in: ["", LNotePackage.pagesDirectory, LNotePackage.assetsDirectory, LNotePackage.thumbnailsDirectory])
    }

    /// `strayTemporaryFiles()` of the given package directories only ("" for the package itself).
    public func strayTemporaryFiles(in dirs: [String]) -> [String] {
        var out: [String] = []
        for dir in dirs {
            let names = ((try? FileIO.entries(of: dir, under: path, display: dir)) ?? []).map(\.name)
            out += names.filter(AtomicFile.isTemporaryFileName).map { dir.isEmpty ? $0 : "\(dir)/\($0)" }
        }
        return out
    }

    /// The stray temporary files that may be deleted now (by `gc`, the regenerator's clean-up and
    /// compaction alike): only regular files (a link or a directory with such a name is not one
    /// of ours); those of derived files (thumbnails/, manifest.json) once
    /// `derivedTemporaryFileGraceSeconds` old (overlapping regenerations write them), those of
    /// source files only once `sourceTemporaryFileGraceSeconds` old (the app writes them).
    public func removableTemporaryFiles(now: Double = Date().timeIntervalSince1970) -> [String] {
        removable(strayTemporaryFiles(), now: now)
    }

    /// Of the temporary files `files`, those `removableTemporaryFiles` would delete.
    public func removable(_ files: [String], now: Double = Date().timeIntervalSince1970) -> [String] {
        files.filter { relative in
            guard let age = age(ofFile: relative, now: now) else { return false }
            let name = AtomicFile.split(relative).name
            let derived = relative.hasPrefix(LNotePackage.thumbnailsDirectory + "/") || name.hasPrefix(".\(Manifest.fileName).tmp-")
            return age >= (derived ? LNotePackage.derivedTemporaryFileGraceSeconds : LNotePackage.sourceTemporaryFileGraceSeconds)
        }
    }

    // MARK: compaction

    /// Compacts a page: the replayed elements are written as a new snapshot (atomically, each
    /// element's JSON unchanged, the snapshot's unknown top-level keys after them, format 1),
    /// then the journal is removed.
    ///
    /// Interrupted between the two steps, the journal is replayed over the new snapshot on the
    /// next load. That gives the same elements only if replay is idempotent for this journal,
    /// which the format intends but which ids shared by several elements or elements without
    /// an id can break; so before writing, the replay is run again over the new snapshot in
    /// memory, and compaction is refused when the result would differ. Compacting again after
    /// an interruption is safe and finishes the job.
    ///
    /// Also refused (unless `dropInvalidElements`) when the snapshot has invalid elements: they
    /// are skipped on load and would be lost for good.
    ///
    /// The app may append to the journal at any moment. The journal is removed only if it is
    /// still the file that was read, at the size that was read (append-only: so it holds exactly
    /// the frames compacted); otherwise it is left in place (`journalLeftInPlace`), which is
    /// safe because replaying it over the new snapshot is idempotent.
    public func compact(_ entry: PageEntry, dropInvalidElements: Bool = false) throws(LNoteError) -> CompactionResult {
        try compact(entry, dropInvalidElements: dropInvalidElements, beforeRemovingJournal: nil)
    }

    /// `compact`, with a hook that runs between the snapshot write and the journal's removal
    /// (for tests that append to the journal there).
    func compact(_ entry: PageEntry, dropInvalidElements: Bool,
                 beforeRemovingJournal: (() -> Void)?) throws(LNoteError) -> CompactionResult {
        let (source, journalIdentity) = try readPageSourceAndJournalIdentity(entry)
        let page = try loadPage(entry, from: source)
        guard let journalFile = page.journalFile, let journal = source.journal, let journalIdentity else {
            return CompactionResult(compacted: false, elementCount: page.elements.count, report: nil)
        }
        if page.skippedSnapshotElements > 0 && !dropInvalidElements {
            throw LNoteError(.invalid, file: page.contentFile, code: .compactionWouldDrop,
                             message: "\(page.skippedSnapshotElements) invalid element(s) in the snapshot would be lost; not compacted")
        }
        let snapshot = ContentWriter.snapshot(page.elements, unknownMembers: page.unknownContentMembers)
        // The replay over the new snapshot, as after a crash between the two steps. The snapshot
        // can be unreadable although the page was not: a journal element nested 63 levels deep
        // is valid on its own but too deep inside a content file.
        var again: [Element]
        do {
            again = try ContentParser.parse(snapshot, file: page.contentFile).elements
        } catch {
            throw LNoteError(.invalid, file: journalFile, code: .compactionUnreadable,
                             message: "the compacted snapshot would not be readable (\(error.message)); not compacted")
        }
        _ = try Journal.replay(journal, onto: &again, file: journalFile)
        guard again == page.elements else {
            throw LNoteError(.invalid, file: journalFile, code: .compactionNotIdempotent,
                             message: "replaying this journal over the compacted snapshot would give a different page (shared or missing ids); not compacted")
        }
        // Temporary files of this very snapshot left by an interrupted write (an earlier
        // compaction, or the app) go first, by the rule `gc` follows: only once they are old
        // enough, since a fresh one may be the app's own save of this page in progress.
        let strayPrefix = "\(LNotePackage.pagesDirectory)/.\(AtomicFile.split(page.contentFile).name).tmp-"
        for file in removableTemporaryFiles() where file.hasPrefix(strayPrefix) {
            try? FileIO.removeFile(relative: file, under: path, display: file)
        }
        try AtomicFile.write(snapshot, relative: page.contentFile, under: path)
        beforeRemovingJournal?()
        var removed = true
        do {
            removed = try FileIO.removeFile(relative: journalFile, under: path, display: journalFile, ifStill: journalIdentity)
        } catch where error.kind == .missing {
            // Already gone: nothing to remove.
        } catch {
            throw LNoteError(error.kind, file: journalFile, code: .delete,
                             message: "snapshot written but the journal could not be removed: \(error.message)")
        }
        var result = CompactionResult(compacted: true, elementCount: page.elements.count, report: page.journal)
        result.journalLeftInPlace = !removed
        return result
    }
}
