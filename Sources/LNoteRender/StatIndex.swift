import Glibc
import LNoteFormat

/// The regenerator's memory of what each thumbnail was drawn from, git-index style: for every
/// page, the stamps (`FileStamp`: device, inode, mode, size, mtime and ctime in ns) of its content
/// file, journal and thumbnail, the key of its document.json entry and settings, and the hash of
/// every asset it shows; for every asset, its stamp and hash. A page whose files all still have
/// their recorded stamps is up to date without reading a byte of them.
///
/// It is derived data like the thumbnails it vouches for: one file per document,
/// `thumbnails/.lnote-render-index`, rebuilt by any run, ignored when missing or unreadable, and
/// never trusted beyond its stamps (content hashing stays the truth; `--verify` ignores it).
/// Only settled stamps are recorded (`FileStamp.isSettled`): a file changed within the time-stamp
/// granularity of its read is read and hashed again next time.
///
/// Like git's index for `git status`, it also keeps what a run needs from document.json, so
/// that while document.json keeps its stamp it is not parsed at all (`TrustedDocumentCheck`):
/// the document's page count and title, and the key under which the pages' entry keys were
/// computed (renderer version and settings).
///
/// Text, one record a line, so that a person can read it:
///
///     lnote-render-stat-index 3
///     pages-dir <stamp>|-
///     assets-dir <stamp>|-
///     package-dir <stamp>|-           (the package directory, after the manifest was written)
///     temporary-files none|pending    (source temporary files too young to delete, last time)
///     manifest <document.json stamp>|- <manifest.json stamp>|-   (when they were found to agree)
///     document <document.json stamp>|- <settings key> <page slots> <title, %-escaped>
///                                     (what the page records below were derived from)
///     page <ID> <entry key> <content file> <stamp> <journal file>|- <stamp>|- <thumbnail stamp> <n>
///     shows <asset name> <hash>            (n lines, the assets the page above shows)
///     asset <name> <file> <stamp> <hash>
///
/// Versions 1 and 2 are not read: their hashes are those of the hash before XXH3-128 (see
/// `ContentHasher`), which no hash of this version can match, and an asset hash primed from one
/// would be written into new fingerprints (and then call them stale wherever the index is not).
struct StatIndex: Equatable, Sendable {
    static let relativePath = "\(LNotePackage.thumbnailsDirectory)/\(fileName)"
    static let fileName = ".lnote-render-index"
    static let magic = "lnote-render-stat-index 3"

    /// What the page records were derived from in document.json: while it keeps `stamp` and
    /// the settings key is the current one, every page's entry key still holds, the document
    /// has `pageSlots` pages (valid or not) and this title.
    struct Document: Equatable, Sendable {
        var stamp: FileStamp
        /// `ThumbnailRegenerator.settingsKey`: the renderer version and settings the entry keys cover.
        var settingsKey: String
        var pageSlots: Int
        var title: String

        /// The title with every byte outside `!`…`~`, and `%`, as `%XX`: one field, no spaces.
        static func escape(_ title: String) -> String {
            var out = ""
            for byte in title.utf8 {
                if byte > 0x20 && byte < 0x7F && byte != 0x25 { out.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                    let hex = Array("0123456789ABCDEF".utf8)
                    out.unicodeScalars.append("%")
                    out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                    out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
                }
            }
            return out
        }

        /// `escape` undone; nil for a malformed escape.
        static func unescape(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var i = 0
            func hex(_ c: UInt8) -> UInt8? {
                switch c {
                case 0x30...0x39: return c - 0x30
                case 0x41...0x46: return c - 0x41 + 10
                default: return nil
                }
            }
            while i < bytes.count {
                if bytes[i] == 0x25 {
                    guard i + 2 < bytes.count, let h = hex(bytes[i + 1]), let l = hex(bytes[i + 2]) else { return nil }
                    out.append(h << 4 | l)
                    i += 3
                } else {
                    out.append(bytes[i])
                    i += 1
                }
            }
            return String(validating: out, as: UTF8.self)
        }
    }

    struct Page: Equatable, Sendable {
        /// The hash of the renderer version, settings and document.json entry (`entryKey`).
        var entryKey: String
        var contentFile: String
        var content: FileStamp
        var journalFile: String?
        var journal: FileStamp?
        var thumbnail: FileStamp
        /// The assets the page shows, with the hashes its thumbnail was made from.
        var assets: [Fingerprint.Asset]
    }

    struct Asset: Equatable, Sendable {
        /// Relative to the package: `assets/<name as found>`.
        var file: String
        var stamp: FileStamp
        var hash: String
    }

