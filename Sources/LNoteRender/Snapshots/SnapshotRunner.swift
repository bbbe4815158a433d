// `lnote-render snapshot`'s work, for the command and for the testing library: render every
// page of every document, hold each against its golden in `DIR/<document>/`, record goldens as
// the policy says, and say what became of each page.

import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape

/// When goldens are written.
public enum SnapshotRecording: String, Sendable, CaseIterable {
    /// Never: a missing golden fails (CI).
    case never
    /// Missing goldens are written (`--record`, `LNOTE_SNAPSHOT_RECORD=missing`).
    case missing
    /// Missing and differing goldens are written (`--update`, `LNOTE_SNAPSHOT_RECORD=all`).
    case all
}

/// What a snapshot run renders, allows and may write.
public struct SnapshotOptions: Sendable {
    /// The size of every page (default: the 320-pixel thumbnail width).
    public var size: OutputSize
    public var channelTolerance: Int
    public var maxDiffering: PixelAllowance
    public var recording: SnapshotRecording
    /// Deletes goldens of pages (and documents) that no longer exist. Nothing else deletes.
    public var prune: Bool
    public var jobs: Int
    /// Written into every golden and compared with the golden's, so that a golden of another
    /// renderer version that differs is reported as `outdated`.
    public var rendererVersion: String
    /// Where `expected`, `actual` and `diff` images of failing, new and updated pages go
    /// (`<dir>/<document>/<name>.actual.png`, …); nil: nowhere.
    public var artifactsDirectory: String?
    public var maxWork: Double

    public init(size: OutputSize = .width(320), channelTolerance: Int = 0, maxDiffering: PixelAllowance = .pixels(0),
                recording: SnapshotRecording = .never, prune: Bool = false, jobs: Int = 1,
                rendererVersion: String = LNoteRenderer.version, artifactsDirectory: String? = nil,
                maxWork: Double = RenderOptions.defaultMaxWork) {
        self.size = size
        self.channelTolerance = channelTolerance
        self.maxDiffering = maxDiffering
        self.recording = recording
        self.prune = prune
        self.jobs = jobs
        self.rendererVersion = rendererVersion
        self.artifactsDirectory = artifactsDirectory
        self.maxWork = maxWork
    }
}

/// What became of one page.
public enum SnapshotStatus: String, Sendable, CaseIterable {
    /// Matches its golden within the tolerance.
    case matched
    /// Had no golden; one was written.
    case recorded
    /// Differed from its golden; the golden was rewritten (`--update`).
    case updated
    /// Has no golden, and none was written: fails.
    case missing
    /// Differs from its golden: fails.
    case differs
    /// Differs from a golden recorded by another renderer version: fails, and says so.
    case outdated
    /// The golden could not be read or decoded: nothing was compared.
    case unreadable
    /// The page could not be rendered (an invalid entry, an unreadable content file, a limit).
    case failed

    /// Counts as a failure of the run (exit 1 or 3).
    public var fails: Bool { self != .matched && self != .recorded && self != .updated }
    /// Nothing could be compared (exit 3).
    public var cannotCompare: Bool { self == .unreadable || self == .failed }
}

/// One page's outcome.
public struct PageSnapshot: Sendable {
    public var number: Int
    /// Canonical page id; nil for an entry without a valid one.
    public var id: String?
    public var name: GoldenName?
    public var status: SnapshotStatus
    /// The golden's path (as it is after the run; nil when there is none).
    public var golden: String?
    /// The golden's previous path when it was renamed for a new page number.
    public var renamedFrom: String?
    /// The golden's name says another page number (pages were inserted or removed before it);
    /// recording renames it.
    public var renumbered = false
    public var comparison: ComparisonResult?
    public var tolerance: ComparisonTolerance?
    public var allowance: PixelAllowance?
    /// The renderer version the golden says it was made by (nil: it does not say).
    public var goldenRendererVersion: String?
    /// The renderer version that drew this page now.
    public var rendererVersion: String
    public var width = 0, height = 0
    public var artifacts = Artifacts()
    /// Why the page failed, or what else happened to it (a golden that could not be written).
    public var message: String?
    public var error: LNoteError?
    public var diagnostics: [Diagnostic] = []
    public var seconds: Double = 0

    public struct Artifacts: Sendable, Equatable {
        public var expected: String?
        public var actual: String?
        public var diff: String?
        public init() {}
    }
}

/// A golden whose page (or document) no longer exists.
public struct OrphanGolden: Sendable, Equatable {
    public var path: String
    public var pruned: Bool
    /// Why it could not be deleted.
    public var error: String?
}

