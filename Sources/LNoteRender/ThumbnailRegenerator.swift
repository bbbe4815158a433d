import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat

/// How thumbnails are made. Part of every thumbnail's fingerprint: changing a setting
/// re-renders.
public struct ThumbnailSettings: Sendable, Equatable {
    /// Thumbnail width in pixels (the height follows the page).
    public var width: Int = 320
    /// JPEG quality 1…100.
    public var quality: Int = 80
    /// Re-render every page even when its thumbnail is up to date.
    public var force = false
    /// Worker threads; output is identical whatever the count.
    public var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    public init(width: Int = 320, quality: Int = 80, force: Bool = false,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.width = width
        self.quality = quality
        self.force = force
        self.jobs = max(1, jobs)
    }
}

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
    public var removed = 0
    public var failed = 0
    public var manifest: ManifestOutcome = .skipped
    /// Page failures and the document's own failure, each naming the file.
    public var errors: [String] = []

    public var succeeded: Bool { failed == 0 && errors.isEmpty }
}

/// Rebuilds a document's derived data from its source of truth: one JPEG per page in
/// `thumbnails/`, the manifest, and nothing stale or stray.
///
/// A page is re-rendered only when something it is drawn from changed: its content and journal
/// bytes, its entry in document.json (size, background), the bytes of an asset it shows, the
/// renderer's version or the thumbnail settings. Those inputs are fingerprinted and the
/// fingerprint is stored in the thumbnail itself (a JPEG comment), so thumbnail and fingerprint
/// are always replaced together, atomically. A run with nothing changed reads sources and
/// thumbnail headers and writes nothing.
public final class ThumbnailRegenerator: @unchecked Sendable {
    public let settings: ThumbnailSettings
    public let rendererVersion: String

    public init(settings: ThumbnailSettings, rendererVersion: String) {
        self.settings = settings
        self.rendererVersion = rendererVersion
    }

    /// Regenerates every package found under `paths` (packages, or directories searched for
    /// them). Pages of all documents share one pool of `settings.jobs` workers.
    public func regenerate(paths: [String]) -> [DocumentRegeneration] {
        let found = LibraryScan.packages(in: paths)
        var reports = found.errors.map { DocumentRegeneration(path: $0.path, errors: [$0.message]) }
        reports += regenerate(packages: found.packages)
        return reports
    }

    /// Regenerates the given package directories.
    public func regenerate(packages: [String]) -> [DocumentRegeneration] {
        var reports: [DocumentRegeneration] = []
        var plans: [DocumentPlan] = []
        for path in packages {
            var report = DocumentRegeneration(path: path)
            do {
                let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
                report.title = package.document.title
                plans.append(DocumentPlan(package: package, reportIndex: reports.count))
            } catch {
                report.errors.append("\(path): \(error)")
            }
            reports.append(report)
        }

        // Every page of every document is one job; results land in fixed slots, so the outcome
        // does not depend on scheduling.
        let documents = plans
        let jobs = documents.enumerated().flatMap { d, plan in plan.pageEntries.indices.map { (d, $0) } }
        let outcomes = ResultSlots<PageOutcome>(count: jobs.count, initial: .upToDate)
        // One image cache for all workers: a photo shown on many pages is decoded once.
        let assets = AssetCache(budgetBytes: 256 << 20)
        WorkerPool.run(jobs: jobs.count, workers: settings.jobs, context: { assets }) { j, assets in
            let (d, p) = jobs[j]
            outcomes[j] = self.refresh(page: documents[d].pageEntries[p], of: documents[d], assets: assets)
        }

        for (j, (d, _)) in jobs.enumerated() {
            let r = plans[d].reportIndex
            switch outcomes[j] {
            case .rendered: reports[r].rendered += 1
            case .upToDate: reports[r].upToDate += 1
            case .failed(let message): reports[r].failed += 1; reports[r].errors.append(message)
            }
        }
        for plan in plans {
            // A page whose entry in document.json is invalid fails like any other page: it has
            // no thumbnail, and the run must not report the document as fine.
            for case .invalid(_, _, let error) in plan.package.pages {
                reports[plan.reportIndex].failed += 1
                reports[plan.reportIndex].errors.append("\(plan.package.path): \(error)")
            }
            finish(plan, report: &reports[plan.reportIndex])
        }
        return reports
    }

    // MARK: one document

