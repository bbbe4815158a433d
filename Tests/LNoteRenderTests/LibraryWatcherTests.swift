import Foundation
import LNoteFormat
@testable import LNoteRender
import XCTest
import LNoteTestSupport

final class LibraryWatcherTests: XCTestCase {
    /// Past `fs.inotify.max_user_watches`, inotify_add_watch fails with ENOSPC. The watcher says
    /// so, naming the limit and how to raise it, and still sees changes everywhere: by inotify
    /// in the packages it could watch, by polling in the others.
    func testAtTheWatchLimitItSaysSoAndPollsTheRest() throws {
        let dir = try temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let packages = try (1...4).map { i in
            try PackageBuilder.make(in: dir, pages: 1, documentID: String(format: "8E1F6C2B-4C1D-4B7A-9A43-%012d", i))
        }
        let notices = ResultSlots<String>(count: 1, initial: "")
        let seen = ResultSlots<[String]>(count: 1, initial: [])
        let ready = DispatchSemaphore(value: 0)
        let settled = DispatchSemaphore(value: 0)
        // The library's own watch and two packages' three each: the last two packages are polled.
        let watcher = LibraryWatcher(root: URL(fileURLWithPath: dir), debounce: 0.05, pollInterval: 0.05,
                                     onNotice: { notices[0] += $0 }, onReady: { ready.signal() },
                                     simulatedWatchLimit: 7) { url in
            seen[0] += [url.lastPathComponent]
            settled.signal()
        }
        let mechanism = ResultSlots<String>(count: 1, initial: "")
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            mechanism[0] = watcher.run()
            finished.signal()
        }
        XCTAssertEqual(ready.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(notices[0].contains("fs.inotify.max_user_watches"), notices[0])
        XCTAssertTrue(notices[0].contains("sudo sysctl fs.inotify.max_user_watches="), notices[0])
        XCTAssertTrue(notices[0].contains("2 package(s) watched with inotify, 2 polled"), notices[0])
        for k in [3, 0] {  // a polled package, then a watched one
            try packages[k].appendJournal(page: 0, frames: Journal.addFrame(PackageBuilder.stroke(index: 9)))
            XCTAssertEqual(settled.wait(timeout: .now() + 10), .success, "package \(k) edited, not seen")
            XCTAssertEqual(seen[0].last, URL(fileURLWithPath: packages[k].path).lastPathComponent)
        }
        watcher.stop()
        XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(mechanism[0], "inotify and polling")
        XCTAssertEqual(seen[0].count, 2, "\(seen[0])")
    }
}