/// One document's outcome.
public struct DocumentSnapshot: Sendable {
    /// The path below the argument it was found under, without `.lnote`: its golden directory.
    public var key: String
    public var path: String
    public var title: String?
    public var goldenDirectory: String
    public var pages: [PageSnapshot] = []
    public var orphans: [OrphanGolden] = []
    /// The document (or its override file) could not be read: no page was compared.
    public var error: SnapshotError?
}

/// A whole run.
public struct SnapshotRun: Sendable {
    public var goldens: String
    public var rendererVersion: String
    public var documents: [DocumentSnapshot]
    /// Golden directories of no document given (`--prune` takes DIR to be exactly these documents' goldens).
    public var orphanDocuments: [OrphanGolden]
    public var seconds: Double

    public var pages: [PageSnapshot] { documents.flatMap(\.pages) }

    public func count(_ status: SnapshotStatus) -> Int { pages.filter { $0.status == status }.count }

    /// 0 all match (or were recorded), 1 some differ or are missing, 3 something could not be read.
    public var exitStatus: Int32 {
        if documents.contains(where: { $0.error != nil }) || pages.contains(where: \.status.cannotCompare) { return 3 }
        if pages.contains(where: \.status.fails) { return 1 }
        if (documents.flatMap(\.orphans) + orphanDocuments).contains(where: { $0.error != nil }) { return 1 }
        return 0
    }
}

/// Runs snapshots of documents against a golden directory.
public enum SnapshotRunner {
    /// The documents under `paths` (packages, or directories searched for them), each with its
    /// golden directory key; paths that name no package are returned as failures.
    public static func documents(in paths: [String]) -> (documents: [(path: String, key: String)], errors: [LibraryScan.Failure]) {
        let found = LibraryScan.keyedPackages(in: paths)
        return (found.packages.map { ($0.path, goldenKey($0.key)) }, found.errors)
    }

    /// A library key without the `.lnote` of its last part: `trips/Paris.lnote` → `trips/Paris`.
    public static func goldenKey(_ key: String) -> String {
        key.lowercased().hasSuffix(".lnote") ? String(key.dropLast(6)) : key
    }

    /// Whether `path` (which may not exist yet) resolves inside one of `packages`: goldens,
    /// reports and artifacts are never written into a package.
    public static func packageContaining(_ path: String, among packages: [String]) -> String? {
        guard let output = FileIO.resolvedPath(path) else { return nil }
        for package in packages {
            guard let p = FileIO.resolvedPath(package) else { continue }
            if output == p || output.hasPrefix(p + "/") { return package }
        }
        return nil
    }

    /// The golden directory keys that more than one of `documents` has, each with those
    /// documents' paths (`libA/Notes.lnote` and `libB/Notes.lnote` are both `Notes`). Such
    /// documents would record over, and prune, each other's goldens: none of them is run.
    public static func sharedKeys(_ documents: [(path: String, key: String)]) -> [(key: String, paths: [String])] {
        var paths: [String: [String]] = [:]
        for document in documents { paths[document.key, default: []].append(document.path) }
        var reported = Set<String>()
        return documents.compactMap { document in
            guard let all = paths[document.key], all.count > 1, reported.insert(document.key).inserted else { return nil }
            return (document.key, all)
        }
    }

