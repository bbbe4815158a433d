import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

// Whether a page's thumbnail is fresh: judged from its stored fingerprint, as a regeneration run would.

extension ThumbnailRegenerator {
    /// Whether a page's thumbnail exists and was made from the page's current inputs.
    public enum ThumbnailStatus: String, Sendable {
        case upToDate = "up-to-date", stale, missing
        /// Made from the page's current content, but with other settings (width, quality):
        /// the stored settings, e.g. `w320 q80`.
        case otherSettings = "other-settings"
        /// A thumbnail with no fingerprint lnote-render can read (another program made it, or
        /// it cannot be read): nothing says what it was made from.
        case unfingerprinted
    }

    /// The state of a page's thumbnail, judged exactly as a regeneration run would, from the
    /// page's source as already read. `assetHashes` is shared by the pages of one document so
    /// an asset shown on many pages is hashed once.
    public func status(of entry: PageEntry, source: PageSource, in package: LNotePackage,
                       assetHashes: AssetHashes) -> ThumbnailStatus {
        status(of: entry, source: source, inputs: inputsHash(entry: entry, source: source), in: package, assetHashes: assetHashes)
    }

    func status(of entry: PageEntry, source: PageSource, inputs: String, in package: LNotePackage,
                assetHashes: AssetHashes) -> ThumbnailStatus {
        check(entry, source: source, inputs: inputs, in: package, assetHashes: assetHashes).status
    }

    /// `status`, with what an up-to-date thumbnail vouches for: the assets the page shows with
    /// their hashes, and the stamp of the thumbnail file whose fingerprint was read.
    func check(_ entry: PageEntry, source: PageSource, inputs: String, in package: LNotePackage,
               assetHashes: AssetHashes) -> (status: ThumbnailStatus, assets: [Fingerprint.Asset], thumbnail: FileStamp?) {
        let file = LNotePackage.thumbnailPath(for: entry.id)
        guard FileIO.kind(atPath: package.absolutePath(file)) == .regular else { return (.missing, [], nil) }
        guard let (stored, stamp) = storedFingerprint(file, in: package) else { return (.unfingerprinted, [], nil) }
        guard stored.inputs == inputs else {
            // Only the settings differ when the stored inputs are these inputs under the stored
            // settings (and the assets still match): the content is current.
            guard let old = stored.settings, old != settingsText,
                  inputsHash(entry: entry, source: source, settingsText: old) == stored.inputs else { return (.stale, [], nil) }
            var same = stored
            same.inputs = inputs
            let assets = checkAssets(entry, source: source, inputs: inputs, stored: same, stamp: stamp, in: package,
                                     assetHashes: assetHashes)
            return (assets.status == .upToDate ? .otherSettings : .stale, [], nil)
        }
        return checkAssets(entry, source: source, inputs: inputs, stored: stored, stamp: stamp, in: package, assetHashes: assetHashes)
    }

    /// `check` for a thumbnail whose stored inputs equal `inputs`: up to date when the assets
    /// it shows are unchanged.
    func checkAssets(_ entry: PageEntry, source: PageSource, inputs: String, stored: Fingerprint, stamp: FileStamp?,
                             in package: LNotePackage, assetHashes: AssetHashes)
        -> (status: ThumbnailStatus, assets: [Fingerprint.Asset], thumbnail: FileStamp?) {
        switch stored.assets {
        case .listed(let assets):
            let current = assets.allSatisfy({ assetHashes.hash(of: $0.name, in: package) == $0.hash })
            return current ? (.upToDate, assets, stamp) : (.stale, [], nil)
        case .digest:
            // The list was too long to store. The same inputs are the same page, showing the same
            // assets: parse it to name them again, and compare their current hashes by digest.
            guard let page = try? package.loadPage(entry, from: source) else { return (.stale, [], nil) }
            let assets = shownAssets(page, in: package, assetHashes: assetHashes)
            return Fingerprint(inputs: inputs, assets: assets).assets == stored.assets ? (.upToDate, assets, stamp) : (.stale, [], nil)
        }
    }

    /// The assets a page shows (lower-cased names, sorted, each once) with their current hashes.
    func shownAssets(_ page: LoadedPage, in package: LNotePackage, assetHashes: AssetHashes) -> [Fingerprint.Asset] {
        let shown = Set(page.elements.compactMap { element -> String? in
            if case .image(let placement) = element.kind { return placement.asset.lowercased() }
            return nil
        }).sorted()
        return shown.map { Fingerprint.Asset(name: $0, hash: assetHashes.hash(of: $0, in: package)) }
    }

    /// The fingerprint stored in thumbnail `file` (package-relative) and the stamp of the file it
    /// was read from, or nil when there is no readable one.
    func storedFingerprint(_ file: String, in package: LNotePackage) -> (Fingerprint, FileStamp)? {
        // Only the header is needed; a JPEG's COM marker comes before the image data, and
        // thumbnails are small.
        guard let (bytes, stamp) = try? FileIO.readRegularFileAndStamp(relative: file, under: package.path, display: file, maxBytes: 16 << 20),
              let comment = JPEGCodec.readComment(bytes),
              let fingerprint = Fingerprint(text: String(decoding: comment, as: UTF8.self)) else { return nil }
        return (fingerprint, stamp)
    }
}

/// Hashes of a document's asset files, each computed at most once per run, and the stat-index
/// records of those whose stamps settled (or that the index already vouched for).
public final class AssetHashes: @unchecked Sendable {
    private var cache: [String: String] = [:]
    private var records: [String: StatIndex.Asset] = [:]
    private let lock = NSLock()

    public init() {}

    /// Takes the hash of asset `key` (lower-cased name) from a record whose stamp still matches.
    func prime(_ key: String, _ record: StatIndex.Asset) {
        lock.lock(); cache[key] = record.hash; records[key] = record; lock.unlock()
    }

    /// The hash of the asset's bytes, or "missing" when it cannot be read (so an asset that
    /// appears later makes the page re-render).
    func hash(of name: String, in package: LNotePackage) -> String {
        let key = name.lowercased()
        lock.lock()
        if let known = cache[key] { lock.unlock(); return known }
        lock.unlock()
        let startedNs = FileStamp.nowNs()
        guard let (bytes, file, stamp) = try? package.readAssetAndStamp(name) else {
            lock.lock(); cache[key] = "missing"; lock.unlock()
            return "missing"
        }
        let value = ContentHasher.hash(bytes)
        lock.lock()
        cache[key] = value
        if stamp.isSettled(at: startedNs) { records[key] = StatIndex.Asset(file: file, stamp: stamp, hash: value) }
        lock.unlock()
        return value
    }

    var settledRecords: [String: StatIndex.Asset] {
        lock.lock(); defer { lock.unlock() }
        return records
    }
}
