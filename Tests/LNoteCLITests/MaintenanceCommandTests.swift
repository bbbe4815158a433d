import Foundation
import LNoteBitmap
import LNoteCLI
import LNoteCodecs
import LNoteFormat
import XCTest
import LNoteTestSupport

final class MaintenanceCommandTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testInfoCountsElementsAfterReplay() throws {
        let run = CLIRun(["info", Repo.sample, "--json"])
        XCTAssertEqual(run.status, 0, run.err)
        let top = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.out.utf8)) as? [String: Any])
        XCTAssertEqual(top["ok"] as? Bool, true)
        let json = try XCTUnwrap((top["documents"] as? [[String: Any]])?.first)
        XCTAssertEqual(json["title"] as? String, "Field trip notes")
        let pages = try XCTUnwrap(json["pages"] as? [[String: Any]])
        XCTAssertEqual(pages.map { $0["elements"] as? Int }, [143, 59, 15])
        XCTAssertEqual(pages.map { $0["images"] as? Int }, [0, 0, 1])
        let text = CLIRun(["info", Repo.sample]).out
        XCTAssertTrue(text.contains("elements    15: 14 stroke(s) (1597 samples), 1 image(s), 0 unknown"), text)
    }

    func testInfoOnAMissingOrBrokenDocument() throws {
        var run = CLIRun(["info", dir + "/nothing.lnote"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("no such file or directory"), run.err)
        let doc = try Repo.copySample(to: dir)
        try Data("{\"format\":2,\"pages\":[]}".utf8).write(to: URL(fileURLWithPath: doc + "/document.json"))
        run = CLIRun(["info", doc])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("document.json"), run.err)
        XCTAssertTrue(run.err.lowercased().contains("newer"), run.err)
    }

    func testCheckIsCleanAfterThumbnailsAndReportsEachProblem() throws {
        let doc = try Repo.copySample(to: dir)
        var run = CLIRun(["check", doc, "--json"])
        XCTAssertEqual(run.status, 0, "missing thumbnails are warnings, not errors: \(run.out)")
        XCTAssertTrue(run.out.contains("missing-thumbnail"), run.out)

        XCTAssertEqual(CLIRun(["thumbnails", doc, "--jobs", "2"]).status, 0)
        run = CLIRun(["check", doc])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.out.contains("0 error(s), 0 warning(s)"), run.out)

        // Now break things one by one.
        let fm = FileManager.default
        let asset = try XCTUnwrap(fm.contentsOfDirectory(atPath: doc + "/assets").first)
        try fm.moveItem(atPath: doc + "/assets/\(asset)", toPath: dir + "/moved-away")
        XCTAssertTrue(fm.createFile(atPath: doc + "/assets/0C09E8AB-C16D-4A6A-8694-21CF6658D78D.png", contents: Data([0x89])))
        XCTAssertTrue(fm.createFile(atPath: doc + "/pages/11111111-2222-4333-8444-555555555555.content", contents: Data("{}".utf8)))
        XCTAssertTrue(fm.createFile(atPath: doc + "/thumbnails/.x.jpg.tmp-1", contents: Data()))
        var manifest = try Manifest.parse([UInt8](fm.contents(atPath: doc + "/manifest.json")!))
        manifest.pageCount = 7
        try AtomicFile.write(manifest.jsonBytes(), toPath: doc + "/manifest.json")
        run = CLIRun(["check", doc])
        XCTAssertEqual(run.status, 1, run.out)
        for rule in ["[missing-asset]", "[orphan-asset]", "[unlisted-page]", "[temporary-file]", "[manifest-stale] pageCount is 7",
                     "[stale-thumbnail]"] {
            XCTAssertTrue(run.out.contains(rule), "\(rule) not reported:\n\(run.out)")
        }
    }

    func testGCDeletesOnlyWhatNothingUses() throws {
        let doc = try Repo.copySample(to: dir)
        XCTAssertEqual(CLIRun(["thumbnails", doc]).status, 0)
        let fm = FileManager.default
        let orphanAsset = doc + "/assets/0C09E8AB-C16D-4A6A-8694-21CF6658D78D.png"
        let orphanThumb = doc + "/thumbnails/11111111-2222-4333-8444-555555555555.jpg"
        let tmp = doc + "/thumbnails/.abc.jpg.tmp-9"
        let unrelated = doc + "/notes.txt"
        // A temporary file of a thumbnail left by a killed run (old enough), and one another run is
        // writing right now (young), which gc must leave to it.
        let young = doc + "/thumbnails/.def.jpg.tmp-1"
        for f in [orphanAsset, orphanThumb, tmp, unrelated, young] { XCTAssertTrue(fm.createFile(atPath: f, contents: Data([1, 2, 3]))) }
        try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -LNotePackage.derivedTemporaryFileGraceSeconds - 5)], ofItemAtPath: tmp)
        let before = try fm.subpathsOfDirectory(atPath: doc).sorted()

        var run = CLIRun(["gc", doc, "--dry-run"])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.out.contains("3 file(s) would be deleted"), run.out)
        XCTAssertEqual(try fm.subpathsOfDirectory(atPath: doc).sorted(), before, "dry run deleted something")

        run = CLIRun(["gc", doc])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(fm.fileExists(atPath: orphanAsset))
        XCTAssertFalse(fm.fileExists(atPath: orphanThumb))
        XCTAssertFalse(fm.fileExists(atPath: tmp))
        XCTAssertTrue(fm.fileExists(atPath: unrelated), "gc deletes nothing else")
        XCTAssertTrue(fm.fileExists(atPath: young), "a young temporary file may be another run's write in progress")
        XCTAssertEqual(try fm.subpathsOfDirectory(atPath: doc).count, before.count - 3)
        XCTAssertEqual(CLIRun(["check", doc]).status, 0)
    }

    func testGCKeepsAssetsWhenAPageCannotBeRead() throws {
        let doc = try Repo.copySample(to: dir)
        let fm = FileManager.default
        let orphanAsset = doc + "/assets/0C09E8AB-C16D-4A6A-8694-21CF6658D78D.png"
        XCTAssertTrue(fm.createFile(atPath: orphanAsset, contents: Data([1])))
        try Data("not json".utf8).write(to: URL(fileURLWithPath: doc + "/pages/C55C2A48-E09D-4CE1-9AD5-98D78DCE18E3.content"))
        let run = CLIRun(["gc", doc])
        XCTAssertEqual(run.status, 0)
        XCTAssertTrue(run.err.contains("unreferenced assets kept: page 3 could not be read"), run.err)
        XCTAssertTrue(fm.fileExists(atPath: orphanAsset))
        XCTAssertEqual(try fm.contentsOfDirectory(atPath: doc + "/assets").count, 2, "the photo page 3 shows is kept too")
    }

    func testCompactFoldsTheJournalAndKeepsThePage() throws {
        let doc = try Repo.copySample(to: dir)
        let page = "18F11DB2-B3C4-483E-9431-7067815DC72E"
        let added = Element.stroke(id: "F0000000-0000-4000-8000-000000000001", color: Color(r: 200, g: 0, b: 0),
                                   points: [1000, 1000, 20, 500, 0, 3000, 3000, 20, 500, 40])
        try JournalWriter.append(Journal.addFrame(added) + [1, 2, 3], toPath: doc + "/pages/\(page).journal")  // + a torn tail
        XCTAssertEqual(CLIRun(["export", doc, "--pages", "2", "--scale", "0.3", "-o", dir + "/before.png"]).status, 0)
        let run = CLIRun(["compact", doc])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("page 2: journal folded in (1 frame(s) applied"), run.out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: doc + "/pages/\(page).journal"))
        XCTAssertEqual(CLIRun(["export", doc, "--pages", "2", "--scale", "0.3", "-o", dir + "/after.png"]).status, 0)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/before.png"), FileManager.default.contents(atPath: dir + "/after.png"))
        let info = CLIRun(["info", doc]).out
        XCTAssertTrue(info.contains("elements    60: 60 stroke(s)"), info)
        XCTAssertTrue(CLIRun(["compact", doc]).out.contains("0 journal(s) compacted"))
    }

    func testDiffMatchesToleratesAndWritesADiffImage() throws {
        var a = Bitmap(width: 20, height: 10, fill: 255)
        var b = a
        b.pixels[0] = 250  // one pixel, 5 levels
        b.pixels[4 * 15 + 1] = 100  // another, 155 levels
        try AtomicFile.write(PNGEncoder.encode(a), toPath: dir + "/a.png")
        try AtomicFile.write(PNGEncoder.encode(b), toPath: dir + "/b.png")
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/a.png"]).status, 0)
        var run = CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--output", dir + "/d.png"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.out.contains("2 of 200 pixels"), run.out)
        let d = try ImageDecoder.decode([UInt8](FileManager.default.contents(atPath: dir + "/d.png")!))
        XCTAssertEqual(Array(d.pixels[(4 * 15)..<(4 * 15 + 3)]), [255, 0, 0], "over-tolerance pixel is red")
        run = CLIRun(["diff", dir + "/a.png", dir + "/b.png", "--tolerance", "5", "--max-differing", "1", "--json"])
        XCTAssertEqual(run.status, 0, run.out)
        XCTAssertTrue(run.out.contains("\"differingPixels\":1"), run.out)
        a = Bitmap(width: 21, height: 10, fill: 255)
        try AtomicFile.write(PNGEncoder.encode(a), toPath: dir + "/c.png")
        run = CLIRun(["diff", dir + "/a.png", dir + "/c.png"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.out.contains("size differs"), run.out)
        XCTAssertEqual(CLIRun(["diff", dir + "/a.png", dir + "/missing.png"]).status, ExitStatus.cannotCompare)
    }

    func testThumbnailsJSONSummaryAndExitStatus() throws {
        let doc = try Repo.copySample(to: dir)
        var run = CLIRun(["thumbnails", dir, "--json", "--jobs", "2"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("\"rendered\":3"), run.out)
        run = CLIRun(["thumbnails", doc])
        XCTAssertTrue(run.out.contains("0 rendered, 3 up to date, 0 removed, 0 failed; manifest unchanged"), run.out)
        try Data("[".utf8).write(to: URL(fileURLWithPath: doc + "/pages/C55C2A48-E09D-4CE1-9AD5-98D78DCE18E3.content"))
        run = CLIRun(["thumbnails", doc])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("C55C2A48-E09D-4CE1-9AD5-98D78DCE18E3.content"), run.err)
        XCTAssertEqual(CLIRun(["thumbnails", dir + "/none"]).status, 1)
    }
}
