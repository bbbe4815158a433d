import Foundation
import LNoteRender

/// `lnote-render thumbnails PATH... [options]`: rebuilds derived data, touching only what changed.
enum ThumbnailsCommand {
    static let spec = CommandSpec(
        name: "thumbnails", abstract: "Regenerate page thumbnails, the cover and manifest.json, incrementally.",
        discussion: """
            Each PATH is a .lnote package or a directory searched for them. A page is re-rendered only when
            its content, journal, entry in document.json, an image it shows, the renderer version or the
            thumbnail settings changed; a run with nothing changed writes nothing. A page whose files all
            keep the stamps (device, inode, size, mtime and ctime) recorded when they were last hashed is
            trusted without reading them; --verify reads and hashes everything.

            --shard I/N does the I-th of N shares of the documents (1-based; whole documents, balanced by
            pages, the same share on every run and machine). --shard auto takes I and N from a Slurm array
            task, an AWS Batch array job or a Kubernetes Indexed Job (whose count comes from --shard-count
            or --shard-count-env); see tools/engines/.
            """,
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: ThumbnailRecipeOptions.options + ThumbnailPolicyOptions.options + ShardOptions.options + ReportOptions.withQuiet,
        examples: [
            .init("~/Notes", "every package under ~/Notes, re-rendering only what changed"),
            .init("Notes.lnote --force --width 480", "one package, every page again, 480 pixels wide"),
            .init("~/Notes --json | jq .total", "the totals of a run, for a script"),
            .init("~/Notes --shard auto --shard-count 8", "this Kubernetes Indexed Job's eighth of the library"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let regenerator = ThumbnailRegenerator(recipe: try ThumbnailRecipeOptions(args).recipe(rendererVersion: LNoteTool.version),
                                               policy: try ThumbnailPolicyOptions(args).policy)
        let shard = try ShardOptions(args).shard
        let report = ReportOptions(args)
        let reporter = Reporter(command: spec.name, json: report.json, console: console)
        var packages = packagePaths(args.positionals, reporter: reporter)
        // A path that names no package failed as a document would.
        let unfound = reporter.errorCount
        // A shard does its own share of the documents; every shard lists the whole library.
        let share = shard.map { ThumbnailRegenerator.share(of: $0, under: args.positionals) }
        if let share { packages = share.documents.map(\.path) }
        let started = Date()
        var progress: (@Sendable (Int, Int) -> Void)?
        if !report.quiet && !reporter.json {
            progress = { done, total in
                reporter.progress(ProgressBar(total: total, unit: "page", started: started).line(done: done))
            }
        }
        let reports = regenerator.regenerate(packages: packages, progress: progress)
        console.endProgress()  // the summary follows, without a bar under it
        return Self.report(reports, unfound: unfound, quiet: report.quiet, shard: share, reporter: reporter)
    }

    /// Failures of a document: each failed page, or one for a document that failed as a whole
    /// (it could not be opened, or its manifest could not be written), so that a broken document
    /// is never reported with "failed": 0.
    static func failedCount(_ r: DocumentRegeneration) -> Int {
        r.succeeded ? 0 : max(1, r.failed)
    }

    static func json(_ r: DocumentRegeneration) -> JSONOutput {
        .object([("path", .string(r.path)), ("title", .optional(r.title)), ("ok", .bool(r.succeeded)),
                 ("rendered", .int(r.rendered)), ("upToDate", .int(r.upToDate)), ("removed", .int(r.removed)),
                 ("trustedByStat", .int(r.trustedByStat)), ("failed", .int(failedCount(r))),
                 ("manifest", .string(r.manifest.rawValue))])
    }

    /// Reports a run and ends it; with `--json` (the reporter's), one JSON document. Returns the
    /// exit status.
    static func report(_ reports: [DocumentRegeneration], unfound: Int = 0, quiet: Bool, shard: ShardShare? = nil,
                       reporter: Reporter) -> Int32 {
        var members: [(String, JSONOutput)] = []
        if let shard {
            if !quiet {
                reporter.line("shard \(shard.shard) (\(shard.shard.source)): \(shard.documents.count) of \(shard.libraryDocuments) document(s), \(shard.pages) of \(shard.libraryPages) page(s)")
            }
            members.append(("shard", .object([
                ("index", .int(shard.shard.index + 1)), ("count", .int(shard.shard.count)), ("source", .string(shard.shard.source)),
                ("pages", .int(shard.pages)),
                ("documents", .array(shard.documents.map { .object([("path", .string($0.path)), ("key", .string($0.key)), ("pages", .int($0.pages))]) })),
                ("library", .object([("documents", .int(shard.libraryDocuments)), ("pages", .int(shard.libraryPages))])),
            ])))
        }
        members += summarize(reports, unfound: unfound, quiet: quiet, reporter: reporter)
        let ok = reports.allSatisfy(\.succeeded) && reporter.errorCount == 0
        return reporter.finish(ok ? ExitStatus.success : ExitStatus.failure, members)
    }

    /// Reports each document's problems and text line; returns the JSON members of the run.
    /// `unfound`: paths that named no package (already reported); each counts as a failed document.
    static func summarize(_ reports: [DocumentRegeneration], unfound: Int = 0, quiet: Bool,
                          reporter: Reporter) -> [(String, JSONOutput)] {
        let total = (rendered: reports.reduce(0) { $0 + $1.rendered }, upToDate: reports.reduce(0) { $0 + $1.upToDate },
                     removed: reports.reduce(0) { $0 + $1.removed }, failed: reports.reduce(unfound) { $0 + failedCount($1) })
        let failedDocuments = reports.filter { !$0.succeeded }.count + unfound
        for r in reports {
            // A page's failure names its page by number, as export's do (its text line too).
            for f in r.failures { reporter.report(Problem(f.error, package: r.path, page: f.page)) }
            if quiet { continue }
            let name = r.title.map { "\($0) (\(r.path))" } ?? r.path
            reporter.line("\(name): \(r.rendered) rendered, \(r.upToDate) up to date, \(r.removed) removed, \(failedCount(r)) failed; manifest \(r.manifest.rawValue)")
        }
        reporter.line("total: \(reports.count) document(s), \(total.rendered) rendered, \(total.upToDate) up to date, \(total.removed) removed, \(total.failed) failed")
        return [
            ("documents", .array(reports.map(json))),
            ("total", .object([("documents", .int(reports.count)), ("failedDocuments", .int(failedDocuments)),
                               ("rendered", .int(total.rendered)), ("upToDate", .int(total.upToDate)),
                               ("removed", .int(total.removed)), ("failed", .int(total.failed))])),
        ]
    }
}
