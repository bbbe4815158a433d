import Foundation
import LNoteCodecs
import XCTest
@testable import LNoteCLI
import LNoteTestSupport

/// `--help`, `completions`, `man`, `--fit`, `--names` and the thumbnails progress bar.
final class HelpAndDocumentationTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testHelpHasExamplesExitStatusesRangesAndDefaults() {
        for command in LNoteTool.subcommands.map(\.spec) {
            let help = CLIRun([command.name, "--help"]).out
            XCTAssertTrue(help.contains("EXIT STATUS:\n  0  "), "\(command.name):\n\(help)")
            XCTAssertTrue(help.contains("EXAMPLES:\n  lnote-render \(command.name) "), "\(command.name):\n\(help)")
            for option in command.options where option.takesValue {
                XCTAssertTrue(option.help.contains("default"), "--\(option.name) of \(command.name) does not say its default")
            }
        }
        let export = CLIRun(["export", "--help"]).out
        XCTAssertTrue(export.contains("JPEG quality, 1-100 (default 85)"), export)
        XCTAssertTrue(CLIRun(["diff", "--help"]).out.contains("  3  an image could not be read or decoded"))
    }

    func runShell(_ shell: String, _ arguments: [String], input: String) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = arguments
        let file = dir + "/script"
        try Data(input.utf8).write(to: URL(fileURLWithPath: file))
        process.arguments = arguments + [file]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testCompletionScriptsCoverEveryCommandAndOption() throws {
        for shell in ["bash", "zsh", "fish"] {
            let run = CLIRun(["completions", shell])
            XCTAssertEqual(run.status, ExitStatus.success, run.err)
            for command in LNoteTool.subcommands.map(\.spec) {
                XCTAssertTrue(run.out.contains(command.name), "\(shell) lacks \(command.name)")
                for option in command.options {
                    XCTAssertTrue(run.out.contains(shell == "fish" ? "-l \(option.name)" : "--\(option.name)"), "\(shell) lacks --\(option.name)")
                }
            }
            XCTAssertTrue(run.out.contains("png jpeg"), "\(shell): --format's choices")
            // The shell itself accepts the script, where it is installed.
            let path = ["/bin/\(shell)", "/usr/bin/\(shell)"].first { FileManager.default.isExecutableFile(atPath: $0) }
            if let path {
                let (status, output) = try runShell(path, shell == "fish" ? ["--no-execute"] : ["-n"], input: run.out)
                XCTAssertEqual(status, 0, "\(shell) -n: \(output)")
            }
        }
        XCTAssertEqual(CLIRun(["completions", "tcsh"]).status, ExitStatus.usage)
        // bash: completing the subcommand, then an option's value.
        let bash = CLIRun(["completions", "bash"]).out
        let probe = bash + "\nCOMP_WORDS=(lnote-render exp); COMP_CWORD=1; _lnote_render; echo \"${COMPREPLY[*]}\"\n"
            + "COMP_WORDS=(lnote-render export --format ''); COMP_CWORD=3; _lnote_render; echo \"${COMPREPLY[*]}\"\n"
        let (status, output) = try runShell("/bin/bash", [], input: probe)
        XCTAssertEqual(status, 0, output)
        XCTAssertEqual(output, "export\npng jpeg pdf svg\n")
    }

    func testManPageIsValidRoffAndCoversEveryOption() throws {
        let run = CLIRun(["man"])
        XCTAssertEqual(run.status, ExitStatus.success)
        XCTAssertTrue(run.out.hasPrefix(".TH LNOTE\\-RENDER 1"), run.out)
        for command in LNoteTool.subcommands.map(\.spec) {
            XCTAssertTrue(run.out.contains(".SS \"lnote\\-render \(command.name)"), command.name)
            for option in command.options {
                XCTAssertTrue(run.out.contains("\\fB\\-\\-\(option.name.replacingOccurrences(of: "-", with: "\\-"))\\fR"), option.name)
            }
        }
        for line in run.out.split(separator: "\n") where line.hasPrefix(".") {
            XCTAssertTrue(line.hasPrefix(".TH") || line.hasPrefix(".SH") || line.hasPrefix(".SS") || line.hasPrefix(".TP")
                          || line.hasPrefix(".PP") || line.hasPrefix(".B ") || line.hasPrefix(".I ") || line == ".nf" || line == ".fi"
                          || line.hasPrefix(".RS ") || line == ".RE",
                          "a text line that roff would take as a request: \(line)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { return }
        let file = dir + "/lnote-render.1"
        try Data(run.out.utf8).write(to: URL(fileURLWithPath: file))
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-Tutf8", "-ww", file]
        let out = Pipe(), err = Pipe()
        groff.standardOutput = out
        groff.standardError = err
        try groff.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let warnings = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        XCTAssertEqual(groff.terminationStatus, 0)
        XCTAssertEqual(warnings, "", "groff warnings")
        XCTAssertTrue(text.contains("--max-differing") || text.contains("−−max-differing") || text.contains("max‐differing"), text)
    }

    func testFitPutsThePageInsideTheBox() throws {
        // The sample's pages are 834 × 1194 pt: a tall page in a square box is limited by its height.
        var run = CLIRun(["export", Repo.sample, "--pages", "1", "--fit", "300x300", "-o", dir + "/a.png"])
        XCTAssertEqual(run.status, ExitStatus.success, run.err)
        var image = try ImageDecoder.decode([UInt8](XCTUnwrap(FileManager.default.contents(atPath: dir + "/a.png"))))
        XCTAssertEqual(image.height, 300)
        XCTAssertEqual(image.width, 210)  // 300 × 834/1194 = 209.5
        run = CLIRun(["export", Repo.sample, "--pages", "1", "--fit", "100x1000", "-o", dir + "/b.png"])
        image = try ImageDecoder.decode([UInt8](XCTUnwrap(FileManager.default.contents(atPath: dir + "/b.png"))))
        XCTAssertEqual(image.width, 100)
        XCTAssertLessThanOrEqual(image.height, 1000)
        for bad in ["300", "0x10", "axb", "10x", "2000000x10"] {
            XCTAssertEqual(CLIRun(["export", Repo.sample, "--fit", bad]).status, ExitStatus.usage, bad)
        }
        XCTAssertTrue(CLIRun(["export", Repo.sample, "--fit", "9x9", "--width", "9"]).err.contains("at most one of"))
    }

    func testNamesTemplate() throws {
        let run = CLIRun(["export", Repo.sample, "--scale", "0.1", "--names", "{title}-{page:2}.jpg", "-o", dir + "/t/"])
        XCTAssertEqual(run.status, ExitStatus.success, run.err)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/t").sorted()
        XCTAssertEqual(names, ["Field trip notes-01.jpg", "Field trip notes-02.jpg", "Field trip notes-03.jpg"])
        XCTAssertEqual(Array(try XCTUnwrap(FileManager.default.contents(atPath: dir + "/t/" + names[0])).prefix(2)), [0xFF, 0xD8])
        let ids = CLIRun(["export", Repo.sample, "--scale", "0.1", "--names", "{id}.{ext}", "-o", dir + "/i/"])
        XCTAssertEqual(ids.status, ExitStatus.success, ids.err)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: dir + "/i").contains("18F11DB2-B3C4-483E-9431-7067815DC72E.png"))
        for (bad, message) in [("same.png", "would give every page the same name"), ("a/{page}.png", "no '/'"),
                               ("{pages}.png", "unknown placeholder {pages}"), ("{page}.webp", "'.webp' is not an image format")] {
            let r = CLIRun(["export", Repo.sample, "--names", bad, "-o", dir + "/x/"])
            XCTAssertEqual(r.status, ExitStatus.usage, bad)
            XCTAssertTrue(r.err.contains(message), "\(bad): \(r.err)")
        }
        XCTAssertTrue(CLIRun(["export", Repo.sample, "--names", "{page}.png", "--format", "jpeg", "-o", dir + "/x/"]).err
            .contains("does not match the --names extension"))
    }

    final class Screen: @unchecked Sendable {
        private(set) var text = ""
        private let lock = NSLock()
        func add(_ s: String) { lock.lock(); text += s; lock.unlock() }
    }

    func testThumbnailsShowAProgressBarOnATerminalOnly() throws {
        let doc = try Repo.copySample(to: dir)
        let screen = Screen()
        let console = Console(out: { screen.add($0) }, err: { screen.add($0) }, errorIsTerminal: true)
        XCTAssertEqual(LNoteTool.run(["thumbnails", "-j", "1", doc], console: console), ExitStatus.success)
        XCTAssertTrue(screen.text.contains("] 3/3 pages"), screen.text.debugDescription)
        XCTAssertTrue(screen.text.contains("\r\u{1B}[K" + "Field trip notes ("), "the bar is cleared before the report: \(screen.text.debugDescription)")
        let quiet = Screen()
        let quietConsole = Console(out: { quiet.add($0) }, err: { quiet.add($0) }, errorIsTerminal: true)
        XCTAssertEqual(LNoteTool.run(["thumbnails", "--force", "-q", doc], console: quietConsole), ExitStatus.success)
        XCTAssertFalse(quiet.text.contains("\u{1B}"), quiet.text.debugDescription)
        XCTAssertFalse(CLIRun(["thumbnails", "--force", doc]).all.contains("\u{1B}"))
    }
}
