import Foundation
import LNoteFormat
@testable import LNoteCLI
import LNoteTestSupport
import XCTest
import LNoteTestSupport

/// `lnote-render snapshot`: the command line, exit statuses 0/1/2/3, `--json`, `--junit` (validated
/// against the JUnit schema kept in Tests/Fixtures/junit) and `--report` (opened in headless
/// Chromium, where it is installed). The modes themselves are `SnapshotRunnerTests`'.
final class SnapshotCommandTests: XCTestCase {
    var dir = ""
    var library: String { dir + "/lib" }
    var goldens: String { dir + "/goldens" }
    var document: String { library + "/sub/Notes.lnote" }

    override func setUpWithError() throws {
        dir = try temporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: library + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repo.sample, toPath: document)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func snapshot(_ extra: [String]) -> CLIRun { CLIRun(["snapshot", library, "--goldens", goldens, "-j", "2"] + extra) }

    /// Page 3 of the sample gets another paper colour: every pixel of it changes a little.
    func editPageThree() throws {
        let path = document + "/document.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = text.replacingOccurrences(of: ##""color": "#FFFFFF", "template": "blank""##, with: ##""color": "#F0F0FF", "template": "blank""##)
        XCTAssertNotEqual(text, edited)
        try AtomicFile.write(Array(edited.utf8), toPath: path)
    }

