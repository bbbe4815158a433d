import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

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
/// hashed as above; `policy.verify` always does. A run with nothing changed then costs a few
/// stats per page, and writes the index only when its records changed.
public final class ThumbnailRegenerator: @unchecked Sendable {
    /// What the thumbnails are made with (fingerprinted).
    public let recipe: ThumbnailRecipe
    /// How this run goes (not fingerprinted).
    public let policy: ThumbnailPolicy

    public init(recipe: ThumbnailRecipe, policy: ThumbnailPolicy) {
        self.recipe = recipe
        self.policy = policy
    }

    public convenience init(settings: ThumbnailSettings, rendererVersion: String) {
        self.init(recipe: settings.recipe(rendererVersion: rendererVersion), policy: settings.policy)
    }

    public var rendererVersion: String { recipe.rendererVersion }

    /// Regenerates every package found under `paths` (packages, or directories searched for
    /// them). Pages of all documents share one pool of `policy.jobs` workers.
    public func regenerate(paths: [String]) -> [DocumentRegeneration] {
        let found = LibraryScan.packages(in: paths)
        var reports = found.errors.map { DocumentRegeneration(path: $0.path, failures: [.init($0.error)]) }
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
        let trusted = policy.force || policy.verify ? [] : trustedDocuments(packages)
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
                report.failures.append(.init(error))
            }
            reports.append(report)
        }

        // The stat check first, a document at a time: pages it vouches for are done.
        var results: [[PageResult?]] = plans.map { plan in
            policy.force || policy.verify ? Array(repeating: nil, count: plan.pageEntries.count) : trustedByStat(plan)
        }

        // Every other page of every document is one job; results land in fixed slots, so the
        // outcome does not depend on scheduling.
        let documents = plans
        let jobs = results.enumerated().flatMap { d, pages in pages.indices.filter { pages[$0] == nil }.map { (d, $0) } }
        let outcomes = ResultSlots<PageResult>(count: jobs.count, initial: PageResult(outcome: .upToDate))
        let done = AtomicCounter()
        // One image cache for all workers: a photo shown on many pages is decoded once.
        let assets = AssetCache(budgetBytes: 256 << 20)
        WorkerPool.run(jobs: jobs.count, workers: policy.jobs, context: { assets }) { j, assets in
            let (d, p) = jobs[j]
            outcomes[j] = self.refresh(page: documents[d].pageEntries[p], of: documents[d], assets: assets)
            if let progress { progress(done.increment() + 1, jobs.count) }
        }
        for (j, (d, p)) in jobs.enumerated() { results[d][p] = outcomes[j] }

        for (d, plan) in plans.enumerated() {
            let r = plan.reportIndex
            let numbers = plan.package.pages.indices.filter { plan.package.pages[$0].entry != nil }.map { $0 + 1 }
            for (p, result) in results[d].enumerated() {
                switch result!.outcome {
                case .rendered: reports[r].rendered += 1
                case .upToDate: reports[r].upToDate += 1
                case .failed(let error):
                    reports[r].failed += 1
                    reports[r].failures.append(.init(error, page: numbers[p], pageID: plan.pageEntries[p].id.original))
                }
                if result!.trustedByStat { reports[r].trustedByStat += 1 }
            }
        }
        for (d, plan) in plans.enumerated() {
            // A page whose entry in document.json is invalid fails like any other page: it has
            // no thumbnail, and the run must not report the document as fine.
            for case .invalid(let index, let rawID, let error) in plan.package.pages {
                reports[plan.reportIndex].failed += 1
                reports[plan.reportIndex].failures.append(.init(error, page: index + 1, pageID: rawID))
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
        if count < parallelMinimum || policy.jobs == 1 {
            let scratch = TrustedDocumentCheck.Scratch()
            return (0..<count).map { d in
                parents.descriptor(of: d).flatMap { check.check(path: packages[d], name: parents.names[d], in: $0, scratch: scratch) }
            }
        }
        let slots = ResultSlots<DocumentRegeneration?>(count: count, initial: nil)
        WorkerPool.run(jobs: count, workers: policy.jobs, context: { TrustedDocumentCheck.Scratch() }) { d, scratch in
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
}
