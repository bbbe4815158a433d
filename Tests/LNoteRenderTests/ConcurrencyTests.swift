// The code that runs on several threads, on a library mixing sound and hostile documents:
// the thumbnail regenerator's worker pool (4 jobs) and the library watcher. These are the
// tests tools/sanitize runs under ThreadSanitizer.

import Foundation
import XCTest
import LNoteTestSupport
@testable import LNoteFormat
@testable import LNoteRender

final class ConcurrencyTests: XCTestCase {
    /// A library of four documents: two sound ones sharing nothing, one whose pages share one
    /// photo, and one hostile (a failing page, an image bomb, a link out of the package).
    func makeLibrary() throws -> (world: HostileWorld, library: String, packages: [String]) {
        let w = try HostileWorld(self)
        let library = w.root + "/library"
        var packages: [String] = []
        let docIDs = ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222",
                      "33333333-3333-4333-8333-333333333333", "44444444-4444-4444-8444-444444444444"]
        for (d, doc) in docIDs.enumerated() {
            let builder = try PackageBuilder(in: library, documentID: doc, directories: ["pages", "assets"])
            let pkg = builder.path
            packages.append(pkg)
            let pages = (0..<4).map { p in (String(format: "C0A80101-0000-4000-8000-0000000%02d%03d", d, p), 1000 + 100 * p, 800) }
            try builder.write("document.json", Array(HostileWorld.documentJSON(pages).utf8))
            try builder.write("assets/\(IDs.asset).png", HostileImages.pngFile(width: 40, height: 30))
            try builder.write("assets/\(IDs.asset2).jpg", d == 3 ? HostileImages.jpegBomb(width: 65000, height: 65000) : HostileImages.smallJPEG)
            for (p, page) in pages.enumerated() {
                var elements = (0..<20).map { i in
                    HostileWorld.stroke("S\(i)", points: "\(i * 40),\(i * 30),\(5 + i),\(i * 40),0, \(900 - i * 30),\(700 - i * 20),\(25 - i),900,8",
                                        tool: ["pen", "pencil", "highlighter"][i % 3], color: i % 2 == 0 ? "#1A1A1A" : "#FF000080")
                }
                elements.append(HostileWorld.image("I", asset: "\(IDs.asset).png", frame: "\(100 * p),100,400,300"))
                elements.append(HostileWorld.image("J", asset: "\(IDs.asset2).jpg", frame: "500,400,200,200"))
                try builder.write("pages/\(page.0).content", Array(HostileWorld.content(elements).utf8))
            }
            if d == 3 {
                try FileManager.default.removeItem(atPath: pkg + "/pages/\(pages[1].0).content")
                XCTAssertEqual(symlink(w.sibling + "/pages/\(IDs.p1).content", pkg + "/pages/\(pages[1].0).content"), 0)
            }
        }
        return (w, library, packages)
    }

    let statIndexName = ".lnote-render-index"

    func thumbnails(_ packages: [String]) -> [String: TreeEntry] {
        var all: [String: TreeEntry] = [:]
        for pkg in packages {
            // The stat index is left out: a cache of file stamps, which differ from run to run.
            for (path, entry) in snapshotTree(pkg + "/thumbnails", skipping: [statIndexName]) { all[(pkg as NSString).lastPathComponent + "/" + path] = entry }
            all[(pkg as NSString).lastPathComponent + "/manifest.json"] = snapshotTree(pkg)["manifest.json"]
        }
        return all
    }

    let version = "test-1"

    func regenerate(_ library: String, jobs: Int, force: Bool) -> [DocumentRegeneration] {
        ThumbnailRegenerator(settings: ThumbnailSettings(force: force, jobs: jobs), rendererVersion: version).regenerate(paths: [library])
    }

    /// A report as text, all of it but the manifest's outcome (the second of two runs finds the
    /// manifest the first wrote).
    func summary(_ reports: [DocumentRegeneration]) -> [String] {
        reports.map { "\($0.path) \($0.title ?? "-") rendered \($0.rendered) up-to-date \($0.upToDate) removed \($0.removed) failed \($0.failed) \($0.failures.map(\.description))" }
    }

    /// Four workers give byte-identical thumbnails and manifests to one worker, and the same
    /// report; the hostile document's failures are reported, the rest of it is done.
    func testThumbnailWorkersAreDeterministic() throws {
        let (w, library, packages) = try makeLibrary()
        let sibling = snapshotTree(w.sibling)
        let four = regenerate(library, jobs: 4, force: true)
        let withFour = thumbnails(packages)
        let one = regenerate(library, jobs: 1, force: true)
        let withOne = thumbnails(packages)
        XCTAssertEqual(summary(four), summary(one))
        XCTAssertEqual(four.map(\.manifest), Array(repeating: .written, count: 4))
        XCTAssertEqual(one.map(\.manifest), Array(repeating: .unchanged, count: 4))
        XCTAssertEqual(withFour, withOne)
        XCTAssertEqual(withFour.keys.filter { $0.hasSuffix(".jpg") }.count, 15)
        XCTAssertEqual(four.reduce(0) { $0 + $1.failed }, 1)
        XCTAssertEqual(four.flatMap(\.failures).map(\.error.code), [.symlink])
        XCTAssertTrue(four.flatMap(\.failures).contains { $0.error.message.contains("a symbolic link is never followed") }, "\(four.flatMap(\.failures))")
        // The failure names its page: the hostile document's second.
        XCTAssertEqual(four.flatMap(\.failures).map(\.page), [2])
        XCTAssertEqual(four.flatMap(\.failures).map(\.pageID), ["C0A80101-0000-4000-8000-000000003001"])
        XCTAssertEqual(snapshotTree(w.sibling), sibling)
        // Nothing changed since: a third run renders nothing and writes nothing (but, at most,
        // the stat index: stamps that had not settled in the run before are recorded now).
        let indexes = Set(packages.map { (($0 as NSString).lastPathComponent) + "/thumbnails/" + statIndexName })
        let before = snapshotTree(library, skipping: indexes)
        let again = regenerate(library, jobs: 4, force: false)
        XCTAssertEqual(again.reduce(0) { $0 + $1.rendered }, 0)
        XCTAssertEqual(again.reduce(0) { $0 + $1.upToDate }, 15)
        XCTAssertTrue(treeChanges(before, snapshotTree(library, skipping: indexes)).isEmpty)
    }

    /// The same regenerator object used from several threads at once on overlapping packages
    /// (run i does packages i and i + 1, so each package is done by two runs at once).
    ///
    /// May an overlapping run fail a page? No. Every write is atomic (a private
    /// `.NAME.tmp-<random>` created O_EXCL, then renamed) and nothing is locked; each run ends a
    /// document with the clean-up `gc` does, which deletes a temporary file of a thumbnail, of the
    /// stat index or of manifest.json only once it is `derivedTemporaryFileGraceSeconds` old, so
    /// never the other run's write in progress (whose rename would then fail). Both runs write the
    /// same thumbnail and manifest bytes (the stat index is a cache checked against the files), and
    /// whichever rename comes last wins. So each run fails exactly what it would fail alone: the
    /// hostile document's page that is a symbolic link, nothing else.
    func testConcurrentRegenerationsOfTheSameLibrary() throws {
        let (_, _, packages) = try makeLibrary()
        let regenerator = ThumbnailRegenerator(settings: ThumbnailSettings(jobs: 4), rendererVersion: version)
        let results = ResultSlots<(failed: Int, failures: [LNoteError])>(count: 4, initial: (-1, []))
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let reports = regenerator.regenerate(packages: [packages[i], packages[(i + 1) % 4]])
            results[i] = (reports.reduce(0) { $0 + $1.failed }, reports.flatMap(\.failures).map(\.error))
        }
        for i in 0..<4 {
            let (failed, failures) = results[i]
            // Packages 2 and 3 of run 2, 3 and 0 of run 3 include the hostile document (package 3).
            let expected = i >= 2 ? 1 : 0
            XCTAssertEqual(failed, expected, "run \(i): \(failures)")
            XCTAssertEqual(failures.map(\.code), Array(repeating: .symlink, count: expected), "run \(i): \(failures)")
        }
        let final = regenerator.regenerate(packages: packages)
        XCTAssertEqual(final.reduce(0) { $0 + $1.rendered }, 0, "everything was up to date after the concurrent runs")
        XCTAssertEqual(final.reduce(0) { $0 + $1.upToDate }, 15)
    }

    /// The watcher thread sees a change and calls back; stopping it from another thread ends it.
    func testWatcherSeesAChangeAndStops() throws {
        let (_, library, packages) = try makeLibrary()
        let seen = ResultSlots<String>(count: 1, initial: "")
        let settled = DispatchSemaphore(value: 0)
        let watcher = LibraryWatcher(root: URL(fileURLWithPath: library), debounce: 0.1, pollInterval: 0.05) { url in
            seen[0] = url.lastPathComponent
            settled.signal()
        }
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            _ = watcher.run(forcePolling: true)
            finished.signal()
        }
        Thread.sleep(forTimeInterval: 0.3)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: packages[2] + "/pages/extra.journal"))
        XCTAssertEqual(settled.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(seen[0], (packages[2] as NSString).lastPathComponent)
        watcher.stop()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
    }
}
