// The packages side of migration and verification: each package read page by page (journal
// replayed), counted, and handed to a sink (the store writer, or nothing when only counting).

import Foundation
import LNoteFormat

/// One page or document of a package, as the reader hands it to the writer.
enum SourceEvent {
    case document(name: String, info: DocumentInfo)
    case page(position: Int, slot: PageSlot, page: LoadedPage?, failure: LNoteError?, census: PageCensus)
    case asset(name: String, bytes: [UInt8])
}

/// A package opened for migration or verification.
struct SourceDocument {
    let path: String
    let name: String
    let package: LNotePackage

    /// Nil (with an error in the report) when the package cannot be opened.
    init?(path: String, report: inout MigrationReport) {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        do {
            package = try LNotePackage.open(at: URL(fileURLWithPath: trimmed))
        } catch {
            report.problems.append(StoreProblem(error: error, path: trimmed, what: "not migrated: "))
            return nil
        }
        self.path = trimmed
        self.name = AtomicFile.split(trimmed).name
    }

    /// Reads the document, page by page (each loaded, its journal replayed, then let go), and
    /// its assets, handing each to `sink`; returns the counts.
    func read(report: inout MigrationReport, sink: (SourceEvent) throws(LNoteError) -> Void) throws(LNoteError) -> DocumentCensus {
        var census = DocumentCensus(package: name)
        for d in package.document.diagnostics { report.problems.append(StoreProblem(diagnostic: d, path: path)) }
        try sink(.document(name: name, info: package.document))
        for (position, slot) in package.pages.enumerated() {
            var page: LoadedPage? = nil
            var failure: LNoteError? = nil
            var counts = PageCensus()
            switch slot {
            case .invalid(_, _, let error): failure = error
            case .valid(let entry):
                do {
                    let source = try package.readPageSource(entry)
                    report.sourceBytes += source.content.count + (source.journal?.count ?? 0)
                    page = try package.loadPage(entry, from: source)
                } catch {
                    failure = error
                }
            }
            if let failure {
                counts.failed = true
                report.problems.append(StoreProblem(error: failure, path: path, what: "page \(position + 1) failed: "))
            }
            if let page {
                for d in page.diagnostics { report.problems.append(StoreProblem(diagnostic: d, path: path)) }
                counts.invalid = page.skippedSnapshotElements
                counts.discardedFrames = page.journal?.discardedCount ?? 0
                for element in page.elements {
                    switch element.kind {
                    case .stroke(let s): counts.strokes += 1; counts.samples += s.sampleCount
                    case .image: counts.images += 1
                    case .unknown: counts.unknown += 1
                    }
                }
            }
            census.pages.append(counts)
            try sink(.page(position: position, slot: slot, page: page, failure: failure, census: counts))
        }
        let assets: [AssetFile]
        do {
            assets = try package.assetFiles()
        } catch {
            report.problems.append(StoreProblem(error: error, path: path, what: "assets not migrated: "))
            return census
        }
        for asset in assets {
            let bytes: [UInt8]
            do {
                bytes = try package.readAsset(asset.name)
            } catch {
                report.problems.append(StoreProblem(error: error, path: path, what: "asset not migrated: "))
                continue
            }
            report.sourceBytes += bytes.count
            census.assets += 1
            census.assetBytes += bytes.count
            try sink(.asset(name: asset.name, bytes: bytes))
        }
        return census
    }
}
