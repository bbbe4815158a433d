import LNoteRender
import LNoteSnapshotTesting
import Testing

/// `LNoteSnapshotTesting` from Swift Testing: the same assertion, reported as an issue (with the
/// actual and diff images attached) instead of an XCTest failure.
@Suite struct SnapshotTestingSwiftTests {
    @Test func samplePageOne() throws {
        let document = try LNoteDocument(path: SnapshotTestingTests.sample)
        assertSnapshot(of: document, page: 1, width: 160)
    }

    @Test func aMissingGoldenIsAnIssue() throws {
        // No golden, recording off: the assertion must record an issue (withKnownIssue fails
        // the test when none is recorded), and writes no golden.
        let document = try LNoteDocument(path: SnapshotTestingTests.sample)
        withKnownIssue {
            assertSnapshot(of: document, page: 3, width: 160, record: .never, function: "noSuchGolden()")
        }
    }
}
