// Valid pages that are expensive by construction (`lnote-gen costly`): each of the four classes
// renders, or is refused with a clear message, within 30 s and 1 GiB, for `export --scale 2`
// and for `thumbnails`, run as the real executable under an address-space limit.

import Foundation
import XCTest
import LNoteBitmap
@testable import LNoteCLI
import LNoteFormat
import LNoteRaster
import LNoteRender
import LNoteShape
import LNoteTestSupport

final class CostlyPageTests: XCTestCase {
    /// The four documents, by class name, generated once for the whole class of tests.
    nonisolated(unsafe) private static var generated: [String: String] = [:]
    nonisolated(unsafe) private static var root: String?

    private func documents() throws -> [String: String] {
        if !Self.generated.isEmpty { return Self.generated }
        guard let tool = toolExecutable() else { throw XCTSkip("the executables are not built next to the tests") }
        let gen = URL(fileURLWithPath: tool).deletingLastPathComponent().appendingPathComponent("lnote-gen").path
        let dir = NSTemporaryDirectory() + "lnote-costly-" + UUID().uuidString
        let process = Process()
        process.executableURL = URL(fileURLWithPath: gen)
        process.arguments = ["costly", "--out", dir]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name.hasSuffix(".lnote") {
            let path = dir + "/" + name
            let title = try LNotePackage.open(at: URL(fileURLWithPath: path)).document.title
            Self.generated[title] = path
        }
        Self.root = dir
        XCTAssertEqual(Set(Self.generated.keys), ["pencil-million", "covering-translucent", "far-diagonals", "stacked-discs"])
        return Self.generated
    }

    override class func tearDown() {
        if let root { try? FileManager.default.removeItem(atPath: root) }
        super.tearDown()
    }

    /// Runs `arguments` on the class's document; checks the bounds and what happened.
    @discardableResult
    private func run(_ name: String, _ arguments: (String) -> [String], refused: Bool,
                     file: StaticString = #filePath, line: UInt = #line) throws -> ChildResult {
        let doc = try XCTUnwrap(documents()[name])
        let r = try runTool(arguments(doc), addressSpaceMB: 4096)
        let what = "\(name) \(arguments("DOC").joined(separator: " "))"
        XCTAssertLessThan(r.seconds, 30, what, file: file, line: line)
        XCTAssertLessThan(r.maxRSS, 1 << 30, what, file: file, line: line)
        XCTAssertFalse(r.signaled, what + ": " + r.all, file: file, line: line)
        if refused {
            XCTAssertEqual(r.status, ExitStatus.failure, what + ": " + r.all, file: file, line: line)
            XCTAssertTrue(r.err.contains("page 1") || r.err.contains("pages/"), what + ": " + r.all, file: file, line: line)
            XCTAssertTrue(r.err.contains("[max-work] rendering this page at "), what + ": " + r.all, file: file, line: line)
            XCTAssertTrue(r.err.contains("of work, over the budget of 10 s (raise it with --max-work)"), what + ": " + r.all,
                          file: file, line: line)
        } else {
            XCTAssertEqual(r.status, ExitStatus.success, what + ": " + r.all, file: file, line: line)
        }
        return r
    }

    private func export(_ doc: String) -> [String] {
        ["export", doc, "-o", NSTemporaryDirectory() + "lnote-costly-\(UUID().uuidString).png", "--scale", "2", "--quiet"]
    }

    private func thumbnails(_ doc: String) -> [String] { ["thumbnails", "-j", "1", "--force", doc] }

    func testPencilStrokeOfAMillionVaryingSamples() throws {
        try run("pencil-million", export, refused: true)
        try run("pencil-million", thumbnails, refused: true)
    }

    func testThousandsOfPageCoveringTranslucentStrokes() throws {
        try run("covering-translucent", export, refused: true)
        let r = try run("covering-translucent", thumbnails, refused: false)
        XCTAssertTrue(r.out.contains("1 rendered"), r.all)
    }

    func testHundredThousandFarDiagonals() throws {
        try run("far-diagonals", export, refused: true)
        try run("far-diagonals", thumbnails, refused: true)
    }

    func testTwoHundredThousandStackedDiscs() throws {
        try run("stacked-discs", export, refused: true)
        let r = try run("stacked-discs", thumbnails, refused: false)
        XCTAssertTrue(r.out.contains("1 rendered"), r.all)
    }

    /// A refused page does not stop the others: the document's other pages are still exported.
    func testRefusedPageNamesItsEstimateAndTheOthersGoOn() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let covering = (0..<400).map { i in
            HostileWorld.stroke("S\(i)", points: "500,400,100000,500,0, 510,410,100000,500,16")
        }
        try w.put("pages/\(IDs.p1).content", HostileWorld.content(covering))
        let r = CLIRun(["export", w.package, "-o", w.exportDir + "/", "--scale", "8", "--max-work", "0.5"])
        XCTAssertEqual(r.status, ExitStatus.failure, r.all)
        assertContains(r, "page 1: \(w.package)/pages/\(IDs.p1).content: [max-work] rendering this page at 800×640 is estimated at ",
                       "of work, over the budget of 0.5 s (raise it with --max-work)", "page 2 -> ")
        XCTAssertEqual(exported(w), ["page-002.png"])
        // Raised, the same page renders.
        let raised = CLIRun(["export", w.package, "--pages", "1", "-o", w.exportDir + "/p1.png", "--scale", "8", "--max-work", "60"])
        XCTAssertEqual(raised.status, ExitStatus.success, raised.all)
    }

    /// The memory of one stroke is bounded by its samples, not its pieces: a pencil stroke of
    /// 100,000 samples whose pressure swings at every sample is cut into millions of pieces
    /// (about 650 MB of capsules if they were all held), drawn in bands.
    func testOneStrokesMemoryIsBoundedBySamplesNotPieces() throws {
        var points: [Int32] = []
        for i in 0..<100_000 {
            let row = i / 400, col = i % 400
            points += [Int32(200 + (row % 2 == 0 ? col : 399 - col) * 20), Int32(200 + (row * 37) % 11540),
                       i % 2 == 0 ? 1 : 40, i % 2 == 0 ? 0 : 1000, Int32(i)]
        }
        let stroke = Stroke(tool: .pencil, color: Color(r: 40, g: 40, b: 40), points: points)
        let t = PageTransform(pageWidth: 8340, pageHeight: 11940, scale: PageTransform.scale(forWidth: 320, pageWidth: 8340))
        let work = RasterWork.estimate([Element(id: "S", kind: .stroke(stroke), json: [])], transform: t)
        XCTAssertLessThan(work.seconds, 20)
        let m = measured { () -> Bitmap in
            var canvas = Canvas(width: t.width, height: t.height)
            canvas.fill(.white)
            canvas.draw(stroke, transform: t)
            return canvas.bitmap
        }
        XCTAssertLessThan(m.peakGrowth, 300 << 20, "pieces were materialised")
        XCTAssertFalse(m.value.isOpaque && m.value.pixels.allSatisfy { $0 == 255 }, "the stroke was drawn")
    }
}
