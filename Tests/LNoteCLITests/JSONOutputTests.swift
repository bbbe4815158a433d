import Foundation
import XCTest
@testable import LNoteCLI
import LNoteTestSupport

/// `--json` on every subcommand: one JSON document on standard output, on success and on
/// failure, with structured errors and warnings.
final class JSONOutputTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// The single JSON document a run printed (fails when stdout is anything else).
    func document(_ run: CLIRun, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(run.out.utf8))
        XCTAssertEqual(run.out.filter { $0 == "\n" }.count, 1, "one line: \(run.out)", file: file, line: line)
        let doc = try XCTUnwrap(object as? [String: Any], run.out, file: file, line: line)
        XCTAssertEqual(doc["status"] as? Int, Int(run.status), file: file, line: line)
        XCTAssertEqual(doc["ok"] as? Bool, run.status == 0, file: file, line: line)
        XCTAssertNotNil(doc["errors"] as? [[String: Any]], file: file, line: line)
        XCTAssertNotNil(doc["warnings"] as? [[String: Any]], file: file, line: line)
        return doc
    }

    func errors(_ doc: [String: Any]) -> [[String: Any]] { doc["errors"] as? [[String: Any]] ?? [] }
    func warnings(_ doc: [String: Any]) -> [[String: Any]] { doc["warnings"] as? [[String: Any]] ?? [] }

    func testEverySubcommandHasJSON() {
        for command in LNoteTool.subcommands {
            XCTAssertTrue(command.spec.options.contains { $0.name == "json" }, command.spec.name)
        }
    }

    func testUsageErrorsAreJSONToo() throws {
        for command in LNoteTool.subcommands.map(\.spec.name) {
            let run = CLIRun([command, "--json", "--no-such-option", "x", "y"])
            XCTAssertEqual(run.status, ExitStatus.usage, command)
            let doc = try document(run)
            XCTAssertEqual(doc["command"] as? String, command)
            XCTAssertEqual(errors(doc).first?["code"] as? String, "usage", command)
            XCTAssertTrue((errors(doc).first?["message"] as? String)?.contains("--no-such-option") == true, command)
        }
    }

    func testInfoOnABrokenPackagePrintsADocument() throws {
        let doc = try Repo.copySample(to: dir)
        try Data("{\"format\":1,".utf8).write(to: URL(fileURLWithPath: doc + "/document.json"))
        let run = CLIRun(["info", "--json", doc])
        XCTAssertEqual(run.status, ExitStatus.failure)
        let json = try document(run)
        let error = try XCTUnwrap(errors(json).first)
        XCTAssertEqual(error["code"] as? String, "json")
        XCTAssertEqual(error["kind"] as? String, "invalidJSON")
        XCTAssertEqual(error["file"] as? String, doc + "/document.json")
        XCTAssertEqual(error["severity"] as? String, "error")
        for key in ["page", "element", "id", "offset", "message"] { XCTAssertTrue(error.keys.contains(key), key) }
        XCTAssertEqual((json["documents"] as? [Any])?.count, 0)
    }

    func testExportJSON() throws {
        let ok = try document(CLIRun(["export", "--json", Repo.sample, "--scale", "0.2", "-o", dir + "/out"]))
        let pages = try XCTUnwrap(ok["pages"] as? [[String: Any]])
        XCTAssertEqual(pages.map { $0["file"] as? String }, (1...3).map { "\(dir)/out/page-00\($0).png" })
        XCTAssertEqual(ok["written"] as? Int, 3)
        // A broken page: errors carry the page number and the file as the user can open it.
        let doc = try Repo.copySample(to: dir)
        let secondID = "18F11DB2-B3C4-483E-9431-7067815DC72E"
        try Data("{\"format\":1,\"elements\":[{]}".utf8).write(to: URL(fileURLWithPath: doc + "/pages/\(secondID).content"))
        let run = CLIRun(["export", "--json", doc, "--scale", "0.2", "-o", dir + "/broken"])
        XCTAssertEqual(run.status, ExitStatus.failure)
        XCTAssertEqual(run.err, "", "nothing but the document with --json")
        let failed = try document(run)
        XCTAssertEqual(failed["failed"] as? Int, 1)
        let error = try XCTUnwrap(errors(failed).first)
        XCTAssertEqual(error["page"] as? Int, 2)
        XCTAssertEqual(error["code"] as? String, "json")
        XCTAssertEqual(error["file"] as? String, "\(doc)/pages/\(secondID).content")
        // -o - and --json would both write to standard output.
        XCTAssertEqual(try document(CLIRun(["export", "--json", doc, "--pages", "1", "-o", "-"]))["status"] as? Int, 2)
    }

    func testThumbnailsCountsABrokenDocumentAsFailed() throws {
        let good = try Repo.copySample(to: dir)
        try FileManager.default.createDirectory(atPath: dir + "/bad.lnote", withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: dir + "/bad.lnote/document.json"))
        let run = CLIRun(["thumbnails", "--json", dir])
        XCTAssertEqual(run.status, ExitStatus.failure)
        let json = try document(run)
        let total = try XCTUnwrap(json["total"] as? [String: Any])
        XCTAssertEqual(total["failed"] as? Int, 1)
        XCTAssertEqual(total["failedDocuments"] as? Int, 1)
        let documents = try XCTUnwrap(json["documents"] as? [[String: Any]])
        let bad = try XCTUnwrap(documents.first { ($0["path"] as? String)?.hasSuffix("bad.lnote") == true })
        XCTAssertEqual(bad["failed"] as? Int, 1)
        XCTAssertEqual(bad["ok"] as? Bool, false)
        XCTAssertEqual(documents.first { $0["path"] as? String == good }?["rendered"] as? Int, 3)
        XCTAssertEqual(errors(json).first?["file"] as? String, dir + "/bad.lnote/document.json")
    }

    /// A page's failure names its page by number, as `export --json` and `check --json` do, beside
    /// the file that failed (which names the page's id).
    func testThumbnailsJSONNamesTheFailedPage() throws {
        let doc = try Repo.copySample(to: dir)
        let secondID = "18F11DB2-B3C4-483E-9431-7067815DC72E"
        try Data("{\"format\":1,\"elements\":[{]}".utf8).write(to: URL(fileURLWithPath: doc + "/pages/\(secondID).content"))
        let run = CLIRun(["thumbnails", "--json", doc])
        XCTAssertEqual(run.status, ExitStatus.failure)
        let json = try document(run)
        let error = try XCTUnwrap(errors(json).first)
        XCTAssertEqual(errors(json).count, 1, "\(errors(json))")
        XCTAssertEqual(error["page"] as? Int, 2)
        XCTAssertEqual(error["code"] as? String, "json")
        XCTAssertEqual(error["file"] as? String, "\(doc)/pages/\(secondID).content")
        // export and check name the same page the same way.
        let export = try document(CLIRun(["export", "--json", doc, "--scale", "0.1", "-o", dir + "/out"]))
        XCTAssertEqual(errors(export).map { $0["page"] as? Int }, [2])
        let check = try document(CLIRun(["check", "--json", doc]))
        let found = try XCTUnwrap(errors(check).first { $0["code"] as? String == "json" }, "\(errors(check))")
        XCTAssertEqual(found["page"] as? Int, 2)
        // And the text line says it too, as export's does.
        let text = CLIRun(["thumbnails", doc])
        XCTAssertTrue(text.err.contains("error: page 2: \(doc)/pages/\(secondID).content: [json] "), text.err)
    }

    func testCheckGCCompactAndDiffJSON() throws {
        let doc = try Repo.copySample(to: dir)
        let check = try document(CLIRun(["check", "--json", doc]))
        XCTAssertTrue(warnings(check).contains { $0["code"] as? String == "missing-thumbnail" }, "\(check)")
        XCTAssertEqual((check["documents"] as? [[String: Any]])?.first?["path"] as? String, doc)
        let gc = try document(CLIRun(["gc", "--json", "--dry-run", doc]))
        XCTAssertEqual((gc["documents"] as? [[String: Any]])?.first?["wouldDelete"] as? [String], [])
        let compact = try document(CLIRun(["compact", "--json", doc]))
        XCTAssertNotNil((compact["documents"] as? [[String: Any]])?.first?["compacted"] as? [Any])
        let missing = try document(CLIRun(["gc", "--json", dir + "/none.lnote"]))
        XCTAssertEqual(errors(missing).first?["code"] as? String, "missing")
        let diff = try document(CLIRun(["diff", "--json", dir + "/x.png", dir + "/y.png"]))
        XCTAssertEqual(diff["status"] as? Int, Int(ExitStatus.cannotCompare))
        let watch = try document(CLIRun(["watch", "--json", dir + "/not-there"]))
        XCTAssertEqual(errors(watch).first?["code"] as? String, "not-a-directory")
    }

    /// The one JSON contract, over every subcommand, on success and on failure: one document
    /// from one writer, with `command`, `ok`, `status`, `errors` and `warnings`; every problem
    /// with the same keys, its `page` filled when its message names one; every key in camelCase.
    func testEverySubcommandKeepsTheOneJSONContract() throws {
        let doc = try Repo.copySample(to: dir)
        let db = dir + "/notes.sqlite"
        let png = dir + "/page.png"
        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.1", "-o", png]).status, 0)
        let none = dir + "/none.lnote"
        // watch runs until interrupted: its events are held to this contract by ProcessTests.
        let runs: [String: (success: [String]?, failure: [String])] = [
            "info": ([doc], [none]),
            "export": ([doc, "--scale", "0.1", "-o", dir + "/e/"], [none]),
            "thumbnails": ([doc], [none]),
            "watch": (nil, [dir + "/not-there"]),
            "check": ([doc], [none]),
            "gc": (["-n", doc], [none]),
            "compact": ([doc], [none]),
            "diff": ([png, png], [png, dir + "/missing.png"]),
            "snapshot": ([doc, "--goldens", dir + "/goldens", "--record"], [none, "--goldens", dir + "/goldens"]),
            "migrate": ([doc, "--to", db], [none, "--to", dir + "/other.sqlite"]),
            "restore": ([db, "--out", dir + "/restored"], [db, "--out", dir + "/restored"]),
            "completions": (["bash"], ["tcsh"]),
            "man": ([], ["extra"]),
        ]
        XCTAssertEqual(Set(runs.keys), Set(LNoteTool.subcommands.map(\.spec.name)), "every subcommand, once")
        let problemKeys: Set<String> = ["severity", "code", "kind", "file", "page", "element", "id", "offset", "message"]
        func camelCase(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for (key, member) in object {
                    XCTAssertNotNil(key.range(of: "^[a-z][a-zA-Z0-9]*$", options: .regularExpression), "\(path).\(key)")
                    camelCase(member, path + "." + key)
                }
            } else if let array = value as? [Any] {
                for item in array { camelCase(item, path + "[]") }
            }
        }
        for name in LNoteTool.subcommands.map(\.spec.name) {
            let (success, failure) = try XCTUnwrap(runs[name])
            for (args, succeeds) in [(success, true), (failure, false)] {
                guard let args else { continue }
                let run = CLIRun([name, "--json"] + args)
                let context = "\(name) \(args.joined(separator: " "))"
                XCTAssertEqual(run.status == ExitStatus.success, succeeds, "\(context): \(run.out)\(run.err)")
                XCTAssertEqual(run.err, "", "\(context): nothing but the document")
                let json = try document(run)
                XCTAssertEqual(json["command"] as? String, name, context)
                if !succeeds { XCTAssertFalse(errors(json).isEmpty, "\(context): a failure says why") }
                camelCase(json, name)
                for problem in errors(json) + warnings(json) {
                    XCTAssertEqual(Set(problem.keys), problemKeys, context)
                    if let message = problem["message"] as? String, message.hasPrefix("page "),
                       let number = Int(message.dropFirst(5).prefix { $0.isNumber }) {
                        XCTAssertEqual(problem["page"] as? Int, number, "\(context): \(message)")
                    }
                }
            }
        }
    }

}
