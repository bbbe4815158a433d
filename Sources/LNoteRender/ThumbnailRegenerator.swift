import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

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
    /// A page estimated to need more raster work than this is refused (`RenderOptions.maxWork`).
    /// Not part of a thumbnail's fingerprint: it decides whether a page is drawn, not how.
    public var maxWork: Double = RenderOptions.defaultMaxWork
    /// Read and hash every input, even where the stat index vouches for it (`StatIndex`).
    public var verify = false

    public init(width: Int = 320, quality: Int = 80, force: Bool = false,
                jobs: Int = ProcessInfo.processInfo.activeProcessorCount, maxWork: Double = RenderOptions.defaultMaxWork,
                verify: Bool = false) {
        self.width = width
        self.quality = quality
        self.force = force
        self.jobs = max(1, jobs)
        self.maxWork = maxWork
        self.verify = verify
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

/// Rebuilds a document's derived data from its source of truth: one JPEG per page in
/// `thumbnails/`, the manifest, and nothing stale or stray.
///
/// A page is re-rendered only when something it is drawn from changed: its content and journal
/// bytes, its entry in document.json (size, background), the bytes of an asset it shows, the
/// renderer's version or the thumbnail settings. Those inputs are fingerprinted and the
/// fingerprint is stored in the thumbnail itself (a JPEG comment), so thumbnail and fingerprint
/// are always replaced together, atomically. A run with nothing changed reads sources and
/// thumbnail headers and writes nothing.
///
/// Before any of that, a stat index (`StatIndex`, in `thumbnails/`) is consulted: a page whose
/// content, journal, thumbnail and assets all still have the stamps recorded when they were last
/// read and found consistent is up to date without a read. Anything in doubt is read and
/// hashed as above; `settings.verify` always does. A run with nothing changed then costs a few
/// stats per page, and writes the index only when its records changed.
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
        var reports = found.errors.map { DocumentRegeneration(path: $0.path, failures: [$0.error]) }
        reports += regenerate(packages: found.packages)
        return reports
    }

    /// Regenerates the given package directories. `progress` is called (from worker threads, in
    /// no particular order) after each page with the pages done so far and the total.
    public func regenerate(packages: [String],
                           progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil) -> [DocumentRegeneration] {
        var reports: [DocumentRegeneration] = []
        var plans: [DocumentPlan] = []
        // Documents whose stat index vouches for all of them, from stamps alone; the others
        // are opened, parsed and checked page by page below.
        let trusted = settings.force || settings.verify ? [] : trustedDocuments(packages)
        for (d, path) in packages.enumerated() {
            if d < trusted.count, let report = trusted[d] {
                reports.append(report)
                continue
            }
            var report = DocumentRegeneration(path: path)
            do {
                // Stamps of the package directory, document.json and manifest.json before
                // document.json is read: a change from then on shows next time.
                let startedNs = FileStamp.nowNs()
                let top = FileIO.stamps(of: [DocumentParser.fileName, Manifest.fileName], in: "", under: path)
                let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
                report.title = package.document.title
                plans.append(DocumentPlan(package: package, reportIndex: reports.count, startedNs: startedNs,
                                          packageDirectory: top.directory, document: top.entries[0], manifest: top.entries[1]))
            } catch {
                report.failures.append(error)
            }
            reports.append(report)
        }

        // The stat check first, a document at a time: pages it vouches for are done.
        var results: [[PageResult?]] = plans.map { plan in
            settings.force || settings.verify ? Array(repeating: nil, count: plan.pageEntries.count) : trustedByStat(plan)
        }

        // Every other page of every document is one job; results land in fixed slots, so the
        // outcome does not depend on scheduling.
        let documents = plans
        let jobs = results.enumerated().flatMap { d, pages in pages.indices.filter { pages[$0] == nil }.map { (d, $0) } }
        let outcomes = ResultSlots<PageResult>(count: jobs.count, initial: PageResult(outcome: .upToDate))
        let done = PageCounter()
        // One image cache for all workers: a photo shown on many pages is decoded once.
        let assets = AssetCache(budgetBytes: 256 << 20)
        WorkerPool.run(jobs: jobs.count, workers: settings.jobs, context: { assets }) { j, assets in
            let (d, p) = jobs[j]
            outcomes[j] = self.refresh(page: documents[d].pageEntries[p], of: documents[d], assets: assets)
            if let progress { progress(done.increment(), jobs.count) }
        }
        for (j, (d, p)) in jobs.enumerated() { results[d][p] = outcomes[j] }

        for (d, plan) in plans.enumerated() {
            let r = plan.reportIndex
            for result in results[d] {
                switch result!.outcome {
                case .rendered: reports[r].rendered += 1
                case .upToDate: reports[r].upToDate += 1
                case .failed(let error):
                    reports[r].failed += 1; reports[r].failures.append(error)
                }
                if result!.trustedByStat { reports[r].trustedByStat += 1 }
            }
        }
        for (d, plan) in plans.enumerated() {
            // A page whose entry in document.json is invalid fails like any other page: it has
            // no thumbnail, and the run must not report the document as fine.
            for case .invalid(_, _, let error) in plan.package.pages {
                reports[plan.reportIndex].failed += 1
                reports[plan.reportIndex].failures.append(error)
            }
            finish(plan, records: results[d].map { $0!.record }, report: &reports[plan.reportIndex])
        }
        return reports
    }

    /// Below this many documents, the trusted check runs on the calling thread: where starting
    /// the pool (tens of µs) is no longer well under 1 % of the work (~60-90 µs a document). On
    /// the 2-vCPU project machine two jobs were already 12 % faster at 300 documents (14 % at
    /// 1,000); smaller counts were not measured with the pool.
    static let parallelTrustedCheckMinimum = 256

    /// For each package, its report when `TrustedDocumentCheck` finds it up to date (else nil).
    /// Each directory holding packages is opened once, and every package through it.
    func trustedDocuments(_ packages: [String], parallelMinimum: Int = ThumbnailRegenerator.parallelTrustedCheckMinimum) -> [DocumentRegeneration?] {
        guard !packages.isEmpty else { return [] }
        let check = TrustedDocumentCheck(settingsKey: Array(settingsKey.utf8))
        let parents = ParentDirectories(packages)
        defer { parents.close() }
        let count = packages.count
        if count < parallelMinimum || settings.jobs == 1 {
            let scratch = TrustedDocumentCheck.Scratch()
            return (0..<count).map { d in
                parents.descriptor(of: d).flatMap { check.check(path: packages[d], name: parents.names[d], in: $0, scratch: scratch) }
            }
        }
        let slots = ResultSlots<DocumentRegeneration?>(count: count, initial: nil)
        WorkerPool.run(jobs: count, workers: settings.jobs, context: { TrustedDocumentCheck.Scratch() }) { d, scratch in
            if let parent = parents.descriptor(of: d) {
                slots[d] = check.check(path: packages[d], name: parents.names[d], in: parent, scratch: scratch)
            }
        }
        return (0..<count).map { slots[$0] }
    }

    // MARK: one document

    /// A document opened for regeneration.
    struct DocumentPlan: Sendable {
        let package: LNotePackage
        let reportIndex: Int
        /// Hashes of asset files, computed once per run and shared by the document's pages.
        let assetHashes = AssetHashes()
        /// The stat index as found (an unchanged one is not rewritten).
        let previous: StatIndex?
        /// When the document's processing began (wall clock), and the stamps taken then, before
        /// any of the files is read, so that a change made during the run shows as a different
        /// stamp next time: the package directory, document.json, manifest.json; pages/ and
        /// the page files the index names; assets/ and the assets it names; each thumbnail.
        let startedNs: Int64
        let packageDirectory: FileStamp?
        let document: FileStamp?
        let manifest: FileStamp?
        let pages: (directory: FileStamp?, files: [String: FileStamp])
        let assets: (directory: FileStamp?, files: [String: FileStamp])
        let thumbnails: [FileStamp?]

        init(package: LNotePackage, reportIndex: Int, startedNs: Int64, packageDirectory: FileStamp?,
             document: FileStamp?, manifest: FileStamp?) {
            self.package = package
            self.reportIndex = reportIndex
            self.startedNs = startedNs
            self.packageDirectory = packageDirectory
            self.document = document
            self.manifest = manifest
            previous = StatIndex.load(package)
            // One open per directory, one fstatat per file.
            func stamps(_ names: [String], in dir: String) -> (FileStamp?, [String: FileStamp]) {
                let got = FileIO.stamps(of: names, in: dir, under: package.path)
                var files: [String: FileStamp] = [:]
                for (name, stamp) in zip(names, got.entries) { files[name] = stamp }
                return (got.directory, files)
            }
            var pageNames: [String] = []
            for page in (previous?.pages.values).map(Array.init) ?? [] {
                pageNames.append(Self.fileName(page.contentFile))
                if let journal = page.journalFile { pageNames.append(Self.fileName(journal)) }
            }
            pages = stamps(pageNames, in: LNotePackage.pagesDirectory)
            assets = stamps(((previous?.assets.values).map(Array.init) ?? []).map { Self.fileName($0.file) }, in: LNotePackage.assetsDirectory)
            thumbnails = FileIO.stamps(of: package.document.validPages.map { "\($0.id.canonical).jpg" },
                                       in: LNotePackage.thumbnailsDirectory, under: package.path).entries
        }

        /// The name after the last "/", found in the UTF-8 view: Character-based splitting was a
        /// sixth of a no-op run.
        static func fileName(_ relative: String) -> String {
            guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else { return relative }
            return String(relative[relative.utf8.index(after: slash)...])
        }

        /// Whether the stat index shows `current` as it was when recorded (a recorded stamp is
        /// always a settled one).
        func unchanged(_ current: FileStamp?, _ recorded: FileStamp??) -> Bool {
            guard let current, let recorded = recorded ?? nil else { return false }
            return current == recorded
        }

        var pageEntries: [PageEntry] { package.document.validPages }
    }

    enum PageOutcome: Sendable {
        case rendered, upToDate
        case failed(LNoteError)
    }

    /// What became of one page, and the index record that vouches for it next time (nil when
    /// none can: it was just rendered, failed, or one of its stamps had not settled).
    struct PageResult: Sendable {
        var outcome: PageOutcome
        var record: StatIndex.Page? = nil
        var trustedByStat = false
    }

    // MARK: the stat check

    /// For each page of the document, a result when the stat index vouches for it: its entry and
    /// the settings give the recorded key, its content and journal resolve to the recorded files
    /// with the recorded stamps, its thumbnail has its recorded stamp, and every asset it shows
    /// still has the recorded hash (assets with their recorded stamps are not read for that).
    func trustedByStat(_ plan: DocumentPlan) -> [PageResult?] {
        let entries = plan.pageEntries
        guard let index = plan.previous else { return Array(repeating: nil, count: entries.count) }
        let package = plan.package
        let candidates: [StatIndex.Page?] = entries.map { entry in
            index.pages[entry.id.canonical].flatMap { $0.entryKey == entryKey(entry) ? $0 : nil }
        }
        // The name after the last "/", found in the UTF-8 view: Character-based splitting was a
        // sixth of a no-op run.
        let name = DocumentPlan.fileName

        // Assets with their recorded stamps keep their recorded hashes. One found under another
        // spelling of its name counts only while assets/ lists the same names.
        let assetsUnchanged = plan.unchanged(plan.assets.directory, index.assetsDirectory)
        for (key, record) in index.assets where plan.assets.files[name(record.file)] == record.stamp {
            if record.file == "\(LNotePackage.assetsDirectory)/\(key)" || assetsUnchanged { plan.assetHashes.prime(key, record) }
        }
        let stampOf = plan.pages.files
        let thumbnailStamps = plan.thumbnails
        // While pages/ holds the same names, each page's files resolve as they did; otherwise
        // they are resolved again from one listing (a journal may have appeared).
        let pagesUnchanged = plan.unchanged(plan.pages.directory, index.pagesDirectory)
        var listing: (names: [String], exact: Set<String>)? = nil
        if !pagesUnchanged, candidates.contains(where: { $0 != nil }) {
            guard let names = try? package.entries(of: LNotePackage.pagesDirectory).map(\.name) else {
                return Array(repeating: nil, count: entries.count)
            }
            listing = (names, Set(names))
        }

        return zip(entries, candidates).enumerated().map { p, pair -> PageResult? in
            let (entry, candidate) = pair
            guard let c = candidate, thumbnailStamps[p] == c.thumbnail, stampOf[name(c.contentFile)] == c.content else { return nil }
            if let journalFile = c.journalFile, stampOf[name(journalFile)] != c.journal { return nil }
            if let listing {
                guard LNotePackage.pageFile(entry.id, extension: "content", inListing: listing.names, exactNames: listing.exact) == c.contentFile,
                      LNotePackage.pageFile(entry.id, extension: "journal", inListing: listing.names, exactNames: listing.exact) == c.journalFile
                else { return nil }
            }
            guard c.assets.allSatisfy({ plan.assetHashes.hash(of: $0.name, in: package) == $0.hash }) else { return nil }
            return PageResult(outcome: .upToDate, record: c, trustedByStat: true)
        }
    }

    /// Brings one page's thumbnail up to date, reading and hashing its inputs.
    private func refresh(page entry: PageEntry, of plan: DocumentPlan, assets: AssetCache) -> PageResult {
        let package = plan.package
        let thumbnail = LNotePackage.thumbnailPath(for: entry.id)
        let startedNs = FileStamp.nowNs()
        do throws(LNoteError) {
            let (source, contentStamp, journalStamp) = try package.readPageSourceAndStamps(entry)
            let inputs = inputsHash(entry: entry, source: source)
            if !settings.force {
                let check = self.check(entry, source: source, inputs: inputs, in: package, assetHashes: plan.assetHashes)
                if check.status == .upToDate {
                    // Recorded only when every stamp had settled before the reads began.
                    var record: StatIndex.Page? = nil
                    if let stamp = check.thumbnail, ([contentStamp, stamp] + (journalStamp.map { [$0] } ?? [])).allSatisfy({ $0.isSettled(at: startedNs) }) {
                        record = StatIndex.Page(entryKey: entryKey(entry), contentFile: source.contentFile, content: contentStamp,
                                                journalFile: source.journalFile, journal: journalStamp, thumbnail: stamp, assets: check.assets)
                    }
                    return PageResult(outcome: .upToDate, record: record)
                }
            }
            let page = try package.loadPage(entry, from: source)
            let options = RenderOptions(size: .width(settings.width), maxWork: settings.maxWork)
            let rendered = try PageRenderer.render(page, of: package, options: options, assets: assets)
            let shown = shownAssets(page, in: package, assetHashes: plan.assetHashes)
            var fingerprint = Fingerprint(inputs: inputs, assets: shown)
            fingerprint.settings = settingsText
            let jpeg: [UInt8]
            do {
                // Thumbnails draw the paper, so this flattening is a no-op kept for the rule.
                jpeg = try JPEGEncoder.encode(rendered.bitmap.flattened(onto: .white), quality: settings.quality,
                                              pixelsPerInch: JPEGEncoder.density(pixelsPerInch: 72 * rendered.scale),
                                              comment: Array(fingerprint.text.utf8))
            } catch {
                throw LNoteError(error, file: thumbnail, code: .encode)
            }
            let written = try package.writeThumbnail(jpeg, for: entry.id)
            // Recorded at once, so the next run does not hash the page again: the thumbnail's
            // stamp is that of the new file this run put in place (a rename gives it a fresh
            // inode, and no writer of thumbnails changes one in place), and the sources are
            // vouched for only when their stamps had settled before they were read, as always.
            var record: StatIndex.Page? = nil
            if let written, ([contentStamp] + (journalStamp.map { [$0] } ?? [])).allSatisfy({ $0.isSettled(at: startedNs) }) {
                record = StatIndex.Page(entryKey: entryKey(entry), contentFile: source.contentFile, content: contentStamp,
                                        journalFile: source.journalFile, journal: journalStamp, thumbnail: written, assets: shown)
            }
            return PageResult(outcome: .rendered, record: record)
        } catch {
            return PageResult(outcome: .failed(error))
        }
    }

    /// After the pages: stale thumbnails and stray temporary files removed, the manifest
    /// brought in line with document.json once its cover exists, the stat index written when
    /// its records changed.
    private func finish(_ plan: DocumentPlan, records: [StatIndex.Page?], report: inout DocumentRegeneration) {
        let package = plan.package
        var index = StatIndex()
        let settled = { (stamp: FileStamp?) in stamp.flatMap { $0.isSettled(at: plan.startedNs) ? $0 : nil } }
        let previous = settings.force || settings.verify ? nil : plan.previous
        do throws(LNoteError) {
            // The same rule as `gc` for thumbnails and temporary files (assets are left alone),
            // first: it refuses a thumbnails/ that is a link, and then no manifest is written.
            // Temporary files are looked for only in thumbnails/ while the package directory,
            // pages/ and assets/ are as they were when none was left in them; a subdirectory
            // missing now was missing then too, while the package directory (which its
            // creation would change) is unchanged.
            let quiet = previous.map { !$0.temporaryFilesPending && plan.unchanged(plan.packageDirectory, $0.packageDirectory)
                && (plan.pages.directory == nil || plan.unchanged(plan.pages.directory, $0.pagesDirectory))
                && (plan.assets.directory == nil || plan.unchanged(plan.assets.directory, $0.assetsDirectory)) } ?? false
            let gc = try GarbageCollector.plan(package, includeAssets: false,
                                               temporaryFilesIn: quiet ? [LNotePackage.thumbnailsDirectory] : nil)
            report.removed += try GarbageCollector.run(gc, on: package).count
            index.temporaryFilesPending = quiet ? false
                : !package.strayTemporaryFiles(in: ["", LNotePackage.pagesDirectory, LNotePackage.assetsDirectory]).isEmpty
            // The manifest: agreeing still while document.json and manifest.json keep the stamps
            // they had when it last agreed (and its cover is there).
            let wanted = Manifest(document: package.document)
            if let previous, plan.unchanged(plan.document, previous.document), plan.unchanged(plan.manifest, previous.manifest),
               wanted.cover.map({ FileIO.kind(atPath: package.absolutePath($0)) == .regular }) ?? true {
                report.manifest = .unchanged
            } else {
                report.manifest = try updateManifest(package)
            }
            if report.manifest == .unchanged {
                (index.document, index.manifest) = (settled(plan.document), settled(plan.manifest))
            }
            // Writing the manifest changed the package directory after it was searched.
            index.packageDirectory = report.manifest == .written ? nil : settled(plan.packageDirectory)
            try writeStatIndex(plan, index: index, records: records)
        } catch {
            report.failures.append(error)
        }
    }

    private func writeStatIndex(_ plan: DocumentPlan, index: StatIndex, records: [StatIndex.Page?]) throws(LNoteError) {
        var index = index
        // What the trusted path needs from document.json, recorded when its stamp (taken before
        // it was read) had settled.
        if let stamp = plan.document, stamp.isSettled(at: plan.startedNs) {
            index.documentRecord = StatIndex.Document(stamp: stamp, settingsKey: settingsKey, pageSlots: plan.package.pages.count,
                                                      title: plan.package.document.title)
        }
        index.pagesDirectory = plan.pages.directory.flatMap { $0.isSettled(at: plan.startedNs) ? $0 : nil }
        index.assetsDirectory = plan.assets.directory.flatMap { $0.isSettled(at: plan.startedNs) ? $0 : nil }
        for (entry, record) in zip(plan.pageEntries, records) { index.pages[entry.id.canonical] = record }
        index.assets = plan.assetHashes.settledRecords
        guard index != plan.previous, !(index.isEmpty && plan.previous == nil),
              FileIO.kind(atPath: plan.package.absolutePath(LNotePackage.thumbnailsDirectory)) == .directory else { return }
        // Not fsynced: a lost or torn index costs one run of hashing, never a wrong answer
        // (what it records is re-checked against the files' stamps).
        try AtomicFile.write(Array(index.text.utf8), relative: StatIndex.relativePath, under: plan.package.path, durable: false)
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
    /// `settingsText`: the thumbnail settings as stored in a fingerprint; the current ones when nil.
    func inputsHash(entry: PageEntry, source: PageSource, settingsText: String? = nil) -> String {
        var h = ContentHasher()
        combineEntry(entry, settingsText: settingsText ?? self.settingsText, into: &h)
        h.combine(source.content)
        if let journal = source.journal {
            h.combine("journal")
            h.combine(journal)
        } else {
            h.combine("no journal")
        }
        return h.finalize()
    }

    /// The thumbnail settings that change the picture, as they are hashed and stored.
    var settingsText: String { "w\(settings.width) q\(settings.quality)" }

    /// The renderer version and settings, hashed: what every page's entry key covers besides its
    /// entry, so that entry keys recorded under this key still hold while document.json is unchanged.
    var settingsKey: String {
        var h = ContentHasher()
        h.combine("lnote-render \(rendererVersion)")
        h.combine(settingsText)
        return h.finalize()
    }

    /// The renderer version, the settings and the page's entry in document.json: what
    /// `inputsHash` covers besides the page's files.
    private func combineEntry(_ entry: PageEntry, settingsText: String, into h: inout ContentHasher) {
        h.combine("lnote-render \(rendererVersion)")
        h.combine(settingsText)
        let bg = entry.background
        h.combine("\(entry.width)x\(entry.height) \(bg.color.hexString) \(bg.template.rawValue) \(bg.spacing) \(bg.lineColor.hexString)")
    }

    /// The stat index's key for a page: everything its thumbnail depends on but its files.
    func entryKey(_ entry: PageEntry) -> String {
        var h = ContentHasher()
        combineEntry(entry, settingsText: settingsText, into: &h)
        return h.finalize()
    }

    /// Whether a page's thumbnail exists and was made from the page's current inputs.
    public enum ThumbnailStatus: String, Sendable {
        case upToDate = "up-to-date", stale, missing
        /// Made from the page's current content, but with other settings (width, quality):
        /// the stored settings, e.g. `w320 q80`.
        case otherSettings = "other-settings"
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
        guard let (stored, stamp) = storedFingerprint(file, in: package) else { return (.stale, [], nil) }
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
    private func checkAssets(_ entry: PageEntry, source: PageSource, inputs: String, stored: Fingerprint, stamp: FileStamp?,
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

/// The inputs a thumbnail was made from, stored in its JPEG comment as text:
/// `lnote-render-fingerprint 1` / `inputs <hash>`, optionally `settings w320 q80` (the settings
/// the inputs hash covers, so `check` can tell "other settings" from "other content"; older
/// thumbnails lack it and are judged as before), then either one `asset <name> <hash>` line
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
    /// The thumbnail settings the inputs were hashed with (`w320 q80`), when recorded.
    var settings: String?

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
        var lines = text.split(separator: "\n").map(String.init)
        guard lines.first == Self.magic, lines.count >= 2 else { return nil }
        let first = lines[1].split(separator: " ")
        guard first.count == 2, first[0] == "inputs" else { return nil }
        inputs = String(first[1])
        if lines.count >= 3, lines[2].hasPrefix("settings ") {
            settings = String(lines[2].dropFirst("settings ".count))
            lines.remove(at: 2)
        }
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
        let head = [Self.magic, "inputs \(inputs)"] + (settings.map { ["settings \($0)"] } ?? [])
        switch assets {
        case .listed(let listed): return (head + listed.map(\.line)).joined(separator: "\n")
        case .digest(let count, let hash): return (head + ["assets \(count) \(hash)"]).joined(separator: "\n")
        }
    }
}

/// Pages finished so far, counted by the workers.
final class PageCounter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()

    func increment() -> Int {
        lock.lock(); defer { lock.unlock() }
        count += 1
        return count
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
