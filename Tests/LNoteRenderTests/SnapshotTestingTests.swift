import Foundation
import LNoteCodecs
import LNoteRender
import LNoteSnapshotTesting
import XCTest
import LNoteTestSupport

/// The `LNoteSnapshotTesting` library as an app's XCTest tests use it (goldens committed in
/// `__Snapshots__/SnapshotTestingTests/`), and what it does when a golden is missing, differs or
/// is being recorded (checked through `SnapshotAssertion.verify`, which `assertSnapshot` reports).
final class SnapshotTestingTests: XCTestCase {
    static var sample: String { RepoPaths.root.appendingPathComponent("tools/sample/5F5C08FF-9739-4483-B5A4-3351D704D540.lnote").path }

    func testSamplePageMatchesItsGolden() throws {
        let document = try LNoteDocument(path: Self.sample)
        assertSnapshot(of: document, page: 2, width: 160)
    }

    func testEveryPageOfTheSample() throws {
        let document = try LNoteDocument(path: Self.sample)
        assertSnapshot(of: document, width: 96)
    }

    func testNamesRecordingAndEnvironment() {
        let location = SnapshotLocation(filePath: "/src/Tests/AppTests/CoverTests.swift", function: "testCover()", line: 3, column: 1)
        XCTAssertEqual(location.testName, "testCover")
        XCTAssertEqual(location.directory, "/src/Tests/AppTests/__Snapshots__/CoverTests")
        XCTAssertEqual(SnapshotLocation(filePath: "/a/B.swift", function: "cover page(x:)", line: 1, column: 1).testName, "cover_page")
        XCTAssertEqual(SnapshotAssertion.recording(nil, environment: ["LNOTE_SNAPSHOT_RECORD": "missing"]), .missing)
        XCTAssertEqual(SnapshotAssertion.recording(nil, environment: ["LNOTE_SNAPSHOT_RECORD": "ALL", "CI": "true"]), .all)
        XCTAssertEqual(SnapshotAssertion.recording(nil, environment: ["CI": "true"]), .never)
        XCTAssertEqual(SnapshotAssertion.recording(nil, environment: [:]), .missing)
        XCTAssertEqual(SnapshotAssertion.recording(.never, environment: ["LNOTE_SNAPSHOT_RECORD": "all"]), .never)
        XCTAssertEqual(SnapshotAssertion.artifactsDirectory(for: location, environment: ["LNOTE_SNAPSHOT_ARTIFACTS": "/tmp/x"]), "/tmp/x/CoverTests")
    }

    func testMissingRecordedDifferingAndUpdatedGoldens() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let package = try PackageBuilder.make(in: dir, pages: 2)
        let document = try LNoteDocument(path: package.path)
        let location = SnapshotLocation(filePath: dir + "/Tests/NotesTests.swift", function: "testNotes()", line: 1, column: 1)
        let golden = dir + "/Tests/__Snapshots__/NotesTests/testNotes.2.png"
        let artifacts = dir + "/failures"
        func verify(_ recording: SnapshotRecording) -> SnapshotAssertion.Failure? {
            SnapshotAssertion.verify(document, page: 2, size: .width(120), tolerance: 0, maxDiffering: .pixels(0), recording: recording,
                                     location: location, artifacts: artifacts)
        }
        // Missing, not recording: fails, writes only the actual image, where the message says.
        var failure = try XCTUnwrap(verify(.never))
        XCTAssertTrue(failure.message.contains("no golden \(golden)"), failure.message)
        XCTAssertTrue(failure.message.contains(artifacts + "/testNotes.2.actual.png"), failure.message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: golden))
        // Recording writes it and fails once; then it passes.
        failure = try XCTUnwrap(verify(.missing))
        XCTAssertTrue(failure.message.hasPrefix("recorded a new golden \(golden)"), failure.message)
        XCTAssertTrue(FileManager.default.fileExists(atPath: golden))
        XCTAssertNil(verify(.never))
        XCTAssertNil(verify(.missing))
        // An edited page fails, with the actual and diff images in the named directory.
        try package.writeContent(page: 1, elements: [PackageBuilder.stroke(index: 9)])
        let edited = try LNoteDocument(path: package.path)
        failure = try XCTUnwrap(SnapshotAssertion.verify(edited, page: 2, size: .width(120), tolerance: 0, maxDiffering: .pixels(0),
                                                          recording: .missing, location: location, artifacts: artifacts))
        XCTAssertTrue(failure.message.contains("page 2 differs from \(golden)"), failure.message)
        for kind in ["actual", "diff"] {
            let path = artifacts + "/testNotes.2.\(kind).png"
            XCTAssertTrue(failure.message.contains(path), failure.message)
            XCTAssertNoThrow(try ImageDecoder.decode([UInt8](XCTUnwrap(FileManager.default.contents(atPath: path)))))
        }
        XCTAssertEqual(failure.attachments.map(\.name), ["testNotes.2.actual.png", "testNotes.2.diff.png"])
        // A tolerance that covers it passes; `.all` rewrites the golden (failing once).
        XCTAssertNil(SnapshotAssertion.verify(edited, page: 2, size: .width(120), tolerance: 0, maxDiffering: .percent(100),
                                              recording: .never, location: location, artifacts: artifacts))
        failure = try XCTUnwrap(SnapshotAssertion.verify(edited, page: 2, size: .width(120), tolerance: 0, maxDiffering: .pixels(0),
                                                          recording: .all, location: location, artifacts: artifacts))
        XCTAssertTrue(failure.message.hasPrefix("rewrote the golden"), failure.message)
        XCTAssertNil(SnapshotAssertion.verify(edited, page: 2, size: .width(120), tolerance: 0, maxDiffering: .pixels(0),
                                              recording: .never, location: location, artifacts: artifacts))
    }
}