    /// Runs every document; `progress(done, total)` after each page (on a worker thread).
    public static func run(documents: [(path: String, key: String)], goldens: String, options: SnapshotOptions,
                           progress: (@Sendable (Int, Int) -> Void)? = nil) -> SnapshotRun {
        let started = DispatchTime.now().uptimeNanoseconds
        var goldensRoot = goldens
        while goldensRoot.count > 1 && goldensRoot.hasSuffix("/") { goldensRoot.removeLast() }
        var results: [DocumentSnapshot] = []
        var shared: [String: [String]] = [:]
        for (key, paths) in sharedKeys(documents) { shared[key] = paths }
        let opened = documents.map { document in
            Result { () throws(LNoteError) in
                if let paths = shared[document.key] {
                    let others = paths.filter { $0 != document.path }.joined(separator: ", ")
                    throw LNoteError(.invalid, file: document.path, code: .sharedGoldens,
                                     message: "its goldens would be \(goldensRoot)/\(document.key), which \(others) also has; "
                                         + "give each library its own --goldens directory")
                }
                return try LNotePackage.open(at: URL(fileURLWithPath: document.path))
            }
        }
        let total = opened.reduce(0) { $0 + ((try? $1.get())?.pages.count ?? 0) }
        let done = AtomicCounter()
        for (document, package) in zip(documents, opened) {
            results.append(run(document: document, package: package, goldens: goldensRoot, options: options) {
                progress?(done.increment() + 1, total)
            })
        }
        let orphans = orphanDocuments(goldens: goldensRoot, keys: Set(documents.map(\.key)), prune: options.prune)
        return SnapshotRun(goldens: goldensRoot, rendererVersion: options.rendererVersion, documents: results,
                           orphanDocuments: orphans,
                           seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
    }

    /// One document: its pages in parallel (`options.jobs`), then its orphaned goldens.
    public static func run(document: (path: String, key: String), goldens: String, options: SnapshotOptions,
                           pageDone: @Sendable () -> Void = {}) -> DocumentSnapshot {
        run(document: document, package: Result { () throws(LNoteError) in try LNotePackage.open(at: URL(fileURLWithPath: document.path)) },
            goldens: goldens, options: options, pageDone: pageDone)
    }

    static func run(document: (path: String, key: String), package opened: Result<LNotePackage, LNoteError>, goldens: String,
                    options: SnapshotOptions, pageDone: @Sendable () -> Void) -> DocumentSnapshot {
        let directory = document.key.isEmpty ? goldens : goldens + "/" + document.key
        var result = DocumentSnapshot(key: document.key, path: document.path, goldenDirectory: directory)
        let package: LNotePackage
        do throws(LNoteError) {
            package = try opened.get()
        } catch {
            result.error = SnapshotError(file: error.file.isEmpty ? document.path : error.file, message: error.message)
            return result
        }
        result.title = package.document.title
        var overrides = SnapshotOverrides()
        let overridesPath = directory + "/" + SnapshotOverrides.fileName
        if FileIO.kind(atPath: overridesPath) != .missing {
            do {
                let bytes = try FileIO.readRegularFile(atPath: overridesPath, display: overridesPath, maxBytes: 1 << 20)
                overrides = try SnapshotOverrides(json: bytes, file: overridesPath)
            } catch let error as SnapshotError {
                result.error = error
                return result
            } catch let error as LNoteError {
                result.error = SnapshotError(file: overridesPath, message: error.message)
                return result
            } catch {
                result.error = SnapshotError(file: overridesPath, message: "\(error)")
                return result
            }
        }
        let names = GoldenName.names(for: package.pages)
        // The goldens there are, by key; the one named for the page's number first.
        let existing = FileIO.listDirectory(atPath: directory).compactMap(GoldenName.init(fileName:)).sorted { $0.fileName < $1.fileName }
        var byKey: [String: [GoldenName]] = [:]
        for name in existing { byKey[name.key, default: []].append(name) }
        let chosen: [GoldenName?] = zip(names, package.pages).map { name, slot in
            guard let name, let id = slot.entry?.id.canonical.lowercased() else { return nil }
            // A golden named with the whole id still belongs to its page once the page that
            // shared its first eight digits is gone (the name is then renamed when recording).
            if let candidates = byKey[name.key] ?? byKey[id] {
                return candidates.first { $0.number == name.number } ?? candidates[0]
            }
            // The page's name became the whole id because a page sharing its first eight digits
            // was added: its golden still has the short name. The page id the golden carries
            // says which of the two pages it belongs to.
            guard name.key.count > GoldenName.keyLength else { return nil }
            return byKey[String(id.prefix(GoldenName.keyLength))]?.first { golden in
                GoldenMetadata.pageID(ofGolden: directory + "/" + golden.fileName) == id
            }
        }
        if let artifacts = options.artifactsDirectory { removeStaleArtifacts(in: document.key.isEmpty ? artifacts : artifacts + "/" + document.key) }
        let context = PageContext(package: package, key: document.key, directory: directory, options: options,
                                  overrides: overrides, assets: AssetCache(budgetBytes: PageExporter.assetBudget))
        let slots = ResultSlots<PageSnapshot?>(count: package.pages.count, initial: nil)
        WorkerPool.run(jobs: package.pages.count, workers: options.jobs, context: { () }) { index, _ in
            slots[index] = context.snapshot(index, name: names[index], golden: chosen[index])
            pageDone()
        }
        result.pages = (0..<package.pages.count).map { slots[$0]! }

        // Goldens of no page: every file whose key no page has (or a second file of one page's key).
        // (A golden renamed in this run is its page's, under its old name too.)
        let kept = Set(result.pages.flatMap { [$0.golden, $0.renamedFrom].compactMap { $0.map { URL(fileURLWithPath: $0).lastPathComponent } } })
        let invalidIDs = package.pages.compactMap { slot -> String? in
            if case .invalid(_, let raw, _) = slot { return raw?.lowercased() }
            return nil
        }
        for name in existing where !kept.contains(name.fileName) {
            // A page whose entry is invalid keeps its golden: it may come back.
            if invalidIDs.contains(where: { $0.hasPrefix(name.key) }) && !names.contains(where: { $0?.key == name.key }) { continue }
            result.orphans.append(orphan(directory + "/" + name.fileName, prune: options.prune))
        }
        return result
    }

    /// Deletes the images an earlier run left in a document's artifact directory (only files named
    /// as artifacts are: `NNN-<id>.expected.png`, `.actual.png`, `.diff.png`), so that a report
    /// directory holds this run's images only.
    static func removeStaleArtifacts(in directory: String) {
        for name in FileIO.listDirectory(atPath: directory) {
            for kind in [".expected.png", ".actual.png", ".diff.png"] where name.hasSuffix(kind) {
                if GoldenName(fileName: String(name.dropLast(kind.count)) + ".png") != nil { _ = unlink(directory + "/" + name) }
            }
        }
    }

    static func orphan(_ path: String, prune: Bool) -> OrphanGolden {
        guard prune else { return OrphanGolden(path: path, pruned: false) }
        if unlink(path) == 0 {
            FileIO.syncDirectory(atPath: AtomicFile.split(path).dir)
            return OrphanGolden(path: path, pruned: true)
        }
        return OrphanGolden(path: path, pruned: false, error: String(cString: strerror(errno)))
    }

    /// Golden files in directories below `goldens` that belong to no document of the run.
    /// A `.lnote` directory is never entered (it is a package, not goldens), and a directory is
    /// removed only when pruning emptied it: one that was empty, or holds anything else, stays.
    static func orphanDocuments(goldens: String, keys: Set<String>, prune: Bool) -> [OrphanGolden] {
        var out: [OrphanGolden] = []
        /// Whether anything below `relative` was deleted.
        func walk(_ relative: String) -> Bool {
            let dir = relative.isEmpty ? goldens : goldens + "/" + relative
            guard let entries = try? FileIO.entries(of: "", under: dir, display: dir) else { return false }
            let isDocument = keys.contains(relative)
            var deleted = false
            for entry in entries where !entry.name.hasPrefix(".") {
                if entry.kind == .directory {
                    guard !LibraryScan.isPackageName(entry.name) else { continue }
                    if walk(relative.isEmpty ? entry.name : relative + "/" + entry.name) { deleted = true }
                } else if !isDocument, entry.kind == .regular, GoldenName(fileName: entry.name) != nil {
                    let golden = orphan(dir + "/" + entry.name, prune: prune)
                    if golden.pruned { deleted = true }
                    out.append(golden)
                }
            }
            if deleted && !isDocument && !relative.isEmpty && rmdir(dir) == 0 {  // rmdir fails unless emptied
                FileIO.syncDirectory(atPath: AtomicFile.split(dir).dir)
            }
            return deleted
        }
        if FileIO.kind(atPath: goldens) == .directory { _ = walk("") }
        return out
    }

    /// Encodes a golden: an opaque RGB PNG carrying the renderer version and the page id.
    public static func goldenPNG(_ bitmap: Bitmap, scale: Double, pageID: String, rendererVersion: String) throws(CodecError) -> [UInt8] {
        try PNGEncoder.encode(bitmap, options: PNGEncodeOptions(
            includeAlpha: false, pixelsPerInch: PageTransform.dpi(scale: scale),
            text: [("Software", "lnote-render"), (GoldenMetadata.rendererVersionKeyword, rendererVersion),
                   (GoldenMetadata.pageIDKeyword, pageID)]))
    }
}

/// What every page job of one document shares.
private struct PageContext: Sendable {
    let package: LNotePackage
    let key: String
    let directory: String
    let options: SnapshotOptions
    let overrides: SnapshotOverrides
    let assets: AssetCache

