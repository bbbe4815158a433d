import XCTest
import LNoteFormat
import LNoteShape
@testable import LNoteRaster
import LNoteTestSupport

/// Bounded memory and work: banded and chunked drawing give the pixels of one pass, and
/// interior runs give the coverage of the reference.
final class BoundedRasterTests: XCTestCase {
    /// Strokes that exercise every path: uniform and varying factors, strokes that revisit
    /// rows, huge radii (interior runs), and a zigzag whose pieces pile up on a few rows.
    private func strokes(scale: Double, size: Double) -> [Stroke] {
        var rng = SeededRNG(seed: 77)
        var out = StrokeKind.allCases.flatMap { kind in
            (0..<2).map { _ in randomStroke(kind, rng: &rng, scale: scale, size: size) }
        }
        // Wide pen and highlighter strokes that double back: interiors that overlap and grow.
        out.append(strokeFromPixels([(5, 10, 9, 500), (35, 30, 8, 500), (6, 31, 9, 500), (30, 8, 12, 500)], scale: scale))
        out.append(strokeFromPixels([(20, 20, 30, 500)], scale: scale, tool: .highlighter))
        // A pencil zigzag across two rows, pressure swinging at every sample: many pieces per row.
        var zig: [(Double, Double, Double, Int)] = []
        for i in 0..<120 { zig.append((2 + Double(i % 36), 19.5 + Double(i % 2) * 0.6, 0.4 + Double(i % 3) * 0.3, i % 2 == 0 ? 0 : 1000)) }
        out.append(strokeFromPixels(zig, scale: scale, tool: .pencil))
        return out
    }

    func testBandsAndChunksGiveTheSamePixelsAsOnePass() {
        let size = 40
        for scale in [0.38, 1.0, 2.0] {
            for stroke in strokes(scale: scale, size: Double(size)) {
                let one = Canvas.coverageMask(stroke, scale: scale, width: size, height: size)
                for capacity in [1, 3, 17, 64] {
                    let banded = Canvas.coverageMask(stroke, scale: scale, width: size, height: size, capacity: capacity)
                    XCTAssertEqual(banded, one, "capacity \(capacity), scale \(scale), \(stroke.tool), \(stroke.sampleCount) samples")
                }
            }
        }
    }

    func testTallImagesPlanBandsInBucketsOfRows() {
        // Over 8,192 rows the histogram counts buckets of rows; a bucket reached by more pieces
        // than fit is drawn row by row in chunks. Still the pixels of one pass.
        var samples: [(Double, Double, Double, Int)] = []
        for i in 0..<3000 { samples.append((4 + Double(i % 3), Double(i) * 3.1, 0.3 + Double(i % 2) * 1.5, i % 2 == 0 ? 100 : 900)) }
        let stroke = strokeFromPixels(samples, scale: 1, tool: .pencil)
        let one = Canvas.coverageMask(stroke, scale: 1, width: 10, height: 9300)
        XCTAssertGreaterThan(one.filter { $0 > 0 }.count, 20_000)
        for capacity in [5, 200, 5000] {
            XCTAssertEqual(Canvas.coverageMask(stroke, scale: 1, width: 10, height: 9300, capacity: capacity), one, "capacity \(capacity)")
        }
    }

    func testWideStrokesWithInteriorRunsMatchTheReference() {
        // Radii of 5–60 px: most of each row is an interior run.
        var rng = SeededRNG(seed: 5)
        var stats = ErrorStats()
        let size = 64
        for i in 0..<12 {
            var s: [(Double, Double, Double, Int)] = []
            for _ in 0..<(1 + i % 4) {
                s.append((rng.range(-10, 74), rng.range(-10, 74), rng.range(5, 60), 500))
            }
            let tool: Tool = i % 3 == 0 ? .highlighter : .pen
            let stroke = strokeFromPixels(s, scale: 1, tool: tool, color: Color(r: 0, g: 0, b: 0, a: 255))
            stats.add(fast: Canvas.coverageMask(stroke, scale: 1, width: size, height: size),
                      reference: ReferenceCoverage.mask(stroke, scale: 1, width: size, height: size))
        }
        XCTAssertGreaterThan(stats.touched, 10_000)
        XCTAssertLessThanOrEqual(stats.maxErr, 1.0 / 16, "\(stats)")
        XCTAssertLessThanOrEqual(stats.mean, 0.005, "\(stats)")
    }

    func testWorkEstimateBoundsAndSeparatesClasses() {
        let t = PageTransform(pageWidth: 8340, pageHeight: 11940, scale: 1)
        let pixels = Double(t.width * t.height)
        let canvas = RasterWork.pixelCost * pixels
        func work(_ elements: [Stroke]) -> Double {
            RasterWork.estimate(elements.map { Element(id: nil, kind: .stroke($0), json: []) }, transform: t).units - canvas
        }
        func fixed(samples: Int) -> Double { RasterWork.strokeCost + RasterWork.sampleCost * Double(samples) }
        // A short handwriting stroke: a few piece-rows and a small box, well under a millisecond.
        let small = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [1000, 1000, 10, 500, 0, 1100, 1050, 10, 500, 10])
        let w = work([small])
        XCTAssertGreaterThan(w, fixed(samples: 2))
        XCTAssertLessThan(w, 1e5)
        // A disc covering the page costs at least its area; off-page geometry only its samples.
        let huge = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0, a: 40), points: [4170, 5970, 100000, 500, 0])
        XCTAssertGreaterThanOrEqual(work([huge]), RasterWork.pixelCost * pixels)
        let away = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [-900000, -900000, 10, 500, 0, -800000, -800000, 10, 500, 5])
        XCTAssertEqual(work([away]), fixed(samples: 2))
        // A stroke crossing the page diagonally from far outside: every row once, and its box.
        let diagonal = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0),
                              points: [-2_000_000_000, -2_000_000_000, 10, 500, 0, 2_000_000_000, 2_000_000_000, 10, 500, 5])
        XCTAssertEqual(work([diagonal]), fixed(samples: 2) + RasterWork.pieceRowCost * Double(t.height)
                       + RasterWork.pixelCost * pixels, accuracy: 1)
        // Transparent ink draws nothing and costs nothing.
        XCTAssertEqual(work([Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0, a: 0), points: [4170, 5970, 100000, 500, 0])]), 0)
        // More pieces than the rasterizer holds: the extra passes are counted.
        var zig: [Int32] = []
        for i in 0..<60_000 { zig += [Int32(100 + i % 800), Int32(100 + (i / 800) * 3), i % 2 == 0 ? 1 : 40, i % 2 == 0 ? 0 : 1000, Int32(i)] }
        let pencil = Stroke(tool: .pencil, color: Color(r: 0, g: 0, b: 0), points: zig)
        let e = StrokeShape.extent(of: pencil, transform: t)
        XCTAssertGreaterThan(e.pieces, Double(CoverageRasterizer.defaultCapacity))
        XCTAssertEqual(work([pencil]), fixed(samples: 60_000) + RasterWork.pieceRowCost * e.pieceRows
                       + RasterWork.pixelCost * e.boxPixels
                       + RasterWork.pieceStreamCost * e.pieces * ((e.pieces / Double(CoverageRasterizer.defaultCapacity)).rounded(.up) + 1),
                       accuracy: 1)
    }
}
