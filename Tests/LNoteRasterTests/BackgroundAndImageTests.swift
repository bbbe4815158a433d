import XCTest
import LNoteBitmap
import LNoteFormat
@testable import LNoteRaster

private func px(_ c: Canvas, _ x: Int, _ y: Int) -> [UInt8] {
    let o = (y * c.width + x) * 4
    return Array(c.bitmap.pixels[o..<(o + 4)])
}

private func line(_ coverage: Double) -> [UInt8] {
    // Default line colour #C8D2E0 over white at the given coverage.
    [200.0, 210, 224].map { UInt8((255 + ($0 - 255) * coverage + 0.5).rounded(.down)) } + [255]
}

final class BackgroundTests: XCTestCase {
    func testRuledLinesSitOnMultiplesOfSpacing() {
        // 65 × 65 pt page, spacing 32.5 pt: one line at y = 32.5 (the next would be at the edge:
        // k·spacing < height excludes it). 0.6 pt wide: rows 32.2…32.8.
        var c = Canvas(width: 65, height: 65)
        c.drawBackground(PageBackground(template: .ruled, spacing: 325), pageWidth: 650, pageHeight: 650, scale: 1)
        for x in [0, 17, 64] {
            XCTAssertEqual(px(c, x, 32), line(0.6))
            XCTAssertEqual(px(c, x, 31), [255, 255, 255, 255])
            XCTAssertEqual(px(c, x, 33), [255, 255, 255, 255])
            XCTAssertEqual(px(c, x, 64), [255, 255, 255, 255])
        }
        // At scale 2 the line spans rows 64.4…65.6: 0.6 and 0.6.
        var d = Canvas(width: 130, height: 130)
        d.drawBackground(PageBackground(template: .ruled, spacing: 325), pageWidth: 650, pageHeight: 650, scale: 2)
        XCTAssertEqual(px(d, 5, 64), line(0.6))
        XCTAssertEqual(px(d, 5, 65), line(0.6))
    }

    func testGridCrossingsCoveredOnce() {
        var c = Canvas(width: 65, height: 65)
        c.drawBackground(PageBackground(template: .grid, spacing: 325), pageWidth: 650, pageHeight: 650, scale: 1)
        XCTAssertEqual(px(c, 32, 10), line(0.6))
        XCTAssertEqual(px(c, 10, 32), line(0.6))
        XCTAssertEqual(px(c, 32, 32), line(0.6 + 0.6 - 0.36))
        XCTAssertEqual(px(c, 10, 10), [255, 255, 255, 255])
    }

    func testDotsCountAndPosition() {
        // Spacing 10 pt on a 65 pt page: k, m = 1…6 → 36 dots of radius 0.8 pt.
        var c = Canvas(width: 65, height: 65)
        c.drawBackground(PageBackground(template: .dots, spacing: 100), pageWidth: 650, pageHeight: 650, scale: 1)
        var ink = 0.0
        for i in 0..<(65 * 65) { ink += (255 - Double(c.bitmap.pixels[i * 4])) / 55 }
        XCTAssertEqual(ink, 36 * Double.pi * 0.64, accuracy: 36 * Double.pi * 0.64 * 0.03)
        // The dot at (10, 10) straddles four pixels equally; (60, 60) is the last one.
        let q = px(c, 9, 9)
        XCTAssertEqual(px(c, 10, 10), q); XCTAssertEqual(px(c, 9, 10), q); XCTAssertEqual(px(c, 10, 9), q)
        XCTAssertLessThan(q[0], 250)
        XCTAssertLessThan(px(c, 60, 60)[0], 250)
        XCTAssertEqual(px(c, 15, 15), [255, 255, 255, 255])
    }

    func testFillThenTemplateEqualsBackgroundForOpaqueColour() {
        let bg = PageBackground(color: Color(r: 255, g: 253, b: 245), template: .grid, spacing: 320)
        var a = Canvas(width: 80, height: 90)
        a.drawBackground(bg, pageWidth: 8340, pageHeight: 11940, scale: 0.0959)
        var b = Canvas(width: 80, height: 90)
        b.fill(bg.color)
        b.drawTemplate(bg, pageWidth: 8340, pageHeight: 11940, scale: 0.0959)
        XCTAssertEqual(a.bitmap, b.bitmap)
    }
}

final class ImageTests: XCTestCase {
    func solid(_ w: Int, _ h: Int, _ rgba: [UInt8]) -> Bitmap {
        Bitmap(width: w, height: h, pixels: Array((0..<(w * h)).flatMap { _ in rgba }), isPremultiplied: false)
    }

    func white(_ w: Int, _ h: Int) -> Canvas { var c = Canvas(width: w, height: h); c.fill(.white); return c }

