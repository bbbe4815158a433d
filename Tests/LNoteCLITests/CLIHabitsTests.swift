import Foundation
import LNoteBitmap
import LNoteCodecs
import XCTest
@testable import LNoteCLI
import LNoteTestSupport

/// The rows of issue 18's table: the CLI as a new user tries it. One test per row.
final class CLIHabitsTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Two copies of the sample, in `lib/one/` and `lib/two/`.
    func makeLibrary() throws -> (library: String, packages: [String]) {
        let library = dir + "/lib"
        var packages: [String] = []
        for sub in ["one", "two"] {
            try FileManager.default.createDirectory(atPath: library + "/" + sub, withIntermediateDirectories: true)
            packages.append(try Repo.copySample(to: library + "/" + sub))
        }
        return (library, packages)
    }

    // 1: an unknown extension is a usage error, with nothing written.
    func testRow01UnknownExtensionIsAUsageError() {
        for name in ["out.webp", "out.tiff", "sub/out.gif"] {
            let run = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.2", "-o", dir + "/" + name])
            XCTAssertEqual(run.status, ExitStatus.usage, run.err)
            XCTAssertTrue(run.err.contains("is not a format lnote-render writes (.png, .jpg, .jpeg, .pdf, .svg)"), run.err)
            XCTAssertFalse(exists(dir + "/" + name))
        }
        XCTAssertFalse(exists(dir + "/sub"))
        // A name ending in '/' is a directory, whatever it looks like.
        let run = CLIRun(["export", Repo.sample, "--pages", "1-2", "--scale", "0.2", "-o", dir + "/shots.v2/"])
        XCTAssertEqual(run.status, ExitStatus.success, run.err)
        XCTAssertTrue(exists(dir + "/shots.v2/page-002.png"))
    }

    /// What a console with a terminal on standard error writes, both streams in one order.
    final class Screen: @unchecked Sendable {
        private(set) var text = ""
        private let lock = NSLock()
        func add(_ s: String) { lock.lock(); text += s; lock.unlock() }
    }

    // 2: the progress line is erased before any other line and drawn again below it; never
    // drawn where the terminal cannot redraw a line.
    func testRow02ProgressLineIsErasedBeforeOtherLines() {
        let screen = Screen()
        let console = Console(out: { screen.add($0) }, err: { screen.add($0) }, errorIsTerminal: true)
        console.progress("exporting 1/2")
        console.print("page 1 -> a.png")
        console.error("warning: page 2: something")
        console.endProgress()
        let clear = "\r\u{1B}[K"
        XCTAssertEqual(screen.text, "exporting 1/2" + clear + "page 1 -> a.png\n" + "exporting 1/2"
                       + clear + "warning: page 2: something\n" + "exporting 1/2" + clear)

        XCTAssertFalse(Console.redrawsInPlace(isTerminal: true, term: "dumb"))
        XCTAssertFalse(Console.redrawsInPlace(isTerminal: true, term: nil))
        XCTAssertFalse(Console.redrawsInPlace(isTerminal: false, term: "xterm-256color"))
        XCTAssertTrue(Console.redrawsInPlace(isTerminal: true, term: "xterm-256color"))

        // Not a terminal: no escape sequences at all, only the lines.
        let plain = Screen()
        let pipe = Console(out: { plain.add($0) }, err: { plain.add($0) }, errorIsTerminal: false)
        pipe.progress("exporting 1/2")
        pipe.print("page 1 -> a.png")
        pipe.endProgress()
        XCTAssertEqual(plain.text, "page 1 -> a.png\n")
    }

    func testRow02ExportOnATerminalEndsWithTheProgressCleared() {
        let screen = Screen()
        let console = Console(out: { screen.add($0) }, err: { screen.add($0) }, errorIsTerminal: true)
        let status = LNoteTool.run(["export", Repo.sample, "--scale", "0.2", "-o", dir + "/out"], console: console)
        XCTAssertEqual(status, ExitStatus.success)
        XCTAssertTrue(screen.text.hasSuffix("\r\u{1B}[K"), screen.text.debugDescription)
        // Every report line starts at the left edge: after a newline or a clear, never glued to a bar.
        for line in ["page 1 -> ", "page 2 -> ", "page 3 -> "] {
            let range = try! XCTUnwrap(screen.text.range(of: line))
            let before = screen.text[..<range.lowerBound]
            XCTAssertTrue(before.isEmpty || before.hasSuffix("\n") || before.hasSuffix("\u{1B}[K"), screen.text.debugDescription)
        }
        XCTAssertTrue(screen.text.contains("/3 pages"), screen.text.debugDescription)
    }

    func testProgressBarText() {
        let start = Date(timeIntervalSince1970: 1000)
        let bar = ProgressBar(total: 12, unit: "page", started: start)
        XCTAssertEqual(bar.line(done: 0, now: start), "[--------------------] 0/12 pages")
        XCTAssertEqual(bar.line(done: 3, now: start + 2), "[#####---------------] 3/12 pages  1.5/s  ETA 6s")
        XCTAssertEqual(bar.line(done: 12, now: start + 4), "[####################] 12/12 pages  3.0/s")
        XCTAssertEqual(ProgressBar.duration(185), "3m05s")
        XCTAssertEqual(ProgressBar.duration(3720), "1h02m")
    }

    // 3: one severity prefix per line; the page first, then the file as the user can open it.
    func testRow03WarningPrefixIsNotDoubled() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try w.put("pages/\(IDs.p1).journal", Array("not a journal frame at all".utf8))
        let run = CLIRun(["export", w.package, "--scale", "0.1", "-o", w.exportDir])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertTrue(run.err.contains("warning: page 1: \(w.package)/pages/\(IDs.p1).journal @"), run.err)
        XCTAssertFalse(run.err.contains("warning: page 1: warning"), run.err)
        for line in run.err.split(separator: "\n") {
            XCTAssertEqual(line.components(separatedBy: "warning: ").count, 2, "one prefix per line: \(line)")
        }
    }

    // 4: a path is printed once, in the form the user gave it.
    func testRow04PathsArePrintedOnceAsGiven() throws {
        let run = CLIRun(["export", "nonexist.lnote"])
        XCTAssertEqual(run.status, ExitStatus.failure)
        XCTAssertEqual(run.err, "error: nonexist.lnote: [package] the package directory does not exist\n")
        XCTAssertEqual(CLIRun(["info", "nonexist.lnote"]).err, "error: nonexist.lnote: [missing] no such file or directory\n")
        let doc = try Repo.copySample(to: dir)
        try FileManager.default.removeItem(atPath: doc + "/document.json")
        let missing = CLIRun(["export", doc + "/", "-o", dir + "/out"])
        XCTAssertEqual(missing.err, "error: \(doc)/document.json: [missing] the file does not exist\n")
        XCTAssertEqual(Problem.shownPath("pages/X.content", package: "docs/a.lnote/"), "docs/a.lnote/pages/X.content")
        let absolute = FileManager.default.currentDirectoryPath + "/docs/a.lnote"
        XCTAssertEqual(Problem.shownPath(absolute, package: "docs/a.lnote"), "docs/a.lnote")
        XCTAssertEqual(Problem.shownPath(absolute + "/pages", package: "docs/a.lnote"), "docs/a.lnote/pages")
    }

    // 5: check, info, gc and compact take PATH... like thumbnails, libraries included.
    func testRow05EveryPackageCommandTakesLibrariesAndSeveralPaths() throws {
        let (library, packages) = try makeLibrary()
        let check = CLIRun(["check", library])
        XCTAssertFalse(check.all.contains("document.json: [missing]"), check.all)
        for p in packages { XCTAssertTrue(check.out.contains("\(p): 0 error(s)"), check.out) }
        let info = CLIRun(["info", packages[0], packages[1]])
        XCTAssertEqual(info.status, ExitStatus.success, info.err)
        XCTAssertEqual(info.out.components(separatedBy: "Field trip notes").count, 3, info.out)
        let gc = CLIRun(["gc", "--dry-run", library])
        XCTAssertEqual(gc.status, ExitStatus.success, gc.err)
        for p in packages { XCTAssertTrue(gc.out.contains("\(p): 0 file(s) would be deleted"), gc.out) }
        let compact = CLIRun(["compact", library])
        XCTAssertEqual(compact.status, ExitStatus.success, compact.err)
        XCTAssertEqual(compact.out.components(separatedBy: "journal(s) compacted").count, 3, compact.out)
        // A directory with no package in it, or a path that does not exist, is an error.
        try FileManager.default.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        let empty = CLIRun(["check", dir + "/empty", dir + "/nothing-here"])
        XCTAssertEqual(empty.status, ExitStatus.failure)
        XCTAssertTrue(empty.err.contains("error: \(dir)/empty: [no-packages] no .lnote packages in this directory"), empty.err)
        XCTAssertTrue(empty.err.contains("error: \(dir)/nothing-here: [missing] no such file or directory"), empty.err)
    }

    // 6: did-you-mean for subcommands, `help SUBCOMMAND`, and options before the subcommand.
    func testRow06SubcommandMistakes() {
        let typo = CLIRun(["exprot", Repo.sample])
        XCTAssertEqual(typo.status, ExitStatus.usage)
        XCTAssertTrue(typo.err.contains("unknown subcommand 'exprot' (did you mean 'export'?)"), typo.err)
        XCTAssertTrue(CLIRun(["thumbnail", "x"]).err.contains("did you mean 'thumbnails'?"))
        let help = CLIRun(["help", "export"])
        XCTAssertEqual(help.status, ExitStatus.success)
        XCTAssertTrue(help.out.contains("USAGE: lnote-render export DOC.lnote"), help.out)
        XCTAssertEqual(CLIRun(["help", "exprot"]).status, ExitStatus.usage)
        let verbose = CLIRun(["--verbose", "export"])
        XCTAssertEqual(verbose.status, ExitStatus.usage)
        XCTAssertTrue(verbose.err.contains("unknown option '--verbose'"), verbose.err)
        XCTAssertFalse(verbose.err.contains("subcommand '--verbose'"), verbose.err)
    }

    // 7: format names in any case, as extensions are.
    func testRow07FormatIsCaseInsensitive() throws {
        let run = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.2", "--format", "PNG", "-o", dir + "/a.PNG"])
        XCTAssertEqual(run.status, ExitStatus.success, run.err)
        XCTAssertEqual(Array(try XCTUnwrap(FileManager.default.contents(atPath: dir + "/a.PNG")).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        let jpeg = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.2", "--format", "JPG", "-o", dir + "/b.jpeg"])
        XCTAssertEqual(jpeg.status, ExitStatus.success, jpeg.err)
    }

    // 8: an output that cannot be written fails before rendering, in the system's words.
    func testRow08UnwritableOutputFailsBeforeRendering() {
        let run = CLIRun(["export", Repo.sample, "--pages", "1", "-o", dir + "/missing-dir/x.png"])
        XCTAssertEqual(run.status, ExitStatus.failure)
        XCTAssertTrue(run.err.contains("error: \(dir)/missing-dir/x.png: [output-directory] the directory \(dir)/missing-dir does not exist"), run.err)
        XCTAssertFalse(run.out.contains("->"), "nothing rendered: \(run.out)")
        let proc = CLIRun(["export", Repo.sample, "--pages", "1-2", "-o", "/proc/lnote-render-test/"])
        XCTAssertEqual(proc.status, ExitStatus.failure)
        XCTAssertTrue(proc.err.contains("error: /proc/lnote-render-test: [output-directory] cannot create the output directory: No such file or directory"), proc.err)
        XCTAssertFalse(proc.err.contains("could not be completed"), proc.err)
        // A file where the directory should be.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/file", contents: Data()))
        let file = CLIRun(["export", Repo.sample, "--pages", "1-2", "-o", dir + "/file/sub/"])
        XCTAssertEqual(file.status, ExitStatus.failure)
        XCTAssertTrue(file.err.contains("\(dir)/file exists and is not a directory"), file.err)
    }

    // 9 is ExportCommandTests.testMaxPixelsRefusesBeforeRenderingAndSaysWhatLiftsIt.

    func writePNG(_ path: String, width: Int, height: Int, changed: Int = 0) throws {
        var pixels = [UInt8](repeating: 200, count: width * height * 4)
        for i in 0..<changed { pixels[i * 4] = 0 }
        let bitmap = Bitmap(width: width, height: height, pixels: pixels, isPremultiplied: false)
        try Data(PNGEncoder.encode(bitmap)).write(to: URL(fileURLWithPath: path))
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    // 10: diff's own exit status for an unreadable image, null statistics for different sizes,
    // --max-differing (with percentages) instead of a second meaning of --max-pixels.
    func testRow10Diff() throws {
        try writePNG(dir + "/a.png", width: 10, height: 10)
        try writePNG(dir + "/b.png", width: 10, height: 10, changed: 4)
        try writePNG(dir + "/c.png", width: 12, height: 10)
        let missing = CLIRun(["diff", dir + "/a.png", dir + "/nope.png"])
        XCTAssertEqual(missing.status, ExitStatus.cannotCompare)
        XCTAssertTrue(missing.err.contains("error: \(dir)/nope.png: [missing] the file does not exist"), missing.err)
        let missingJSON = try json(CLIRun(["diff", "--json", dir + "/a.png", dir + "/nope.png"]).out)
        XCTAssertEqual(missingJSON["status"] as? Int, 3)
        XCTAssertEqual(((missingJSON["errors"] as? [[String: Any]])?.first)?["code"] as? String, "missing")

        let sizes = try json(CLIRun(["diff", "--json", dir + "/a.png", dir + "/c.png"]).out)
        XCTAssertEqual(sizes["sizeMatches"] as? Bool, false)
        XCTAssertTrue(sizes["psnr"] is NSNull, "\(sizes)")
        XCTAssertTrue(sizes["differingPixels"] is NSNull, "\(sizes)")

        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/b.png"]).status, ExitStatus.failure)
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--max-differing", "4"]).status, ExitStatus.success)
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--max-differing", "4%"]).status, ExitStatus.success)
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--max-differing", "3.9%"]).status, ExitStatus.failure)
        let old = CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--max-pixels", "4"])
        XCTAssertEqual(old.status, ExitStatus.usage)
        XCTAssertTrue(old.err.contains("--max-pixels of 'diff' is now --max-differing"), old.err)
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--max-differing", "101%"]).status, ExitStatus.usage)
    }

    // 11: thumbnails made with other settings are reported as such, not as stale content.
    func testRow11CheckTellsOtherSettingsFromOtherContent() throws {
        let doc = try Repo.copySample(to: dir)
        XCTAssertEqual(CLIRun(["thumbnails", "--force", doc]).status, ExitStatus.success)
        XCTAssertEqual(CLIRun(["check", doc]).status, ExitStatus.success)
        let other = CLIRun(["check", "--width", "200", doc])
        XCTAssertFalse(other.out.contains("not made from its current content"), other.out)
        XCTAssertTrue(other.out.contains("[thumbnail-settings] page 1's thumbnail shows the current content, but was made with other settings than width 200, quality 80"), other.out)
        XCTAssertEqual(CLIRun(["check", "--quality", "60", doc]).out.components(separatedBy: "[thumbnail-settings]").count, 4)
        // Content that did change is still stale, whatever the settings.
        let contentName = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: doc + "/pages").first { $0.hasSuffix(".content") })
        let path = doc + "/pages/" + contentName
        var content = try XCTUnwrap(FileManager.default.contents(atPath: path))
        content.append(contentsOf: Array(" ".utf8))
        try content.write(to: URL(fileURLWithPath: path))
        let stale = CLIRun(["check", "--width", "200", doc])
        XCTAssertTrue(stale.out.contains("[stale-thumbnail]"), stale.out)
    }

    // 12: attached values and grouped short flags, POSIX style.
    func testRow12AttachedValuesAndGroupedFlags() throws {
        let spec = ExportCommand.spec
        let a = try ParsedArguments(["-oq.png", "-qj2", "doc"], spec: spec)
        XCTAssertEqual(try a.value(OutputOptions.output), "q.png")
        XCTAssertTrue(a.isSet(ReportOptions.quiet))
        XCTAssertEqual(try a.value(LimitOptions.jobs), 2)
        XCTAssertEqual(a.positionals, ["doc"])
        let b = try ParsedArguments(["-qo", "x.png", "doc", "-j=3"], spec: spec)
        XCTAssertEqual(try b.value(OutputOptions.output), "x.png")
        XCTAssertEqual(try b.value(LimitOptions.jobs), 3)
        XCTAssertThrowsError(try ParsedArguments(["-qz", "doc"], spec: spec)) {
            XCTAssertTrue(($0 as! UsageError).message.contains("unknown option '-z' in '-qz'"), "\($0)")
        }
        XCTAssertThrowsError(try ParsedArguments(["doc", "-qo"], spec: spec))
        let run = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.2", "-qj2", "-o\(dir)/q.png"])
        XCTAssertEqual(run.status, ExitStatus.success, run.err)
        XCTAssertEqual(run.out, "")
        XCTAssertTrue(exists(dir + "/q.png"))
    }

    // 13: image bytes are not written to a terminal.
    func testRow13NoImageBytesToATerminal() {
        let screen = Screen()
        let console = Console(out: { screen.add($0) }, err: { screen.add($0) }, outputIsTerminal: true)
        let status = LNoteTool.run(["export", Repo.sample, "--pages", "1", "-o", "-"], console: console)
        XCTAssertEqual(status, ExitStatus.usage)
        XCTAssertTrue(screen.text.contains("standard output is a terminal"), screen.text)
        XCTAssertFalse(screen.text.contains("PNG"), screen.text)
    }
}
