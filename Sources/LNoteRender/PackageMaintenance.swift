import Foundation
import LNoteFormat

extension LNotePackage {
    /// Ids of every page document.json lists, valid or not.
    var listedPageIDs: Set<LNoteID> { Set(pages.compactMap(\.id)) }
}

/// Every inconsistency a package can have, for `lnote-render check`.
public enum PackageChecker {
    public struct Report: Sendable {
        public var findings: [Diagnostic] = []
        public var errorCount: Int { findings.filter { $0.severity == .error }.count }
        public var warningCount: Int { findings.count - errorCount }
    }

    /// Checks a package. `thumbnails` decides what counts as an up-to-date thumbnail.
    public static func check(path: String, thumbnails: ThumbnailRegenerator) -> Report {
        var report = Report()
        func add(_ severity: Diagnostic.Severity, _ file: String, _ code: Code, _ message: String,
                 index: Int? = nil, id: String? = nil) {
            report.findings.append(Diagnostic(severity: severity, file: file, elementIndex: index, elementID: id,
                                              code: code, message: message))
        }
        let package: LNotePackage
        do {
            package = try LNotePackage.open(at: URL(fileURLWithPath: path))
        } catch {
            add(.error, error.file, error.code, error.message)
            return report
        }
        report.findings += package.document.diagnostics

        var referencedAssets = Set<String>()
        // Each asset is read and decoded once, however many images show it.
        var assetChecks: [String: Result<Void, LNoteError>] = [:]
        var everyPageLoaded = true
        let assetHashes = AssetHashes()
        for (index, slot) in package.pages.enumerated() {
            let entry: PageEntry
            switch slot {
            case .invalid(_, let rawID, let error):
                // The parser's message already starts with "page N: ".
                add(.error, error.file, error.code, error.message, id: rawID)
                everyPageLoaded = false
                continue
            case .valid(let e):
                entry = e
            }
            let source: PageSource, page: LoadedPage
            do {
                source = try package.readPageSource(entry)
                page = try package.loadPage(entry, from: source)
            } catch {
                add(.error, error.file, error.code, "page \(index + 1): \(error.message)", id: entry.id.original)
                everyPageLoaded = false
                continue
            }
            report.findings += page.diagnostics
            if let listed = entry.elementCount, listed != page.elements.count {
                add(.warning, DocumentParser.fileName, .elementCount,
                    "page \(index + 1) lists elementCount \(listed), but has \(page.elements.count) element(s) after journal replay",
                    id: entry.id.original)
            }
            for (i, element) in page.elements.enumerated() {
                guard case .image(let placement) = element.kind else { continue }
                let key = placement.asset.lowercased()
                referencedAssets.insert(key)
                if assetChecks[key] == nil {
                    assetChecks[key] = Result { () throws(LNoteError) in try AssetCache.verifyAsset(placement.asset, in: package) }
                }
                guard case .failure(let error) = assetChecks[key] else { continue }
                if error.code == .image {
                    // Present and readable, but not an image the renderer can draw.
                    add(.error, page.contentFile, .image,
                        "image shows \(placement.asset), which cannot be decoded: \(error.message)", index: i, id: element.id)
                } else {
                    add(.error, page.contentFile, .missingAsset,
                        "image refers to \(placement.asset), which cannot be read: \(error.message)", index: i, id: element.id)
                }
            }
            switch thumbnails.status(of: entry, source: source, in: package, assetHashes: assetHashes) {
            case .upToDate: break
            case .missing:
                add(.warning, LNotePackage.thumbnailPath(for: entry.id), .missingThumbnail, "page \(index + 1) has no thumbnail")
            case .stale:
                add(.warning, LNotePackage.thumbnailPath(for: entry.id), .staleThumbnail,
                    "page \(index + 1)'s thumbnail was not made from its current content")
            case .unfingerprinted:
                add(.warning, LNotePackage.thumbnailPath(for: entry.id), .unfingerprintedThumbnail,
                    "page \(index + 1)'s thumbnail carries no fingerprint of what it was made from (another program made it), "
                    + "so whether it is current cannot be told; a thumbnails run redraws it")
            case .otherSettings:
                let s = thumbnails.recipe
                add(.warning, LNotePackage.thumbnailPath(for: entry.id), .thumbnailSettings,
                    "page \(index + 1)'s thumbnail shows the current content, but was made with other settings than "
                    + "width \(s.width), quality \(s.quality); a thumbnails run with these settings redraws it")
            }
        }

        // pages/, assets/ or thumbnails/ that is a link or not a directory is an error, not "empty".
        func listing<T>(_ body: () throws(LNoteError) -> [T]) -> [T] {
            do { return try body() } catch {
                add(.error, error.file, error.code, error.message)
                return []
            }
        }
        let listed = package.listedPageIDs
        let pageFiles = listing { () throws(LNoteError) in try package.entries(of: LNotePackage.pagesDirectory) }
        for name in pageFiles.map(\.name) where !AtomicFile.isTemporaryFileName(name) {
            let file = "\(LNotePackage.pagesDirectory)/\(name)"
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            if parts.count == 2, ["content", "journal"].contains(parts[1].lowercased()), let id = LNoteID(parts[0]) {
                if !listed.contains(id) { add(.warning, file, .unlistedPage, "\(parts[1]) file of a page document.json does not list") }
            } else {
                add(.warning, file, .unexpectedFile, "not a page content or journal file")
            }
        }

        let assets = listing { () throws(LNoteError) in try package.assetFiles() }
        if everyPageLoaded {
            for asset in assets where !referencedAssets.contains(asset.name.lowercased()) {
                add(.warning, asset.relativePath, .orphanAsset, "no page shows this asset")
            }
        }
        for file in listing({ () throws(LNoteError) in try package.thumbnailFiles() }) where !AtomicFile.isTemporaryFileName(file.name) {
            if let id = file.pageID, !listed.contains(id) {
                add(.warning, file.relativePath, .orphanThumbnail, "thumbnail of a page document.json does not list")
            }
        }
        for temp in package.strayTemporaryFiles() {
            add(.warning, temp, .temporaryFile, "temporary file left by an interrupted write")
        }
        checkManifest(package, add: add)
        return report
    }

