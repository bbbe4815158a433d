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
        options: [
            .value("width", "W", help: "Thumbnail width in pixels (default 320)."),
            .value("quality", "Q", help: "JPEG quality 1-100 (default 80)."),
            .flag("force", help: "Re-render every page."),
            .flag("verify", help: "Read and hash every input, trusting no recorded file stamp."),
            .value("jobs", short: "j", "N", help: "Worker threads (default: the number of cores)."),
            .value("shard", "I/N|auto", help: "Do only shard I of N (1-based), or the shard the job engine says."),
            .value("shard-count", "N", help: "With --shard auto: the number of shards (Kubernetes sets none)."),
            .value("shard-count-env", "NAME", help: "With --shard auto: the variable holding the number of shards."),
            .flag("json", help: "Print the summary as one JSON object."),
            .flag("quiet", short: "q", help: "Print only failures and the total."),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let settings = ThumbnailSettings(
            width: try args.int("width", in: 16...4096) ?? 320,
            quality: try args.int("quality", in: 1...100) ?? 80,
            force: args.flag("force"),
            jobs: try args.int("jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount,
            verify: args.flag("verify"))
        let regenerator = ThumbnailRegenerator(settings: settings, rendererVersion: LNoteTool.version)
        guard let shard = try shard(args) else {
            let reports = regenerator.regenerate(paths: args.positionals)
            return report(reports, json: args.flag("json"), quiet: args.flag("quiet"), console: console)
        }
        let (reports, share) = regenerator.regenerate(paths: args.positionals, shard: shard)
        return report(reports, json: args.flag("json"), quiet: args.flag("quiet"), shard: share, console: console)
    }

    /// The shard from `--shard`, `--shard-count` and `--shard-count-env`, or nil for the whole job.
    static func shard(_ args: ParsedArguments) throws(UsageError) -> Shard? {
        let count = try args.int("shard-count", in: 1...Shard.maxCount)
        let countVariable = args.string("shard-count-env")
        guard let text = args.string("shard") else {
            if count != nil || countVariable != nil { throw UsageError("--shard-count and --shard-count-env go with --shard auto") }
            return nil
        }
        do throws(ShardError) {
            if text == "auto" { return try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: count, countVariable: countVariable) }
            if count != nil || countVariable != nil { throw ShardError("--shard-count and --shard-count-env go with --shard auto, not --shard I/N") }
            return try Shard.parse(text)
        } catch {
            throw UsageError(error.message)
        }
    }

    static func report(_ reports: [DocumentRegeneration], json: Bool, quiet: Bool, shard: ShardShare? = nil, console: Console) -> Int32 {
        let total = (rendered: reports.reduce(0) { $0 + $1.rendered }, upToDate: reports.reduce(0) { $0 + $1.upToDate },
                     removed: reports.reduce(0) { $0 + $1.removed }, failed: reports.reduce(0) { $0 + $1.failed })
        let failedDocuments = reports.filter { !$0.succeeded }.count
        if json {
            var shardMembers: [(String, JSONOutput)] = []
            if let shard {
                shardMembers = [("shard", .object([
                    ("index", .int(shard.shard.index + 1)), ("count", .int(shard.shard.count)), ("source", .string(shard.shard.source)),
                    ("pages", .int(shard.pages)),
                    ("documents", .array(shard.documents.map { .object([("path", .string($0.path)), ("key", .string($0.key)), ("pages", .int($0.pages))]) })),
                    ("library", .object([("documents", .int(shard.libraryDocuments)), ("pages", .int(shard.libraryPages))])),
                ]))]
            }
            console.print(JSONOutput.object(shardMembers + [
                ("documents", .array(reports.map { r in
                    .object([("path", .string(r.path)), ("title", .optional(r.title)), ("rendered", .int(r.rendered)),
                             ("upToDate", .int(r.upToDate)), ("trustedByStat", .int(r.trustedByStat)), ("removed", .int(r.removed)), ("failed", .int(r.failed)),
                             ("manifest", .string(r.manifest.rawValue)), ("errors", .array(r.errors.map { .string($0) }))])
                })),
                ("total", .object([("documents", .int(reports.count)), ("failedDocuments", .int(failedDocuments)),
                                   ("rendered", .int(total.rendered)), ("upToDate", .int(total.upToDate)),
                                   ("removed", .int(total.removed)), ("failed", .int(total.failed))])),
            ]).text)
        } else {
            if let shard {
                console.print("shard \(shard.shard) (\(shard.shard.source)): \(shard.documents.count) of \(shard.libraryDocuments) document(s), \(shard.pages) of \(shard.libraryPages) page(s)")
            }
            for r in reports {
                for e in r.errors { console.error("error: \(e)") }
                if quiet { continue }
                let name = r.title.map { "\($0) (\(r.path))" } ?? r.path
                console.print("\(name): \(r.rendered) rendered, \(r.upToDate) up to date, \(r.removed) removed, \(r.failed) failed; manifest \(r.manifest.rawValue)")
            }
            console.print("total: \(reports.count) document(s), \(total.rendered) rendered, \(total.upToDate) up to date, \(total.removed) removed, \(total.failed) failed")
        }
        return reports.allSatisfy(\.succeeded) ? ExitStatus.success : ExitStatus.failure
    }
}
