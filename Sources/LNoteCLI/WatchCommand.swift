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
            .value("debounce", "SECONDS", help: "Quiet time before regenerating (default 0.5)."),
            .value("width", "W", help: "Thumbnail width in pixels (default 320)."),
            .value("quality", "Q", help: "JPEG quality 1-100 (default 80)."),
            .value("jobs", short: "j", "N", help: "Worker threads (default: the number of cores)."),
            .flag("poll", help: "Poll for changes instead of using inotify."),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        let library = args.positionals[0]
        let debounce = try args.double("debounce", in: 0...3600) ?? 0.5
        let settings = ThumbnailSettings(
            width: try args.int("width", in: 16...4096) ?? 320,
            quality: try args.int("quality", in: 1...100) ?? 80,
            jobs: try args.int("jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount)
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library, isDirectory: &isDir), isDir.boolValue else {
            console.error("error: \(library): not a directory")
            return ExitStatus.failure
        }
        let regenerator = ThumbnailRegenerator(settings: settings, rendererVersion: LNoteTool.version)

        // Bring everything up to date first, then follow changes.
        _ = ThumbnailsCommand.report(regenerator.regenerate(paths: [library]), json: false, quiet: true, console: console)
        let watcher = LibraryWatcher(root: URL(fileURLWithPath: library), debounce: debounce,
                                     onNotice: { console.error("warning: \($0)") }) { package in
            let exists = FileManager.default.fileExists(atPath: package.path)
            guard exists else {
                console.print("removed: \(package.path)")
                return
            }
            _ = ThumbnailsCommand.report(regenerator.regenerate(packages: [package.path]), json: false, quiet: false, console: console)
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
        console.print("watching \(library) with \(mechanism); Ctrl-C to stop")
        let used = watcher.run(forcePolling: args.flag("poll"))
        signals.forEach { $0.cancel() }
        console.print("stopped watching (\(used))")
        return ExitStatus.success
    }
}
