import XCTest
import LNoteFormat
@testable import LNoteRaster

final class DebugTests: XCTestCase {
    func testDebugHuge() {
        let scale = 1.0
        let stroke = strokeFromPixels([(8 + 1000, 8, 1000 + 0.4, 500)], scale: scale)
        let size = 16
        let fast = Canvas.coverageMask(stroke, scale: scale, width: size, height: size)
        let ref = ReferenceCoverage.mask(stroke, scale: scale, width: size, height: size)
        for j in stride(from: 0, to: size, by: 3) {
            print((0..<size).map { String(format: "%.2f/%.2f", fast[j * size + $0], ref[j * size + $0]) }.joined(separator: " "))
        }
    }
}
