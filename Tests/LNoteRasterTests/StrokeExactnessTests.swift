import XCTest
import LNoteFormat
@testable import LNoteRaster
import LNoteTestSupport

/// The fast rasterizer's per-stroke coverage against the supersampled reference.
final class StrokeExactnessTests: XCTestCase {
    func check(scale: Double, seed: UInt64, perKind: Int = 2) -> ErrorStats {
        var rng = SeededRNG(seed: seed)
        let size = 40
        var total = ErrorStats()
        for kind in StrokeKind.allCases {
            var stats = ErrorStats()
            for _ in 0..<perKind {
                let stroke = randomStroke(kind, rng: &rng, scale: scale, size: Double(size))
                let fast = Canvas.coverageMask(stroke, scale: scale, width: size, height: size)
                let ref = ReferenceCoverage.mask(stroke, scale: scale, width: size, height: size)
                stats.add(fast: fast, reference: ref)
                total.add(fast: fast, reference: ref)
            }
            print("scale \(scale) \(kind): \(stats)")
        }
        print("scale \(scale) ALL: \(total)")
        return total
    }

    func assertWithinBar(_ s: ErrorStats, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThan(s.touched, 1000, file: file, line: line)
        XCTAssertLessThanOrEqual(s.mean, 0.005, "mean error", file: file, line: line)
        XCTAssertLessThanOrEqual(s.fractionOver32, 0.01, "share of pixels off by more than 1/32", file: file, line: line)
        XCTAssertLessThanOrEqual(s.maxErr, 1.0 / 16, "largest error", file: file, line: line)
    }

    func testScale025() { assertWithinBar(check(scale: 0.25, seed: 5)) }
    func testScale038() { assertWithinBar(check(scale: 0.38, seed: 1)) }
    func testScale1() { assertWithinBar(check(scale: 1, seed: 2)) }
    func testScale2() { assertWithinBar(check(scale: 2, seed: 3)) }
    func testScale137() { assertWithinBar(check(scale: 1.37, seed: 4)) }
}
