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
            """,
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: [
            .value("width", "W", help: "Thumbnail width in pixels (default 320)."),
            .value("quality", "Q", help: "JPEG quality 1-100 (default 80)."),
            .flag("force", help: "Re-render every page."),
            .flag("verify", help: "Read and hash every input, trusting no recorded file stamp."),
            .value("jobs", short: "j", "N", help: "Worker threads (default: the number of cores)."),
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
        let reports = regenerator.regenerate(paths: args.positionals)
        return report(reports, json: args.flag("json"), quiet: args.flag("quiet"), console: console)
    }

    static func report(_ reports: [DocumentRegeneration], json: Bool, quiet: Bool, console: Console) -> Int32 {
        let total = (rendered: reports.reduce(0) { $0 + $1.rendered }, upToDate: reports.reduce(0) { $0 + $1.upToDate },
                     removed: reports.reduce(0) { $0 + $1.removed }, failed: reports.reduce(0) { $0 + $1.failed })
        let failedDocuments = reports.filter { !$0.succeeded }.count
        if json {
            console.print(JSONOutput.object([
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
