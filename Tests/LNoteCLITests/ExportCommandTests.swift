import Foundation
import LNoteBitmap
import LNoteCLI
import LNoteCodecs
import LNoteFormat
import LNoteRender
import XCTest
import LNoteTestSupport

final class ExportCommandTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func decode(_ path: String) throws -> Bitmap {
        try ImageDecoder.decode([UInt8](XCTUnwrap(FileManager.default.contents(atPath: path))))
    }

    /// The PNG chunks of a file, in order, with their data.
    func chunks(_ path: String) throws -> [(String, [UInt8])] {
        let b = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path)))
        var out: [(String, [UInt8])] = []
        var i = 8
        while i + 8 <= b.count {
            let len = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            out.append((String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self), Array(b[(i + 8)..<(i + 8 + len)])))
            i += 12 + len
        }
        return out
    }

    func testExportsEveryPageIntoADirectoryByPageNumber() throws {
        let run = CLIRun(["export", Repo.sample, "-o", dir + "/out", "--scale", "0.5"])
        XCTAssertEqual(run.status, 0, run.err)
        for n in 1...3 {
            let image = try decode(dir + "/out/page-00\(n).png")
            XCTAssertEqual(image.width, 417)  // 834 pt × 0.5
            XCTAssertEqual(image.height, 597)
        }
        XCTAssertTrue(run.out.contains("page 3 -> \(dir)/out/page-003.png"), run.out)
    }

    func testPageRangesSizesAndFormats() throws {
        var run = CLIRun(["export", Repo.sample, "--pages", "2-", "--width", "200", "--format=jpeg", "-o", dir + "/jpg/", "--quality", "70"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/jpg/page-001.jpg"))
        XCTAssertEqual(try decode(dir + "/jpg/page-002.jpg").width, 200)
        XCTAssertEqual(try decode(dir + "/jpg/page-003.jpg").width, 200)

        run = CLIRun(["export", Repo.sample, "--pages", "1", "--height", "300", "-o", dir + "/one.jpeg"])
        XCTAssertEqual(run.status, 0, run.err)
        let one = try decode(dir + "/one.jpeg")
        XCTAssertEqual(one.height, 300)
        XCTAssertEqual(one.width, 210)  // 300 × 834/1194 = 209.5 → 210

        run = CLIRun(["export", Repo.sample, "--pages", "1", "--dpi", "36", "-o", dir + "/dpi.png"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try decode(dir + "/dpi.png").width, 417)
    }

    func testPNGCarriesResolutionTitlePageAndSRGB() throws {
        let path = dir + "/p.png"
        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "2", "--dpi", "144", "-o", path]).status, 0)
        let list = try chunks(path)
        let names = list.map(\.0)
        XCTAssertTrue(names.contains("sRGB"))
        let phys = try XCTUnwrap(list.first { $0.0 == "pHYs" }?.1)
        let ppm = Int(phys[0]) << 24 | Int(phys[1]) << 16 | Int(phys[2]) << 8 | Int(phys[3])
        XCTAssertEqual(ppm, 5669)  // 144 dpi in pixels per metre
        let texts = list.filter { $0.0 == "tEXt" }.map { String(decoding: $0.1.map { $0 == 0 ? 0x3D : $0 }, as: UTF8.self) }
        XCTAssertTrue(texts.contains("Title=Field trip notes"), "\(texts)")
        XCTAssertTrue(texts.contains("Description=page 2"), "\(texts)")
        // Registered keywords only: ImageMagick reads `Page` as the page geometry (ImageToolInteropTests).
        XCTAssertEqual(texts.map { String($0.prefix { $0 != "=" }) }, ["Title", "Description", "Software"])
        let ihdr = try XCTUnwrap(list.first { $0.0 == "IHDR" }?.1)
        XCTAssertEqual(ihdr[9], 2, "opaque export is RGB")
    }

    /// The JFIF density (dots per inch, big-endian X then Y) of a JPEG file.
    func jfifDensity(_ path: String) throws -> [UInt8] {
        let b = [UInt8](try XCTUnwrap(FileManager.default.contents(atPath: path)))
        XCTAssertEqual(Array(b[6..<11]), Array("JFIF\0".utf8), "APP0 JFIF right after SOI")
        return Array(b[14..<18])
    }

    /// The resolution follows the scale, which can be far below 1 dpi or above the 65535 JFIF
    /// holds: every page still encodes, with the density clamped (PNG's pHYs at least 1).
    func testTinyAndHugeScalesStillEncode() throws {
        var run = CLIRun(["export", Repo.sample, "--pages", "1", "--format", "jpeg", "--scale", "0.005", "-o", dir + "/tiny.jpg"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try jfifDensity(dir + "/tiny.jpg"), [0, 1, 0, 1], "0.36 dpi is written as 1")

        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, 10, 10), (IDs.p2, 200_000, 1000)])  // 1 pt square; 20000 pt wide
        run = CLIRun(["export", w.package, "--pages", "1", "--dpi", "72000", "-o", dir + "/huge.jpg"])
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try jfifDensity(dir + "/huge.jpg"), [0xFF, 0xFF, 0xFF, 0xFF], "72000 dpi is written as 65535")
        run = CLIRun(["export", w.package, "--pages", "2", "--width", "1", "-o", dir + "/wide.png"])
        XCTAssertEqual(run.status, 0, run.err)
        let phys = try XCTUnwrap(chunks(dir + "/wide.png").first { $0.0 == "pHYs" }?.1)
        XCTAssertEqual(Array(phys[0..<8]), [0, 0, 0, 1, 0, 0, 0, 1], "0.0036 dpi is 1 pixel per metre, not none")
        // A 100 px thumbnail of the 20000 pt page is 0.36 dpi too.
        run = CLIRun(["thumbnails", "--width", "100", "-j", "1", w.package])
        XCTAssertEqual(run.status, 0, run.out + run.err)
        XCTAssertEqual(try jfifDensity(w.package + "/thumbnails/\(IDs.p2).jpg"), [0, 1, 0, 1])
    }

    func testTransparentAndNoBackground() throws {
        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.25", "--transparent", "-o", dir + "/t.png"]).status, 0)
        let t = try decode(dir + "/t.png")
        XCTAssertEqual(t.pixels[3], 0, "the paper is transparent")
        XCTAssertEqual(try chunks(dir + "/t.png").first { $0.0 == "IHDR" }?.1[9], 6, "RGBA")

        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.25", "--no-background", "-o", dir + "/n.png"]).status, 0)
        XCTAssertEqual(CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "0.25", "-o", dir + "/f.png"]).status, 0)
        let paperOnly = try decode(dir + "/n.png"), full = try decode(dir + "/f.png")
        // Same paper colour in a corner, but the ruled lines are gone.
        XCTAssertEqual(Array(paperOnly.pixels[0..<4]), Array(full.pixels[0..<4]))
        let distinctRowsPaper = Set((0..<paperOnly.height).map { paperOnly.pixels[$0 * paperOnly.bytesPerRow] })
        let distinctRowsFull = Set((0..<full.height).map { full.pixels[$0 * full.bytesPerRow] })
        XCTAssertEqual(distinctRowsPaper.count, 1, "no template lines at the left edge")
        XCTAssertGreaterThan(distinctRowsFull.count, 1, "ruled lines cross the left edge")
    }

    func testStandardOutputTakesOnePage() throws {
        let run = CLIRun(["export", Repo.sample, "-o", "-"])
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("standard output takes one page"), run.err)
    }

    func testUsageErrorsExitTwoWithAClearMessage() {
        let cases: [([String], String)] = [
            (["--scale", "2", "--dpi", "144"], "at most one of --scale, --dpi, --width, --height"),
            (["--scale", "0"], "--scale: '0' is not a number"),
            (["--width", "abc"], "--width: 'abc' is not an integer"),
            (["--pages", "0"], "--pages: '0' is not a page number"),
            (["--pages", "9"], "page 9 does not exist"),
            (["--format", "gif"], "--format: 'gif' is not one of"),
            (["--transparent", "--format", "jpeg"], "--transparent needs PNG"),
            (["--quality", "90"], "--quality applies to JPEG output only"),
            (["--format", "png", "-o", "x.jpg"], "does not match the output file's extension"),
            (["-o", "x.png"], "3 pages need a directory"),
            (["--bogus"], "unknown option '--bogus'"),
        ]
        for (extra, message) in cases {
            let run = CLIRun(["export", Repo.sample] + extra)
            XCTAssertEqual(run.status, 2, "\(extra): \(run.err)")
            XCTAssertTrue(run.err.contains(message), "\(extra): expected '\(message)' in: \(run.err)")
        }
    }

    /// Row 9 of issue 18: the refusal names the option that lifts the limit and the value it
    /// needs, and does not blame the page's content file.
    func testMaxPixelsRefusesBeforeRenderingAndSaysWhatLiftsIt() {
        let run = CLIRun(["export", Repo.sample, "--pages", "1", "--scale", "50", "--max-pixels", "1000000", "-o", dir + "/big.png"])
        XCTAssertEqual(run.status, ExitStatus.usage)
        XCTAssertTrue(run.err.contains("page 1 would be 41700×59700 pixels at --scale 50, over the --max-pixels limit of 1000000"), run.err)
        XCTAssertTrue(run.err.contains("pass --max-pixels 2489490000 or more"), run.err)
        XCTAssertFalse(run.err.contains(".content"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/big.png"))
        let dpi = CLIRun(["export", Repo.sample, "--dpi", "1200", "-o", dir + "/big/"])
        XCTAssertEqual(dpi.status, ExitStatus.usage)
        XCTAssertTrue(dpi.err.contains("all 3 pages are too large; page 1 would be 13900×19900 pixels at --dpi 1200"), dpi.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/big"), "nothing is created before the refusal")
    }

    func testAFailingPageIsReportedAndTheOthersAreWritten() throws {
        let doc = try Repo.copySample(to: dir)
        let pages = try FileManager.default.contentsOfDirectory(atPath: doc + "/pages").sorted()
        // Break page 2's content file (find it by the document's page order).
        let secondID = "18F11DB2-B3C4-483E-9431-7067815DC72E"
        XCTAssertTrue(pages.contains("\(secondID).content"))
        try Data("{\"format\":1,\"elements\":[{]}".utf8).write(to: URL(fileURLWithPath: doc + "/pages/\(secondID).content"))
        let run = CLIRun(["export", doc, "--scale", "0.2", "-o", dir + "/out"])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.err.contains("error: page 2: \(doc)/pages/\(secondID).content: [json]"), run.err)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out/page-001.png"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out/page-002.png"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/out/page-003.png"))
    }

    /// Pages exported at once give the same files, the same report in page order and the same
    /// failure as one at a time.
    func testParallelExportMatchesSerial() throws {
        let doc = try Repo.copySample(to: dir)
        let secondID = "18F11DB2-B3C4-483E-9431-7067815DC72E"
        try Data("{\"format\":1,\"elements\":[{]}".utf8).write(to: URL(fileURLWithPath: doc + "/pages/\(secondID).content"))
        let serial = CLIRun(["export", doc, "--scale", "0.5", "--jobs", "1", "-o", dir + "/serial"])
        let parallel = CLIRun(["export", doc, "--scale", "0.5", "-j", "3", "-o", dir + "/parallel"])
        XCTAssertEqual(serial.status, 1)
        XCTAssertEqual(parallel.status, 1)
        XCTAssertEqual(parallel.out.replacingOccurrences(of: "/parallel/", with: "/serial/"), serial.out)
        XCTAssertTrue(parallel.err.contains("error: page 2: \(doc)/pages/\(secondID).content: [json]"), parallel.err)
        XCTAssertTrue(parallel.out.range(of: "page 1 ->")!.lowerBound < parallel.out.range(of: "page 3 ->")!.lowerBound)
        for name in ["page-001.png", "page-003.png"] {
            let a = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/serial/" + name))
            XCTAssertEqual(FileManager.default.contents(atPath: dir + "/parallel/" + name), a, name)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/parallel/page-002.png"))
        XCTAssertEqual(CLIRun(["export", doc, "--jobs", "0"]).status, 2)
    }

    func testExportNeverWritesIntoThePackage() throws {
        let doc = try Repo.copySample(to: dir)
        let before = try FileManager.default.subpathsOfDirectory(atPath: doc).sorted()
        XCTAssertEqual(CLIRun(["export", doc, "--scale", "0.2", "-o", dir + "/out"]).status, 0)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: doc).sorted(), before)
    }

    /// An output that resolves inside the package (directly, through `..`, through a link
    /// outside it, or as the default "." from inside it) is a usage error, found before
    /// anything is created or written; the package stays byte for byte the same.
    func testOutputInsideThePackageIsRefusedBeforeWriting() throws {
        let doc = try Repo.copySample(to: dir)
        let name = Repo.sampleName
        try FileManager.default.createSymbolicLink(atPath: dir + "/pages-link", withDestinationPath: doc + "/pages")
        let before = snapshotTree(dir)
        let outputs = ["\(doc)/document.json", "\(doc)/pages/", "\(doc)/pages/x.png", doc, doc + "/", "\(doc)/new/sub/",
                       "\(dir)/missing/../\(name)/pages/..", "\(dir)/pages-link/", "\(dir)/pages-link/x.png"]
        for output in outputs {
            for pages in output.hasSuffix(".png") ? ["1"] : ["1", "1-2"] {
                let run = CLIRun(["export", doc, "--pages", pages, "--scale", "0.1", "-o", output])
                XCTAssertEqual(run.status, 2, "\(output): \(run.out)\(run.err)")
                XCTAssertTrue(run.err.contains("error: -o \(output): the output is inside the package \(doc)"), "\(output): \(run.err)")
                XCTAssertTrue(run.err.contains("export never writes into the package"), run.err)
            }
        }
        // The default output, the current directory, inside the package.
        let cwd = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(doc + "/pages"))
        let run = CLIRun(["export", "..", "--pages", "1", "--scale", "0.1"])
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(cwd))
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("error: -o .: the output is inside the package \(doc) (\(doc)/pages)"), run.err)
        XCTAssertTrue(treeChanges(before, snapshotTree(dir)).isEmpty, "\(treeChanges(before, snapshotTree(dir)).keys.sorted())")

        // A link outside the package named as the output file is replaced, not written through.
        try FileManager.default.createSymbolicLink(atPath: dir + "/doc-link.png", withDestinationPath: doc + "/document.json")
        XCTAssertEqual(CLIRun(["export", doc, "--pages", "1", "--scale", "0.1", "-o", dir + "/doc-link.png"]).status, 0)
        XCTAssertEqual(try decode(dir + "/doc-link.png").width, 83)
        XCTAssertEqual(snapshotTree(doc), before.filter { $0.key.hasPrefix(name + "/") }
            .reduce(into: [:]) { $0[String($1.key.dropFirst(name.count + 1))] = $1.value })
        // The library refuses too: every page fails, nothing is written.
        let package = try LNotePackage.open(at: URL(fileURLWithPath: doc))
        let exporter = PageExporter(package: package, settings: ExportSettings(format: .png, render: RenderOptions(size: .scale(0.1))))
        let results = exporter.export(pages: [0, 1], to: .file(doc + "/document.json"))
        XCTAssertEqual(results.map { $0.error?.code.rawValue }, ["output-inside-package", "output-inside-package"])
        XCTAssertTrue(treeChanges(before.filter { $0.key.hasPrefix(name) }, snapshotTree(dir).filter { $0.key.hasPrefix(name) }).isEmpty)
    }

    func testHelpOnEverySubcommand() {
        for command in ["info", "export", "thumbnails", "watch", "check", "gc", "compact", "diff"] {
            let run = CLIRun([command, "--help"])
            XCTAssertEqual(run.status, 0)
            XCTAssertTrue(run.out.contains("USAGE: lnote-render \(command)"), run.out)
        }
        XCTAssertEqual(CLIRun([]).status, 2)
        XCTAssertEqual(CLIRun(["frobnicate"]).status, 2)
        XCTAssertEqual(CLIRun(["--help"]).status, 0)
    }
}
