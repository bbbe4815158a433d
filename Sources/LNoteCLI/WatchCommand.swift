import Dispatch
import Foundation
import LNoteRender

/// `lnote-render watch LIBRARY [--debounce 0.5]`: keeps derived data fresh while documents change.
enum WatchCommand {
    static let spec = CommandSpec(
        name: "watch", abstract: "Watch a library and regenerate a document's thumbnails after it changes.",
        discussion: """
            Runs until interrupted (Ctrl-C). Uses inotify, or polling where inotify is unavailable; past the
            inotify watch limit (fs.inotify.max_user_watches) it says so and polls the packages it could not watch. A document
            is regenerated once its files have been quiet for the debounce time.
            """,
        positionals: [PositionalSpec("LIBRARY", help: "A directory holding .lnote packages.")],
        options: [
            .value("debounce", "SECONDS", help: "Quiet time before regenerating, 0-3600 (default 0.5)."),
            .value("width", "W", help: "Thumbnail width in pixels, 16-4096 (default 320)."),
            .value("quality", "Q", help: "JPEG quality, 1-100 (default 80)."),
            .value("jobs", short: "j", "N", help: "Worker threads, 1-256 (default: the number of cores)."),
            .flag("poll", help: "Poll for changes instead of using inotify."),
            .flag("json", help: "Print one JSON object per line and event (initial, watching, regenerated, removed, stopped)."),
        ],
        examples: [.init("~/Notes", "keep ~/Notes' thumbnails fresh until Ctrl-C"),
                   .init("~/Notes --json", "the same, one JSON object per line and event")])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let library = args.positionals[0]
        let debounce = try args.double("debounce", in: 0...3600) ?? 0.5
        let settings = ThumbnailSettings(
            width: try args.int("width", in: 16...4096) ?? 320,
            quality: try args.int("quality", in: 1...100) ?? 80,
            jobs: try args.int("jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount)
        let reporter = Reporter(args, console: console)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library, isDirectory: &isDir), isDir.boolValue else {
            reporter.report(Problem(.error, code: .notADirectory, file: library, message: "not a directory"))
            return reporter.finish(ExitStatus.failure)
        }
        let regenerator = ThumbnailRegenerator(settings: settings, rendererVersion: LNoteTool.version)
        // In text, a regeneration's summary; with --json, one object per line and event.
        let regenerated: @Sendable ([String], Bool, String) -> Void = { paths, quiet, event in
            let members = ThumbnailsCommand.summarize(regenerator.regenerate(packages: paths), quiet: quiet, reporter: reporter)
            reporter.event(event, members)
        }

        // Bring everything up to date first, then follow changes.
        regenerated(LibraryScan.packages(in: [library]).packages, true, "initial")
        let watcher = LibraryWatcher(root: URL(fileURLWithPath: library), debounce: debounce, onNotice: {
            // Once, at the inotify limit: what it is, how to raise it, and that the rest is polled.
            reporter.report(Problem(.warning, code: .inotifyLimit, file: library, message: $0))
        }) { package in
            guard FileManager.default.fileExists(atPath: package.path) else {
                reporter.line("removed: \(package.path)")
                reporter.event("removed", [("path", .string(package.path))])
                return
            }
            regenerated([package.path], false, "regenerated")
        }
        let stopOnSignal = { (sig: Int32) -> DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { watcher.stop() }
            source.resume()
            return source
        }
        let signals = [stopOnSignal(SIGINT), stopOnSignal(SIGTERM)]
        let mechanism = args.flag("poll") ? "polling" : "inotify (polling if unavailable)"
        reporter.line("watching \(library) with \(mechanism); Ctrl-C to stop")
        reporter.event("watching", [("path", .string(library)), ("polling", .bool(args.flag("poll")))])
        let used = watcher.run(forcePolling: args.flag("poll"))
        signals.forEach { $0.cancel() }
        reporter.line("stopped watching (\(used))")
        reporter.event("stopped", [("mechanism", .string("\(used)"))])
        return ExitStatus.success
    }
}