    var pagesDirectory: FileStamp?
    var assetsDirectory: FileStamp?
    /// With pages/ and assets/: while none of the three changed, no temporary file appeared in
    /// them, so only thumbnails/ is searched for one (unless some were left pending).
    var packageDirectory: FileStamp?
    var temporaryFilesPending = true
    /// document.json and manifest.json as they were when the manifest was found to agree with
    /// the document: while both keep these stamps, it still does.
    var document: FileStamp?
    var manifest: FileStamp?
    /// document.json as the page records were derived from it (nil: not recorded, its stamp unsettled).
    var documentRecord: Document?
    /// By canonical page id.
    var pages: [String: Page] = [:]
    /// By lower-cased asset name.
    var assets: [String: Asset] = [:]

    var isEmpty: Bool { pages.isEmpty && assets.isEmpty }

    var text: String {
        var lines = [Self.magic, "pages-dir \(pagesDirectory?.description ?? "-")", "assets-dir \(assetsDirectory?.description ?? "-")",
                     "package-dir \(packageDirectory?.description ?? "-")", "temporary-files \(temporaryFilesPending ? "pending" : "none")",
                     "manifest \(document?.description ?? "-") \(manifest?.description ?? "-")",
                     documentRecord.map { "document \($0.stamp) \($0.settingsKey) \($0.pageSlots) \(Document.escape($0.title))" }
                        ?? "document - - 0 "]
        for (id, p) in pages.sorted(by: { $0.key < $1.key }) {
            lines.append("page \(id) \(p.entryKey) \(p.contentFile) \(p.content) \(p.journalFile ?? "-") \(p.journal?.description ?? "-") \(p.thumbnail) \(p.assets.count)")
            lines += p.assets.map { "shows \($0.name) \($0.hash)" }
        }
        for (name, a) in assets.sorted(by: { $0.key < $1.key }) {
            lines.append("asset \(name) \(a.file) \(a.stamp) \(a.hash)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    init() {}

    /// Parses the index's bytes; nil for anything else (another version, a torn or edited
    /// file), which costs only one run of hashing. A byte scanner, not `String.split`: this is
    /// most of what a no-op run does (split and Substring made it 5× slower).
    init?(bytes: [UInt8]) {
        guard let parsed = bytes.withUnsafeBufferPointer({ StatIndex.parse($0) }) else { return nil }
        self = parsed
    }

    /// The decimal integer written at `r` of `b` (an optional leading `-`), or nil when it is
    /// not one or does not fit an Int64: the index is package data, so a hostile field must be
    /// refused, never trap.
    static func integer(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Int64? {
        guard !r.isEmpty, r.count <= 20 else { return nil }
        var v: Int64 = 0
        var i = r.lowerBound
        let negative = b[i] == 0x2D
        if negative { i += 1; if i == r.upperBound { return nil } }
        while i < r.upperBound {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            let (m, o1) = v.multipliedReportingOverflow(by: 10)
            let (n, o2) = m.addingReportingOverflow(Int64(d))
            guard !o1, !o2 else { return nil }
            v = n
            i += 1
        }
        return negative ? -v : v
    }

    private static func parse(_ b: UnsafeBufferPointer<UInt8>) -> StatIndex? {
        let t = StatIndexText(b: b)
        var lines: [Range<Int>] = []
        var at = 0
        while let line = t.line(&at) { lines.append(line) }
        guard at == b.count, lines.count >= 6 else { return nil }  // the last line ends with a newline
        let fields = t.fields, text = t.text, isDash = t.isDash, integer = t.integer, stamp = t.stamp
        let equals: (Range<Int>, StaticString) -> Bool = t.equals
        func optionalStamp(_ r: Range<Int>) -> FileStamp?? { isDash(r) ? .some(nil) : stamp(r).map { .some($0) } }

        guard equals(lines[0], "lnote-render-stat-index 3"), lines.count >= 7 else { return nil }
        var index = StatIndex()
        let pd = fields(lines[1]), ad = fields(lines[2])
        guard pd.count == 2, equals(pd[0], "pages-dir"), let pagesDir = optionalStamp(pd[1]),
              ad.count == 2, equals(ad[0], "assets-dir"), let assetsDir = optionalStamp(ad[1]) else { return nil }
        index.pagesDirectory = pagesDir
        index.assetsDirectory = assetsDir
        let kd = fields(lines[3]), tf = fields(lines[4]), mf = fields(lines[5])
        guard kd.count == 2, equals(kd[0], "package-dir"), let packageDir = optionalStamp(kd[1]),
              tf.count == 2, equals(tf[0], "temporary-files"), equals(tf[1], "none") || equals(tf[1], "pending"),
              mf.count == 3, equals(mf[0], "manifest"), let document = optionalStamp(mf[1]), let manifest = optionalStamp(mf[2])
        else { return nil }
        index.packageDirectory = packageDir
        index.temporaryFilesPending = equals(tf[1], "pending")
        index.document = document
        index.manifest = manifest
        let d = fields(lines[6])
        var l = 7
        guard d.count == 5, equals(d[0], "document"), let slots = integer(d[3]), slots >= 0 else { return nil }
        if !isDash(d[1]) {
            guard let stamp = stamp(d[1]), !isDash(d[2]),
                  let title = Document.unescape(UnsafeBufferPointer(rebasing: b[d[4]])) else { return nil }
            index.documentRecord = Document(stamp: stamp, settingsKey: text(d[2]), pageSlots: Int(slots), title: title)
        }
        while l < lines.count {
            let f = fields(lines[l])
            l += 1
            if equals(f[0], "page") {
                guard f.count == 9, let content = stamp(f[4]), let journal = optionalStamp(f[6]), let thumbnail = stamp(f[7]),
                      let n = integer(f[8]), n >= 0, n <= lines.count - l, isDash(f[5]) == (journal == nil) else { return nil }
                var shown: [Fingerprint.Asset] = []
                for _ in 0..<n {
                    let a = fields(lines[l])
                    l += 1
                    guard a.count == 3, equals(a[0], "shows") else { return nil }
                    shown.append(Fingerprint.Asset(name: text(a[1]), hash: text(a[2])))
                }
                index.pages[text(f[1])] = Page(entryKey: text(f[2]), contentFile: text(f[3]), content: content,
                                               journalFile: isDash(f[5]) ? nil : text(f[5]), journal: journal,
                                               thumbnail: thumbnail, assets: shown)
            } else if equals(f[0], "asset") {
                guard f.count == 5, let s = stamp(f[3]) else { return nil }
                index.assets[text(f[1])] = Asset(file: text(f[2]), stamp: s, hash: text(f[4]))
            } else {
                return nil
            }
        }
        return index
    }

    /// The index stored in `package`; nil when there is none or it is unreadable.
    static func load(_ package: LNotePackage) -> StatIndex? {
        guard let bytes = try? FileIO.readRegularFile(relative: relativePath, under: package.path, display: relativePath,
                                                      maxBytes: 64 << 20) else { return nil }
        return StatIndex(bytes: bytes)
    }
}

/// The index's text as bytes: its lines, their space-separated fields, and the words, numbers
/// and stamps written in them. The one reader of the index's syntax, for `StatIndex.parse` and
/// for the trusted no-op path's verifier (`IndexReader`), which reads it in place without
/// making a String or an array.
struct StatIndexText {
    let b: UnsafeBufferPointer<UInt8>

    /// The next line from `at` (without its newline), moving `at` past it; nil at the end or
    /// for a last line without a newline.
    func line(_ at: inout Int) -> Range<Int>? {
        guard at < b.count else { return nil }
        let start = at
        guard let nl = memchr(b.baseAddress! + start, 0x0A, b.count - start) else { return nil }
        let end = b.baseAddress!.distance(to: nl.assumingMemoryBound(to: UInt8.self))
        at = end + 1
        return start..<end
    }

    /// The next space-separated field of `line` from `at`, moving `at` past it; nil past the last.
    func field(_ line: Range<Int>, _ at: inout Int) -> Range<Int>? {
        guard at <= line.upperBound else { return nil }
        var i = at
        while i < line.upperBound && b[i] != 0x20 { i += 1 }
        defer { at = i + 1 }
        return at..<i
    }

    /// Every field of `line` (an empty line has one, empty).
    func fields(_ line: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var at = line.lowerBound
        while let f = field(line, &at) { out.append(f) }
        return out
    }

    func text(_ r: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: b[r]), as: UTF8.self) }

    func equals(_ r: Range<Int>, _ word: StaticString) -> Bool {
        r.count == word.utf8CodeUnitCount && memcmp(b.baseAddress! + r.lowerBound, word.utf8Start, r.count) == 0
    }

    func equals(_ r: Range<Int>, _ other: Range<Int>) -> Bool {
        r.count == other.count && memcmp(b.baseAddress! + r.lowerBound, b.baseAddress! + other.lowerBound, r.count) == 0
    }

    func isDash(_ r: Range<Int>) -> Bool { r.count == 1 && b[r.lowerBound] == 0x2D }

    func integer(_ r: Range<Int>) -> Int64? { StatIndex.integer(b, r) }

    /// The stamp written at `r` (`dev:ino:mode:size:mtime:ctime`); nil when it is not one.
    func stamp(_ r: Range<Int>) -> FileStamp? {
        var parts: (Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0)
        var k = 0
        var s = r.lowerBound
        for i in r.lowerBound...r.upperBound where i == r.upperBound || b[i] == 0x3A {
            guard k < 6, let v = integer(s..<i) else { return nil }
            switch k {
            case 0: parts.0 = v
            case 1: parts.1 = v
            case 2: parts.2 = v
            case 3: parts.3 = v
            case 4: parts.4 = v
            default: parts.5 = v
            }
            k += 1
            s = i + 1
        }
        guard k == 6, parts.0 >= 0, parts.1 >= 0, parts.2 >= 0, parts.2 <= Int64(UInt32.max) else { return nil }
        return FileStamp(device: UInt64(parts.0), inode: UInt64(parts.1), mode: UInt32(parts.2), size: parts.3,
                         mtimeNs: parts.4, ctimeNs: parts.5)
    }
}