    func json(_ run: CLIRun) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any], run.out + run.err)
    }

    func testExitStatusesAndTheRecordCycle() throws {
        var run = snapshot([])
        XCTAssertEqual(run.status, ExitStatus.failure, run.all)
        XCTAssertTrue(run.out.contains("missing: \(goldens)/sub/Notes/001-2375571a.png (page 1 of \(document))"), run.out)
        XCTAssertTrue(run.out.contains("to accept the new pictures: lnote-render snapshot \(library) --goldens \(goldens) --update"), run.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: goldens))

        run = snapshot(["--record"])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertEqual(FileIO.listDirectory(atPath: goldens + "/sub/Notes").sorted(),
                       ["001-2375571a.png", "002-18f11db2.png", "003-c55c2a48.png"])
        run = snapshot(["-q"])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertEqual(run.out, "total: 3 page(s) of 1 document(s): 3 matched\n")

        try editPageThree()
        run = snapshot([])
        XCTAssertEqual(run.status, ExitStatus.failure, run.all)
        XCTAssertTrue(run.out.contains("differs: \(goldens)/sub/Notes/003-c55c2a48.png (page 3 of \(document)): "), run.out)
        // A tolerance over the change lets it pass; so does an override for that page alone.
        XCTAssertEqual(snapshot(["--tolerance", "20"]).status, ExitStatus.success)
        XCTAssertEqual(snapshot(["--max-differing", "100%"]).status, ExitStatus.success)
        try AtomicFile.write(Array(#"{"pages": {"c55c2a48": {"tolerance": 20}}}"#.utf8), toPath: goldens + "/sub/Notes/overrides.json")
        XCTAssertEqual(snapshot([]).status, ExitStatus.success)
        try FileManager.default.removeItem(atPath: goldens + "/sub/Notes/overrides.json")
        XCTAssertEqual(snapshot(["--update"]).status, ExitStatus.success)
        XCTAssertEqual(snapshot([]).status, ExitStatus.success)

        // An unreadable golden, or a path that names no document: 3.
        try AtomicFile.write([1, 2, 3], toPath: goldens + "/sub/Notes/002-18f11db2.png")
        run = snapshot([])
        XCTAssertEqual(run.status, ExitStatus.cannotCompare, run.all)
        XCTAssertTrue(run.err.contains("[golden]"), run.err)
        XCTAssertEqual(CLIRun(["snapshot", dir + "/nothing", "--goldens", goldens]).status, ExitStatus.cannotCompare)
        // A removed golden directory's document is listed; only --prune deletes.
        try FileManager.default.createDirectory(atPath: goldens + "/gone", withIntermediateDirectories: true)
        try AtomicFile.write([1], toPath: goldens + "/gone/001-aaaaaaaa.png")
        try FileManager.default.removeItem(atPath: goldens + "/sub/Notes/002-18f11db2.png")
        run = snapshot(["--record"])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertTrue(run.err.contains("\(goldens)/gone/001-aaaaaaaa.png: [orphaned-golden]"), run.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: goldens + "/gone/001-aaaaaaaa.png"))
        run = snapshot(["--prune"])
        XCTAssertEqual(run.status, ExitStatus.success, run.all)
        XCTAssertFalse(FileManager.default.fileExists(atPath: goldens + "/gone"))
    }

    func testUsageErrors() throws {
        for args in [["snapshot", library], ["snapshot", library, "--goldens", goldens, "--tolerance", "256"],
                     ["snapshot", library, "--goldens", goldens, "--max-differing", "5x"],
                     ["snapshot", library, "--goldens", goldens, "--width", "10", "--scale", "1"],
                     ["snapshot", "--goldens", goldens]] {
            XCTAssertEqual(CLIRun(args).status, ExitStatus.usage, args.joined(separator: " "))
        }
        let inside = CLIRun(["snapshot", library, "--goldens", document + "/goldens", "--record"])
        XCTAssertEqual(inside.status, ExitStatus.usage)
        XCTAssertTrue(inside.err.contains("snapshot never writes into a package"), inside.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: document + "/goldens"))
        let help = CLIRun(["snapshot", "--help"]).out
        XCTAssertTrue(help.contains("DIR/<document>/<NNN>-<id>.png"), help)
        XCTAssertTrue(help.contains("  3  a document, page or golden could not be read"), help)
    }

    /// Two libraries whose documents would share a golden directory are refused before anything
    /// is written; an argument that cannot be read turns --prune off for the run.
    func testSharedGoldenDirectoriesAndUnreadArgumentsNeverPrune() throws {
        XCTAssertEqual(snapshot(["--record"]).status, ExitStatus.success)
        let other = dir + "/lib2/sub"
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repo.sample, toPath: other + "/Notes.lnote")
        var run = CLIRun(["snapshot", library, dir + "/lib2", "--goldens", goldens, "--update", "--prune"])
        XCTAssertEqual(run.status, ExitStatus.usage, run.all)
        XCTAssertTrue(run.err.contains("would share the golden directory \(goldens)/sub/Notes"), run.err)

        // The library given twice, once under a name that does not exist: nothing is pruned.
        try FileManager.default.createDirectory(atPath: goldens + "/elsewhere/Old", withIntermediateDirectories: true)
        try AtomicFile.write([1], toPath: goldens + "/elsewhere/Old/001-aaaaaaaa.png")
        run = CLIRun(["snapshot", library, dir + "/no-such-library", "--goldens", goldens, "--prune"])
        XCTAssertEqual(run.status, ExitStatus.cannotCompare, run.all)
        XCTAssertTrue(run.err.contains("--prune deletes nothing in this run"), run.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: goldens + "/elsewhere/Old/001-aaaaaaaa.png"))
        XCTAssertEqual(snapshot(["--prune"]).status, ExitStatus.success)
        XCTAssertFalse(FileManager.default.fileExists(atPath: goldens + "/elsewhere"))
    }

    func testJSONOutput() throws {
        XCTAssertEqual(snapshot(["--record"]).status, ExitStatus.success)
        try editPageThree()
        let run = snapshot(["--json", "--report", dir + "/report"])
        XCTAssertEqual(run.status, ExitStatus.failure)
        let object = try json(run)
        XCTAssertEqual(object["command"] as? String, "snapshot")
        XCTAssertEqual(object["status"] as? Int, 1)
        let total = try XCTUnwrap(object["total"] as? [String: Any])
        XCTAssertEqual(total["matched"] as? Int, 2)
        XCTAssertEqual(total["differs"] as? Int, 1)
        let documents = try XCTUnwrap(object["documents"] as? [[String: Any]])
        let pages = try XCTUnwrap(documents.first?["pages"] as? [[String: Any]])
        XCTAssertEqual(pages.map { $0["status"] as? String }, ["matched", "matched", "differs"])
        let stats = try XCTUnwrap(pages[2]["statistics"] as? [String: Any])
        XCTAssertEqual(stats["totalPixels"] as? Int, 320 * 458)
        XCTAssertGreaterThan(stats["differingPixels"] as? Int ?? 0, 100_000)
        let artifacts = try XCTUnwrap(pages[2]["artifacts"] as? [String: Any])
        for kind in ["expected", "actual", "diff"] {
            let path = try XCTUnwrap(artifacts[kind] as? String)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
        XCTAssertEqual(pages[2]["rendererVersion"] as? String, LNoteTool.version)
        XCTAssertEqual(pages[2]["goldenRendererVersion"] as? String, LNoteTool.version)
        XCTAssertEqual(object["report"] as? String, dir + "/report/index.html")
        // A usage error is a JSON document too.
        let usage = CLIRun(["snapshot", library, "--json"])
        XCTAssertEqual(usage.status, ExitStatus.usage)
        XCTAssertEqual(try json(usage)["status"] as? Int, 2)
    }

    /// The file CI reads validates against the JUnit schema (xmllint, installed by tools/install-deps).
    func testJUnitFileValidatesAgainstTheSchema() throws {
        XCTAssertEqual(snapshot(["--record"]).status, ExitStatus.success)
        try editPageThree()
        try AtomicFile.write([0], toPath: goldens + "/sub/Notes/002-18f11db2.png")
        let junit = dir + "/out/junit.xml"
        XCTAssertEqual(snapshot(["--junit", junit]).status, ExitStatus.cannotCompare)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        XCTAssertTrue(xml.contains("<failure message=\"differs: "), xml)
        XCTAssertTrue(xml.contains("<error message=\"unreadable: "), xml)
        let xmllint = try ExternalTool.require("xmllint", package: "libxml2-utils")
        let schema = Repo.root + "/Tests/Fixtures/junit/junit.xsd"
        let (status, output) = try runProcess(xmllint, ["--noout", "--schema", schema, junit])
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("validates"), output)
        // The schema is not a pushover: a testcase without its classname fails it.
        let broken = dir + "/broken.xml"
        try AtomicFile.write(Array(xml.replacingOccurrences(of: " classname=\"snapshot.sub.Notes\"", with: "").utf8), toPath: broken)
        XCTAssertNotEqual(try runProcess(xmllint, ["--noout", "--schema", schema, broken]).0, 0)
    }

    /// The report as people see it: headless Chromium loads index.html from file:// and every
    /// image in it decodes (a missing one has naturalWidth 0); the console stays silent.
    func testReportOpensInHeadlessChromium() throws {
        XCTAssertEqual(snapshot(["--record"]).status, ExitStatus.success)
        try editPageThree()
        let report = dir + "/report"
        XCTAssertEqual(snapshot(["--report", report]).status, ExitStatus.failure)
        let html = try String(contentsOfFile: report + "/index.html", encoding: .utf8)
        XCTAssertFalse(html.contains("http:") || html.contains("https:"), "no network")
        let chromium = try ExternalTool.require("chromium", package: "chromium")
        // A probe page beside the report loads it in a frame and writes what it finds into its
        // own DOM, which --dump-dom prints.
        let probe = report + "/probe.html"
        try AtomicFile.write(Array("""
            <!DOCTYPE html><html><body><iframe id="r" src="index.html" width="1200" height="800"></iframe><pre id="out">pending</pre>
            <script>
            document.getElementById('r').addEventListener('load', () => {
              const d = document.getElementById('r').contentDocument;
              const imgs = [...d.images];
              const broken = imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.getAttribute('src'));
              document.getElementById('out').textContent = 'images=' + imgs.length + ' broken=' + JSON.stringify(broken) +
                ' sections=' + d.querySelectorAll('section.page').length + ' sliders=' + d.querySelectorAll('.slider input').length;
            });
            </script></body></html>
            """.utf8), toPath: probe)
        let args = ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files", "--virtual-time-budget=5000",
                    "--enable-logging=stderr", "--v=0", "--dump-dom", "file://" + probe]
        let (status, output) = try runProcess(chromium, args, timeout: 120)
        XCTAssertEqual(status, 0, output)
        XCTAssertTrue(output.contains("images=5 broken=[] sections=1 sliders=1"), output)
        let consoleErrors = output.split(separator: "\n").filter { $0.contains("CONSOLE") && ($0.contains("ERROR") || $0.contains("Uncaught")) }
        XCTAssertEqual(consoleErrors, [], output)
    }

    /// Goldens do not depend on the SIMD code libjpeg-turbo picks for the CPU: the feature
    /// fixture's pages (JPEG photos shrunk, enlarged, rotated) recorded here match, pixel for
    /// pixel, renders made with each of its paths forced (its JSIMD_FORCE* switches). The raster's
    /// own kernels have one path per build (SSE2 baseline); see the README.
    func testGoldensDoNotDependOnTheJPEGDecodersSIMDPath() throws {
        let tool = try builtProduct("lnote-render")
        let fixture = Repo.root + "/Tests/Fixtures/features"
        XCTAssertEqual(CLIRun(["snapshot", fixture, "--goldens", goldens, "--record", "--width", "480", "-q"]).status, ExitStatus.success)
        for path in ["JSIMD_FORCENONE", "JSIMD_FORCESSE2", "JSIMD_FORCEAVX2"] {
            let (status, output) = try runProcess(tool, ["snapshot", fixture, "--goldens", goldens, "--width", "480", "--json"],
                                                  timeout: 120, environment: [path: "1"])
            XCTAssertEqual(status, 0, "\(path): \(output)")
            XCTAssertEqual(output.components(separatedBy: "\"identical\":true").count - 1, 8, "\(path): \(output)")
        }
    }

    /// Runs a program; its exit status and output (stdout, then stderr). A program still
    /// running after `timeout` is killed and the test fails.
    func runProcess(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                    environment: [String: String]? = nil) throws -> (Int32, String) {
        let outcome = try ExternalProcess.run(executable, arguments, timeout: timeout, environment: environment)
        XCTAssertFalse(outcome.timedOut, "\(executable) was still running after \(Int(timeout)) s: \(outcome.text)")
        return (outcome.status, outcome.text)
    }
}
