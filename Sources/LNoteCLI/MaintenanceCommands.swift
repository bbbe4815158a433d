import Foundation
import LNoteFormat
import LNoteRender

/// `lnote-render check PATH... [--json]`: every inconsistency; exit 1 on errors.
enum CheckCommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Report every inconsistency of document packages (exit 1 on errors).",
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: ThumbnailRecipeOptions.options + ReportOptions.options,
        examples: [.init("Notes.lnote", "every inconsistency of one package"),
                   .init("~/Notes --json", "every package under ~/Notes, as JSON")],
        exitStatuses: [(ExitStatus.success, "no errors (warnings may have been reported)"),
                       (ExitStatus.failure, "errors were found, or a path named no package"),
                       (ExitStatus.usage, "usage error: the command line was wrong")])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let reporter = Reporter(args, console: console)
        let thumbnails = ThumbnailRegenerator(recipe: try ThumbnailRecipeOptions(args).recipe(rendererVersion: LNoteTool.version),
                                              policy: ThumbnailPolicy(jobs: 1))
        var documents: [JSONOutput] = []
        var errors = 0
        for path in packagePaths(args.positionals, reporter: reporter) {
            let report = PackageChecker.check(path: path, thumbnails: thumbnails)
            // The findings are what check is for: its standard output in text, and the errors
            // and warnings of the JSON document.
            for finding in report.findings { reporter.finding(Problem(finding, package: path)) }
            reporter.line("\(path): \(report.errorCount) error(s), \(report.warningCount) warning(s)")
            documents.append(.object([("path", .string(path)), ("errors", .int(report.errorCount)),
                                      ("warnings", .int(report.warningCount))]))
            errors += report.errorCount
        }
        let failed = errors > 0 || reporter.errorCount > 0
        return reporter.finish(failed ? ExitStatus.failure : ExitStatus.success, [("documents", .array(documents))])
    }
}

/// `lnote-render gc PATH... [--dry-run]`: deletes unreferenced assets, orphan thumbnails and
/// stray temporary files, and nothing else.
enum GCCommand {
    static let dryRun = Flag("dry-run", short: "n", help: "List what would be deleted; delete nothing.")

    static let spec = CommandSpec(
        name: "gc", abstract: "Delete unreferenced assets, orphan thumbnails and stray temporary files.",
        discussion: """
            Assets are deleted only when every page could be read in full (no failed page, no invalid element,
            no discarded journal frame), since such a page might show them. Temporary files of source files are
            deleted only once they are \(Int(LNotePackage.sourceTemporaryFileGraceSeconds) / 60) minutes old, in case the app is writing right
            now; those of thumbnails and manifest.json once they are \(Int(LNotePackage.derivedTemporaryFileGraceSeconds)) seconds old, in case
            another run is regenerating the package.
            """,
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: [dryRun.spec] + ReportOptions.options,
        examples: [.init("-n Notes.lnote", "what would be deleted, deleting nothing"),
                   .init("~/Notes", "every package under ~/Notes")])

    static let subcommand = Subcommand(spec: spec) { args, console in
        let reporter = Reporter(args, console: console)
        let dryRun = args.isSet(Self.dryRun)
        var documents: [JSONOutput] = []
        for path in packagePaths(args.positionals, reporter: reporter) {
            do throws(LNoteError) {
                let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
                let plan = try GarbageCollector.plan(package)
                if let reason = plan.assetsKeptBecause {
                    reporter.report(Problem(.warning, code: .assetsKept, file: path, message: "unreferenced assets kept: \(reason)"))
                }
                let files = dryRun ? plan.all : try GarbageCollector.run(plan, on: package)
                for file in files { reporter.line("\(dryRun ? "would delete" : "deleted") \(Problem.shownPath(file, package: path))") }
                reporter.line("\(path): \(files.count) file(s) \(dryRun ? "would be deleted" : "deleted")")
                documents.append(.object([("path", .string(path)), ("dryRun", .bool(dryRun)),
                                          (dryRun ? "wouldDelete" : "deleted", .array(files.map { .string($0) }))]))
            } catch {
                reporter.report(Problem(error, package: path))
            }
        }
        return reporter.finish(reporter.errorCount > 0 ? ExitStatus.failure : ExitStatus.success, [("documents", .array(documents))])
    }
}

/// `lnote-render compact PATH...`: folds each journal into its snapshot.
enum CompactCommand {
    static let dropInvalid = Flag("drop-invalid", help: "Compact even when invalid snapshot elements would be dropped.")

    static let spec = CommandSpec(
        name: "compact", abstract: "Fold each page's journal into its snapshot (spec section 5).",
        discussion: """
            The replayed page is written as a new snapshot atomically, then the journal is removed. A page whose
            snapshot has invalid elements is left alone (they would be lost) unless --drop-invalid is given.
            """,
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: [dropInvalid.spec] + ReportOptions.options,
        examples: [.init("Notes.lnote", "fold every page's journal into its snapshot")])

    static let subcommand = Subcommand(spec: spec) { args, console in
        let reporter = Reporter(args, console: console)
        var documents: [JSONOutput] = []
        for path in packagePaths(args.positionals, reporter: reporter) {
            guard let package = openPackage(path, reporter: reporter) else { continue }
            var pages: [JSONOutput] = []
            for (index, slot) in package.pages.enumerated() {
                guard case .valid(let entry) = slot else { continue }
                do throws(LNoteError) {
                    let result = try package.compact(entry, dropInvalidElements: args.isSet(Self.dropInvalid))
                    guard result.compacted else { continue }
                    let (applied, discarded) = (result.report?.appliedCount ?? 0, result.report?.discardedCount ?? 0)
                    reporter.line("page \(index + 1): journal folded in (\(applied) frame(s) applied, \(discarded) discarded; \(result.elementCount) element(s))")
                    if result.journalLeftInPlace {
                        reporter.line("page \(index + 1): the journal changed meanwhile (new frames), so it was left in place; replaying it is harmless, and compacting again folds the new frames in")
                    }
                    pages.append(.object([("page", .int(index + 1)), ("applied", .int(applied)), ("discarded", .int(discarded)),
                                          ("elements", .int(result.elementCount)), ("journalLeftInPlace", .bool(result.journalLeftInPlace))]))
                } catch {
                    reporter.report(Problem(error, package: path, page: index + 1))
                }
            }
            reporter.line("\(path): \(pages.count) journal(s) compacted")
            documents.append(.object([("path", .string(path)), ("compacted", .array(pages))]))
        }
        return reporter.finish(reporter.errorCount > 0 ? ExitStatus.failure : ExitStatus.success, [("documents", .array(documents))])
    }
}
