// Rasterizer bugs found by the golden-image yardstick, kept as regression tests.

import XCTest
import LNoteBitmap
import LNoteFormat
import LNoteRaster

final class RasterRegressionTests: XCTestCase {
    /// Found on the yardstick (real-handwriting p001-s1, pixel (89, 558): ours 186, the
    /// independent reference 160, exact 0.370 coverage → 160.6) and reduced to four samples of
    /// one pen stroke, r = 1.3 pt. In pixel row 8 the union's left edge is the nearly horizontal
    /// top tangent of the last capsule, which meets the end disc's arc inside the row; the first
    /// (adaptive band) rasterizer integrated that row as straight slabs and was 26/255 too light.
    /// The supersampled rasterizer that replaced it gets it right; this keeps it that way.
    func testKinkedEdgeInsideOneBandIsIntegratedExactly() throws {
        let samples: [Int32] = [152, 71, 13, 957, 0, 134, 86, 13, 961, 4, 108, 97, 13, 961, 8, 97, 99, 13, 957, 12]
        let stroke = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: samples)
        var canvas = Canvas(width: 40, height: 40)
        canvas.fill(Color(r: 255, g: 255, b: 255))
        canvas.draw(stroke, scale: 1)
        let value = Int(canvas.bitmap.pixels[(8 * 40 + 9) * 4])
        // Exact coverage 0.3702 (supersampled 512×512 against the tapered-capsule union): 255·(1 − 0.3702) = 160.6.
        let expected = 161
        XCTAssertEqual(value, expected, accuracy: 1, "pixel (9, 8): exact area gives \(expected) ±1")
    }
}