    func artifact(_ name: GoldenName, _ kind: String) -> String? {
        guard let root = options.artifactsDirectory else { return nil }
        let dir = key.isEmpty ? root : root + "/" + key
        return dir + "/" + name.fileName.dropLast(4) + ".\(kind).png"
    }

    func write(_ bytes: [UInt8], _ path: String) -> String? { GoldenFile.write(bytes, to: path) }

    func snapshot(_ index: Int, name: GoldenName?, golden: GoldenName?) -> PageSnapshot {
        let started = DispatchTime.now().uptimeNanoseconds
        var page = PageSnapshot(number: index + 1, id: package.pages[index].entry?.id.canonical, name: name,
                                status: .failed, rendererVersion: options.rendererVersion)
        compare(index, name: name, golden: golden, into: &page)
        page.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return page
    }

    private func compare(_ index: Int, name: GoldenName?, golden: GoldenName?, into page: inout PageSnapshot) {
        guard let name, let id = page.id else {
            page.error = package.pages[index].error
            page.message = page.error?.message ?? "the page has no valid entry"
            return
        }
        let actual: Bitmap, scale: Double
        do throws(LNoteError) {
            let loaded = try package.loadPage(at: index)
            let rendered = try PageRenderer.render(loaded, of: package, options: RenderOptions(size: options.size, maxWork: options.maxWork),
                                                   assets: assets)
            actual = rendered.bitmap.flattened(onto: .white)
            scale = rendered.scale
            page.diagnostics = rendered.diagnostics
        } catch {
            page.error = error
            page.message = error.message
            return
        }
        (page.width, page.height) = (actual.width, actual.height)
        let target = directory + "/" + name.fileName
        var encodedActual: [UInt8]?
        func actualPNG() -> [UInt8]? {
            if encodedActual == nil {
                encodedActual = try? SnapshotRunner.goldenPNG(actual, scale: scale, pageID: id, rendererVersion: options.rendererVersion)
            }
            return encodedActual
        }
        func writeActualArtifact() {
            if let path = artifact(name, "actual"), let png = actualPNG(), write(png, path) == nil { page.artifacts.actual = path }
        }
        /// Writes the golden at `target` (removing the old name); the reason on failure.
        func record(replacing old: String?) -> String? {
            guard let png = actualPNG() else { return "the page could not be encoded" }
            if let failure = write(png, target) { return failure }
            if let old, old != target { _ = unlink(old) }
            page.golden = target
            return nil
        }

        guard let golden else {
            writeActualArtifact()
            if options.recording != .never {
                if let failure = record(replacing: nil) {
                    page.status = .missing
                    page.message = "the golden could not be written: \(failure)"
                } else {
                    page.status = .recorded
                }
            } else {
                page.status = .missing
            }
            return
        }
        let goldenPath = directory + "/" + golden.fileName
        page.golden = goldenPath
        page.renumbered = golden != name
        let limits = overrides.tolerance(page: name.number, id: id.lowercased(),
                                         base: (options.channelTolerance, options.maxDiffering))
        let checked: GoldenComparison
        do throws(GoldenFileError) {
            checked = try GoldenFile.compare(actual, withGoldenAt: goldenPath) { pixels in
                ComparisonTolerance(channelTolerance: limits.channel, maxDifferingPixels: limits.allowance.pixels(of: pixels))
            }
        } catch {
            page.status = .unreadable
            page.message = error.message
            return
        }
        let goldenBytes = checked.bytes, result = checked.result
        page.goldenRendererVersion = checked.rendererVersion
        page.tolerance = result.tolerance
        page.allowance = limits.allowance
        page.comparison = result
        if result.passes {
            page.status = .matched
            if page.renumbered && options.recording != .never {
                // Renamed to the page's new number, bytes unchanged.
                if let failure = write(goldenBytes, target) {
                    page.message = "the golden could not be renamed to \(target): \(failure)"
                } else {
                    _ = unlink(goldenPath)
                    page.golden = target
                    page.renamedFrom = goldenPath
                    page.renumbered = false
                }
            }
            return
        }
        // Differs: the artifacts a person needs to judge it.
        if let path = artifact(name, "expected"), write(goldenBytes, path) == nil { page.artifacts.expected = path }
        writeActualArtifact()
        if let path = artifact(name, "diff"), let png = checked.diffPNG(actual: actual), write(png, path) == nil {
            page.artifacts.diff = path
        }
        let otherVersion = checked.recordedByAnother(than: options.rendererVersion)
        if options.recording == .all {
            if let failure = record(replacing: goldenPath) {
                page.status = otherVersion ? .outdated : .differs
                page.message = "the golden could not be rewritten: \(failure)"
            } else {
                page.status = .updated
                if goldenPath != target { page.renamedFrom = goldenPath }
                page.renumbered = false
            }
            return
        }
        page.status = otherVersion ? .outdated : .differs
        if otherVersion {
            page.message = "the golden was recorded by renderer \(page.goldenRendererVersion!), this is \(options.rendererVersion)"
        }
    }
}
