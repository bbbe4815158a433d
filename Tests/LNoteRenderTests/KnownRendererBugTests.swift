// Renderer bugs found by the golden-image work, kept as runnable checks. XCTExpectFailure does
// not exist on Linux: while a bug is present its test SKIPS with the diagnosis; once the
// rasterizer is fixed the test passes (and the goldens it touched must be re-recorded).

import XCTest
import LNoteBitmap
import LNoteFormat
import LNoteRaster

final class KnownRendererBugTests: XCTestCase {
    /// Found on the yardstick (real-handwriting p001-s1, pixel (89, 558): ours 186, the
    /// independent reference 160, exact 0.370 coverage → 160.6) and reduced to four samples of
    /// one pen stroke, r = 1.3 pt, page-relative (the real stroke's tail shifted by (−80, −550) pt).
    ///
    /// In pixel row 8 the union's left edge is the nearly horizontal top tangent of the last
    /// capsule, which meets the end disc's arc inside the row: x(y) is 11.482, 10.891, 10.133,
    /// 9.094, 8.762 at y = 8, 8.25, 8.5, 8.75, 9. The band test of CoverageRasterizer compares the
    /// MIDDLE line only (10.133 lies 0.011 px from the chord 11.482–8.762, under the 1/32 px
    /// tolerance), so the row is integrated as two straight slabs although the edge is 0.36 px off
    /// at y = 8.75. Pixel (9, 8) gets coverage 0.2706 instead of 0.3702 (26/255 too light); the
    /// first sample (another capsule in the same row, whose straight right edge keeps the band's
    /// structure stable) is needed to trigger it. Section 6 asks for the exact area.
    func testKinkedEdgeInsideOneBandIsIntegratedExactly() throws {
        let samples: [Int32] = [152, 71, 13, 957, 0, 134, 86, 13, 961, 4, 108, 97, 13, 961, 8, 97, 99, 13, 957, 12]
        let stroke = Stroke(tool: .pen, color: Color(r: 0, g: 0, b: 0), points: samples)
        var canvas = Canvas(width: 40, height: 40)
        canvas.fill(Color(r: 255, g: 255, b: 255))
        canvas.draw(stroke, scale: 1)
        let value = Int(canvas.bitmap.pixels[(8 * 40 + 9) * 4])
        // Exact coverage 0.3702 (supersampled 512×512 against the tapered-capsule union): 255·(1 − 0.3702) = 160.6.
        let expected = 161
        if abs(value - expected) > 1 {
            throw XCTSkip("""
                KNOWN RASTERIZER BUG (not a golden failure): pixel (9, 8) is \(value), exact area gives \(expected) ±1. \
                CoverageRasterizer accepts a band from its middle line alone, so an edge that switches from a capsule's \
                tangent line to its end-disc arc inside the band is integrated as a straight slab (error up to ~0.1 px² \
                per pixel). See the comment on this test.
                """)
        }
    }
}
