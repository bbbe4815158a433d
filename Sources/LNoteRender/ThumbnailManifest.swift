import Dispatch
import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRaster

// After the pages of a document: gc of thumbnails and temporary files, the manifest, the stat index.

extension ThumbnailRegenerator {
    /// After the pages: stale thumbnails and stray temporary files removed, the manifest
    /// brought in line with document.json once its cover exists, the stat index written when
    /// its records changed.
    func finish(_ plan: DocumentPlan, records: [StatIndex.Page?], report: inout DocumentRegeneration) {
        let package = plan.package
        var index = StatIndex()
        let settled = { (stamp: FileStamp?) in stamp.flatMap { $0.isSettled(at: plan.startedNs) ? $0 : nil } }
        let previous = policy.force || policy.verify ? nil : plan.previous
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
            report.failures.append(.init(error))
        }
    }

    func writeStatIndex(_ plan: DocumentPlan, index: StatIndex, records: [StatIndex.Page?]) throws(LNoteError) {
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

    func updateManifest(_ package: LNotePackage) throws(LNoteError) -> DocumentRegeneration.ManifestOutcome {
        let wanted = Manifest(document: package.document)
        if let cover = wanted.cover, FileIO.kind(atPath: package.absolutePath(cover)) != .regular {
            return .skippedNoCover
        }
        if let current = try? package.readManifest(), current == wanted { return .unchanged }
        try package.writeManifest(wanted)
        return .written
    }
}
