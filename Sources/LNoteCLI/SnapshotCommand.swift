import Foundation
import LNoteFormat
import LNoteRender

/// `lnote-render snapshot DOC_OR_LIBRARY... --goldens DIR`: every page held against its golden
/// image. The work is `SnapshotRunner`'s; this reads the options and reports.
enum SnapshotCommand {
    static let goldens = Option<String?>.text("goldens", "PATH", "The golden images' directory (required)", absent: "none")
    static let record = Flag("record", help: "Write goldens that are missing.")
    static let update = Flag("update", help: "Write goldens that are missing or differ (implies --record).")
    static let prune = Flag("prune", help: "Delete goldens of pages and documents that no longer exist.")
    static let report = Option<String?>.text("report", "PATH", "Write an HTML report and its images into this directory", absent: "none")
    static let junit = Option<String?>.text("junit", "FILE.xml", "Write JUnit XML to this file", absent: "none")
    /// Pages are compared at the thumbnail width unless a size is given.
    static let defaultWidth = ThumbnailRecipe.defaultWidth

    static let spec = CommandSpec(
        name: "snapshot", abstract: "Compare every page with its golden image; record, update and prune goldens.",
        discussion: """
            Each DOC_OR_LIBRARY is a .lnote package or a directory searched for them. Every page is rendered
            (default: the 320-pixel thumbnail width) and compared with DIR/<document>/<NNN>-<id>.png, where
            <document> is the package's path below the argument without .lnote (a package named directly: its
            name), NNN the page number padded to three digits and <id> the first 8 hex digits of the page's id
            (the whole id when two pages of the document share them). A golden is matched by the id, so
            inserting a page does not mismatch the pages after it: their goldens are still theirs, and
            --record or --update renames them to the new numbers.

            --record writes missing goldens; --update also rewrites goldens that differ. Neither deletes
            anything: goldens of pages (or documents) that no longer exist are listed, and only --prune
            deletes them (it takes DIR to hold the goldens of exactly the documents given).
            A pixel differs when a channel differs by more than --tolerance; a page matches when at most
            --max-differing pixels differ, as for 'diff'. DIR/<document>/overrides.json loosens or tightens
            that for one document or some of its pages:
              {"tolerance": 2,
               "pages": {"3": {"maxDiffering": "0.5%"},
                         "2375571a": {"tolerance": 8}}}
            Goldens carry the renderer version that made them; a page that differs from a golden of another
            version is reported as 'outdated'.
            --report DIR writes index.html with the expected, actual and diff images of every page that
            fails or is new (a static page that works from file://); --junit FILE writes JUnit XML.
            """,
        positionals: [PositionalSpec("DOC_OR_LIBRARY", help: "Packages, or directories holding packages.", variadic: true)],
        options: [goldens.spec, record.spec, update.spec, prune.spec] + ComparisonOptions.options
            + SizeOptions.options(default: "--width \(defaultWidth), the thumbnail width") + LimitOptions.options
            + [report.spec, junit.spec] + ReportOptions.withQuiet,
        examples: [
            .init("Tests/Notes --goldens Tests/Goldens --record", "first run: write every golden"),
            .init("Tests/Notes --goldens Tests/Goldens --junit junit.xml --report report/", "CI: compare, with JUnit XML and an HTML report"),
            .init("Tests/Notes --goldens Tests/Goldens --tolerance 2 --max-differing 0.1%", "allow small differences"),
            .init("Tests/Notes --goldens Tests/Goldens --update --prune", "accept the new pictures, drop goldens of removed pages"),
        ],
        exitStatuses: [(ExitStatus.success, "every page matches its golden (or had its golden written)"),
                       (ExitStatus.failure, "some pages differ or have no golden (or a report could not be written)"),
                       (ExitStatus.usage, "usage error: the command line was wrong"),
                       (ExitStatus.cannotCompare, "a document, page or golden could not be read: not everything was compared")])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        try run(args, console: console)
    }

    static func run(_ args: ParsedArguments, console: Console) throws(UsageError) -> Int32 {
        guard let goldens = try args.value(Self.goldens), !goldens.isEmpty else {
            throw UsageError("--goldens DIR is required: the directory of the golden images")
        }
        let size = try SizeOptions(args)
        let comparison = try ComparisonOptions(args)
        let limits = try LimitOptions(args)
        let report = try args.value(Self.report), junit = try args.value(Self.junit)
        var options = SnapshotOptions(
            size: size.size ?? .width(defaultWidth), channelTolerance: comparison.tolerance, maxDiffering: comparison.maxDiffering,
            recording: args.isSet(Self.update) ? .all : args.isSet(Self.record) ? .missing : .never, prune: args.isSet(Self.prune),
            jobs: limits.jobs, rendererVersion: LNoteTool.version, artifactsDirectory: report, maxWork: limits.maxWork)
        let reports = ReportOptions(args)
        let reporter = Reporter(command: spec.name, json: reports.json, console: console)
        let quiet = reports.quiet

        // Each argument by itself, so that one naming no package is reported as such.
        var documents: [(path: String, key: String)] = []
        var seen = Set<String>()
        for path in args.positionals {
            let found = SnapshotRunner.documents(in: [path])
            for failure in found.errors {
                let (code, message) = switch FileIO.kind(atPath: failure.path) {
                case .missing: (Code.missing, "no such file or directory")
                case .symlink: (Code.symlink, "a symbolic link, which is never followed")
                case .directory: (Code.directory, failure.message)  // a folder of the library that cannot be listed
                default: (Code.notAPackage, "not a .lnote package or a directory holding packages")
                }
                reporter.report(Problem(.error, code: code, file: failure.path, message: message))
            }
            if found.errors.isEmpty && found.documents.isEmpty {
                reporter.report(Problem(.error, code: .noPackages, file: path, message: "no .lnote packages in this directory"))
            }
            for d in found.documents where seen.insert(URL(fileURLWithPath: d.path).standardizedFileURL.path).inserted { documents.append(d) }
        }
        let unfound = reporter.errorCount
        if let shared = SnapshotRunner.sharedKeys(documents).first {
            throw UsageError("\(shared.paths.joined(separator: " and ")) would share the golden directory "
                             + "\(goldens)/\(shared.key): run them with a --goldens directory each")
        }
        if unfound > 0 && options.prune {
            // What is absent is only known when every argument was read: a library folder that
            // could not be listed would otherwise look like documents that were deleted.
            options.prune = false
            reporter.report(Problem(.warning, code: .prune, file: nil,
                                    message: "--prune deletes nothing in this run: not every argument could be read"))
        }
        let packages = documents.map(\.path)
        for (option, path) in [("goldens", goldens), ("report", report), ("junit", junit)] {
            if let path, let package = SnapshotRunner.packageContaining(path, among: packages) {
                throw UsageError("--\(option) \(path): inside the package \(package); snapshot never writes into a package")
            }
        }

        let started = Date()
        var progress: (@Sendable (Int, Int) -> Void)?
        if !quiet && !reporter.json {
            progress = { done, total in reporter.progress(ProgressBar(total: total, unit: "page", started: started).line(done: done)) }
        }
        let run = SnapshotRunner.run(documents: documents, goldens: goldens, options: options, progress: progress)
        console.endProgress()
        var status = max(run.exitStatus, unfound > 0 ? ExitStatus.cannotCompare : ExitStatus.success)

        for document in run.documents {
            if let error = document.error {
                reporter.report(Problem(.error, code: .unreadable, file: error.file, message: error.message))
            }
            for page in document.pages {
                for d in page.diagnostics { reporter.report(Problem(d, package: document.path, page: page.number)) }
                if page.status == .failed {
                    if let error = page.error { reporter.report(Problem(error, package: document.path, page: page.number)) }
                    else { reporter.report(Problem(.error, code: .pageEntry, file: document.path, page: page.number, message: page.summary)) }
                } else if page.status == .unreadable {
                    reporter.report(Problem(.error, code: .golden, file: page.golden, page: page.number, message: page.summary))
                } else if page.status.fails || !quiet {
                    reporter.line("\(page.status.rawValue): \(page.golden ?? (document.goldenDirectory + "/" + (page.name?.fileName ?? "?"))) (page \(page.number) of \(document.path)): \(page.summary)")
                }
            }
            for orphan in document.orphans { reportOrphan(orphan, reporter: reporter) }
        }
        for orphan in run.orphanDocuments { reportOrphan(orphan, reporter: reporter) }

        let recordCommand = recordCommand(args, size: size, goldens: goldens)
        if let report {
            let html = SnapshotHTMLReport.html(run, reportDirectory: report, recordCommand: recordCommand)
            if let failure = write(Array(html.utf8), to: report + "/index.html") {
                reporter.report(Problem(.error, code: .write, file: report + "/index.html", message: "cannot write the report: \(failure)"))
                status = max(status, ExitStatus.failure)
            }
        }
        if let junit {
            if let failure = write(Array(SnapshotJUnit.xml(run).utf8), to: junit) {
                reporter.report(Problem(.error, code: .write, file: junit, message: "cannot write the JUnit file: \(failure)"))
                status = max(status, ExitStatus.failure)
            }
        }
        let counts = SnapshotStatus.allCases.map { ($0.rawValue, JSONOutput.int(run.count($0))) }
        let orphanCount = run.documents.reduce(run.orphanDocuments.count) { $0 + $1.orphans.count }
        let text = SnapshotStatus.allCases.filter { run.count($0) > 0 }.map { "\(run.count($0)) \($0.rawValue)" }.joined(separator: ", ")
        reporter.line("total: \(run.pages.count) page(s) of \(run.documents.count) document(s)\(text.isEmpty ? "" : ": " + text)"
                      + (orphanCount > 0 ? "; \(orphanCount) golden(s) of no page" + (options.prune ? "" : " (--prune deletes them)") : ""))
        if status != ExitStatus.success && status != ExitStatus.cannotCompare && run.pages.contains(where: { $0.status.fails && !$0.status.cannotCompare }) {
            reporter.line("to accept the new pictures: \(recordCommand)")
        }
        return reporter.finish(status, [
            ("goldens", .string(run.goldens)), ("rendererVersion", .string(run.rendererVersion)),
            ("recording", .string(options.recording.rawValue)),
            ("documents", .array(run.documents.map(json))),
            ("orphans", .array(run.orphanDocuments.map(json))),
            ("total", .object([("pages", .int(run.pages.count)), ("documents", .int(run.documents.count))] + counts
                              + [("orphans", .int(orphanCount))])),
            ("report", .optional(report.map { $0 + "/index.html" })), ("junit", .optional(junit)),
            ("recordCommand", .string(recordCommand)),
        ])
    }

    static func reportOrphan(_ orphan: OrphanGolden, reporter: Reporter) {
        if orphan.pruned {
            reporter.line("pruned: \(orphan.path)")
        } else if let error = orphan.error {
            reporter.report(Problem(.error, code: .prune, file: orphan.path, message: "cannot delete the golden: \(error)"))
        } else {
            reporter.report(Problem(.warning, code: .orphanedGolden, file: orphan.path,
                                    message: "a golden of no page or document; --prune deletes it"))
        }
    }

    /// The command that accepts this run's pictures: the same documents and size, `--update`.
    static func recordCommand(_ args: ParsedArguments, size: SizeOptions, goldens: String) -> String {
        var words = [LNoteTool.name, "snapshot"] + args.positionals + ["--goldens", goldens]
        if let given = size.given { words += [given.option, given.text] }
        return (words + ["--update"]).map(shellQuoted).joined(separator: " ")
    }

    static func shellQuoted(_ word: String) -> String {
        let plain = word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_./=:%+@,".contains($0)) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func write(_ bytes: [UInt8], to path: String) -> String? { GoldenFile.write(bytes, to: path) }

    static func json(_ orphan: OrphanGolden) -> JSONOutput {
        .object([("path", .string(orphan.path)), ("pruned", .bool(orphan.pruned)), ("error", .optional(orphan.error))])
    }

    static func json(_ document: DocumentSnapshot) -> JSONOutput {
        .object([("path", .string(document.path)), ("key", .string(document.key)), ("title", .optional(document.title)),
                 ("goldens", .string(document.goldenDirectory)), ("error", .optional(document.error?.description)),
                 ("pages", .array(document.pages.map(json))), ("orphans", .array(document.orphans.map(json)))])
    }

    static func json(_ page: PageSnapshot) -> JSONOutput {
        let c = page.comparison, same = c?.sizesMatch ?? false
        return .object([
            ("number", .int(page.number)), ("id", .optional(page.id)), ("name", .optional(page.name?.fileName)),
            ("status", .string(page.status.rawValue)), ("ok", .bool(!page.status.fails)),
            ("golden", .optional(page.golden)), ("renamedFrom", .optional(page.renamedFrom)), ("renumbered", .bool(page.renumbered)),
            ("width", .int(page.width)), ("height", .int(page.height)),
            ("rendererVersion", .string(page.rendererVersion)), ("goldenRendererVersion", .optional(page.goldenRendererVersion)),
            ("statistics", c.map { c in .object([
                ("identical", .bool(c.identical)), ("sizeMatches", .bool(same)),
                ("expected", .object([("width", .int(c.expectedSize.width)), ("height", .int(c.expectedSize.height))])),
                ("differingPixels", same ? .int(c.differingPixels) : .null), ("changedPixels", same ? .int(c.changedPixels) : .null),
                ("totalPixels", .int(c.totalPixels)),
                ("maxChannelDifference", same ? .int(c.maxChannelDifference) : .null),
                ("meanChannelDifference", same ? .number(c.meanChannelDifference) : .null),
                ("psnr", same && c.psnr.isFinite ? .number(c.psnr) : .null),
                ("tolerance", .int(c.tolerance.channelTolerance)), ("maxDiffering", .int(c.tolerance.maxDifferingPixels)),
            ]) } ?? .null),
            ("artifacts", .object([("expected", .optional(page.artifacts.expected)), ("actual", .optional(page.artifacts.actual)),
                                   ("diff", .optional(page.artifacts.diff))])),
            ("message", .optional(page.message)), ("seconds", .number(page.seconds)),
        ])
    }
}
