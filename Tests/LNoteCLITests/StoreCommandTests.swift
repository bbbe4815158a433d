import Foundation
import LNoteFormat
import XCTest
import LNoteTestSupport

/// `migrate` and `restore` through the command line, in-process.
final class StoreCommandTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testMigrateVerifyRestoreAndTheirExitStatuses() throws {
        let db = dir + "/s.sqlite"
        var run = CLIRun(["migrate", Repo.sample, "--to", db])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("verified: every count matches"), run.out)
        XCTAssertTrue(run.out.contains("strokes"), run.out)

        run = CLIRun(["migrate", Repo.sample, "--to", db, "--verify", "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(json["verified"] as? Bool, true)
        XCTAssertEqual(json["installed"] as? Bool, false)
        let packages = try XCTUnwrap(json["packages"] as? [String: Any])
        let stored = try XCTUnwrap(json["stored"] as? [String: Any])
        XCTAssertEqual(packages["strokes"] as? Int, stored["strokes"] as? Int)
        XCTAssertGreaterThan(packages["strokes"] as? Int ?? 0, 0)

        // A mistyped path migrates nothing and leaves the database as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        run = CLIRun(["migrate", Repo.sample, dir + "/no-such-library", "--to", db])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("no-such-library"), run.err)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before)

        run = CLIRun(["migrate", Repo.sample])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("--to"), run.err)

        run = CLIRun(["restore", db, "--out", dir + "/out"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("their counts match the database"), run.out)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/out"), [Repo.sampleName])
        // Again into the same directory: the package exists and is never replaced.
        run = CLIRun(["restore", db, "--out", dir + "/out"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("never replaces"), run.err)

        // Not a store.
        try "hello".write(toFile: dir + "/plain.sqlite", atomically: true, encoding: .utf8)
        run = CLIRun(["restore", dir + "/plain.sqlite", "--out", dir + "/out2"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("plain.sqlite"), run.err)
        run = CLIRun(["migrate", Repo.sample, "--to", dir + "/plain.sqlite"])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(try String(contentsOfFile: dir + "/plain.sqlite", encoding: .utf8), "hello")
    }
}
