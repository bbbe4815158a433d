// The trusted path of a regeneration run: a document whose files all keep the stamps its stat
// index recorded is up to date without parsing document.json or building the index in memory,
// in a dozen or so system calls and a few per page, all through one descriptor of the package
// directory (and one of thumbnails/, whose files are listed and read through it).

import Glibc
import LNoteFormat

/// Decides, from stamps alone, that a document needs nothing: no page rendered, nothing removed,
/// the manifest unchanged, the stat index as it is. It asks exactly what the full run
/// (`ThumbnailRegenerator.regenerate(packages:)`) would find out on its stat-trusted path, and
/// answers nil, leaving the document to that run, at the first thing not as recorded:
///
/// - the package directory, document.json, manifest.json, pages/ and assets/ have the stamps
///   recorded (document.json's twice: when the page records were derived from it, and when the
///   manifest was found to agree with it), and no source temporary file was pending;
/// - the page records were made under the current renderer version and settings (the index's
///   settings key), and there is one for each page slot of document.json (so none is invalid);
/// - every page's content file, journal (or its absence: pages/ is unchanged) and thumbnail, and
///   every asset recorded, have their recorded stamps, and every asset a page shows is recorded
///   with the hash the page was drawn from;
/// - thumbnails/ holds no temporary file and no regular file but the pages' thumbnails and the
///   index (no orphan to remove).
///
/// The index is read into one buffer and checked where it lies; no page costs an allocation.
struct TrustedDocumentCheck {
    /// `ThumbnailRegenerator.settingsKey`.
    let settingsKey: [UInt8]

    /// Buffers one worker reuses from document to document.
    final class Scratch {
        var index: UnsafeMutableRawBufferPointer
        var path: UnsafeMutableBufferPointer<CChar>
        var entries: UnsafeMutableRawBufferPointer
        /// The asset records of the document being checked: name and hash, as ranges of `index`.
        var assets: [(name: Range<Int>, hash: Range<Int>)] = []

        init() {
            index = .allocate(byteCount: 64 << 10, alignment: 16)
            path = .allocate(capacity: Int(PATH_MAX) + 1)
            entries = .allocate(byteCount: 32 << 10, alignment: 16)
        }

        deinit {
            index.deallocate()
            path.deallocate()
            entries.deallocate()
        }

