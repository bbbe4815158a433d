import XCTest
import LNoteBitmap
import LNoteFormat
import LNoteShape
@testable import LNoteRaster
import LNoteTestSupport

/// Exact 8-bit results of the blend formulas.
final class CompositingTests: XCTestCase {
    /// A stroke that fully covers every pixel of a small canvas.
    func covering(_ tool: Tool, _ color: Color, pressure: Int32 = 500) -> Stroke {
        Stroke(tool: tool, color: color, points: [40, 40, 2000, pressure, 0])
    }

    func pixel(_ c: Canvas, _ x: Int, _ y: Int) -> [UInt8] {
        let o = (y * c.width + x) * 4
        return Array(c.bitmap.pixels[o..<(o + 4)])
    }

    func expected(_ dst: Double, _ value: Double) -> UInt8 { UInt8((dst + value).rounded(.down)) }

    func testSourceOverExactValues() {
        var c = Canvas(width: 4, height: 4)
        c.fill(Color(r: 200, g: 100, b: 50))
        c.draw(covering(.pen, Color(r: 10, g: 220, b: 90, a: 77)), scale: 1)
        let a = 77.0 / 255
        func so(_ d: Double, _ s: Double) -> UInt8 { UInt8((d + (s - d) * a + 0.5).rounded(.down)) }
        XCTAssertEqual(pixel(c, 1, 2), [so(200, 10), so(100, 220), so(50, 90), 255])
        XCTAssertEqual(pixel(c, 1, 2), [143, 136, 62, 255])
    }

    func testMultiplyExactValuesAndDiffersFromSourceOver() {
        var c = Canvas(width: 4, height: 4)
        c.fill(Color(r: 200, g: 100, b: 50))
        c.draw(covering(.highlighter, Color(r: 100, g: 150, b: 200, a: 128)), scale: 1)
        let a = 128.0 / 255
        func mul(_ d: Double, _ s: Double) -> UInt8 { UInt8((d + (d * s / 255 - d) * a + 0.5).rounded(.down)) }
        XCTAssertEqual(pixel(c, 2, 2), [mul(200, 100), mul(100, 150), mul(50, 200), 255])
        XCTAssertEqual(pixel(c, 2, 2), [139, 79, 45, 255])
        // Source-over would give something else.
        var d = Canvas(width: 4, height: 4)
        d.fill(Color(r: 200, g: 100, b: 50))
        d.draw(covering(.pen, Color(r: 100, g: 150, b: 200, a: 128)), scale: 1)
        XCTAssertNotEqual(pixel(d, 2, 2), pixel(c, 2, 2))
        // Multiply never lightens: a yellow highlighter leaves black black.
        var e = Canvas(width: 2, height: 2)
        e.fill(Color(r: 0, g: 0, b: 0))
        e.draw(covering(.highlighter, Color(r: 255, g: 255, b: 0)), scale: 1)
        XCTAssertEqual(pixel(e, 0, 0), [0, 0, 0, 255])
    }

    /// The vectorized row kernels (`CRasterKernels`) against the per-pixel formulas, bit for bit, on
    /// random premultiplied pixels (transparent, translucent and opaque), colours and
    /// coverages (0, 1 and in between), at row lengths that leave every vector tail.
    func testRowKernelsMatchThePerPixelFormulas() {
        var rng = SeededRNG(seed: 0xB1E4D)
        for count in [1, 3, 4, 5, 17, 64, 301] {
            for mode in [BlendMode.sourceOver, .multiply] {
                var pixels = [UInt8](repeating: 0, count: 4 * count)
                for i in 0..<count {
                    let alpha = [0, 255, UInt8.random(in: 1...254, using: &rng)][Int.random(in: 0..<3, using: &rng)]
                    for c in 0..<3 { pixels[4 * i + c] = UInt8.random(in: 0...alpha, using: &rng) }
                    pixels[4 * i + 3] = alpha
                }
                let coverage: [Float] = (0..<count).map { _ in
                    [0, 1, Float.random(in: 0...1, using: &rng)][Int.random(in: 0..<3, using: &rng)]
                }
                let color = Color(r: UInt8.random(in: 0...255, using: &rng), g: UInt8.random(in: 0...255, using: &rng),
                                  b: UInt8.random(in: 0...255, using: &rng))
                let gain = Float.random(in: 0.05...1, using: &rng)
                var expected = pixels
                let (sr, sg, sb) = (Float(color.r), Float(color.g), Float(color.b))
                for i in 0..<count {
                    let a = coverage[i] * gain
                    let d = (0..<4).map { Float(expected[4 * i + $0]) }
                    let out: [Float]
                    switch mode {
                    case .sourceOver:
                        out = [d[0] + (sr - d[0]) * a, d[1] + (sg - d[1]) * a, d[2] + (sb - d[2]) * a, d[3] + (255 - d[3]) * a]
                    case .multiply:
                        let inv: Float = 1.0 / 255.0
                        let uncovered = (255 - d[3]) * inv
                        out = [d[0] + (sr * uncovered + sr * d[0] * inv - d[0]) * a,
                               d[1] + (sg * uncovered + sg * d[1] * inv - d[1]) * a,
                               d[2] + (sb * uncovered + sb * d[2] * inv - d[2]) * a, d[3] + (255 - d[3]) * a]
                    }
                    for c in 0..<4 { expected[4 * i + c] = Compositor.round8(out[c]) }
                }
                // The per-pixel Swift function, for source-over, is the same arithmetic.
                if mode == .sourceOver {
                    var swift = pixels
                    swift.withUnsafeMutableBufferPointer { p in
                        for i in 0..<count where coverage[i] * gain > 0 {
                            Compositor.sourceOver(p.baseAddress! + 4 * i, sr: sr, sg: sg, sb: sb, a: coverage[i] * gain)
                        }
                    }
                    assertSamePixels(swift, expected, "Compositor.sourceOver, \(count) pixels")
                }
                coverage.withUnsafeBufferPointer { cov in
                    pixels.withUnsafeMutableBufferPointer { p in
                        Compositor.blendRow(dst: p.baseAddress!, coverage: cov.baseAddress!, gain: gain, count: count,
                                            color: color, mode: mode)
                    }
                }
                assertSamePixels(pixels, expected, "blendRow \(mode), \(count) pixels")
            }
        }
    }

