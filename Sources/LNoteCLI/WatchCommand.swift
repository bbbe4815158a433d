import Dispatch
import Foundation
import LNoteRender

/// `lnote-render watch LIBRARY [--debounce 0.5]`: keeps derived data fresh while documents change.
enum WatchCommand {
    static let debounce = Option<Double>.number("debounce", "SECONDS", "Quiet time before regenerating", in: 0...3600, default: 0.5)
    static let poll = Flag("poll", help: "Poll for changes instead of using inotify.")

    static let spec = CommandSpec(
        name: "watch", abstract: "Watch a library and regenerate a document's thumbnails after it changes.",
        discussion: """
            Runs until interrupted (Ctrl-C). Uses inotify, or polling where inotify is unavailable; past the
            inotify watch limit (fs.inotify.max_user_watches) it says so and polls the packages it could not watch. A document
            is regenerated once its files have been quiet for the debounce time.
            With --json, one JSON object per line and event (initial, watching, regenerated, removed, stopped).
            """,
        positionals: [PositionalSpec("LIBRARY", help: "A directory holding .lnote packages.")],
        options: [debounce.spec] + ThumbnailRecipeOptions.options + ThumbnailPolicyOptions.limitsOnly + [poll.spec] + ReportOptions.options,
        examples: [.init("~/Notes", "keep ~/Notes' thumbnails fresh until Ctrl-C"),
                   .init("~/Notes --json", "the same, one JSON object per line and event")])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let library = args.positionals[0]
        let debounce = try args.value(Self.debounce)
        let recipe = try ThumbnailRecipeOptions(args).recipe(rendererVersion: LNoteTool.version)
        let policy = try ThumbnailPolicyOptions(args).policy
        let polls = args.isSet(Self.poll)
        let reporter = Reporter(args, console: console)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library, isDirectory: &isDir), isDir.boolValue else {
            reporter.report(Problem(.error, code: .notADirectory, file: library, message: "not a directory"))
            return reporter.finish(ExitStatus.failure)
        }
        let regenerator = ThumbnailRegenerator(recipe: recipe, policy: policy)
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
            // The watcher names packages by absolute paths; every event names them as the
            // initial run does, under the library as it was given.
            let path = Problem.shownPath(package.path, package: library)
            guard FileManager.default.fileExists(atPath: package.path) else {
                reporter.line("removed: \(path)")
                reporter.event("removed", [("path", .string(path))])
                return
            }
            regenerated([path], false, "regenerated")
        }
        let stopOnSignal = { (sig: Int32) -> DispatchSourceSignal in
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { watcher.stop() }
            source.resume()
            return source
        }
        let signals = [stopOnSignal(SIGINT), stopOnSignal(SIGTERM)]
        let mechanism = polls ? "polling" : "inotify (polling if unavailable)"
        reporter.line("watching \(library) with \(mechanism); Ctrl-C to stop")
        reporter.event("watching", [("path", .string(library)), ("polling", .bool(polls))])
        let used = watcher.run(forcePolling: polls)
        signals.forEach { $0.cancel() }
        reporter.line("stopped watching (\(used))")
        reporter.event("stopped", [("mechanism", .string("\(used)"))])
        return ExitStatus.success
    }
}
