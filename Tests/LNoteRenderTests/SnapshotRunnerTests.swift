import Foundation
import LNoteCodecs
import LNoteFormat
@testable import LNoteRender
import XCTest

#if canImport(FoundationXML)
import FoundationXML
import LNoteTestSupport
#endif

/// `SnapshotRunner`: every mode on a small fixture library (record, pass, an edited page, update,
/// a removed page and prune, an inserted page, another renderer version, overrides, an
/// unreadable golden), the golden names, and the JUnit and HTML writers.
final class SnapshotRunnerTests: XCTestCase {
    var dir = ""
    var goldens: String { dir + "/goldens" }
    var artifacts: String { dir + "/report" }

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// A library holding one three-page document at `library/trip/<id>.lnote`.
    func makeLibrary(pages: Int = 3) throws -> PackageBuilder {
        try FileManager.default.createDirectory(atPath: dir + "/library/trip", withIntermediateDirectories: true)
        return try PackageBuilder.make(in: dir + "/library/trip", pages: pages)
    }

    func snap(_ recording: SnapshotRecording = .never, prune: Bool = false, version: String = LNoteRenderer.version,
             tolerance: Int = 0, maxDiffering: PixelAllowance = .pixels(0)) -> SnapshotRun {
        let found = SnapshotRunner.documents(in: [dir + "/library"])
        XCTAssertTrue(found.errors.isEmpty)
        return SnapshotRunner.run(documents: found.documents, goldens: goldens, options: SnapshotOptions(
            size: .width(160), channelTolerance: tolerance, maxDiffering: maxDiffering, recording: recording, prune: prune,
            jobs: 2, rendererVersion: version, artifactsDirectory: artifacts))
    }

    func statuses(_ run: SnapshotRun) -> [SnapshotStatus] { run.pages.map(\.status) }

    func goldenFiles() -> [String] {
        FileIO.listDirectory(atPath: goldens + "/trip/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10").filter { $0.hasSuffix(".png") }.sorted()
    }

    func testGoldenNamesUseTheNumberAndAStableIDPrefix() throws {
        let a = try XCTUnwrap(LNoteID("2375571A-D637-417C-9045-33BBDCBFB3E4"))
        let b = try XCTUnwrap(LNoteID("2375571A-0000-417C-9045-33BBDCBFB3E4"))
        let c = try XCTUnwrap(LNoteID("C55C2A48-E09D-4CE1-9AD5-98D78DCE18E3"))
        func slot(_ id: LNoteID) -> PageSlot { .valid(PageEntry(id: id, width: 8340, height: 11940)) }
        let names = GoldenName.names(for: [slot(c), slot(a), .invalid(index: 2, rawID: "x", error: LNoteError(.invalid, file: "", code: .pageEntry, message: "m")), slot(b)])
        XCTAssertEqual(names.map { $0?.fileName }, ["001-c55c2a48.png", "002-2375571a-d637-417c-9045-33bbdcbfb3e4.png", nil,
                                                    "004-2375571a-0000-417c-9045-33bbdcbfb3e4.png"])
        for name in names.compactMap({ $0 }) { XCTAssertEqual(GoldenName(fileName: name.fileName), name) }
        XCTAssertEqual(GoldenName(fileName: "1234-c55c2a48.png"), GoldenName(number: 1234, key: "c55c2a48"))
        for bad in ["001-c55c2a48.jpg", "01-c55c2a48.png", "001-C55C2A48.png", "001-c55c2a4.png", "abc-c55c2a48.png",
                    "003-c55c2a48.actual.png", "000-c55c2a48.png", "overrides.json"] {
            XCTAssertNil(GoldenName(fileName: bad), bad)
        }
    }