    func testPlacementAndEdgeCoverage() {
        var c = white(40, 30)
        // Frame x 10.4…30.4, y 10…20 px.
        c.draw(image: solid(4, 4, [255, 0, 0, 255]), placement: ImagePlacement(asset: "a", x: 104, y: 100, width: 200, height: 100), scale: 1)
        XCTAssertEqual(px(c, 15, 15), [255, 0, 0, 255])
        XCTAssertEqual(px(c, 10, 15), [255, 102, 102, 255], "left edge pixel 60% covered")
        XCTAssertEqual(px(c, 30, 15), [255, 153, 153, 255], "right edge pixel 40% covered")
        XCTAssertEqual(px(c, 9, 15), [255, 255, 255, 255])
        XCTAssertEqual(px(c, 15, 20), [255, 255, 255, 255])
        XCTAssertEqual(px(c, 15, 9), [255, 255, 255, 255])
    }

    func testRotationIsClockwiseAboutTheCentre() {
        var c = white(40, 30)
        // Left half red, right half blue; 90° clockwise turns +x toward +y: red ends up on top.
        let img = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 255], isPremultiplied: false)
        c.draw(image: img, placement: ImagePlacement(asset: "a", x: 100, y: 100, width: 200, height: 100, rotation: 90000), scale: 1)
        XCTAssertEqual(px(c, 20, 6), [255, 0, 0, 255])
        XCTAssertEqual(px(c, 20, 23), [0, 0, 255, 255])
        XCTAssertEqual(px(c, 12, 15), [255, 255, 255, 255], "outside the rotated frame")
        XCTAssertEqual(px(c, 16, 15)[3], 255)
        XCTAssertNotEqual(px(c, 16, 15), [255, 255, 255, 255], "inside the rotated frame")
        // 30°: corners of the frame move; the centre stays.
        var d = white(40, 30)
        d.draw(image: solid(3, 3, [0, 0, 0, 255]), placement: ImagePlacement(asset: "a", x: 100, y: 100, width: 200, height: 100, rotation: 30000), scale: 1)
        XCTAssertEqual(px(d, 20, 15), [0, 0, 0, 255])
        XCTAssertEqual(px(d, 10, 19), [255, 255, 255, 255], "unrotated corner is outside")
        XCTAssertEqual(px(d, 25, 21), [0, 0, 0, 255], "rotated toward +y on the right")
    }

    func testOpacityAndStraightAlpha() {
        var c = white(20, 20)
        c.draw(image: solid(2, 2, [0, 0, 0, 255]), placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 200, height: 200, opacity: 400), scale: 1)
        XCTAssertEqual(px(c, 5, 5), [153, 153, 153, 255])
        var d = white(20, 20)
        d.draw(image: solid(2, 2, [255, 0, 0, 128]), placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 200, height: 200), scale: 1)
        XCTAssertEqual(px(d, 5, 5), [255, 127, 127, 255])
        // Transparent canvas: premultiplied result.
        var t = Canvas(width: 20, height: 20)
        t.draw(image: solid(2, 2, [255, 0, 0, 128]), placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 200, height: 200), scale: 1)
        XCTAssertEqual(px(t, 5, 5), [128, 0, 0, 128])
    }

    func testMinifiedCheckerboardIsUniformGrey() {
        // 1-texel checkerboard, 240 × 240 into 20 × 20 px: 12× smaller.
        var pixels = [UInt8]()
        for y in 0..<240 { for x in 0..<240 { let v: UInt8 = (x + y) % 2 == 0 ? 0 : 255; pixels += [v, v, v, 255] } }
        let img = Bitmap(width: 240, height: 240, pixels: pixels, isPremultiplied: false)
        var c = white(30, 30)
        c.draw(image: img, placement: ImagePlacement(asset: "a", x: 50, y: 50, width: 200, height: 200), scale: 1)
        for y in 5..<25 { for x in 5..<25 { XCTAssertEqual(Double(px(c, x, y)[0]), 127.5, accuracy: 2, "\(x),\(y)") } }
        // Rotated too.
        var d = white(30, 30)
        d.draw(image: img, placement: ImagePlacement(asset: "a", x: 50, y: 50, width: 200, height: 200, rotation: 17000), scale: 1)
        XCTAssertEqual(Double(px(d, 15, 15)[0]), 127.5, accuracy: 2)
    }

    /// 1-texel black and white stripes, `texels` wide, drawn into a frame 20 px wide: each
    /// column of row 10 within `accuracy` levels of the exact area average of the stripes under it.
    private func assertStripesAreaAveraged(texels: Int, accuracy: Double, file: StaticString = #filePath, line: UInt = #line) {
        var pixels = [UInt8]()
        for _ in 0..<texels { for x in 0..<texels { let v: UInt8 = x % 2 == 0 ? 0 : 255; pixels += [v, v, v, 255] } }
        let img = Bitmap(width: texels, height: texels, pixels: pixels, isPremultiplied: false)
        var c = white(20, 20)
        c.draw(image: img, placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 200, height: 200), scale: 1)
        let ratio = Double(texels) / 20
        for x in 0..<20 {
            // Pixel x covers texels [ratio·x, ratio·(x + 1)).
            let a = ratio * Double(x), b = a + ratio
            var white = 0.0
            for t in Int(a)..<Int(b.rounded(.up)) where t % 2 == 1 { white += min(b, Double(t + 1)) - max(a, Double(t)) }
            XCTAssertEqual(Double(px(c, x, 10)[0]), 255 * white / ratio, accuracy: accuracy, "column \(x)", file: file, line: line)
        }
    }

    func testShrinkingByLessThanTwoIsTheAreaAverage() {
        // 30 texels into 20 px (1.5 texels per pixel: one whole texel and half of another).
        // Bilinear alone would weight the two nearest texels by distance (64 and 191 here, 21
        // levels from the area average); the filter is the exact area average from just above
        // 1:1, so each pixel is the mean of the texels under it (85, 170).
        assertStripesAreaAveraged(texels: 30, accuracy: 1)
    }

    func testShrinkingTwoToOneOrMoreIsTheAreaAverage() {
        // 50 texels into 20 px (2.5 texels per pixel), and 1000 into 20 (50 per pixel).
        assertStripesAreaAveraged(texels: 50, accuracy: 1)
        assertStripesAreaAveraged(texels: 1000, accuracy: 1)
    }

    func testFrameEdgesOnPixelEdges() {
        // A frame one pixel wide whose edges lie exactly on pixel boundaries: the edge pixels'
        // clipping meets vertices lying on the clipping lines (this once overran the clipper's
        // fixed buffers).
        var c = white(60, 600)
        c.draw(image: solid(2, 2, [0, 0, 0, 255]),
               placement: ImagePlacement(asset: "a", x: 400, y: 2000, width: 10, height: 3000), scale: 1)
        XCTAssertEqual(px(c, 40, 200), [0, 0, 0, 255])
        XCTAssertEqual(px(c, 40, 499), [0, 0, 0, 255])
        XCTAssertEqual(px(c, 40, 500), [255, 255, 255, 255])
        XCTAssertEqual(px(c, 39, 300), [255, 255, 255, 255])
        XCTAssertEqual(px(c, 41, 300), [255, 255, 255, 255])
        XCTAssertEqual(Canvas.squareInFrame(-0.5, -150, 1, 0, 1, 300), 1, accuracy: 1e-12)
        XCTAssertEqual(Canvas.squareInFrame(-0.5, 149, 1, 0, 1, 300), 1, accuracy: 1e-12)
        XCTAssertEqual(Canvas.squareInFrame(0.5, 0, 1, 0, 1, 300), 0)
    }

    func testPartialBoxAtTheEdgeIsWeightedByItsSize() {
        // 7 texels into a 2 px frame: pixel 1 covers texels [3.5, 7): the last one is not
        // averaged in as if it were a whole block.
        let values: [UInt8] = [0, 0, 0, 0, 0, 0, 255]
        let img = Bitmap(width: 7, height: 1, pixels: values.flatMap { [$0, $0, $0, 255] }, isPremultiplied: false)
        var c = white(2, 1)
        c.draw(image: img, placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 20, height: 10), scale: 1)
        XCTAssertEqual(px(c, 0, 0)[0], 0)
        XCTAssertEqual(Double(px(c, 1, 0)[0]), 255 / 3.5, accuracy: 1)
    }

    func testEdgeCoverageIsPreciseFarFromTheFrameCentre() {
        // A frame 2^31 − 1 units wide: its centre is ~10^8 px from the pixels on its edge, where
        // areas computed from centre-relative corners lose all precision.
        let big = Int32.max
        var c = white(4, 4)
        c.draw(image: solid(2, 2, [0, 0, 0, 255]),
               placement: ImagePlacement(asset: "a", x: 15, y: 0, width: big, height: big), scale: 1)
        // The frame's left edge is at x = 1.5 px: pixel 1 is half covered, pixel 0 not at all.
        XCTAssertEqual(px(c, 0, 2), [255, 255, 255, 255])
        XCTAssertEqual(Double(px(c, 1, 2)[0]), 127.5, accuracy: 1)
        XCTAssertEqual(px(c, 2, 2), [0, 0, 0, 255])
    }

    func testEnlargedIsBilinearWithClampedEdges() {
        var c = white(20, 10)
        let img = Bitmap(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255, 255, 255], isPremultiplied: false)
        c.draw(image: img, placement: ImagePlacement(asset: "a", x: 0, y: 0, width: 200, height: 100), scale: 1)
        XCTAssertEqual(px(c, 2, 5)[0], 0)
        XCTAssertEqual(px(c, 17, 5)[0], 255)
        // Pixel 10: centre 10.5 → texel x 1.05 → 0.55 of the way from texel 0 to texel 1.
        XCTAssertEqual(px(c, 10, 5)[0], 140)
        for x in 5..<15 { XCTAssertLessThanOrEqual(px(c, x, 5)[0], px(c, x + 1, 5)[0]) }
    }
}