    private static func checkManifest(_ package: LNotePackage,
                                      add: (Diagnostic.Severity, String, Code, String, Int?, String?) -> Void) {
        let file = Manifest.fileName
        let wanted = Manifest(document: package.document)
        let current: Manifest
        do {
            current = try package.readManifest()
        } catch {
            add(.warning, file, .manifest, "\(error.message); the next thumbnails run rebuilds it", nil, nil)
            return
        }
        func differ(_ field: String, _ have: String, _ want: String) {
            add(.warning, file, .manifestStale, "\(field) is \(have), document.json says \(want)", nil, nil)
        }
        if current.id.uppercased() != wanted.id.uppercased() { differ("id", current.id, wanted.id) }
        if current.title != wanted.title { differ("title", current.title.debugDescription, wanted.title.debugDescription) }
        if current.modifiedAt != wanted.modifiedAt { differ("modifiedAt", current.modifiedAt ?? "null", wanted.modifiedAt ?? "null") }
        if current.pageCount != wanted.pageCount { differ("pageCount", String(current.pageCount), String(wanted.pageCount)) }
        if current.cover != wanted.cover { differ("cover", current.cover ?? "null", wanted.cover ?? "null") }
        // The manifest is untrusted too: only a cover of the form the format allows is looked
        // up (a cover of "../../x" must not probe the file system outside the package).
        if let cover = current.cover {
            let parts = cover.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count != 2 || parts[0] != "thumbnails" || !parts[1].hasSuffix(".jpg")
                || LNoteID(String(parts[1].dropLast(4))) == nil {
                add(.warning, file, .manifestCover, "the cover \(cover.debugDescription) is not thumbnails/<UUID>.jpg", nil, nil)
            } else if FileIO.kind(atPath: package.absolutePath(cover)) != .regular {
                add(.warning, file, .manifestCover, "the cover \(cover) does not exist", nil, nil)
            }
        }
    }
}

