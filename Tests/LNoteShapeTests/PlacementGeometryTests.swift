import Glibc
import XCTest
import LNoteFormat
import LNoteShape

/// The placement geometry both backends read: an image's frame (`ImageFrame`), a piece's outer
/// tangents, and the points and inches of `PageTransform`.
final class PlacementGeometryTests: XCTestCase {
    private let page = PageTransform(pageWidth: 8340, pageHeight: 11940, scale: 2)

    func testFrameInPixels() throws {
        let f = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 100, y: 250, width: 400, height: 300), transform: page))
        XCTAssertEqual([f.fx, f.fy, f.fw, f.fh, f.cx, f.cy], [20, 50, 80, 60, 60, 80])
        XCTAssertEqual(f.quarterTurns, 0)
        XCTAssertEqual(f.local(20, 50), SIMD2(0, 0))
        XCTAssertEqual(f.local(100, 110), SIMD2(80, 60))
        XCTAssertEqual(f.pixelBounds(width: 1668, height: 2388), PixelBox(i0: 20, i1: 100, j0: 50, j1: 110))
        XCTAssertTrue(f.lies(within: 1668, 2388))
        XCTAssertFalse(f.lies(within: 90, 2388))
        // A strip of the same page shifts x only.
        let s = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 100, y: 250, width: 400, height: 300), transform: page.strip(from: 16)))
        XCTAssertEqual([s.fx, s.fy, s.cx], [4, 50, 44])
    }

    func testQuarterTurnsAreExact() throws {
        for (rotation, q, cs, sn) in [(90_000, 1, 0.0, 1.0), (180_000, 2, -1, 0), (-90_000, 3, 0, -1), (450_000, 1, 0, 1)] {
            let f = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 0, y: 0, width: 400, height: 200, rotation: rotation), transform: page))
            XCTAssertEqual(f.quarterTurns, q, "\(rotation)")
            XCTAssertEqual(f.cosT, cs, "\(rotation)"); XCTAssertEqual(f.sinT, sn, "\(rotation)")
        }
        // Turned by 90°, the 80 × 40 frame's box is 40 × 80 about the same centre (40, 20).
        let f = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 0, y: 0, width: 400, height: 200, rotation: 90_000), transform: page))
        XCTAssertEqual(f.pixelBounds(width: 1000, height: 1000), PixelBox(i0: 20, i1: 60, j0: 0, j1: 60))
        let other = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 0, y: 0, width: 400, height: 200, rotation: 30_000), transform: page))
        XCTAssertNil(other.quarterTurns)
        XCTAssertEqual(other.cosT, cos(Double.pi / 6), accuracy: 1e-15)
        XCTAssertEqual(ImageFrame.angle(rotation: 30_000), Double.pi / 6, accuracy: 1e-15)
    }

    func testOpacityIsClampedOnce() throws {
        func frame(_ opacity: Int) throws -> ImageFrame {
            try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 0, y: 0, width: 10, height: 10, opacity: opacity), transform: page))
        }
        XCTAssertEqual(try frame(700).opacity, 0.7)
        XCTAssertEqual(try frame(700).opacityFloat, Float(700) / 1000)
        XCTAssertEqual(try frame(5000).opacityPermille, 1000)
        XCTAssertEqual(try frame(-3).opacityPermille, 0)
        XCTAssertFalse(try frame(0).isVisible)
        XCTAssertTrue(try frame(1).isVisible)
    }

    func testNoFrameForNothingToDraw() {
        let p = ImagePlacement(asset: "a", x: 0, y: 0, width: 10, height: 10)
        XCTAssertNil(ImageFrame(p, transform: PageTransform(scale: 0, width: 1, height: 1)))
        XCTAssertNil(ImageFrame(p, transform: PageTransform(scale: .infinity, width: 1, height: 1)))
        XCTAssertNil(ImageFrame(ImagePlacement(asset: "a", x: 0, y: 0, width: 0, height: 10), transform: page))
        // Wholly off the image: a frame, but no pixels.
        let off = ImageFrame(ImagePlacement(asset: "a", x: -500, y: 0, width: 100, height: 100), transform: page)
        XCTAssertNotNil(off)
        XCTAssertNil(off?.pixelBounds(width: 100, height: 100))
    }

    func testUnitSquareMatrixMapsTheCorners() throws {
        // The unit square's corners land on the rotated frame's corners, in grid steps.
        let g = 20.0
        for rotation in [0, 30_000, 90_000, -123_456] {
            let f = try XCTUnwrap(ImageFrame(ImagePlacement(asset: "a", x: 300, y: 700, width: 500, height: 200, rotation: rotation), transform: page))
            for yUp in [false, true] {
                let m = f.unitSquareMatrix(perPixel: g, yUp: yUp)
                for (u, v) in [(0.0, 0.0), (1, 0), (0, 1), (1, 1)] {
                    let x = m[0] * u + m[2] * v + m[4], y = m[1] * u + m[3] * v + m[5]
                    // Frame-local position of the image point (u, v): row 0 at the top.
                    let row = yUp ? 1 - v : v
                    let lx = u * f.fw - f.fw / 2, ly = row * f.fh - f.fh / 2
                    let ex = (f.cx + lx * f.cosT - ly * f.sinT) * g, ey = (f.cy + lx * f.sinT + ly * f.cosT) * g
                    XCTAssertEqual(x, ex, accuracy: 1e-9, "\(rotation) \(yUp) \(u),\(v)")
                    XCTAssertEqual(y, ey, accuracy: 1e-9, "\(rotation) \(yUp) \(u),\(v)")
                }
            }
        }
    }

    func testOuterTangentsTouchBothDiscs() throws {
        let p = ShapePiece(x0: 10, y0: 20, r0: 3, x1: 40, y1: 60, r1: 1, f: 1)
        let t = try XCTUnwrap(p.outerTangents(tolerance: 0))
        XCTAssertEqual(t.ux, 0.6, accuracy: 1e-15); XCTAssertEqual(t.uy, 0.8, accuracy: 1e-15)
        for (nx, ny) in [(t.lx, t.ly), (t.rx, t.ry)] {
            XCTAssertEqual(nx * nx + ny * ny, 1, accuracy: 1e-15)
            // n·(c1 − c0) = r0 − r1: the line through c0 + r0·n with normal n touches disc 1.
            XCTAssertEqual(nx * (p.x1 - p.x0) + ny * (p.y1 - p.y0), p.r0 - p.r1, accuracy: 1e-12)
        }
        // Left and right: u × n = +s and −s.
        XCTAssertGreaterThan(t.ux * t.ly - t.uy * t.lx, 0)
        XCTAssertLessThan(t.ux * t.ry - t.uy * t.rx, 0)
    }

    func testNestedDiscsHaveNoTangents() {
        // Same centre; one disc inside the other; touching inside (d = |r1 − r0|).
        XCTAssertNil(ShapePiece(x0: 5, y0: 5, r0: 2, x1: 5, y1: 5, r1: 2, f: 1).outerTangents(tolerance: 0))
        XCTAssertNil(ShapePiece(x0: 0, y0: 0, r0: 5, x1: 1, y1: 1, r1: 1, f: 1).outerTangents(tolerance: 0))
        XCTAssertNil(ShapePiece(x0: 0, y0: 0, r0: 5, x1: 3, y1: 0, r1: 2, f: 1).outerTangents(tolerance: 0))
        XCTAssertNil(ShapePiece(x0: .nan, y0: 0, r0: 1, x1: 3, y1: 0, r1: 1, f: 1).outerTangents(tolerance: 0))
        // Centres 1e-12 apart: tangents by the exact test, none within a tolerance of 1e-9.
        let sliver = ShapePiece(x0: 7, y0: 7, r0: 1, x1: 7 + 1e-12, y1: 7, r1: 1, f: 1)
        XCTAssertNotNil(sliver.outerTangents(tolerance: 0))
        XCTAssertNil(sliver.outerTangents(tolerance: 1e-9))
    }

    func testPointsAndInches() {
        XCTAssertEqual(PageTransform.scale(dpi: 144), 2)
        XCTAssertEqual(PageTransform.dpi(scale: 2), 144)
        XCTAssertEqual(page.dpi, 144)
        XCTAssertEqual(PageTransform.scale(dpi: PageTransform.dpi(scale: 0.37)), 0.37, accuracy: 1e-15)
        XCTAssertEqual(PageTransform.points(8345), 834.5)
        XCTAssertEqual(PageTransform.wholePoints(8345), 835)
        XCTAssertEqual(PageTransform.wholePoints(8344), 834)
        XCTAssertEqual(PageTransform.wholePoints(1), 0)
    }
}
