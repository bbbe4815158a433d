import XCTest
import LNoteBitmap
import LNoteFormat
@testable import LNoteRaster
import LNoteTestSupport

/// Properties that break if anti-aliasing, the union rule, the thin-stroke rule or the pencil
/// factor break.
final class StrokeBehaviourTests: XCTestCase {
    func testDiscMatchesExactArea() {
        // A single disc against the closed-form disc/square area: the edge is anti-aliased by area.
        for (cx, cy, r) in [(10.3, 9.7, 4.21), (12.0, 12.0, 7.5), (8.55, 11.1, 0.9)] {
            let stroke = strokeFromPixels([(cx, cy, r, 500)], scale: 1)
            // Positions are quantized to 0.1 pt; use the quantized values.
            let qx = Double(stroke.points[0]) / 10, qy = Double(stroke.points[1]) / 10, qr = Double(stroke.points[2]) / 10
            let mask = Canvas.coverageMask(stroke, scale: 1, width: 24, height: 24)
            var fractional = 0
            for j in 0..<24 {
                for i in 0..<24 {
                    let exact = AreaCoverage.discRect(cx: qx, cy: qy, r: qr, x0: Double(i), x1: Double(i + 1), y0: Double(j), y1: Double(j + 1))
                    XCTAssertEqual(Double(mask[j * 24 + i]), exact, accuracy: 0.02, "pixel \(i),\(j)")
                    if exact > 0.1 && exact < 0.9 { fractional += 1 }
                }
            }
            XCTAssertGreaterThan(fractional, 3)
        }
    }

    func testTranslucentSelfOverlapHasUniformInterior() {
        // A figure-eight with dense samples, crossing itself, drawn at alpha 0.5 on white.
        var s: [(Double, Double, Double, Int)] = []
        for i in 0...200 {
            let t = Double(i) / 200 * 2 * Double.pi * 1.05
            s.append((32 + 20 * sin(t), 32 + 12 * sin(2 * t), 3, 500))
        }
        let stroke = strokeFromPixels(s, scale: 1, color: Color(r: 0, g: 0, b: 255, a: 128))
        var c = Canvas(width: 64, height: 64)
        c.fill(.white)
        c.draw(stroke, scale: 1)
        let mask = Canvas.coverageMask(stroke, scale: 1, width: 64, height: 64)
        var interior = Set<[UInt8]>()
        for i in 0..<(64 * 64) where mask[i] >= 128.0 / 255 - 1e-4 {
            interior.insert(Array(c.bitmap.pixels[(i * 4)..<(i * 4 + 4)]))
        }
        XCTAssertEqual(interior.count, 1, "covered pixels, at joints and at the crossing too, share one colour")
        XCTAssertEqual(mask.max()!, Float(128.0 / 255), accuracy: 1e-4, "coverage never exceeds 1")
        // The crossing pixel (32, 32) is fully inside and not darker.
        XCTAssertEqual(Array(c.bitmap.pixels[((32 * 64 + 32) * 4)..<((32 * 64 + 32) * 4 + 4)]), interior.first!)
    }

    func testThinStrokeIsVisibleWithReducedOpacity() {
        // Radius 0.2 px: drawn 0.5 px wide with opacity 0.2/0.5 = 0.4. A horizontal line centred on
        // a row's middle covers that row exactly.
        let scale = 1.0
        let stroke = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [20, 105, 2, 500, 0, 380, 105, 2, 500, 8])
        let mask = Canvas.coverageMask(stroke, scale: scale, width: 40, height: 20)
        for x in 5..<35 {
            XCTAssertEqual(mask[10 * 40 + x], 0.4, accuracy: 0.003)
            XCTAssertEqual(mask[9 * 40 + x], 0, accuracy: 0.003)
            XCTAssertEqual(mask[11 * 40 + x], 0, accuracy: 0.003)
        }
        // Zero radius draws nothing.
        let zero = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [20, 105, 0, 500, 0, 380, 105, 0, 500, 8])
        XCTAssertEqual(Canvas.coverageMask(zero, scale: scale, width: 40, height: 20).max(), 0)
        // Composited: visible, lighter than a full-strength line.
        var c = Canvas(width: 40, height: 20)
        c.fill(.white)
        c.draw(stroke, scale: scale)
        XCTAssertEqual(c.bitmap.pixels[(10 * 40 + 20) * 4], UInt8((255 - 255 * 0.4 + 0.5).rounded(.down)))
    }

    func testPencilPressureOpacity() {
        for (p, factor) in [(0, 0.25), (500, 0.625), (1000, 1.0)] {
            let stroke = Stroke(tool: .pencil, color: Color(r: 0, g: 0, b: 0), points: [100, 100, 50, Int32(p), 0, 300, 100, 50, Int32(p), 8])
            let mask = Canvas.coverageMask(stroke, scale: 1, width: 40, height: 20)
            XCTAssertEqual(Double(mask[10 * 40 + 20]), factor, accuracy: 0.002)
        }
        // Varying pressure: interpolated along the stroke, largest where parts overlap. A point on
        // the axis at x is inside every swept disc centred within 5 px of it, the largest
        // pressure among them being at x + 5.
        let ramp = Stroke(tool: .pencil, color: Color(r: 0, g: 0, b: 0), points: [0, 100, 50, 0, 0, 400, 100, 50, 1000, 8])
        let mask = Canvas.coverageMask(ramp, scale: 1, width: 40, height: 20)
        XCTAssertEqual(Double(mask[10 * 40 + 20]), 0.25 + 0.75 * (20.5 + 5) / 40, accuracy: 0.01)
        XCTAssertLessThan(mask[10 * 40 + 10], mask[10 * 40 + 30])
    }

    func testHugeCoordinatesAreClippedCheaply() {
        let stroke = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [
            Int32.min, Int32.min, 100000, 500, 0, Int32.max, Int32.max, 100000, 500, 1, Int32.min, Int32.max, 0, 500, 2])
        var c = Canvas(width: 50, height: 40)
        c.fill(.white)
        c.draw(stroke, scale: 2)
        // The first capsule's hull (radius 20000 px along the diagonal) covers the whole canvas.
        XCTAssertTrue(c.bitmap.pixels.enumerated().allSatisfy { $0.offset % 4 == 3 || $0.element == 0 })
        // Far off the page: nothing drawn.
        let off = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: [Int32.max, 5, 100000, 500, 0, Int32.max - 7, 900, 100000, 500, 1])
        var d = Canvas(width: 50, height: 40)
        d.draw(off, scale: 1)
        XCTAssertTrue(d.bitmap.pixels.allSatisfy { $0 == 0 })
    }

    func testDeterministic() {
        var rng = SeededRNG(seed: 99)
        var strokes: [Stroke] = []
        for kind in StrokeKind.allCases {
            for _ in 0..<3 { strokes.append(randomStroke(kind, rng: &rng, scale: 1, size: 96)) }
        }
        func render() -> [UInt8] {
            var c = Canvas(width: 96, height: 96)
            c.fill(Color(r: 250, g: 248, b: 240))
            for (i, s) in strokes.enumerated() {
                var s = s
                s.color = Color(r: UInt8(i * 37 % 256), g: UInt8(i * 91 % 256), b: 40, a: UInt8(100 + i % 155))
                if i % 5 == 0 { s.tool = .highlighter }
                c.draw(s, scale: 1)
            }
            return c.bitmap.pixels
        }
        XCTAssertEqual(render(), render())
    }
}
