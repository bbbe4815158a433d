import LNoteBitmap
import LNoteFormat
@testable import LNoteRaster
import XCTest

final class WideCanvasTests: XCTestCase {
    /// A canvas wider than the rasterizer's single-pass limit is drawn in strips; a stroke that
    /// crosses a strip boundary comes out as it does on a narrow canvas.
    func testStrokesCrossingStripBoundariesMatchANarrowCanvas() {
        let limit = CoverageRasterizer.maxWidth
        let wide = limit * 2 + 100
        let shift = limit - 150  // pixels; a multiple of 10 / scale keeps the quantized points identical
        func stroke(offset: Int) -> Stroke {
            // Points in 0.1 pt at scale 1: pixel x = value / 10.
            let xs = [limit - 100, limit - 40, limit + 30, limit + 120].map { Int32(($0 - offset) * 10) }
            let ys: [Int32] = [20, 55, 25, 60]
            var points: [Int32] = []
            for (i, x) in xs.enumerated() { points += [x, ys[i], 18, 500, Int32(i * 8)] }
            return Stroke(tool: .pen, color: Color(r: 20, g: 40, b: 200, a: 180), points: points)
        }
        var big = Canvas(width: wide, height: 8)
        big.fill(.white)
        big.draw(stroke(offset: 0), scale: 1)
        var small = Canvas(width: 400, height: 8)
        small.fill(.white)
        small.draw(stroke(offset: shift), scale: 1)
        var worst = 0
        var inked = 0
        for y in 0..<8 {
            for x in 0..<400 {
                for c in 0..<4 {
                    let a = Int(big.bitmap.pixels[(y * wide + x + shift) * 4 + c])
                    let b = Int(small.bitmap.pixels[(y * 400 + x) * 4 + c])
                    worst = max(worst, abs(a - b))
                }
                if small.bitmap.pixels[(y * 400 + x) * 4] < 250 { inked += 1 }
            }
        }
        XCTAssertGreaterThan(inked, 100, "the stroke is drawn")
        XCTAssertLessThanOrEqual(worst, 1, "strips must join without seams")
    }
}
