// The limits of section 7 (and --max-pixels) are enforced before the memory they guard is
// allocated. Each test would fail if the check came after the allocation:
//
// - in-process tests measure wall time and the growth of this process's peak RSS (a refused
//   40000×40000 canvas would add 6.4 GB; a 60000×60000 image 14.4 GB);
// - the heavier ones run the real executable under an address-space limit (`ulimit -v`), where
//   such an allocation kills the process, and read the child's own peak RSS from wait4. A
//   control run with the limit lifted shows that the harness does catch a big allocation.
// - streaming limits (elements, JSON depth, journal frames) are shown to stop reading at the
//   limit: a syntax error placed after it is never reached.

import Foundation
import XCTest
import LNoteBitmap
import LNoteCodecs
@testable import LNoteCLI
@testable import LNoteFormat
@testable import LNoteRender
import LNoteTestSupport

final class ResourceLimitTests: XCTestCase {
    /// A package with one page of `width` × `height` (0.1 pt) holding one stroke.
    func hugePage(_ width: Int, _ height: Int) throws -> HostileWorld {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, width, height), (IDs.p2, 1000, 800)])
        return w
    }

    // MARK: --max-pixels

    func testMaxPixelsRefusesAHugePageBeforeAllocating() throws {
        let w = try hugePage(200_000, 200_000)
        let package = try LNotePackage.open(at: URL(fileURLWithPath: w.package))
        let page = try package.loadPage(at: 0)
        let m = measured { () -> LNoteError? in
            do {
                _ = try PageRenderer.render(page, of: package, options: RenderOptions(size: .scale(2)), assets: AssetCache())
                return nil
            } catch { return error as? LNoteError }
        }
        XCTAssertEqual(m.value?.code.rawValue, "max-pixels")
        XCTAssertEqual(m.value?.message, "the page would be 40000×40000 pixels, over the limit of 100000000")
        XCTAssertLessThan(m.seconds, 1)
        XCTAssertLessThan(m.peakGrowth, 32 << 20, "the refused canvas was allocated")

        // Through the CLI: page 1 fails fast, page 2 is still written.
        let started = Date()
        let r = CLIRun(["export", w.package, "-o", w.exportDir + "/", "--scale", "2"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(r.status, ExitStatus.failure, r.all)
        assertContains(r, "error: page 1: \(w.package): [max-pixels] the page would be 40000×40000 pixels at --scale 2, "
                       + "over the --max-pixels limit of 100000000: ask for a smaller size, or pass --max-pixels 1600000000 or more",
                       "page 2 -> ")
        XCTAssertEqual(exported(w), ["page-002.png"])
    }

    func testMaxPixelsOptionIsExact() throws {
        let w = try hugePage(1000, 800)  // 200 × 160 = 32000 pixels at scale 2
        try FileManager.default.createDirectory(atPath: w.exportDir, withIntermediateDirectories: true)
        var r = CLIRun(["export", w.package, "--pages", "1", "-o", w.exportDir + "/a.png", "--max-pixels", "31999"])
        XCTAssertEqual(r.status, ExitStatus.usage)
        assertContains(r, "page 1 would be 200×160 pixels at the default --scale 2, over the --max-pixels limit of 31999")
        r = CLIRun(["export", w.package, "--pages", "1", "-o", w.exportDir + "/a.png", "--max-pixels", "32000"])
        XCTAssertEqual(r.status, ExitStatus.success, r.all)
        // Absurd sizes are usage errors, not allocations.
        for args in [["--scale", "1e300"], ["--width", "99999999999"], ["--max-pixels", "0"], ["--scale", "nan"], ["--dpi", "-1"]] {
            let bad = CLIRun(["export", w.package, "-o", w.exportDir + "/b.png"] + args)
            XCTAssertEqual(bad.status, ExitStatus.usage, "\(args): \(bad.all)")
        }
    }

    /// Thumbnails use the same limit: a 1 × 200000 page at 320 px wide would be 320 × 64000000.
    func testThumbnailOfAnExtremeAspectRatioFailsFast() throws {
        let w = try hugePage(1, 200_000)
        let started = Date()
        let r = CLIRun(["thumbnails", "-j", "1", w.package])
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertEqual(r.status, ExitStatus.failure)
        assertContains(r, "[max-pixels] the page would be 320×64000000 pixels, over the limit of 100000000", "1 rendered", "1 failed")
    }

    /// The executable under a 2 GB address-space limit: refusing the 40000×40000 page costs
    /// nothing. With --max-pixels (and the work budget) raised so the limits let it through, the
    /// same export tries to allocate 6.4 GB and dies: the harness catches an allocation that happens.
    func testMaxPixelsUnderAnAddressSpaceLimit() throws {
        let w = try hugePage(200_000, 200_000)
        let r = try runTool(["export", w.package, "--pages", "1", "-o", w.exportDir + "/p.png", "--scale", "2"], addressSpaceMB: 2048)
        XCTAssertEqual(r.status, ExitStatus.usage, r.all)
        XCTAssertTrue(r.err.contains("page 1 would be 40000×40000 pixels at --scale 2, over the --max-pixels limit"), r.all)
        XCTAssertLessThan(r.maxRSS, 200 << 20)
        try XCTSkipUnless(addressSpaceLimitsUsable, "no address-space limit under a sanitizer")
        // The output's directory must exist: export checks it before rendering.
        try FileManager.default.createDirectory(atPath: w.exportDir, withIntermediateDirectories: true)
        let control = try runTool(["export", w.package, "--pages", "1", "-o", w.exportDir + "/p.png", "--scale", "2",
                                   "--max-pixels", "2000000000", "--max-work", "1e9"], addressSpaceMB: 2048)
        XCTAssertTrue(control.signaled, "the control run should die allocating 6.4 GB: \(control.status) \(control.all)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: w.exportDir + "/p.png"))
    }

    // MARK: decoded asset size (100 megapixels, from the header)

    func testImageBombsAreRefusedFromTheHeader() throws {
        for (name, bytes, message) in [
            ("PNG 60000²", HostileImages.pngBomb(width: 60000, height: 60000), "PNG: 60000×60000 pixels exceeds the limit of 100000000"),
            ("PNG 100 MP + 1 row", HostileImages.pngBomb(width: 10000, height: 10001), "PNG: 10000×10001 pixels exceeds the limit of 100000000"),
            ("JPEG 65000²", HostileImages.jpegBomb(width: 65000, height: 65000), "JPEG: 65000×65000 pixels exceeds the limit of 100000000"),
            ("JPEG 65500×1527", HostileImages.jpegBomb(width: 65500, height: 1527), "JPEG: 65500×1527 pixels exceeds the limit of 100000000"),
        ] {
            let info = try ImageDecoder.probe(bytes)
            XCTAssertGreaterThan(info.width * info.height, AssetCache.maxAssetPixels, name)
            for target: (width: Int, height: Int)? in [nil, (100, 100)] {
                let m = measured { () -> CodecError? in
                    do { _ = try ImageDecoder.decode(bytes, maxPixels: AssetCache.maxAssetPixels, targetSize: target); return nil }
                    catch { return error as? CodecError }
                }
                XCTAssertEqual(m.value?.kind, .tooLarge, name)
                XCTAssertEqual(m.value?.message, message, name)
                XCTAssertLessThan(m.seconds, 0.5, name)
                XCTAssertLessThan(m.peakGrowth, 16 << 20, "\(name): pixel memory was allocated")
            }
        }
    }

    /// Both bombs on one page, rendered by the executable under a 1 GB address-space limit
    /// (either image decoded would need 14 GB or 16 GB).
    func testImageBombsUnderAnAddressSpaceLimit() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try w.put("pages/\(IDs.p1).content", HostileWorld.content([
            HostileWorld.image("P", asset: "\(IDs.asset).png"), HostileWorld.image("J", asset: "\(IDs.asset2).jpg"),
        ]))
        try w.put("assets/\(IDs.asset).png", HostileImages.pngBomb(width: 60000, height: 60000))
        try w.put("assets/\(IDs.asset2).jpg", HostileImages.jpegBomb(width: 65000, height: 65000))
        let r = try runTool(["export", w.package, "-o", w.exportDir + "/", "--scale", "4"], addressSpaceMB: 1024)
        XCTAssertEqual(r.status, ExitStatus.success, r.all)
        XCTAssertTrue(r.err.contains("PNG: 60000×60000 pixels exceeds the limit of 100000000"), r.all)
        XCTAssertTrue(r.err.contains("JPEG: 65000×65000 pixels exceeds the limit of 100000000"), r.all)
        XCTAssertLessThan(r.maxRSS, 200 << 20)
        XCTAssertLessThan(r.seconds, 20)
    }

    // MARK: diff image size

    /// `diff -o` paints max(width) × max(height) pixels: a 100000×1 and a 1×100000 image (tiny
    /// to decode) would ask for 40 GB. Refused before allocating, naming both files; the
    /// executable runs under a 1 GB address-space limit, where the allocation would kill it.
    func testDiffImageOfVeryDifferentShapesIsRefusedBeforeAllocating() throws {
        let dir = try temporaryDirectory(name)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let wide = dir + "/wide.png", tall = dir + "/tall.png", out = dir + "/d.png"
        try AtomicFile.write(PNGEncoder.encode(Bitmap(width: 100_000, height: 1, fill: 255)), toPath: wide)
        try AtomicFile.write(PNGEncoder.encode(Bitmap(width: 1, height: 100_000, fill: 255)), toPath: tall)
        let r = try runTool(["diff", wide, tall, "-o", out], addressSpaceMB: 1024)
        XCTAssertFalse(r.signaled, r.all)
        XCTAssertEqual(r.status, ExitStatus.failure, r.all)
        XCTAssertTrue(r.err.contains("error: \(out): [max-pixels] the diff image of \(wide) (100000×1) and \(tall) (1×100000) "
                                     + "would be 100000×100000 pixels, over the limit of 100000000; not written"), r.all)
        XCTAssertLessThan(r.maxRSS, 200 << 20)
        XCTAssertEqual(FileIO.kind(atPath: out), .missing)

        // The limit is the renderer's page limit, exactly.
        let row = Bitmap(width: 10_000, height: 1), column = Bitmap(width: 1, height: 10_000)
        XCTAssertTrue(ImageComparison.diffImageFits(expected: row, actual: column))
        XCTAssertFalse(ImageComparison.diffImageFits(expected: Bitmap(width: 10_001, height: 1), actual: column))
        XCTAssertNil(ImageComparison.diffImage(expected: Bitmap(width: 10_001, height: 1), actual: column, channelTolerance: 0))
    }

    // MARK: elements per page

    /// The limit is checked as elements are read: with a syntax error after element 1001, a
    /// limit of 1000 reports the limit (the error is never reached), and the whole file is a
    /// JSON error only without the limit.
    func testElementLimitStopsReadingAtTheLimit() throws {
        let text = "{\"elements\":[" + Array(repeating: "{\"type\":\"x\"}", count: 5000).joined(separator: ",") + ",{]}"
        let bytes = Array(text.utf8)
        XCTAssertThrowsError(try ContentParser.parse(bytes, file: "pages/p.content", elementLimit: 1000)) { error in
            let e = error as! LNoteError
            XCTAssertEqual(e.kind, .limit)
            XCTAssertEqual(e.description, "pages/p.content: [element-limit] more than 1000 elements on the page")
        }
        XCTAssertThrowsError(try ContentParser.parse(bytes, file: "pages/p.content")) { error in
            XCTAssertEqual((error as! LNoteError).code.rawValue, "json")
        }
        // Exactly at the limit is fine.
        let atLimit = "{\"elements\":[" + Array(repeating: "{\"type\":\"x\"}", count: 1000).joined(separator: ",") + "]}"
        XCTAssertEqual(try ContentParser.parse(Array(atLimit.utf8), file: "p", elementLimit: 1000).elements.count, 1000)
    }

    /// Journal replay checks the limit frame by frame: the frame that crosses it is named, and
    /// what follows it (here a frame claiming 4 GiB) is never looked at.
    func testJournalElementLimitIsCheckedPerFrame() throws {
        var elements = try ContentParser.parse(Array(HostileWorld.content([HostileWorld.stroke("A")]).utf8), file: "p").elements
        var journal: [UInt8] = []
        var offsets: [Int] = []
        for i in 0..<20 {
            offsets.append(journal.count)
            journal += Journal.encodeFrame(.add, payload: Array("{\"type\":\"x\",\"id\":\"E\(i)\"}".utf8))
        }
        journal += [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 1]
        XCTAssertThrowsError(try Journal.replay(journal, onto: &elements, file: "pages/p.journal", elementLimit: 10)) { error in
            let e = error as! LNoteError
            XCTAssertEqual(e.kind, .limit)
            XCTAssertEqual(e.message, "journal replay (frame at offset \(offsets[9])) pushes the page past 10 elements")
        }
    }

    /// The real limit, through the executable: 1,000,001 elements make the page fail.
    func testOneMillionAndOneElementsFailThePage() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        var text = "{\"elements\":["
        text += Array(repeating: "0", count: ContentLimits.maxElementsPerPage + 1).joined(separator: ",")
        text += ",{]}"  // never reached
        try w.put("pages/\(IDs.p1).content", text)
        let r = try runTool(["info", w.package], addressSpaceMB: 2048)
        XCTAssertEqual(r.status, ExitStatus.failure, r.err)
        XCTAssertTrue(r.out.contains("FAILED      pages/\(IDs.p1).content: [element-limit] more than 1000000 elements on the page"), r.out)
        print("1,000,001 invalid elements (\(text.utf8.count) bytes): info took \(r.seconds) s, peak RSS \(r.maxRSS >> 20) MB")
    }

    // MARK: samples per stroke

    /// 2,000,000 samples in one stroke: the element is skipped and the parser stores at most
    /// 1,000,000 samples while it validates the rest. Storing them all would need 40 MB more
    /// for the values plus 40 MB for the stroke's copy.
    func testSampleLimitCapsWhatIsStored() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let samples = 2 * ContentLimits.maxSamplesPerStroke
        let points = Array(repeating: "0,0,0,0,0", count: samples).joined(separator: ",")
        try w.put("pages/\(IDs.p1).content", HostileWorld.content([HostileWorld.stroke("BIG", points: points), HostileWorld.stroke("B")]))
        let r = try runTool(["info", w.package], addressSpaceMB: 2048)
        XCTAssertEqual(r.status, ExitStatus.success, r.err)
        XCTAssertTrue(r.out.contains("element 0 (id BIG): [sample-limit] the stroke has more than 1000000 samples"), r.out)
        XCTAssertTrue(r.out.contains("elements    1: 1 stroke(s) (2 samples)"), r.out)
        print("2,000,000-sample stroke (\(points.utf8.count) bytes): info took \(r.seconds) s, peak RSS \(r.maxRSS >> 20) MB")
        XCTAssertLessThan(r.maxRSS, 130 << 20)
    }

    // MARK: file sizes

    /// Sparse files that use no disk but claim 64 GiB: reading one whole used to be a 64 GiB
    /// allocation that aborted the process. Now each is refused from its size.
    func testSparseFilesClaimingGigabytesAreRefusedFromTheirSize() throws {
        let huge = 64 << 30
        func world(_ relative: String) throws -> HostileWorld {
            let w = try HostileWorld(self)
            try w.makeValid()
            try w.sparse(relative, size: huge)
            return w
        }
        // document.json: the document fails.
        var w = try world("document.json")
        var o = runAll(w)
        for r in [o.info, o.check, o.export, o.thumbnails, o.gc, o.compact] {
            XCTAssertEqual(r.status, ExitStatus.failure, r.all)
            assertContains(r, "document.json: [file-size] the file is 68719476736 bytes, more than 268435456")
        }
        // A content file or a journal: that page fails, the other is exported.
        for rel in ["pages/\(IDs.p1).content", "pages/\(IDs.p1).journal"] {
            w = try world(rel)
            o = runAll(w)
            XCTAssertEqual(o.export.status, ExitStatus.failure, o.export.all)
            assertContains(o.export, "page 1: \(w.package)/\(rel): [file-size] the file is 68719476736 bytes, more than 1073741824", "page 2 -> ")
            XCTAssertEqual(exported(w), ["page-002.png"])
            XCTAssertEqual(o.info.status, ExitStatus.failure)
            assertContains(o.gc, "0 file(s) deleted")
        }
        // An asset: the image is skipped.
        w = try world("assets/\(IDs.asset).png")
        o = runAll(w)
        XCTAssertEqual(o.export.status, ExitStatus.success, o.export.all)
        assertContains(o.export, "assets/\(IDs.asset).png: element 1 (id I0): [file-size] image skipped: the file is 68719476736 bytes, more than 1073741824")
        // manifest.json (derived): check warns, thumbnails replaces it.
        w = try world("manifest.json")
        o = runAll(w)
        assertContains(o.check, "manifest.json: [manifest] the file is 68719476736 bytes, more than 16777216")
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all)
        XCTAssertLessThan(try FileManager.default.attributesOfItem(atPath: w.package + "/manifest.json")[.size] as! Int, 4096)
    }

    // MARK: JSON depth

    func testJSONDepthIsSixtyFour() throws {
        func nested(_ n: Int) -> [UInt8] { Array((String(repeating: "[", count: n) + String(repeating: "]", count: n)).utf8) }
        XCTAssertNoThrow(try JSONValue.parse(nested(64)))
        XCTAssertThrowsError(try JSONValue.parse(nested(65))) { error in
            XCTAssertEqual((error as! JSONError).message, "nesting deeper than 64 levels")
        }
        // Content: root object (1) + elements array (2) + element (3) + 61 more.
        func content(_ extra: Int) -> [UInt8] {
            Array("{\"elements\":[{\"type\":\"x\",\"v\":\(String(repeating: "[", count: extra))\(String(repeating: "]", count: extra))}]}".utf8)
        }
        XCTAssertNoThrow(try ContentParser.parse(content(61), file: "p"))
        XCTAssertThrowsError(try ContentParser.parse(content(62), file: "p"))
        // 100,000 levels: refused at level 65 without recursing further (no stack overflow),
        // in every parser.
        let deep = [UInt8](repeating: 0x5B, count: 100_000) + [UInt8](repeating: 0x5D, count: 100_000)
        let m = measured { () -> Int in
            var failures = 0
            if (try? JSONValue.parse(deep)) == nil { failures += 1 }
            if (try? ContentParser.parse(deep, file: "p")) == nil { failures += 1 }
            if (try? DocumentParser.parse(deep)) == nil { failures += 1 }
            if (try? Manifest.parse(deep)) == nil { failures += 1 }
            if case .failure(let p) = ContentParser.parseElement(deep), p.code == .json { failures += 1 }
            let objects = Array((String(repeating: "{\"a\":", count: 100_000)).utf8)
            if (try? ContentParser.parse(Array("{\"elements\":[],\"x\":".utf8) + objects, file: "p")) == nil { failures += 1 }
            return failures
        }
        XCTAssertEqual(m.value, 6)
        XCTAssertLessThan(m.seconds, 2)
    }

    // MARK: coordinates at the 32-bit extremes

    /// Strokes spanning the whole 32-bit range render in about the time of the same strokes
    /// cut to just beyond the page, allocating nothing in proportion to their extent.
    func testExtremeCoordinatesRenderQuicklyWithoutAllocating() throws {
        let lo = Int32.min, hi = Int32.max
        func strokes(_ lo: Int32, _ hi: Int32) -> [String] {
            [HostileWorld.stroke("A", points: "\(lo),\(lo),100000,1000,0, \(hi),\(hi),100000,1000,1"),
             HostileWorld.stroke("B", points: "\(lo),5000,0,0,0, \(hi),5000,100000,1000,1", tool: "pencil"),
             HostileWorld.stroke("C", points: "\(hi),\(lo),1,0,0, \(lo),\(hi),100000,1000,1, 500,400,3,500,2", tool: "highlighter"),
             HostileWorld.stroke("D", points: "\(hi),\(hi),100000,1000,0, \(lo),\(lo),0,0,5, \(hi),\(lo),100000,1000,9", color: "#FF000080"),
             HostileWorld.stroke("E", points: "\(lo),\(lo),0,0,0, \(lo),\(hi),0,0,1, \(hi),\(hi),0,0,2")]
        }
        func render(_ elements: [String]) throws -> (seconds: Double, growth: Int, width: Int) {
            let w = try HostileWorld(self)
            try w.makeValid(pages: [(IDs.p1, 8340, 11940)])
            try w.put("pages/\(IDs.p1).content", HostileWorld.content(elements))
            let package = try LNotePackage.open(at: URL(fileURLWithPath: w.package))
            let page = try package.loadPage(at: 0)
            XCTAssertEqual(page.diagnostics, [])
            let assets = AssetCache()
            _ = try PageRenderer.render(page, of: package, options: RenderOptions(size: .scale(0.1)), assets: assets)  // warm-up
            let m = try measured { try PageRenderer.render(page, of: package, options: RenderOptions(size: .scale(0.5)), assets: assets) }
            return (m.seconds, m.peakGrowth, m.value.bitmap.width)
        }
        let extreme = try render(strokes(lo, hi) + [
            HostileWorld.image("I", asset: "\(IDs.asset).png", frame: "\(lo),\(lo),\(hi),\(hi)"),
            "{\"type\":\"image\",\"id\":\"R\",\"asset\":\"\(IDs.asset).png\",\"frame\":[\(hi),\(hi),\(hi),\(hi)],\"rotation\":\(hi)}",
        ])
        let inPage = try render(strokes(-100_000, 111_940) + [HostileWorld.image("I", asset: "\(IDs.asset).png", frame: "-100000,-100000,300000,300000")])
        print("extreme coordinates: \(extreme.seconds) s (same strokes cut near the page: \(inPage.seconds) s), peak RSS growth \(extreme.growth >> 20) MB")
        XCTAssertEqual(extreme.width, 417)
        XCTAssertLessThan(extreme.seconds, 3 * inPage.seconds + 1)
        XCTAssertLessThan(extreme.growth, 48 << 20)
    }
}
