import XCTest
import LNoteFormat
import LNoteShape

final class PageTransformTests: XCTestCase {
    private func size(_ w: Int, _ h: Int, _ s: Double) -> (Int, Int) {
        let t = PageTransform(pageWidth: w, pageHeight: h, scale: s)
        return (t.width, t.height)
    }

    func testOutputSizeRounding() {
        XCTAssertTrue(size(8340, 11940, 1) == (834, 1194))
        XCTAssertTrue(size(8340, 11940, 2) == (1668, 2388))
        // Halves round up; tiny pages still get one pixel.
        XCTAssertTrue(size(8345, 15, 1) == (835, 2))
        XCTAssertTrue(size(1, 1, 0.38) == (1, 1))
        let s = PageTransform.scale(forWidth: 320, pageWidth: 8340)
        XCTAssertEqual(s, 320.0 / 834.0, accuracy: 1e-12)
        XCTAssertTrue(size(8340, 11940, s) == (320, 458))
        XCTAssertEqual(PageTransform(pageWidth: 8340, pageHeight: 11940,
                                     scale: PageTransform.scale(forHeight: 600, pageHeight: 11940)).height, 600)
        // Absurd scales clamp instead of trapping; the Double form is what limits are checked on.
        XCTAssertEqual(PageTransform.roundedDimension(8340, 1e300), Int(Int32.max))
        XCTAssertEqual(PageTransform.exactDimension(8340, scale: 1e300), 834e300, accuracy: 1e290)
    }

    func testMappingAndStrips() {
        let t = PageTransform(pageWidth: 8340, pageHeight: 11940, scale: 2)
        XCTAssertEqual(t.x(1000), 200)
        XCTAssertEqual(t.y(-50), -10)
        XCTAssertEqual(t.length(3), 0.6, accuracy: 1e-15)
        let strip = t.strip(from: 100)
        XCTAssertEqual(strip.x(1000), 100)
        XCTAssertEqual(strip.y(1000), 200)
        XCTAssertEqual(strip.width, t.width, "a strip keeps the image's size")
    }
}
