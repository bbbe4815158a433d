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
/// Text, one record a line, so that a person can read it:
///
///     lnote-render-stat-index 1
///     pages-dir <stamp>|-
///     assets-dir <stamp>|-
///     page <ID> <entry key> <content file> <stamp> <journal file>|- <stamp>|- <thumbnail stamp> <n>
///     shows <asset name> <hash>            (n lines, the assets the page above shows)
///     asset <name> <file> <stamp> <hash>
struct StatIndex: Equatable, Sendable {
    static let relativePath = "\(LNotePackage.thumbnailsDirectory)/.lnote-render-index"
    static let magic = "lnote-render-stat-index 1"

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
    /// By canonical page id.
    var pages: [String: Page] = [:]
    /// By lower-cased asset name.
    var assets: [String: Asset] = [:]

    var isEmpty: Bool { pages.isEmpty && assets.isEmpty }

    var text: String {
        var lines = [Self.magic, "pages-dir \(pagesDirectory?.description ?? "-")", "assets-dir \(assetsDirectory?.description ?? "-")"]
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

    /// Parses `text`; nil for anything else (another version, a torn or edited file), which
    /// costs only one run of hashing.
    init?(text: String) {
        var lines = text.split(separator: "\n")[...]
        guard lines.popFirst() == Substring(Self.magic) else { return nil }
        func stamp(_ s: Substring) -> FileStamp?? { s == "-" ? .some(nil) : FileStamp(s).map { .some($0) } }
        guard let pd = lines.popFirst()?.split(separator: " "), pd.count == 2, pd[0] == "pages-dir", let pagesDir = stamp(pd[1]),
              let ad = lines.popFirst()?.split(separator: " "), ad.count == 2, ad[0] == "assets-dir", let assetsDir = stamp(ad[1])
        else { return nil }
        pagesDirectory = pagesDir
        assetsDirectory = assetsDir
        while let line = lines.popFirst() {
            let f = line.split(separator: " ")
            switch f.first {
            case "page":
                guard f.count == 9, let content = FileStamp(f[4]), let journal = stamp(f[6]), let thumbnail = FileStamp(f[7]),
                      let n = Int(f[8]), n >= 0, n <= lines.count, (f[5] == "-") == (journal == nil) else { return nil }
                var shown: [Fingerprint.Asset] = []
                for _ in 0..<n {
                    let s = lines.popFirst()!.split(separator: " ")
                    guard s.count == 3, s[0] == "shows" else { return nil }
                    shown.append(Fingerprint.Asset(name: String(s[1]), hash: String(s[2])))
                }
                pages[String(f[1])] = Page(entryKey: String(f[2]), contentFile: String(f[3]), content: content,
                                           journalFile: f[5] == "-" ? nil : String(f[5]), journal: journal,
                                           thumbnail: thumbnail, assets: shown)
            case "asset":
                guard f.count == 5, let s = FileStamp(f[3]) else { return nil }
                assets[String(f[1])] = Asset(file: String(f[2]), stamp: s, hash: String(f[4]))
            default:
                return nil
            }
        }
    }

    /// The index stored in `package`, with its text; nil when there is none or it is unreadable.
    static func load(_ package: LNotePackage) -> (index: StatIndex, text: String)? {
        guard let bytes = try? FileIO.readRegularFile(relative: relativePath, under: package.path, display: relativePath,
                                                      maxBytes: 64 << 20) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return StatIndex(text: text).map { ($0, text) }
    }
}