    func testRecordPassEditUpdateRemoveAndPrune() throws {
        let package = try makeLibrary()
        // No goldens, no recording: every page is missing, nothing is written into DIR.
        var r = snap()
        XCTAssertEqual(statuses(r), [.missing, .missing, .missing])
        XCTAssertEqual(r.exitStatus, 1)
        XCTAssertEqual(goldenFiles(), [])
        XCTAssertNotNil(r.pages[0].artifacts.actual, "a new page's picture is an artifact")

        r = snap(.missing)
        XCTAssertEqual(statuses(r), [.recorded, .recorded, .recorded])
        XCTAssertEqual(r.exitStatus, 0)
        XCTAssertEqual(goldenFiles(), ["001-c0a80101-0000-4000-8000-000000000001.png", "002-c0a80101-0000-4000-8000-000000000002.png",
                                       "003-c0a80101-0000-4000-8000-000000000003.png"].sorted())
        let golden = try XCTUnwrap(r.pages[1].golden)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: golden))
        XCTAssertEqual(GoldenMetadata.textChunks(ofPNG: [UInt8](bytes))[GoldenMetadata.rendererVersionKeyword], LNoteRenderer.version)
        XCTAssertEqual(GoldenMetadata.textChunks(ofPNG: [UInt8](bytes))[GoldenMetadata.pageIDKeyword], package.pageIDs[1])

        r = snap()
        XCTAssertEqual(statuses(r), [.matched, .matched, .matched])
        XCTAssertTrue(r.pages.allSatisfy { $0.comparison?.identical == true })
        XCTAssertEqual(r.exitStatus, 0)

        // An edited page fails with its statistics and artifacts; its golden is left alone.
        try package.writeContent(page: 1, elements: [PackageBuilder.stroke(index: 7)])
        r = snap()
        XCTAssertEqual(statuses(r), [.matched, .differs, .matched])
        XCTAssertEqual(r.exitStatus, 1)
        let edited = r.pages[1]
        let comparison = try XCTUnwrap(edited.comparison)
        XCTAssertGreaterThan(comparison.differingPixels, 100)
        XCTAssertEqual(comparison.totalPixels, edited.width * edited.height)
        XCTAssertEqual(FileManager.default.contents(atPath: golden), bytes)
        for path in [edited.artifacts.expected, edited.artifacts.actual, edited.artifacts.diff] {
            let path = try XCTUnwrap(path)
            XCTAssertTrue(path.hasPrefix(artifacts + "/trip/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10/002-"), path)
            XCTAssertNoThrow(try ImageDecoder.decode([UInt8](XCTUnwrap(FileManager.default.contents(atPath: path)))))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: edited.artifacts.expected!), bytes)
        // Allowed by a tolerance as large as the difference.
        XCTAssertEqual(snap(maxDiffering: .pixels(comparison.differingPixels)).exitStatus, 0)
        XCTAssertEqual(snap(maxDiffering: .pixels(comparison.differingPixels - 1)).exitStatus, 1)
        // --record writes only missing goldens: the edited page still differs.
        XCTAssertEqual(statuses(snap(.missing)), [.matched, .differs, .matched])
        XCTAssertEqual(FileManager.default.contents(atPath: golden), bytes)
        // --update rewrites it, and the next run passes.
        XCTAssertEqual(statuses(snap(.all)), [.matched, .updated, .matched])
        XCTAssertNotEqual(FileManager.default.contents(atPath: golden), bytes)
        XCTAssertEqual(statuses(snap()), [.matched, .matched, .matched])
        // The artifacts of earlier runs are gone from the report directory; other files stay.
        let artifactDir = artifacts + "/trip/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10"
        try AtomicFile.write([1], toPath: artifactDir + "/notes.txt")
        XCTAssertEqual(statuses(snap()), [.matched, .matched, .matched])
        XCTAssertEqual(FileIO.listDirectory(atPath: artifactDir), ["notes.txt"])

        // A removed page: its golden is listed, kept by every mode but --prune.
        try package.writeDocument(pageIDs: Array(package.pageIDs.prefix(2)))
        for recording in SnapshotRecording.allCases {
            r = snap(recording)
            XCTAssertEqual(statuses(r), [.matched, .matched])
            XCTAssertEqual(r.documents[0].orphans.map { URL(fileURLWithPath: $0.path).lastPathComponent },
                           ["003-c0a80101-0000-4000-8000-000000000003.png"])
            XCTAssertEqual(r.documents[0].orphans.map(\.pruned), [false])
            XCTAssertEqual(r.exitStatus, 0)
            XCTAssertEqual(goldenFiles().count, 3)
        }
        r = snap(prune: true)
        XCTAssertEqual(r.documents[0].orphans.map(\.pruned), [true])
        XCTAssertEqual(goldenFiles().count, 2)
        XCTAssertTrue(snap().documents[0].orphans.isEmpty)
    }

    func testAnInsertedPageKeepsTheGoldensOfThePagesAfterIt() throws {
        let package = try makeLibrary(pages: 2)
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        // A new first page (another id prefix), the old ones now pages 2 and 3.
        let newID = "D0D0D0D0-0000-4000-8000-000000000009"
        try AtomicFile.write(ContentWriter.snapshot([PackageBuilder.stroke(index: 3)]), toPath: package.path + "/pages/\(newID).content")
        try package.writeDocument(pageIDs: [newID] + package.pageIDs)
        var r = snap()
        XCTAssertEqual(statuses(r), [.missing, .matched, .matched])
        XCTAssertEqual(r.pages.map(\.renumbered), [false, true, true])
        XCTAssertTrue(r.documents[0].orphans.isEmpty, "\(r.documents[0].orphans)")
        XCTAssertEqual(r.exitStatus, 1)
        r = snap(.missing)
        XCTAssertEqual(statuses(r), [.recorded, .matched, .matched])
        XCTAssertTrue(r.documents[0].orphans.isEmpty, "renamed goldens are no orphans: \(r.documents[0].orphans)")
        XCTAssertEqual(r.pages.compactMap { $0.renamedFrom.map { URL(fileURLWithPath: $0).lastPathComponent } },
                       ["001-c0a80101-0000-4000-8000-000000000001.png", "002-c0a80101-0000-4000-8000-000000000002.png"])
        XCTAssertEqual(goldenFiles(), ["001-d0d0d0d0.png", "002-c0a80101-0000-4000-8000-000000000001.png",
                                       "003-c0a80101-0000-4000-8000-000000000002.png"])
        r = snap()
        XCTAssertEqual(statuses(r), [.matched, .matched, .matched])
        XCTAssertEqual(r.pages.map(\.renumbered), [false, false, false])
    }

    func testAWholeIDGoldenIsFoundWhenItsNameBecomesShort() throws {
        let package = try makeLibrary(pages: 2)
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        XCTAssertEqual(goldenFiles(), ["001-c0a80101-0000-4000-8000-000000000001.png", "002-c0a80101-0000-4000-8000-000000000002.png"])
        // Page 2 gone: page 1 no longer shares its first eight digits, its name is short.
        try package.writeDocument(pageIDs: [package.pageIDs[0]])
        var r = snap()
        XCTAssertEqual(statuses(r), [.matched])
        XCTAssertEqual(r.pages[0].name?.fileName, "001-c0a80101.png")
        XCTAssertTrue(r.pages[0].renumbered)
        XCTAssertEqual(r.documents[0].orphans.map { URL(fileURLWithPath: $0.path).lastPathComponent },
                       ["002-c0a80101-0000-4000-8000-000000000002.png"])
        r = snap(.missing, prune: true)
        XCTAssertEqual(r.documents[0].orphans.map(\.pruned), [true])
        XCTAssertEqual(r.documents[0].orphans.compactMap(\.error), [])
        XCTAssertEqual(r.pages[0].renamedFrom.map { URL(fileURLWithPath: $0).lastPathComponent }, "001-c0a80101-0000-4000-8000-000000000001.png")
        XCTAssertEqual(goldenFiles(), ["001-c0a80101.png"])
        XCTAssertEqual(statuses(snap()), [.matched])
    }

    /// A page added later whose id shares the first eight digits of a page that has a golden:
    /// both pages are now named with the whole id, and the old short-named golden stays its own
    /// page's (the page id it carries says so), not an orphan re-recorded without a comparison.
    func testAPageSharingAGoldensIDPrefixLeavesTheGoldenWithItsPage() throws {
        let package = try makeLibrary(pages: 2)
        try package.writeDocument(pageIDs: [package.pageIDs[0]])
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        XCTAssertEqual(goldenFiles(), ["001-c0a80101.png"])
        try package.writeDocument(pageIDs: package.pageIDs)  // page 2 shares c0a80101
        var r = snap()
        XCTAssertEqual(statuses(r), [.matched, .missing])
        XCTAssertEqual(r.pages[0].comparison?.identical, true)
        XCTAssertTrue(r.documents[0].orphans.isEmpty, "\(r.documents[0].orphans)")
        // Page 1 changes: recording missing goldens does not swallow the change.
        try package.writeContent(page: 0, elements: [PackageBuilder.stroke(index: 5)])
        r = snap(.missing, prune: true)
        XCTAssertEqual(statuses(r), [.differs, .recorded])
        XCTAssertEqual(goldenFiles(), ["001-c0a80101.png", "002-c0a80101-0000-4000-8000-000000000002.png"])
        r = snap(.all, prune: true)
        XCTAssertEqual(statuses(r), [.updated, .matched])
        XCTAssertEqual(goldenFiles(), ["001-c0a80101-0000-4000-8000-000000000001.png", "002-c0a80101-0000-4000-8000-000000000002.png"])
    }

    /// `libA/X.lnote` and `libB/X.lnote` would share `DIR/X`: neither is run, so neither records
    /// over nor prunes the other's goldens.
    func testDocumentsSharingAGoldenDirectoryAreNotRun() throws {
        for lib in ["libA", "libB"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + lib, withIntermediateDirectories: true)
            _ = try PackageBuilder.make(in: dir + "/" + lib, pages: lib == "libA" ? 2 : 1)
        }
        let options = SnapshotOptions(size: .width(160), recording: .missing, prune: true, jobs: 2)
        let a = SnapshotRunner.documents(in: [dir + "/libA"]).documents
        XCTAssertEqual(SnapshotRunner.run(documents: a, goldens: goldens, options: options).exitStatus, 0)
        let recorded = FileIO.listDirectory(atPath: goldens + "/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10").sorted()
        XCTAssertEqual(recorded.count, 2)
        let both = SnapshotRunner.documents(in: [dir + "/libA", dir + "/libB"]).documents
        XCTAssertEqual(SnapshotRunner.sharedKeys(both).map(\.paths.count), [2])
        let r = SnapshotRunner.run(documents: both, goldens: goldens, options: options)
        XCTAssertEqual(r.exitStatus, 3)
        XCTAssertEqual(r.documents.map { $0.error?.message.contains("give each library its own --goldens") }, [true, true])
        XCTAssertEqual(r.pages.count, 0)
        XCTAssertEqual(FileIO.listDirectory(atPath: goldens + "/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10").sorted(), recorded)
    }

    /// Pruning deletes goldens of documents that are gone, and the folders it emptied; it never
    /// enters a package, and leaves folders it did not empty alone.
    func testPruneTouchesOnlyGoldensAndTheFoldersItEmptied() throws {
        _ = try makeLibrary(pages: 1)
        let fm = FileManager.default
        for folder in ["gone/deep", "empty", "kept", "Stray.lnote/pages"] {
            try fm.createDirectory(atPath: goldens + "/" + folder, withIntermediateDirectories: true)
        }
        try AtomicFile.write([1], toPath: goldens + "/gone/deep/001-aaaaaaaa.png")
        try AtomicFile.write([1], toPath: goldens + "/kept/002-bbbbbbbb.png")
        try AtomicFile.write([1], toPath: goldens + "/kept/notes.txt")
        try AtomicFile.write([1], toPath: goldens + "/Stray.lnote/pages/001-cccccccc.png")
        let r = snap(.missing, prune: true)
        XCTAssertEqual(r.exitStatus, 0)
        XCTAssertEqual(r.orphanDocuments.map { String($0.path.dropFirst(goldens.count + 1)) }.sorted(),
                       ["gone/deep/001-aaaaaaaa.png", "kept/002-bbbbbbbb.png"])
        XCTAssertTrue(r.orphanDocuments.allSatisfy(\.pruned))
        XCTAssertFalse(fm.fileExists(atPath: goldens + "/gone"), "emptied by pruning")
        XCTAssertTrue(fm.fileExists(atPath: goldens + "/empty"), "empty before: not pruning's")
        XCTAssertEqual(FileIO.listDirectory(atPath: goldens + "/kept"), ["notes.txt"])
        XCTAssertTrue(fm.fileExists(atPath: goldens + "/Stray.lnote/pages/001-cccccccc.png"), "a package is never entered")
    }

    /// An override key of eight or more digits is an id prefix, even when every digit is decimal.
    func testAnAllDigitOverrideKeyOfEightDigitsIsAnIDPrefix() throws {
        let overrides = try SnapshotOverrides(json: Array(#"{"pages": {"12345678": {"tolerance": 9}, "7": {"tolerance": 4}}}"#.utf8),
                                              file: "overrides.json")
        let base: (channel: Int, allowance: PixelAllowance) = (0, .pixels(0))
        XCTAssertEqual(overrides.tolerance(page: 1, id: "12345678-0000-4000-8000-000000000001", base: base).channel, 9)
        XCTAssertEqual(overrides.tolerance(page: 12_345_678, id: "ffffffff-0000-4000-8000-000000000001", base: base).channel, 0)
        XCTAssertEqual(overrides.tolerance(page: 7, id: "ffffffff-0000-4000-8000-000000000001", base: base).channel, 4)
    }

    func testAGoldenOfAnotherRendererVersionIsReportedAsOutdated() throws {
        let package = try makeLibrary(pages: 2)
        XCTAssertEqual(snap(.missing, version: "0.9.0").exitStatus, 0)
        try package.writeContent(page: 0, elements: [PackageBuilder.stroke(index: 6)])
        let r = snap()
        XCTAssertEqual(statuses(r), [.outdated, .matched])
        XCTAssertEqual(r.pages.map(\.goldenRendererVersion), ["0.9.0", "0.9.0"])
        XCTAssertEqual(r.pages[0].rendererVersion, LNoteRenderer.version)
        XCTAssertTrue(r.pages[0].summary.contains("recorded by renderer 0.9.0, this is \(LNoteRenderer.version)"), r.pages[0].summary)
        XCTAssertEqual(r.exitStatus, 1)
        XCTAssertEqual(statuses(snap(.all)), [.updated, .matched])
        XCTAssertEqual(snap().pages.map(\.goldenRendererVersion), [LNoteRenderer.version, "0.9.0"])
    }

    func testOverridesLoosenOnlyThePagesTheyName() throws {
        let package = try makeLibrary()
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        try package.writeContent(page: 0, elements: [PackageBuilder.stroke(index: 5)])
        try package.writeContent(page: 2, elements: [PackageBuilder.stroke(index: 5)])
        XCTAssertEqual(statuses(snap()), [.differs, .matched, .differs])
        let file = goldens + "/trip/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10/" + SnapshotOverrides.fileName
        // By number, and by id prefix: page 3's id starts c0a80101-0000-4000-8000-000000000003.
        try AtomicFile.write(Array(#"{"pages": {"1": {"maxDiffering": "100%"}}}"#.utf8), toPath: file)
        XCTAssertEqual(statuses(snap()), [.matched, .matched, .differs])
        XCTAssertEqual(snap().pages[0].tolerance?.maxDifferingPixels, snap().pages[0].width * snap().pages[0].height)
        try AtomicFile.write(Array(#"{"maxDiffering": "100%", "pages": {"c0a80101-0000-4000-8000-000000000003": {"maxDiffering": 0}}}"#.utf8), toPath: file)
        XCTAssertEqual(statuses(snap()), [.matched, .matched, .differs])
        try AtomicFile.write(Array(#"{"tolerance": 255}"#.utf8), toPath: file)
        XCTAssertEqual(statuses(snap()), [.matched, .matched, .matched])

        // A bad file stops the document, naming the file and what is wrong.
        for (text, message) in [(#"{"tolerence": 2}"#, "unknown member \"tolerence\""), (#"{"tolerance": 300}"#, "from 0 to 255"),
                                (#"{"pages": {"two": {}}}"#, "'two' is neither a page number"), (#"{"maxDiffering": "101%"}"#, "0% to 100%"),
                                ("[1]", "not an object"), ("{", "invalid JSON")] {
            try AtomicFile.write(Array(text.utf8), toPath: file)
            let r = snap()
            XCTAssertEqual(r.exitStatus, 3, text)
            XCTAssertEqual(r.documents[0].error?.file, file)
            XCTAssertTrue(r.documents[0].error?.message.contains(message) == true, "\(text): \(String(describing: r.documents[0].error))")
        }
    }

    func testAnUnreadableGoldenOrPageCannotBeCompared() throws {
        let package = try makeLibrary(pages: 2)
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        let golden = try XCTUnwrap(snap().pages[1].golden)
        try AtomicFile.write(Array("not a png".utf8), toPath: golden)
        var r = snap(.all)
        XCTAssertEqual(statuses(r), [.matched, .unreadable])
        XCTAssertEqual(r.exitStatus, 3)
        XCTAssertEqual(FileManager.default.contents(atPath: golden), Data("not a png".utf8), "never overwritten")
        try FileManager.default.removeItem(atPath: package.contentPath(0))
        r = snap()
        XCTAssertEqual(statuses(r), [.failed, .unreadable])
        XCTAssertNotNil(r.pages[0].error)
    }

    func testJUnitAndHTMLReportNameEveryPageAndItsImages() throws {
        let package = try makeLibrary()
        XCTAssertEqual(snap(.missing).exitStatus, 0)
        try package.writeContent(page: 1, elements: [PackageBuilder.stroke(index: 7)])
        try FileManager.default.removeItem(atPath: goldens + "/trip/8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10/003-c0a80101-0000-4000-8000-000000000003.png")
        let r = snap()
        XCTAssertEqual(statuses(r), [.matched, .differs, .missing])

        let xml = SnapshotJUnit.xml(r)
        let parsed = try JUnitSummary(xml)
        XCTAssertEqual(parsed.testcases, 3)
        XCTAssertEqual(parsed.failures, 2)
        XCTAssertEqual(parsed.rootAttributes["tests"], "3")
        XCTAssertEqual(parsed.rootAttributes["failures"], "2")
        XCTAssertEqual(parsed.failureTypes, ["differs", "missing"])
        XCTAssertTrue(xml.contains("diff: \(r.pages[1].artifacts.diff!)"), xml)

        let html = SnapshotHTMLReport.html(r, reportDirectory: artifacts, recordCommand: "lnote-render snapshot lib --goldens g --update")
        XCTAssertFalse(html.contains("http://") || html.contains("https://"), "no network")
        let sources = html.components(separatedBy: "src=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        XCTAssertEqual(sources.count, 3 + 2 + 1, "expected, actual, diff and the slider's two of page 2; page 3's actual")
        for src in sources {
            let path = artifacts + "/" + (src.removingPercentEncoding ?? src)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        }
        XCTAssertTrue(html.contains("lnote-render snapshot lib --goldens g --update"))
        XCTAssertTrue(html.contains("<details><summary>1 matching page(s)</summary>"))
    }

    /// What goldens rely on: the same pixels whatever the number of threads and on every run
    /// (each page is drawn by one thread, images prepared in a fixed order; see the README's
    /// "What makes pixels identical").
    func testGoldensDoNotDependOnTheNumberOfThreads() throws {
        let fixture = RepoPaths.fixtures.appendingPathComponent("features").path
        let documents = SnapshotRunner.documents(in: [fixture]).documents
        XCTAssertEqual(documents.count, 1)
        func snapshot(jobs: Int, _ recording: SnapshotRecording) -> SnapshotRun {
            SnapshotRunner.run(documents: documents, goldens: goldens, options: SnapshotOptions(size: .width(200), recording: recording, jobs: jobs))
        }
        XCTAssertEqual(snapshot(jobs: 1, .missing).count(.recorded), 8)
        for jobs in [4, 1] {
            let r = snapshot(jobs: jobs, .never)
            XCTAssertEqual(r.pages.count, 8)
            XCTAssertTrue(r.pages.allSatisfy { $0.comparison?.identical == true }, "jobs \(jobs): \(r.pages.map(\.summary))")
        }
    }

    func testPNGTextChunksAreReadBack() throws {
        let png = try SnapshotRunner.goldenPNG(.init(width: 2, height: 2, fill: 255), scale: 1, pageID: "ID", rendererVersion: "9.9")
        XCTAssertEqual(GoldenMetadata.textChunks(ofPNG: png), ["Software": "lnote-render", "lnote-renderer-version": "9.9", "lnote-page-id": "ID"])
        XCTAssertEqual(GoldenMetadata.textChunks(ofPNG: Array(png.prefix(40))), [:], "a truncated chunk is not read")
        XCTAssertEqual(GoldenMetadata.textChunks(ofPNG: Array("GIF89a".utf8)), [:])
    }
}

/// What a JUnit file says, read with Foundation's XML parser (which also proves it well-formed).
struct JUnitSummary {
    var rootAttributes: [String: String] = [:]
    var testcases = 0
    var failures = 0
    var failureTypes: [String] = []

    init(_ xml: String) throws {
        let parser = XMLParser(data: Data(xml.utf8))
        let delegate = Delegate()
        parser.delegate = delegate
        guard parser.parse() else { throw GoldenError("not well-formed XML: \(String(describing: parser.parserError))") }
        self = delegate.summary
    }

    final class Delegate: NSObject, XMLParserDelegate {
        var summary = JUnitSummary(empty: ())
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            switch name {
            case "testsuites": summary.rootAttributes = attributes
            case "testcase": summary.testcases += 1
            case "failure", "error":
                summary.failures += 1
                summary.failureTypes.append(attributes["type"] ?? "")
            default: break
            }
        }
    }

    private init(empty: ()) {}
}
