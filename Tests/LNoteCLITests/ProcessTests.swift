import Foundation
import LNoteCodecs
import LNoteFormat
import XCTest
import LNoteTestSupport

/// Tests that run the real `lnote-render` and `lnote-gen` binaries as child processes: killing
/// the regenerator and the compactor mid-write, and the watcher following a library.
final class ProcessTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    @discardableResult
    func runToEnd(_ tool: String, _ args: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try builtProduct(tool))
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func generateLibrary() throws -> String {
        let library = dir + "/library"
        let (status, out) = try runToEnd("lnote-gen", ["library", "--out", library, "--seed", "7", "--pages", "4"])
        XCTAssertEqual(status, 0, out)
        return library
    }

    func packages(in library: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasSuffix(".lnote") }.sorted().map { library + "/" + $0 }
    }

    /// Every file a reader can see is whole: documents open, pages load, thumbnails decode,
    /// manifests parse.
    func assertLibraryWhole(_ library: String, _ context: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for path in try packages(in: library) {
            let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
            for entry in package.document.validPages {
                XCTAssertNoThrow(try package.loadPage(entry), "\(context): \(path)", file: file, line: line)
            }
            // The stat index is no thumbnail (a cache the regenerator checks itself when it reads it).
            for thumb in try package.thumbnailFiles() where !AtomicFile.isTemporaryFileName(thumb.name) && thumb.name != ".lnote-render-index" {
                let bytes = [UInt8](FileManager.default.contents(atPath: package.absolutePath(thumb.relativePath)) ?? Data())
                XCTAssertNoThrow(try ImageDecoder.decode(bytes), "\(context): torn thumbnail \(thumb.relativePath)", file: file, line: line)
            }
            if FileManager.default.fileExists(atPath: path + "/manifest.json") {
                XCTAssertNoThrow(try package.readManifest(), "\(context): torn manifest in \(path)", file: file, line: line)
            }
        }
    }

    /// Starts `lnote-render args`, kills it with SIGKILL after `delay` seconds (if still running).
    func killMidway(_ args: [String], after delay: Double) throws {
        let p = try startLNoteRender(args)
        usleep(useconds_t(delay * 1_000_000))
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        p.waitUntilExit()
    }

    /// Standard output that cannot be written (a full disk) is an error on standard error and
    /// exit status 1, not a crash: Foundation's FileHandle.write(_:) traps on a failed write.
    func testUnwritableStandardOutputFailsCleanly() throws {
        for args in [["info", Repo.sample], ["check", "--json", Repo.sample], ["--version"]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-render"))
            p.arguments = args
            p.standardOutput = try XCTUnwrap(FileHandle(forWritingAtPath: "/dev/full"))
            let err = Pipe()
            p.standardError = err
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .exit, "\(args): \(text)")
            XCTAssertEqual(p.terminationStatus, 1, "\(args): \(text)")
            XCTAssertTrue(text.contains("error: cannot write to standard output: No space left on device"), "\(args): \(text)")
        }
    }

    func testSIGKILLDuringRegenerationAndCompactionLeavesEveryFileWhole() throws {
        let library = try generateLibrary()
        // How long one full run takes here, to spread the kills over it.
        let start = Date()
        try runToEnd("lnote-render", ["thumbnails", library, "--force", "--jobs", "2", "--quiet"])
        let full = max(0.05, Date().timeIntervalSince(start))
        let seed = TestSeed(for: self)
        var rng = seed.generator
        for round in 0..<10 {
            try killMidway(["thumbnails", library, "--force", "--jobs", "2"], after: Double.random(in: 0...full, using: &rng))
            try assertLibraryWhole(library, "after kill \(round) of thumbnails")
        }

        // The compactor: the replayed page must be the same after any kill.
        let journaled = try packages(in: library).filter { path in
            (try? FileManager.default.contentsOfDirectory(atPath: path + "/pages"))?.contains { $0.hasSuffix(".journal") } == true
        }
        XCTAssertFalse(journaled.isEmpty, "the generated library has journals")
        var expected: [String: [[Element]]] = [:]
        for path in journaled {
            let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
            expected[path] = try package.document.validPages.map { try package.loadPage($0).elements }
        }
        for round in 0..<6 {
            for path in journaled {
                try killMidway(["compact", path], after: Double.random(in: 0...0.05, using: &rng))
                let package = try LNotePackage.open(at: URL(fileURLWithPath: path))
                let now = try package.document.validPages.map { try package.loadPage($0).elements }
                XCTAssertEqual(now.map { $0.map(\.json) }, expected[path]!.map { $0.map(\.json) }, "round \(round): \(path) changed")
            }
        }
        try assertLibraryWhole(library, "after compaction kills")

        // A rerun of both completes, and check is clean. A kill can leave a snapshot's temporary
        // file, which compaction deletes only once it is older than the 10-minute grace (it may
        // be the app's own save in progress): age them past it first.
        // One such file for certain, whether or not a kill landed mid-write.
        let page = try LNotePackage.open(at: URL(fileURLWithPath: journaled[0])).document.validPages[0]
        XCTAssertTrue(FileManager.default.createFile(atPath: journaled[0] + "/pages/.\(page.id.original).content.tmp-0123456789abcdef",
                                                     contents: Data("{".utf8)))
        for path in journaled { try backdateTemporaryFiles(in: path, by: LNotePackage.sourceTemporaryFileGraceSeconds + 60) }
        for path in journaled {
            let (status, out) = try runToEnd("lnote-render", ["compact", path])
            XCTAssertEqual(status, 0, out)
        }
        let (status, out) = try runToEnd("lnote-render", ["thumbnails", library, "--jobs", "2"])
        XCTAssertEqual(status, 0, out)
        for path in try packages(in: library) {
            let (checkStatus, report) = try runToEnd("lnote-render", ["check", path])
            XCTAssertEqual(checkStatus, 0, report)
            for rule in ["missing-thumbnail", "stale-thumbnail", "temporary-file", "manifest", "orphan-thumbnail"] {
                XCTAssertFalse(report.contains("[\(rule)"), "\(path): [\(rule)] in\n\(report)")
            }
        }
    }

    /// Sets the modification time of every temporary file in the package (its directory, pages/,
    /// assets/, thumbnails/) `seconds` into the past.
    func backdateTemporaryFiles(in package: String, by seconds: Double) throws {
        let then = Date().addingTimeInterval(-seconds)
        for dir in ["", "/pages", "/assets", "/thumbnails"] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: package + dir)) ?? []
            where AtomicFile.isTemporaryFileName(name) {
                try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: package + dir + "/" + name)
            }
        }
    }

    func testWatchFollowsEditsAdditionsRenamesAndEndsOnCtrlC() throws {
        try runWatch(poll: false)
    }

    func testWatchByPolling() throws {
        try runWatch(poll: true)
    }

    /// `watch --json`: one JSON object per line and event, nothing else, ending with `stopped`.
    func testWatchJSONIsOneObjectPerLineAndEvent() throws {
        let library = dir + "/json-library"
        try FileManager.default.createDirectory(atPath: library, withIntermediateDirectories: true)
        let doc = try Repo.copySample(to: library)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-render"))
        // The library named relatively: every event names its packages the same way.
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        p.arguments = ["watch", "json-library", "--json", "--poll", "--debounce", "0.2", "--jobs", "1"]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let log = OutputBox()
        out.fileHandleForReading.readabilityHandler = { handle in log.append(out: String(decoding: handle.availableData, as: UTF8.self)) }
        err.fileHandleForReading.readabilityHandler = { handle in log.append(err: String(decoding: handle.availableData, as: UTF8.self)) }
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        func waitFor(_ what: String, timeout: Double = 60, _ condition: () -> Bool) {
            let deadline = Date().addingTimeInterval(timeout)
            while !condition() && Date() < deadline { usleep(50_000) }
            XCTAssertTrue(condition(), "timed out waiting for \(what); output:\n\(log.out)\(log.err)")
        }
        waitFor("watching") { log.out.contains("\"event\":\"watching\"") }
        let package = try LNotePackage.open(at: URL(fileURLWithPath: doc))
        let page = try XCTUnwrap(package.document.validPages.first)
        let stroke = Element.stroke(id: "F0000000-0000-4000-8000-0000000000AB", color: Color(r: 0, g: 0, b: 255),
                                    points: [500, 500, 80, 500, 0, 7000, 9000, 80, 500, 100])
        try JournalWriter.append(Journal.addFrame(stroke), toPath: doc + "/pages/\(page.id.canonical).journal")
        waitFor("regenerated") { log.out.contains("\"event\":\"regenerated\"") }
        kill(p.processIdentifier, SIGINT)
        waitFor("exit") { !p.isRunning }
        waitFor("stopped") { log.out.contains("\"event\":\"stopped\"") }
        XCTAssertEqual(p.terminationStatus, 0)
        XCTAssertEqual(log.err, "", "nothing but JSON lines with --json")
        var events: [String] = []
        var paths: [String] = []
        for line in log.out.split(separator: "\n") {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
            XCTAssertEqual(object["command"] as? String, "watch")
            XCTAssertNotNil(object["errors"] as? [Any])
            for document in object["documents"] as? [[String: Any]] ?? [] { paths.append(try XCTUnwrap(document["path"] as? String)) }
            events.append(try XCTUnwrap(object["event"] as? String))
        }
        XCTAssertEqual(events.first, "initial")
        XCTAssertEqual(events.last, "stopped")
        XCTAssertTrue(events.contains("watching") && events.contains("regenerated"), "\(events)")
        XCTAssertEqual(Set(paths), ["json-library/" + Repo.sampleName], "initial and later events name the package alike")
    }

    private func runWatch(poll: Bool) throws {
        let library = try generateLibrary()
        let docs = try packages(in: library)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-render"))
        p.arguments = ["watch", library, "--debounce", "0.2", "--jobs", "2"] + (poll ? ["--poll"] : [])
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        let log = OutputBox()
        out.fileHandleForReading.readabilityHandler = { handle in log.append(out: String(decoding: handle.availableData, as: UTF8.self)) }
        try p.run()
        defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }

        // Generous timeouts: CI machines are slow and shared; a pass returns as soon as the condition holds.
        func waitFor(_ what: String, timeout: Double = 60, _ condition: () -> Bool) {
            let deadline = Date().addingTimeInterval(timeout)
            while !condition() && Date() < deadline { usleep(50_000) }
            XCTAssertTrue(condition(), "timed out waiting for \(what); output:\n\(log.out)")
        }
        waitFor("the first pass", timeout: 180) { log.out.contains("watching ") }

        // 1. An edit: a stroke appended to a page's journal re-renders that page's thumbnail.
        let package = try LNotePackage.open(at: URL(fileURLWithPath: docs[0]))
        let page = try XCTUnwrap(package.document.validPages.first)
        let thumb = package.absolutePath(LNotePackage.thumbnailPath(for: page.id))
        let before = FileManager.default.contents(atPath: thumb)
        let stroke = Element.stroke(id: "F0000000-0000-4000-8000-0000000000AA", color: Color(r: 255, g: 0, b: 0),
                                    points: [500, 500, 80, 500, 0, 7000, 9000, 80, 500, 100])
        try JournalWriter.append(Journal.addFrame(stroke), toPath: docs[0] + "/pages/\(page.id.canonical).journal")
        waitFor("the edited page's thumbnail") { FileManager.default.contents(atPath: thumb) != before }

        // 2. A document added while running.
        let added = library + "/0A0A0A0A-0000-4000-8000-000000000001.lnote"
        try FileManager.default.copyItem(atPath: Repo.sample, toPath: dir + "/staging.lnote")
        try FileManager.default.moveItem(atPath: dir + "/staging.lnote", toPath: added)
        waitFor("the added document's manifest") { FileManager.default.fileExists(atPath: added + "/manifest.json") }

        // 3. A document renamed, then one removed: the watcher keeps going.
        let renamed = library + "/0B0B0B0B-0000-4000-8000-000000000002.lnote"
        try FileManager.default.moveItem(atPath: added, toPath: renamed)
        try FileManager.default.removeItem(atPath: docs[1])
        waitFor("the removal to be seen") { log.out.contains("removed: \(docs[1])") }
        // An edit inside the renamed package is still followed.
        let renamedPackage = try LNotePackage.open(at: URL(fileURLWithPath: renamed))
        let first = try XCTUnwrap(renamedPackage.document.validPages.first)
        let renamedThumb = renamedPackage.absolutePath(LNotePackage.thumbnailPath(for: first.id))
        let old = FileManager.default.contents(atPath: renamedThumb)
        try JournalWriter.append(Journal.addFrame(stroke), toPath: renamed + "/pages/\(first.id.canonical).journal")
        waitFor("the renamed document's edit") { FileManager.default.contents(atPath: renamedThumb) != old }

        // 4. Ctrl-C ends it cleanly.
        kill(p.processIdentifier, SIGINT)
        waitFor("the watcher to stop", timeout: 10) { !p.isRunning }
        XCTAssertEqual(p.terminationStatus, 0)
        waitFor("the goodbye line", timeout: 2) { log.out.contains("stopped watching") }
    }
}