    /// A document opened for regeneration.
    struct DocumentPlan: Sendable {
        let package: LNotePackage
        let reportIndex: Int
        /// Hashes of asset files, computed once per run and shared by the document's pages.
        let assetHashes = AssetHashes()

        var pageEntries: [PageEntry] { package.document.validPages }
    }

    enum PageOutcome: Sendable {
        case rendered, upToDate
        case failed(String)
    }

    /// Brings one page's thumbnail up to date.
    private func refresh(page entry: PageEntry, of plan: DocumentPlan, assets: AssetCache) -> PageOutcome {
        let package = plan.package
        let thumbnail = LNotePackage.thumbnailPath(for: entry.id)
        do throws(LNoteError) {
            let source = try package.readPageSource(entry)
            let inputs = inputsHash(entry: entry, source: source)
            if !settings.force,
               status(of: entry, source: source, inputs: inputs, in: package, assetHashes: plan.assetHashes) == .upToDate {
                return .upToDate
            }
            let page = try package.loadPage(entry, from: source)
            let options = RenderOptions(size: .width(settings.width))
            let rendered = try PageRenderer.render(page, of: package, options: options, assets: assets)
            let fingerprint = Fingerprint(inputs: inputs,
                                          assets: shownAssets(page, in: package, assetHashes: plan.assetHashes))
            let jpeg: [UInt8]
            do {
                jpeg = try JPEGEncoder.encode(rendered.bitmap, quality: settings.quality,
                                              pixelsPerInch: JPEGEncoder.density(pixelsPerInch: 72 * rendered.scale),
                                              comment: Array(fingerprint.text.utf8))
            } catch {
                throw LNoteError(.invalid, file: thumbnail, rule: "encode", message: error.description)
            }
            try package.writeThumbnail(jpeg, for: entry.id)
            return .rendered
        } catch {
            return .failed("\(package.path): \(error)")
        }
    }

    /// After the pages: stale thumbnails and stray temporary files removed, the manifest
    /// brought in line with document.json once its cover exists.
    private func finish(_ plan: DocumentPlan, report: inout DocumentRegeneration) {
        let package = plan.package
        do throws(LNoteError) {
            // The same rule as `gc` for thumbnails and temporary files (assets are left alone).
            let plan = try GarbageCollector.plan(package, includeAssets: false)
            report.removed += try GarbageCollector.run(plan, on: package).count
            report.manifest = try updateManifest(package)
        } catch {
            report.errors.append("\(package.path): \(error)")
        }
    }

    private func updateManifest(_ package: LNotePackage) throws(LNoteError) -> DocumentRegeneration.ManifestOutcome {
        let wanted = Manifest(document: package.document)
        if let cover = wanted.cover, FileIO.kind(atPath: package.absolutePath(cover)) != .regular {
            return .skippedNoCover
        }
        if let current = try? package.readManifest(), current == wanted { return .unchanged }
        try package.writeManifest(wanted)
        return .written
    }

    // MARK: fingerprints

    /// The hash of everything a page's picture depends on, except the assets it shows (those
    /// are only known after parsing, so they are listed and checked separately).
    func inputsHash(entry: PageEntry, source: PageSource) -> String {
        var h = ContentHasher()
        h.combine("lnote-render \(rendererVersion)")
        h.combine("w\(settings.width) q\(settings.quality)")
        let bg = entry.background
        h.combine("\(entry.width)x\(entry.height) \(bg.color.hexString) \(bg.template.rawValue) \(bg.spacing) \(bg.lineColor.hexString)")
        h.combine(source.content)
        if let journal = source.journal {
            h.combine("journal")
            h.combine(journal)
        } else {
            h.combine("no journal")
        }
        return h.finalize()
    }

