// A generated library at scale (10,000 documents): the no-op regeneration, and how soon `watch`
// notices an edit.

import Foundation
import LNoteFormat
import LNoteRender

/// The library brought up to date (rendering whatever is missing, untimed), its stamps left to
/// settle and recorded, then no-op runs over all of it (a stat per file, nothing read) at 1, 2 and
/// all cores (`jobCounts`).
func libraryNoop(_ library: String, runs: Int) throws -> [String: Any] {
    let regenerator = ThumbnailRegenerator(settings: ThumbnailSettings(width: 320, quality: 80, jobs: ProcessInfo.processInfo.activeProcessorCount),
                                           rendererVersion: rendererVersion)
    progress("library: bringing \(library) up to date (renders only what is missing)")
    let prepareStart = nowMs()
    var reports = regenerator.regenerate(paths: [library])
    let prepared = nowMs() - prepareStart
    let rendered = reports.reduce(0) { $0 + $1.rendered }
    usleep(200_000)  // past the stamp granularity, so the next run records every stamp
    reports = regenerator.regenerate(paths: [library])
    let pages = reports.reduce(0) { $0 + $1.rendered + $1.upToDate + $1.failed }
    progress("library: no-op runs over \(reports.count) documents, \(pages) pages")
    var trusted = 0
    var byJobs: [Int: Timing] = [:]
    for jobs in jobCounts() {
        progress("library: no-op, \(jobs) job(s)")
        let regenerator = ThumbnailRegenerator(settings: ThumbnailSettings(width: 320, quality: 80, jobs: jobs), rendererVersion: rendererVersion)
        byJobs[jobs] = try measure(runs: runs, warmup: 1) {
            let r = regenerator.regenerate(paths: [library])
            let again = r.reduce(0) { $0 + $1.rendered }
            guard again == 0 else { throw BenchError("library no-op run rendered \(again) pages") }
            trusted = r.reduce(0) { $0 + $1.trustedByStat }
        }
    }
    let noop = byJobs[ProcessInfo.processInfo.activeProcessorCount]!
    return ["library": ["documents": reports.count, "pages": pages, "prepare_ms": rounded(prepared), "prepare_rendered": rendered,
                        "noop_ms": rounded(noop.median), "noop": noop.json, "trusted_by_stat": trusted,
                        "noop_by_jobs": Dictionary(uniqueKeysWithValues: byJobs.map { (String($0.key), $0.value.json) })]]
}

/// From an edit (a stroke appended to a journal, as the app does) to the watcher's callback
/// for that document with no debounce, by inotify and by polling; then that document's
/// regeneration, as `watch` runs it. Five documents spread over the library, one at a time.
func watchLatency(_ library: String) throws -> [String: Any] {
    let packages = FileIO.listDirectory(atPath: library).filter { $0.hasSuffix(".lnote") }.map { library + "/" + $0 }
    guard packages.count >= 5 else { throw BenchError("the library has \(packages.count) documents") }
    let regenerator = ThumbnailRegenerator(settings: ThumbnailSettings(width: 320, quality: 80, jobs: 1), rendererVersion: rendererVersion)
    var result: [String: Any] = [:]
    var edits = 0
    for polling in [false, true] {
        let mechanism = polling ? "polling" : "inotify"
        progress("library: watch latency by \(mechanism)")
        let seen = SeenPackages()
        let ready = DispatchSemaphore(value: 0)
        let watcher = LibraryWatcher(root: URL(fileURLWithPath: library), debounce: 0, onReady: { ready.signal() }) { url in
            seen.add(url.path)
        }
        let finished = DispatchSemaphore(value: 0)
        let setupStart = nowMs()
        Thread.detachNewThread {
            watcher.run(forcePolling: polling)
            finished.signal()
        }
        ready.wait()
        let setup = nowMs() - setupStart
        var noticed: [Double] = [], refreshed: [Double] = []
        for k in 0..<5 {
            let package = packages[k * packages.count / 5]
            let opened = try LNotePackage.open(at: URL(fileURLWithPath: package))
            guard let entry = opened.document.validPages.first else { continue }
            let journal = try opened.pageFile(entry.id, extension: "journal", required: false)
                ?? "\(LNotePackage.pagesDirectory)/\(entry.id.original).journal"
            usleep(300_000)
            seen.clear()
            edits += 1
            let start = nowMs()
            try JournalWriter.append(Journal.encodeFrame(.add, payload: strokeJSON(number: 900_000 + edits)), toPath: opened.absolutePath(journal))
            while !seen.contains(URL(fileURLWithPath: package).standardizedFileURL.path) {
                guard nowMs() - start < 60_000 else { throw BenchError("\(mechanism): the edit of \(package) was not seen in a minute") }
                usleep(1000)
            }
            noticed.append(nowMs() - start)
            let report = regenerator.regenerate(packages: [package])[0]
            guard report.rendered == 1 else { throw BenchError("\(mechanism): regeneration after the edit rendered \(report.rendered) pages") }
            refreshed.append(nowMs() - start)
        }
        watcher.stop()
        finished.wait()
        noticed.sort()
        refreshed.sort()
        result[mechanism] = ["setup_ms": rounded(setup), "noticed_ms": rounded(noticed[noticed.count / 2]),
                             "noticed_max_ms": rounded(noticed.last!), "thumbnail_ms": rounded(refreshed[refreshed.count / 2])]
    }
    return ["watch": result]
}

final class SeenPackages: @unchecked Sendable {
    private var paths = Set<String>()
    private let lock = NSLock()
    func add(_ path: String) { lock.lock(); paths.insert(URL(fileURLWithPath: path).standardizedFileURL.path); lock.unlock() }
    func contains(_ path: String) -> Bool { lock.lock(); defer { lock.unlock() }; return paths.contains(path) }
    func clear() { lock.lock(); paths.removeAll(); lock.unlock() }
}
