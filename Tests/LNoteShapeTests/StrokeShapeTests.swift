import XCTest
import LNoteFormat
import LNoteShape

/// The shape stage on its own: pieces streamed to a sink, and the extent that bounds them.
final class StrokeShapeTests: XCTestCase {
    private struct Collect: ShapeSink {
        var pieces: [ShapePiece] = []
        mutating func piece(_ p: ShapePiece) { pieces.append(p) }
    }

    private func pieces(_ stroke: Stroke, _ t: PageTransform) -> [ShapePiece] {
        let shape = StrokeShape()
        shape.prepare(stroke, transform: t)
        var sink = Collect()
        shape.stream(into: &sink)
        return sink.pieces
    }

    func testPiecesCoverTheStrokeAndRepeatExactly() {
        let t = PageTransform(pageWidth: 8340, pageHeight: 11940, scale: 1)
        // A pen line: one part (collinear samples merge), factor 1, in pixels.
        let line = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [100, 100, 20, 500, 0, 200, 100, 20, 500, 8, 300, 100, 20, 500, 16])
        let p = pieces(line, t)
        XCTAssertEqual(p.count, 1)
        XCTAssertEqual(p[0], ShapePiece(x0: 10, y0: 10, r0: 2, x1: 30, y1: 10, r1: 2, f: 1))
        // Pencil pressure 0 → 1000: the factor 0.25 → 1 is cut into pieces of at most 1/32 change,
        // each with the factor at its middle; the pieces tile the part end to end.
        let pencil = Stroke(tool: .pencil, color: Color(r: 0, g: 0, b: 0), points: [0, 0, 30, 0, 0, 1000, 0, 30, 1000, 8])
        let q = pieces(pencil, t)
        XCTAssertEqual(q.count, 24)
        for (a, b) in zip(q, q.dropFirst()) { XCTAssertEqual(a.x1, b.x0, accuracy: 1e-12); XCTAssertLessThan(a.f, b.f) }
        XCTAssertEqual(Double(q.first!.f), 0.25 + 0.75 / 48, accuracy: 1e-6)
        // Streaming twice gives the same pieces (consumers that need several passes rely on it).
        let shape = StrokeShape()
        shape.prepare(pencil, transform: t)
        var one = Collect(), two = Collect()
        shape.stream(into: &one); shape.stream(into: &two)
        XCTAssertEqual(one.pieces, two.pieces)
    }

    func testThinStrokeRuleIsForThePixelScale() {
        // r = 3 (0.3 pt): at scale 1 ρ = 0.3 px, drawn at 0.5 px with factor 0.6; at scale 4 ρ = 1.2 px.
        let dot = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [100, 100, 3, 500, 0])
        let thin = pieces(dot, PageTransform(scale: 1, width: 50, height: 50))
        XCTAssertEqual(thin, [ShapePiece(x0: 10, y0: 10, r0: 0.5, x1: 10, y1: 10, r1: 0.5, f: 0.6)])
        let wide = pieces(dot, PageTransform(scale: 4, width: 50, height: 50))
        XCTAssertEqual(wide.count, 1)
        XCTAssertEqual(wide[0].r0, 1.2, accuracy: 1e-12)
        XCTAssertEqual(wide[0].f, 1)
        // A zero radius draws nothing.
        XCTAssertTrue(pieces(Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [1, 1, 0, 500, 0]),
                             PageTransform(scale: 1, width: 5, height: 5)).isEmpty)
    }

    func testExtentBoundsThePiecesTheImageKeeps() {
        let t = PageTransform(scale: 1, width: 100, height: 100)
        var points: [Int32] = []
        for i in 0..<200 { points += [Int32(50 + i * 4), Int32(300 + (i % 7) * 30), i % 2 == 0 ? 2 : 40, i % 2 == 0 ? 0 : 1000, Int32(i)] }
        let stroke = Stroke(tool: .pencil, color: Color(r: 0, g: 0, b: 0), points: points)
        let all = pieces(stroke, t)
        let kept = all.filter { $0.maxX > 0 && $0.minX < 100 && $0.maxY > 0 && $0.minY < 100 }
        let e = StrokeShape.extent(of: stroke, transform: t)
        XCTAssertGreaterThan(kept.count, 100)
        XCTAssertGreaterThanOrEqual(e.pieces, Double(kept.count))
        let rows = kept.reduce(0.0) { $0 + (min($1.maxY, 100).rounded(.up) - max($1.minY, 0).rounded(.down)) }
        XCTAssertGreaterThanOrEqual(e.pieceRows, rows)
        XCTAssertLessThanOrEqual(e.boxPixels, 100 * 100)
        XCTAssertGreaterThan(e.boxPixels, 0)
    }
}
