import Foundation
import LNoteFormat
import LNoteRender

/// `lnote-render check DOC.lnote [--json]`: every inconsistency; exit 1 on errors.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Report every inconsistency of a document package (exit 1 on errors).",
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: [
            .value("width", "W", help: "Thumbnail width the thumbnails should have (default 320)."),
            .value("quality", "Q", help: "Thumbnail JPEG quality they should have (default 80)."),
            .flag("json", help: "Print one JSON object instead of text."),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let path = args.positionals[0]
        let settings = ThumbnailSettings(width: try args.int("width", in: 16...4096) ?? 320,
                                         quality: try args.int("quality", in: 1...100) ?? 80, jobs: 1)
        let report = PackageChecker.check(
            path: path, thumbnails: ThumbnailRegenerator(settings: settings, rendererVersion: LNoteTool.version))
        if args.flag("json") {
            console.print(JSONOutput.object([
                ("path", .string(path)), ("errors", .int(report.errorCount)), ("warnings", .int(report.warningCount)),
                ("findings", .array(report.findings.map(\.json))),
            ]).text)
        } else {
            for finding in report.findings { console.print(finding.description) }
            console.print("\(path): \(report.errorCount) error(s), \(report.warningCount) warning(s)")
        }
        return report.errorCount > 0 ? ExitStatus.failure : ExitStatus.success
    }
}

/// `lnote-render gc DOC.lnote [--dry-run]`: deletes unreferenced assets, orphan thumbnails and
/// stray temporary files, and nothing else.
enum GCCommand {
    static let spec = CommandSpec(
        name: "gc", abstract: "Delete unreferenced assets, orphan thumbnails and stray temporary files.",
        discussion: """
            Assets are deleted only when every page could be read in full (no failed page, no invalid element,
            no discarded journal frame), since such a page might show them. Temporary files of source files are
            deleted only once they are 10 minutes old, in case the app is writing right now.
            """,
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: [.flag("dry-run", short: "n", help: "List what would be deleted; delete nothing.")])

    static let subcommand = Subcommand(spec: spec) { args, console in
        let path = args.positionals[0]
        let dryRun = args.flag("dry-run")
        do throws(LNoteError) {
            let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
            let plan = try GarbageCollector.plan(package)
            if let reason = plan.assetsKeptBecause { console.error("note: unreferenced assets kept: \(reason)") }
            if dryRun {
                for file in plan.all { console.print("would delete \(file)") }
                console.print("\(path): \(plan.all.count) file(s) would be deleted")
            } else {
                let deleted = try GarbageCollector.run(plan, on: package)
                for file in deleted { console.print("deleted \(file)") }
                console.print("\(path): \(deleted.count) file(s) deleted")
            }
            return ExitStatus.success
        } catch {
            console.error("error: \(path): \(error)")
            return ExitStatus.failure
        }
    }
}

/// `lnote-render compact DOC.lnote`: folds each journal into its snapshot.
enum CompactCommand {
    static let spec = CommandSpec(
        name: "compact", abstract: "Fold each page's journal into its snapshot (spec section 5).",
        discussion: """
            The replayed page is written as a new snapshot atomically, then the journal is removed. A page whose
            snapshot has invalid elements is left alone (they would be lost) unless --drop-invalid is given.
            """,
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: [.flag("drop-invalid", help: "Compact even when invalid snapshot elements would be dropped.")])

    static let subcommand = Subcommand(spec: spec) { args, console in
        let path = args.positionals[0]
        guard let package = openPackage(path, console: console) else { return ExitStatus.failure }
        var failed = false
        var compacted = 0
        for (index, slot) in package.pages.enumerated() {
            guard case .valid(let entry) = slot else { continue }
            do {
                let result = try package.compact(entry, dropInvalidElements: args.flag("drop-invalid"))
                if result.compacted {
                    compacted += 1
                    let discarded = result.report?.discardedCount ?? 0
                    console.print("page \(index + 1): journal folded in (\(result.report?.appliedCount ?? 0) frame(s) applied, \(discarded) discarded; \(result.elementCount) element(s))")
                    if result.journalLeftInPlace {
                        console.print("page \(index + 1): the journal changed meanwhile (new frames), so it was left in place; replaying it is harmless, and compacting again folds the new frames in")
                    }
                }
            } catch {
                failed = true
                console.error("error: \(path): page \(index + 1): \(error)")
            }
        }
        console.print("\(path): \(compacted) journal(s) compacted")
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}