        /// The index file behind `fd`, read whole into `index`; its length, nil on a failed read
        /// or past `limit` bytes. A regular file's read returns less than asked only at its end,
        /// so no fstat is needed for the size; anything else a descriptor can be (a directory,
        /// a FIFO: opened non-blocking) fails to read or reads as a malformed index.
        func read(_ fd: Int32, limit: Int = 64 << 20) -> Int? {
            var filled = 0
            while true {
                if filled == index.count {
                    guard index.count < limit else { return nil }
                    let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: index.count * 2, alignment: 16)
                    bigger.copyMemory(from: UnsafeRawBufferPointer(index))
                    index.deallocate()
                    index = bigger
                }
                let n = Glibc.read(fd, index.baseAddress! + filled, index.count - filled)
                if n < 0 {
                    if errno == EINTR { continue }
                    return nil
                }
                let asked = index.count - filled
                filled += n
                if n == 0 || n < asked { return filled }
            }
        }
    }

    /// The report of a document found up to date, or nil for the full run to decide.
    /// `parent`: a descriptor of the directory holding the package; `name`: its name there.
    func check(path: String, name: String, in parent: Int32, scratch: Scratch) -> DocumentRegeneration? {
        let pkg = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard pkg >= 0 else { return nil }
        defer { close(pkg) }
        var st = stat()
        guard fstat(pkg, &st) == 0 else { return nil }
        let packageStamp = FileStamp(st)
        guard fstatat(pkg, DocumentParser.fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let documentStamp = FileStamp(st)
        guard fstatat(pkg, Manifest.fileName, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        let manifestStamp = FileStamp(st)
        let th = openat(pkg, LNotePackage.thumbnailsDirectory, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard th >= 0 else { return nil }
        defer { close(th) }
        let ix = openat(th, StatIndex.fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard ix >= 0 else { return nil }
        let length = scratch.read(ix)
        close(ix)
        guard let length else { return nil }
        let bytes = UnsafeBufferPointer(start: scratch.index.baseAddress!.assumingMemoryBound(to: UInt8.self), count: length)
        var reader = IndexReader(b: bytes, pkg: pkg, th: th, path: scratch.path)
        guard let pages = reader.verify(package: packageStamp, document: documentStamp, manifest: manifestStamp,
                                        settingsKey: settingsKey, assets: &scratch.assets),
              let title = reader.title,
              onlyThumbnails(count: pages, in: th, buffer: scratch.entries) else { return nil }
        var report = DocumentRegeneration(path: path)
        report.title = title
        report.upToDate = pages
        report.trustedByStat = pages
        report.manifest = .unchanged
        return report
    }

    /// Whether thumbnails/ holds `count` regular files besides the index and no temporary file
    /// (each page's thumbnail was found regular with its recorded stamp, so those are they).
    /// Listed with getdents64 on the descriptor itself (no opendir, no stat); false, for the
    /// full run to look, where the file system does not give the entries' kinds.
    private func onlyThumbnails(count: Int, in th: Int32, buffer: UnsafeMutableRawBufferPointer) -> Bool {
        guard let getdents = Self.getdents64 else { return false }
        var regular = 0
        while true {
            let n = getdents(th, buffer.baseAddress, buffer.count)
            if n < 0 { return false }
            if n == 0 { break }
            var at = 0
            while at < n {
                let entry = buffer.baseAddress! + at
                let length = Int(entry.loadUnaligned(fromByteOffset: 16, as: UInt16.self))
                let type = entry.load(fromByteOffset: 18, as: UInt8.self)
                let name = UnsafePointer<CChar>(entry.advanced(by: 19).assumingMemoryBound(to: CChar.self))
                at += length
                guard length >= 20 else { return false }
                if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { continue }  // . and ..
                let nameBytes = UnsafeBufferPointer(start: UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self), count: strlen(name))
                if AtomicFile.isTemporaryFileName(bytes: nameBytes) { return false }
                switch Int32(type) {
                case Int32(DT_REG):
                    if strcmp(name, StatIndex.fileName) != 0 { regular += 1 }
                case Int32(DT_UNKNOWN): return false
                default: break  // not something the clean-up removes
                }
            }
        }
        return regular == count
    }

    typealias GetDents = @convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int
    /// glibc's getdents64 (2.30 and later), which Swift's Glibc module does not declare.
    static let getdents64: GetDents? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getdents64")
        .map { unsafeBitCast($0, to: GetDents.self) }
}

/// The stat index's bytes, checked where they lie against the files they describe.
private struct IndexReader {
    let b: UnsafeBufferPointer<UInt8>
    let pkg: Int32
    let th: Int32
    let path: UnsafeMutableBufferPointer<CChar>
    /// The index's syntax (its one reader).
    let t: StatIndexText
    var title: String?

    init(b: UnsafeBufferPointer<UInt8>, pkg: Int32, th: Int32, path: UnsafeMutableBufferPointer<CChar>) {
        self.b = b
        self.t = StatIndexText(b: b)
        self.pkg = pkg
        self.th = th
        self.path = path
    }

    /// Whether the stamp written at `r` is `current`.
    func stamp(_ r: Range<Int>, is current: FileStamp) -> Bool { t.stamp(r) == current }

    /// Stats `dir/name` (`prefix` "pages" or "assets" written in `file` as `prefix/name`, a plain
    /// name) through the package's descriptor; nil when the name is not plain or the stat fails.
    func stat(_ file: Range<Int>, under prefix: StaticString) -> FileStamp? {
        let p = prefix.utf8CodeUnitCount
        guard file.count > p + 1, file.count < path.count, memcmp(b.baseAddress! + file.lowerBound, prefix.utf8Start, p) == 0,
              b[file.lowerBound + p] == 0x2F else { return nil }
        return stat(file, from: pkg, plainAfter: p + 1)
    }

    /// fstatat of the bytes `file` (from offset `plainAfter` on, a plain name: no `/`, no NUL,
    /// not `.` or `..`) relative to `dir`, not following a symbolic link.
    func stat(_ file: Range<Int>, from dir: Int32, plainAfter: Int, suffix: StaticString? = nil) -> FileStamp? {
        let extra = suffix?.utf8CodeUnitCount ?? 0
        guard file.count + extra < path.count, file.count > plainAfter else { return nil }
        for i in (file.lowerBound + plainAfter)..<file.upperBound where b[i] == 0x2F || b[i] == 0 { return nil }
        if b[file.lowerBound + plainAfter] == 0x2E, file.count - plainAfter <= 2 { return nil }
        let out = UnsafeMutableRawPointer(path.baseAddress!)
        out.copyMemory(from: b.baseAddress! + file.lowerBound, byteCount: file.count)
        if let suffix { (out + file.count).copyMemory(from: suffix.utf8Start, byteCount: extra) }
        path[file.count + extra] = 0
        var st = Glibc.stat()
        guard fstatat(dir, path.baseAddress!, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileStamp(st)
    }

    /// The number of pages the index vouches for, once everything it records checks out.
    mutating func verify(package: FileStamp, document: FileStamp, manifest: FileStamp, settingsKey: [UInt8],
                         assets: inout [(name: Range<Int>, hash: Range<Int>)]) -> Int? {
        var at = 0
        guard let magic = t.line(&at), t.equals(magic, "lnote-render-stat-index 3"),
              let pagesLine = t.line(&at), let assetsLine = t.line(&at), let packageLine = t.line(&at),
              let temporaryLine = t.line(&at), let manifestLine = t.line(&at), let documentLine = t.line(&at) else { return nil }
        func header(_ l: Range<Int>, _ key: StaticString) -> Range<Int>? {
            var f = l.lowerBound
            guard let k = t.field(l, &f), t.equals(k, key), let value = t.field(l, &f), value.upperBound == l.upperBound else { return nil }
            return value
        }
        // The package directory: a subdirectory created or replaced since would show here.
        guard let packageDir = header(packageLine, "package-dir"), stamp(packageDir, is: package),
              let temporary = header(temporaryLine, "temporary-files"), t.equals(temporary, "none") else { return nil }
        var f = manifestLine.lowerBound
        guard let m = t.field(manifestLine, &f), t.equals(m, "manifest"), let agreedDocument = t.field(manifestLine, &f),
              stamp(agreedDocument, is: document), let agreedManifest = t.field(manifestLine, &f),
              agreedManifest.upperBound == manifestLine.upperBound, stamp(agreedManifest, is: manifest) else { return nil }
        f = documentLine.lowerBound
        guard let d = t.field(documentLine, &f), t.equals(d, "document"), let derivedFrom = t.field(documentLine, &f),
              stamp(derivedFrom, is: document), let key = t.field(documentLine, &f), key.count == settingsKey.count,
              memcmp(b.baseAddress! + key.lowerBound, settingsKey, key.count) == 0,
              let slotsField = t.field(documentLine, &f), let slots = t.integer(slotsField),
              let titleField = t.field(documentLine, &f), titleField.upperBound == documentLine.upperBound,
              let title = StatIndex.Document.unescape(UnsafeBufferPointer(rebasing: b[titleField])) else { return nil }
        self.title = title
        // pages/ (a page file added, removed or renamed, a journal appearing, would show here);
        // assets/ likewise.
        guard let pagesDir = header(pagesLine, "pages-dir"), let pagesNow = stat(directory: LNotePackage.pagesDirectory),
              stamp(pagesDir, is: pagesNow), let assetsDir = header(assetsLine, "assets-dir") else { return nil }
        let assetsNow = stat(directory: LNotePackage.assetsDirectory)
        if t.isDash(assetsDir) {
            // Not recorded: it was missing (and must be still) or had not settled.
            guard assetsNow == nil else { return nil }
        } else {
            guard let assetsNow, stamp(assetsDir, is: assetsNow) else { return nil }
        }
        let records = at

        // Every asset record's file with its stamp (as the full run, which would drop one that
        // changed, and so rewrite the index).
        assets.removeAll(keepingCapacity: true)
        while let l = t.line(&at) {
            var f = l.lowerBound
            guard let kind = t.field(l, &f) else { return nil }
            guard t.equals(kind, "asset") else { continue }
            guard let name = t.field(l, &f), let file = t.field(l, &f), let recorded = t.field(l, &f), let hash = t.field(l, &f),
                  hash.upperBound == l.upperBound, let now = stat(file, under: "assets"), stamp(recorded, is: now) else { return nil }
            assets.append((name, hash))
        }

        // Every page: content, journal and thumbnail as recorded, each asset it shows recorded
        // with the hash it was drawn from.
        at = records
        var pages = 0
        while let l = t.line(&at) {
            var f = l.lowerBound
            guard let kind = t.field(l, &f) else { return nil }
            if t.equals(kind, "asset") { continue }
            guard t.equals(kind, "page"), let id = t.field(l, &f), id.count == 36, let _ = t.field(l, &f),
                  let contentFile = t.field(l, &f), let content = t.field(l, &f), let journalFile = t.field(l, &f),
                  let journal = t.field(l, &f), let thumbnail = t.field(l, &f), let shownField = t.field(l, &f),
                  shownField.upperBound == l.upperBound, let shown = t.integer(shownField), shown >= 0 else { return nil }
            for i in id where !(b[i] == 0x2D || (b[i] >= 0x30 && b[i] <= 0x39) || (b[i] >= 0x41 && b[i] <= 0x46)) { return nil }
            guard let contentNow = stat(contentFile, under: "pages"), stamp(content, is: contentNow),
                  let thumbnailNow = stat(id, from: th, plainAfter: 0, suffix: ".jpg"), stamp(thumbnail, is: thumbnailNow)
            else { return nil }
            if t.isDash(journalFile) {
                guard t.isDash(journal) else { return nil }
            } else {
                guard let journalNow = stat(journalFile, under: "pages"), stamp(journal, is: journalNow) else { return nil }
            }
            for _ in 0..<shown {
                guard let s = t.line(&at) else { return nil }
                var g = s.lowerBound
                guard let k = t.field(s, &g), t.equals(k, "shows"), let name = t.field(s, &g), let hash = t.field(s, &g),
                      hash.upperBound == s.upperBound,
                      assets.contains(where: { t.equals($0.name, name) && t.equals($0.hash, hash) }) else { return nil }
            }
            pages += 1
        }
        guard pages == slots else { return nil }
        return pages
    }

    /// The stamp of the package's subdirectory `name` ("pages", "assets"), not following a link.
    func stat(directory name: String) -> FileStamp? {
        var st = Glibc.stat()
        guard fstatat(pkg, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return FileStamp(st)
    }
}

/// The directories holding a list of packages, each opened once (following links, as the user's
/// own path to a library is followed; the package itself never is), with each package's name in
/// its directory.
final class ParentDirectories: @unchecked Sendable {
    /// Per package: its name in its directory.
    let names: [String]
    /// Per package: the index of its directory in `descriptors`.
    private let parent: [Int]
    private var descriptors: [Int32] = []

    init(_ packages: [String]) {
        var names: [String] = [], parent: [Int] = []
        var opened: [String: Int] = [:]
        var last: (path: String, index: Int)? = nil
        for raw in packages {
            var path = raw
            while path.utf8.count > 1 && path.utf8.last == 0x2F { path.removeLast() }
            let (dir, name): (String, String)
            if let slash = path.utf8.lastIndex(of: 0x2F) {
                let head = String(path[..<slash])
                (dir, name) = (head.isEmpty ? "/" : head, String(path[path.utf8.index(after: slash)...]))
            } else {
                (dir, name) = (".", path)
            }
            names.append(name)
            // Packages come grouped by directory: the last one opened is nearly always it.
            if let last, last.path == dir {
                parent.append(last.index)
                continue
            }
            let index: Int
            if let known = opened[dir] {
                index = known
            } else {
                index = descriptors.count
                descriptors.append(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
                opened[dir] = index
            }
            parent.append(index)
            last = (dir, index)
        }
        self.names = names
        self.parent = parent
    }

    /// The descriptor of package `d`'s directory; nil when it could not be opened (or the
    /// package has no name of its own there, such as "/").
    func descriptor(of d: Int) -> Int32? {
        let fd = descriptors[parent[d]]
        guard fd >= 0, !names[d].isEmpty, names[d] != ".", names[d] != ".." else { return nil }
        return fd
    }

    func close() {
        for fd in descriptors where fd >= 0 { _ = Glibc.close(fd) }
        descriptors = []
    }
}