    /// Whether a page's thumbnail exists and was made from the page's current inputs.
    public enum ThumbnailStatus: String, Sendable {
        case upToDate = "up-to-date", stale, missing
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
        let file = LNotePackage.thumbnailPath(for: entry.id)
        guard FileIO.kind(atPath: package.absolutePath(file)) == .regular else { return .missing }
        guard let stored = storedFingerprint(file, in: package), stored.inputs == inputs else { return .stale }
        switch stored.assets {
        case .listed(let assets):
            return assets.allSatisfy({ assetHashes.hash(of: $0.name, in: package) == $0.hash }) ? .upToDate : .stale
        case .digest:
            // The list was too long to store. The same inputs are the same page, showing the same
            // assets: parse it to name them again, and compare their current hashes by digest.
            guard let page = try? package.loadPage(entry, from: source) else { return .stale }
            let current = Fingerprint(inputs: inputs, assets: shownAssets(page, in: package, assetHashes: assetHashes))
            return current == stored ? .upToDate : .stale
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

    /// The fingerprint stored in thumbnail `file` (package-relative), or nil when there is no
    /// readable one.
    func storedFingerprint(_ file: String, in package: LNotePackage) -> Fingerprint? {
        // Only the header is needed; a JPEG's COM marker comes before the image data, and
        // thumbnails are small.
        guard let bytes = try? FileIO.readRegularFile(relative: file, under: package.path, display: file, maxBytes: 16 << 20),
              let comment = JPEGCodec.readComment(bytes) else { return nil }
        return Fingerprint(text: String(decoding: comment, as: UTF8.self))
    }
}

/// The inputs a thumbnail was made from, stored in its JPEG comment as text:
/// `lnote-render-fingerprint 1` / `inputs <hash>`, then either one `asset <name> <hash>` line
/// per asset shown, or, when those lines would pass `maxListedBytes`, one `assets <count>
/// <digest>` line whose digest covers all of them.
///
/// The digest keeps the comment bounded: a JPEG comment holds at most 65,533 bytes, and at
/// about 80 bytes an asset a valid page showing 819 distinct assets could never get a thumbnail
/// (nor, on page 1, a manifest). It still changes with any asset's hash.
struct Fingerprint: Equatable, Sendable {
    struct Asset: Equatable, Sendable {
        var name: String
        var hash: String

        var line: String { "asset \(name) \(hash)" }
    }

    enum Assets: Equatable, Sendable {
        case listed([Asset])
        /// A digest of the `asset` lines of `count` assets, in order.
        case digest(count: Int, hash: String)
    }

    var inputs: String
    var assets: Assets

    static let magic = "lnote-render-fingerprint 1"
    /// The most bytes of `asset` lines stored one by one (about 50 assets).
    static let maxListedBytes = 4096

    /// `assets` in a fixed order (`shownAssets` sorts them), so the same page always gives the
    /// same fingerprint.
    init(inputs: String, assets: [Asset]) {
        self.inputs = inputs
        let lines = assets.map(\.line)
        if lines.reduce(0, { $0 + $1.utf8.count + 1 }) <= Self.maxListedBytes {
            self.assets = .listed(assets)
        } else {
            var h = ContentHasher()
            for line in lines { h.combine(line + "\n") }
            self.assets = .digest(count: assets.count, hash: h.finalize())
        }
    }

    init?(text: String) {
        let lines = text.split(separator: "\n").map(String.init)
        guard lines.first == Self.magic, lines.count >= 2 else { return nil }
        let first = lines[1].split(separator: " ")
        guard first.count == 2, first[0] == "inputs" else { return nil }
        inputs = String(first[1])
        if lines.count == 3, case let parts = lines[2].split(separator: " "), parts.count == 3, parts[0] == "assets" {
            guard let count = Int(parts[1]) else { return nil }
            assets = .digest(count: count, hash: String(parts[2]))
            return
        }
        var listed: [Asset] = []
        for line in lines.dropFirst(2) {
            let parts = line.split(separator: " ")
            guard parts.count == 3, parts[0] == "asset" else { return nil }
            listed.append(Asset(name: String(parts[1]), hash: String(parts[2])))
        }
        assets = .listed(listed)
    }

    var text: String {
        switch assets {
        case .listed(let listed): return ([Self.magic, "inputs \(inputs)"] + listed.map(\.line)).joined(separator: "\n")
        case .digest(let count, let hash): return [Self.magic, "inputs \(inputs)", "assets \(count) \(hash)"].joined(separator: "\n")
        }
    }
}

/// Hashes of a document's asset files, each computed at most once per run.
public final class AssetHashes: @unchecked Sendable {
    private var cache: [String: String] = [:]
    private let lock = NSLock()

    public init() {}

    /// The hash of the asset's bytes, or "missing" when it cannot be read (so an asset that
    /// appears later makes the page re-render).
    func hash(of name: String, in package: LNotePackage) -> String {
        let key = name.lowercased()
        lock.lock()
        if let known = cache[key] { lock.unlock(); return known }
        lock.unlock()
        let value = (try? package.readAsset(name)).map(ContentHasher.hash) ?? "missing"
        lock.lock(); cache[key] = value; lock.unlock()
        return value
    }
}