/// What `lnote-render gc` deletes: assets no page shows after journal replay, thumbnails of
/// pages document.json does not list, and stray temporary files — nothing else.
public enum GarbageCollector {
    public struct Plan: Sendable {
        public var assets: [String] = []
        public var thumbnails: [String] = []
        public var temporaryFiles: [String] = []
        /// Why unreferenced assets are kept this time, if they are.
        public var assetsKeptBecause: String?

        public var all: [String] { assets + thumbnails + temporaryFiles }
    }

    /// What to delete. With `includeAssets: false` pages are not read and no asset is listed
    /// (the regenerator's clean-up of thumbnails and temporary files).
    ///
    /// `temporaryFilesIn` limits the search for temporary files to those package directories (""
    /// for the package itself): the regenerator looks only in thumbnails/ when its stat index
    /// shows the other directories unchanged since it last found none there.
    public static func plan(_ package: LNotePackage, includeAssets: Bool = true,
                            temporaryFilesIn dirs: [String]? = nil) throws(LNoteError) -> Plan {
        var plan = Plan()
        if includeAssets { try planAssets(package, into: &plan) }
        let listed = package.listedPageIDs
        let thumbnails = try package.thumbnailFiles()
        for file in thumbnails where file.kind == .regular {
            if let id = file.pageID, !listed.contains(id) { plan.thumbnails.append(file.relativePath) }
        }
        if dirs == [LNotePackage.thumbnailsDirectory] {
            // From the listing just made: one listing of thumbnails/ instead of two.
            plan.temporaryFiles = package.removable(thumbnails.filter { AtomicFile.isTemporaryFileName($0.name) }.map(\.relativePath))
        } else {
            plan.temporaryFiles = dirs.map { package.removable(package.strayTemporaryFiles(in: $0)) } ?? package.removableTemporaryFiles()
        }
        return plan
    }

    private static func planAssets(_ package: LNotePackage, into plan: inout Plan) throws(LNoteError) {
        // An asset is deleted only when every page could be read in full: a page that failed
        // to load, or an element that was skipped as invalid, might be the one that shows it.
        var referenced = Set<String>()
        var unknownJSON: [[UInt8]] = []
        for (index, slot) in package.pages.enumerated() {
            guard case .valid(let entry) = slot else {
                plan.assetsKeptBecause = "page \(index + 1) is invalid, so what it shows is unknown"
                break
            }
            let page: LoadedPage
            do {
                page = try package.loadPage(entry)
            } catch {
                plan.assetsKeptBecause = "page \(index + 1) could not be read (\(error.file): \(error.message))"
                break
            }
            if page.skippedSnapshotElements > 0 || page.journal?.discarded.isEmpty == false {
                plan.assetsKeptBecause = "page \(index + 1) has invalid elements or discarded journal frames, which may show an asset"
                break
            }
            for element in page.elements {
                switch element.kind {
                case .image(let placement): referenced.insert(placement.asset.lowercased())
                case .unknown: unknownJSON.append(element.json)  // a newer element type may name an asset
                case .stroke: break
                }
            }
        }
        if plan.assetsKeptBecause == nil {
            for asset in try package.assetFiles() where !referenced.contains(asset.name.lowercased()) {
                let needle = Array(asset.id.canonical.lowercased().utf8)
                if unknownJSON.contains(where: { contains($0, lowercasedNeedle: needle) }) { continue }
                plan.assets.append(asset.relativePath)
            }
        }
    }

    /// Deletes what `plan` lists; returns the files deleted.
    public static func run(_ plan: Plan, on package: LNotePackage) throws(LNoteError) -> [String] {
        var deleted: [String] = []
        for file in plan.all {
            try package.deleteFile(relativePath: file)
            deleted.append(file)
        }
        return deleted
    }

    /// Case-insensitive byte search (ASCII), for asset ids inside unknown elements' JSON.
    private static func contains(_ haystack: [UInt8], lowercasedNeedle needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        outer: for start in 0...(haystack.count - needle.count) {
            for (k, n) in needle.enumerated() {
                var h = haystack[start + k]
                if h >= 0x41 && h <= 0x5A { h += 32 }
                if h != n { continue outer }
            }
            return true
        }
        return false
    }
}
