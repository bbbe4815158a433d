import Foundation
import LNoteFormat
import LNoteRender
import XCTest
@testable import LNoteCLI
import LNoteTestSupport

/// Issue 28: one export path for every format, and the CLI defects found on the way. Each test
/// failed before the change it covers.
final class ExportPathTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A copy of the sample whose second page holds an invalid element: a warning on export.
    func sampleWithAWarning() throws -> String {
        let doc = try Repo.copySample(to: dir)
        let file = doc + "/pages/18F11DB2-B3C4-483E-9431-7067815DC72E.content"
        let text = try String(contentsOfFile: file, encoding: .utf8)
            .replacingOccurrences(of: "{\"format\":1,\"elements\":[",
                                  with: "{\"format\":1,\"elements\":[{\"type\":\"stroke\",\"id\":\"BAD\",\"tool\":\"pen\",\"color\":\"#000000\",\"points\":[1,2,3]},")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return doc
    }

    func json(_ run: CLIRun) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], run.out + run.err)
    }

    func testPDFAndSVGExportPrintJSONWithTheirWarnings() throws {
        let doc = try sampleWithAWarning()
        for (format, output) in [("pdf", dir + "/notes.pdf"), ("svg", dir + "/svg/")] {
            let run = CLIRun(["export", doc, "--format", format, "--json", "-o", output])
            XCTAssertEqual(run.status, ExitStatus.success, run.all)
            XCTAssertEqual(run.err, "", "nothing but the document with --json")
            let object = try json(run)
            XCTAssertEqual(object["command"] as? String, "export")
            XCTAssertEqual(object["format"] as? String, format)
            XCTAssertEqual(object["written"] as? Int, 3)
            let warnings = try XCTUnwrap(object["warnings"] as? [[String: Any]])
            let warning = try XCTUnwrap(warnings.first { $0["code"] as? String == "points-length" }, "\(warnings)")
            XCTAssertEqual(warning["page"] as? Int, 2)
            // The path as given, as PNG export's warnings show it.
            XCTAssertEqual(warning["file"] as? String, doc + "/pages/18F11DB2-B3C4-483E-9431-7067815DC72E.content")
            let pages = try XCTUnwrap(object["pages"] as? [[String: Any]])
            XCTAssertEqual(pages.count, 3)
            if format == "pdf" {
                XCTAssertEqual(object["file"] as? String, output)
                XCTAssertEqual(pages.map { $0["file"] as? String }, [output, output, output])
            }
        }
        // In text, the severity is said once, and the page and file as for PNG.
        let text = CLIRun(["export", doc, "--format", "pdf", "-o", dir + "/t.pdf"])
        XCTAssertEqual(text.status, ExitStatus.success, text.all)
        XCTAssertFalse(text.err.contains("warning: page 2: warning:"), text.err)
        XCTAssertTrue(text.err.contains("warning: page 2: \(doc)/pages/18F11DB2-B3C4-483E-9431-7067815DC72E.content"), text.err)
        XCTAssertTrue(text.out.contains("3 page(s) -> \(dir)/t.pdf (PDF, "), text.out)
    }

    func testPDFExportCreatesAMissingDirectoryAndReportsAnUnwritableOne() throws {
        let run = CLIRun(["export", Repo.sample, "--format", "pdf", "-o", dir + "/new/deeper/"])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/new/deeper/5F5C08FF-9739-4483-B5A4-3351D704D540.pdf"))
        let missing = CLIRun(["export", Repo.sample, "--json", "-o", dir + "/absent/notes.pdf"])
        XCTAssertEqual(missing.status, ExitStatus.failure)
        let error = try XCTUnwrap((try json(missing)["errors"] as? [[String: Any]])?.first)
        XCTAssertEqual(error["code"] as? String, "output-directory")
        XCTAssertEqual(error["file"] as? String, dir + "/absent/notes.pdf")
        // A file where the directory should be: the same code as PNG's.
        XCTAssertTrue(FileManager.default.createFile(atPath: dir + "/plain", contents: Data()))
        for format in ["pdf", "png"] {
            let blocked = CLIRun(["export", Repo.sample, "--format", format, "--json", "-o", dir + "/plain/sub/"])
            XCTAssertEqual((try json(blocked)["errors"] as? [[String: Any]])?.first?["code"] as? String, "output-directory", format)
        }
    }

    func testAnUnknownExtensionListsEveryFormatWritten() {
        for args in [["-o", dir + "/out.webp", "--pages", "1"], ["-o", dir + "/out.webp"], ["--names", "{page}.webp", "-o", dir + "/x/"]] {
            let run = CLIRun(["export", Repo.sample] + args)
            XCTAssertEqual(run.status, ExitStatus.usage, run.err)
            XCTAssertTrue(run.err.contains("'.webp'") && run.err.contains(".png, .jpg, .jpeg, .pdf, .svg"), run.err)
        }
    }

    func testMaxPixelsAdviceNamesAValueTheOptionAccepts() throws {
        let run = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "1000", "-o", dir + "/huge.png"])
        XCTAssertEqual(run.status, ExitStatus.usage)
        XCTAssertTrue(run.err.contains("over the --max-pixels limit"), run.err)
        XCTAssertFalse(run.err.contains("pass --max-pixels"), "advises a value --max-pixels refuses: \(run.err)")
        XCTAssertTrue(run.err.contains("its largest value is \(ExportCommand.maxPixelsRange.upperBound)"), run.err)
        // Within the range, the value is advised, and it is accepted.
        let small = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "4", "--max-pixels", "1000", "-o", dir + "/p.png"])
        let needed = try XCTUnwrap(small.err.components(separatedBy: "pass --max-pixels ").last?.split(separator: " ").first)
        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "4", "--max-pixels", String(needed),
                               "-o", dir + "/p.png"]).status, ExitStatus.success)
    }

    func testNamesWithoutAPageNumberForOnePageAndNamesWithAFile() throws {
        let one = CLIRun(["export", Repo.sample, "--pages", "2", "--names", "cover.png", "-o", dir + "/one/"])
        XCTAssertEqual(one.status, ExitStatus.success, one.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/one/cover.png"))
        let several = CLIRun(["export", Repo.sample, "--names", "cover.png", "-o", dir + "/all/"])
        XCTAssertEqual(several.status, ExitStatus.usage)
        XCTAssertTrue(several.err.contains("would give every page the same name"), several.err)
        // -o names the file itself: --names would be ignored, so it is refused.
        let file = CLIRun(["export", Repo.sample, "--pages", "1", "--names", "{page}.png", "-o", dir + "/one.png"])
        XCTAssertEqual(file.status, ExitStatus.usage)
        XCTAssertTrue(file.err.contains("--names") && file.err.contains("names the file itself"), file.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/one.png"))
    }

    func testCheckTellsAThumbnailWithoutAFingerprintFromAStaleOne() throws {
        let doc = try Repo.copySample(to: dir)
        XCTAssertEqual(CLIRun(["thumbnails", doc]).status, ExitStatus.success)
        // A thumbnail another program made: a JPEG without lnote-render's comment.
        let page = "2375571A-D637-417C-9045-33BBDCBFB3E4"
        let other = CLIRun(["export", Repo.sample, "--pages", "1", "--width", "320", "-o", dir + "/plain.jpg"])
        XCTAssertEqual(other.status, ExitStatus.success, other.err)
        try FileManager.default.removeItem(atPath: doc + "/thumbnails/\(page).jpg")
        try FileManager.default.copyItem(atPath: dir + "/plain.jpg", toPath: doc + "/thumbnails/\(page).jpg")
        let run = CLIRun(["check", doc, "--json"])
        let warnings = try XCTUnwrap(try json(run)["warnings"] as? [[String: Any]])
        XCTAssertEqual(warnings.map { $0["code"] as? String }, ["unfingerprinted-thumbnail"], "\(warnings)")
        XCTAssertEqual(warnings.first?["page"] as? Int, 1, "the page the message names")
    }

    func testRestoreIntoAFolderThatHasThePackageSaysNothingMatched() throws {
        let db = dir + "/notes.sqlite"
        XCTAssertEqual(CLIRun(["migrate", Repo.sample, "--to", db]).status, ExitStatus.success)
        XCTAssertEqual(CLIRun(["restore", db, "--out", dir + "/out"]).status, ExitStatus.success)
        let again = CLIRun(["restore", db, "--out", dir + "/out"])
        XCTAssertEqual(again.status, ExitStatus.failure)
        XCTAssertFalse(again.out.contains("their counts match"), again.out)
        XCTAssertTrue(again.out.contains("0 package(s) restored into \(dir)/out; 1 not restored"), again.out)
        let object = try json(CLIRun(["restore", db, "--out", dir + "/out", "--json"]))
        XCTAssertEqual((object["errors"] as? [[String: Any]])?.first?["code"] as? String, "package-exists")
    }

    func testOneThumbnailRecipeForEveryCommandAndWatchTakesTheLimits() throws {
        let width = "Thumbnail width in pixels, \(ThumbnailRecipe.widthRange.lowerBound)-\(ThumbnailRecipe.widthRange.upperBound) (default \(ThumbnailRecipe.defaultWidth))."
        for command in ["thumbnails", "watch", "check"] {
            let help = CLIRun([command, "--help"]).out
            XCTAssertTrue(help.contains("--width <W>") && help.contains(width), "\(command):\n\(help)")
        }
        let watch = CLIRun(["watch", "--help"]).out
        XCTAssertTrue(watch.contains("--max-work <S>") && watch.contains("--jobs <N>"), watch)
        XCTAssertEqual(CLIRun(["watch", dir + "/none", "--max-work", "0"]).status, ExitStatus.usage)
        XCTAssertEqual(CLIRun(["watch", dir + "/none", "--width", "8"]).status, ExitStatus.usage)
    }

    /// Ctrl-C during a PDF export: the temporary file is removed, the process ends by the signal.
    func testInterruptedPDFExportLeavesNoTemporaryFile() throws {
        let gen = Process()
        gen.executableURL = URL(fileURLWithPath: try builtProduct("lnote-gen"))
        gen.arguments = ["doc200", "--out", dir + "/gen", "--pages", "200"]
        gen.standardOutput = FileHandle.nullDevice
        try gen.run()
        gen.waitUntilExit()
        XCTAssertEqual(gen.terminationStatus, 0)
        let doc = try XCTUnwrap(try FileManager.default.subpathsOfDirectory(atPath: dir + "/gen").first { $0.hasSuffix(".lnote") })
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        let left = try interruptedWhileWriting(["export", dir + "/gen/" + doc, "-q", "-o", dir + "/out/notes.pdf"], temporariesIn: dir + "/out")
        XCTAssertEqual(left, [], "an interrupted PDF export left its temporary file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out/notes.pdf"))
    }

    func testManPageFitsEightyColumnsAndIndentsExampleDescriptions() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/groff") else { throw XCTSkip("no groff") }
        let page = CLIRun(["man"]).out
        let file = dir + "/lnote-render.1"
        try Data(page.utf8).write(to: URL(fileURLWithPath: file))
        let groff = Process()
        groff.executableURL = URL(fileURLWithPath: "/usr/bin/groff")
        groff.arguments = ["-man", "-Tutf8", "-P-cbou", "-rLL=80n", file]
        let out = Pipe()
        groff.standardOutput = out
        try groff.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        groff.waitUntilExit()
        let wide = text.split(separator: "\n").filter { $0.count > 80 }
        XCTAssertEqual(wide, [], "\(wide.count) line(s) wider than 80 columns")
        // An example's description is indented beneath its command.
        let lines = text.components(separatedBy: "\n")
        let command = try XCTUnwrap(lines.firstIndex { $0.contains("lnote-render export Notes.lnote -o out/") })
        let indent = { (s: String) in s.prefix { $0 == " " }.count }
        XCTAssertGreaterThan(indent(lines[command + 1]), indent(lines[command]), lines[command...command + 1].joined(separator: "\n"))
    }
}