    /// Equal RGBA8 rows, or a failure naming the first pixel that differs.
    private func assertSamePixels(_ got: [UInt8], _ want: [UInt8], _ what: String, line: UInt = #line) {
        guard let i = got.indices.first(where: { got[$0] != want[$0] }) else { return }
        let p = i / 4
        XCTFail("\(what): pixel \(p) is \(Array(got[4 * p..<4 * p + 4])), expected \(Array(want[4 * p..<4 * p + 4]))", line: line)
    }

    func testPageColourWithAlphaOverWhite() {
        var c = Canvas(width: 2, height: 2)
        c.fill(Color(r: 0, g: 100, b: 255, a: 64))
        let a = 64.0 / 255
        func ow(_ v: Double) -> UInt8 { UInt8((255 + (v - 255) * a + 0.5).rounded(.down)) }
        XCTAssertEqual(pixel(c, 1, 1), [ow(0), ow(100), ow(255), 255])
    }

    func testTransparentCanvasIsPremultiplied() {
        var c = Canvas(width: 4, height: 4)
        c.draw(covering(.pen, Color(r: 10, g: 20, b: 200, a: 128)), scale: 1)
        let a = 128.0 / 255
        func pm(_ v: Double) -> UInt8 { UInt8((v * a + 0.5).rounded(.down)) }
        XCTAssertEqual(pixel(c, 0, 0), [pm(10), pm(20), pm(200), 128])
        XCTAssertTrue(c.bitmap.isPremultiplied)
        // Second layer: premultiplied source-over, alpha 128 + (255 − 128)·a.
        c.draw(covering(.pen, Color(r: 200, g: 0, b: 0, a: 128)), scale: 1)
        let p = pixel(c, 0, 0)
        XCTAssertEqual(p[3], UInt8((128 + 127 * a + 0.5).rounded(.down)))
        XCTAssertEqual(p[0], UInt8((Double(pm(10)) + (200 - Double(pm(10))) * a + 0.5).rounded(.down)))
        // Over an opaque canvas the same drawing equals the straight formula.
        var o = Canvas(width: 4, height: 4)
        o.fill(.white)
        o.draw(covering(.pen, Color(r: 10, g: 20, b: 200, a: 128)), scale: 1)
        func so(_ d: Double, _ s: Double) -> UInt8 { UInt8((d + (s - d) * a + 0.5).rounded(.down)) }
        XCTAssertEqual(pixel(o, 3, 3), [so(255, 10), so(255, 20), so(255, 200), 255])
    }

    func testPartialCoverageUsesTheMaskValue() {
        // Edge pixels of a disc: the blend uses exactly a·c from the coverage mask.
        let stroke = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0, a: 200), points: [100, 100, 63, 500, 0])
        let mask = Canvas.coverageMask(stroke, scale: 1, width: 20, height: 20)
        var c = Canvas(width: 20, height: 20)
        c.fill(.white)
        c.draw(stroke, scale: 1)
        var partial = 0
        for i in 0..<(20 * 20) {
            let m = Double(mask[i])
            let want = UInt8(min(255, max(0, (255 + (0 - 255) * Double(Float(mask[i]) / Float(200.0 / 255) * Float(200.0 / 255)) + 0.5).rounded(.down))))
            XCTAssertLessThanOrEqual(abs(Int(c.bitmap.pixels[i * 4]) - Int(want)), 1)
            if m > 0.05 && m < 0.7 { partial += 1 }
        }
        XCTAssertGreaterThan(partial, 8, "anti-aliased edge pixels exist")
    }
}

/// Flattening a transparent canvas onto paper: the step before an encoder without alpha.
final class FlatteningTests: XCTestCase {
    func testFlattenedOntoPaperIsPremultipliedSourceOver() {
        var c = Canvas(width: 2, height: 1)
        c.draw(Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 200, a: 128), points: [5, 5, 100, 500, 0]), scale: 1)
        let before = c.bitmap
        XCTAssertFalse(before.isOpaque)
        let white = before.flattened(onto: .white)
        let paper = before.flattened(onto: Color(r: 250, g: 240, b: 200))
        for i in 0..<2 {
            let p = Array(before.pixels[(4 * i)..<(4 * i + 4)]).map { Int($0) }
            let rest = 255 - p[3]
            XCTAssertEqual(Array(white.pixels[(4 * i)..<(4 * i + 4)]).map { Int($0) },
                           [p[0] + rest, p[1] + rest, p[2] + rest, 255])
            XCTAssertEqual(Array(paper.pixels[(4 * i)..<(4 * i + 4)]).map { Int($0) },
                           [p[0] + (250 * rest + 127) / 255, p[1] + (240 * rest + 127) / 255,
                            p[2] + (200 * rest + 127) / 255, 255])
        }
        // An opaque image is its own flattening.
        var o = Canvas(width: 3, height: 3)
        o.fill(Color(r: 10, g: 20, b: 30))
        XCTAssertEqual(o.bitmap.flattened(onto: .white), o.bitmap)
    }
}
