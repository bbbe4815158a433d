import XCTest
import CRasterKernels
@testable import LNoteRaster
import LNoteTestSupport

/// The image filter's C kernels (CRasterKernels/texel_sums.c) against plain Swift formulas,
/// bit for bit: the texel-row prefix sums of rotated frames and the row sums of upright ones.
final class TexelKernelTests: XCTestCase {
    /// Random RGBA8 texels: alpha 0, 255 or between, colour at most alpha or anything.
    func texels(_ count: Int, using rng: inout SeededRNG) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 4 * count)
        for i in 0..<count {
            let alpha = [0, 255, UInt8.random(in: 1...254, using: &rng)][Int.random(in: 0..<3, using: &rng)]
            for c in 0..<3 { out[4 * i + c] = UInt8.random(in: 0...255, using: &rng) }
            out[4 * i + 3] = alpha
        }
        return out
    }

    /// A texel as the filter reads it: its bytes, times a · (1/255) when premultiplied (alpha kept).
    func texel(_ bytes: [UInt8], _ i: Int, premultiply: Bool) -> SIMD4<Float> {
        let v = SIMD4<Float>(Float(bytes[4 * i]), Float(bytes[4 * i + 1]), Float(bytes[4 * i + 2]), Float(bytes[4 * i + 3]))
        guard premultiply else { return v }
        let m = v[3] * (1 / 255)
        return SIMD4(v[0] * m, v[1] * m, v[2] * m, v[3])
    }

    func testPrefixSumsMatchARunningSum() {
        var rng = SeededRNG(seed: 0x7E7E1)
        for count in [0, 1, 3, 4, 5, 7, 64, 257, 1001] {
            let row = texels(count, using: &rng)
            let next = texels(count, using: &rng)
            var ints = [UInt32](repeating: 0xDEAD, count: 4 * (count + 1))
            var floats = [Float](repeating: .nan, count: 4 * (count + 1))
            row.withUnsafeBufferPointer { r in
                next.withUnsafeBufferPointer { n in
                    lnote_prefix_rgba8(r.baseAddress, Int32(count), &ints, n.baseAddress)
                    lnote_prefix_rgba8_premultiplied(r.baseAddress, Int32(count), &floats, nil)
                }
            }
            var exact = SIMD4<UInt32>(), running = SIMD4<Float>()
            for c in 0...count {
                if c > 0 {
                    exact &+= texel(row, c - 1, premultiply: false).map { UInt32($0) }
                    running += texel(row, c - 1, premultiply: true)
                }
                for k in 0..<4 {
                    XCTAssertEqual(ints[4 * c + k], exact[k], "count \(count), entry \(c), channel \(k)")
                    XCTAssertEqual(floats[4 * c + k].bitPattern, running[k].bitPattern, "count \(count), entry \(c), channel \(k)")
                }
            }
        }
    }

    func testAreaRowMatchesPixelByPixelSums() {
        var rng = SeededRNG(seed: 0xA4EA)
        let width = 1400
        let row = texels(width, using: &rng)
        for premultiply in [false, true] {
            for _ in 0..<40 {
                var spans: [lnote_axis_span] = [], weights: [Float] = []
                for _ in 0..<Int.random(in: 1...24, using: &rng) {
                    let count = [0, 1, 2, 3, 4, 5, 13, 255, 256, 258, 600, 1300][Int.random(in: 0..<12, using: &rng)]
                    let first = Int.random(in: 0...(width - count), using: &rng)
                    let coverage = [0, 0.5, 1, Double.random(in: 0...1, using: &rng)][Int.random(in: 0..<4, using: &rng)]
                    spans.append(lnote_axis_span(first: first, count: count, offset: weights.count, coverage: coverage))
                    for _ in 0..<count { weights.append(Float.random(in: 0...1, using: &rng)) }
                }
                weights.append(0)
                let wy = Float.random(in: 0...1, using: &rng)
                let start: [Float] = (0..<(4 * spans.count)).map { _ in Float.random(in: 0...1000, using: &rng) }
                var sums = start
                row.withUnsafeBufferPointer { r in
                    lnote_area_row(r.baseAddress, spans, weights, Int32(spans.count), wy, premultiply ? 1 : 0, &sums)
                }
                for (a, s) in spans.enumerated() {
                    var expected = SIMD4(start[4 * a], start[4 * a + 1], start[4 * a + 2], start[4 * a + 3])
                    if s.coverage > 0 {
                        let w = Array(weights[s.offset...])
                        var line = SIMD4<Float>()
                        if s.count >= 3 {
                            let last = s.first + s.count - 1
                            var mid = SIMD4<Float>()
                            if premultiply {
                                for x in (s.first + 1)..<last { mid += texel(row, x, premultiply: true) }
                            } else {
                                // Exact integer sums of blocks of 256 texels from the first, each added as a float.
                                for block in stride(from: s.first + 1, to: last, by: 256) {
                                    var exact = SIMD4<UInt32>()
                                    for x in block..<min(last, block + 256) {
                                        exact &+= texel(row, x, premultiply: false).map { UInt32($0) }
                                    }
                                    mid += exact.map { Float($0) }
                                }
                            }
                            line = w[0] * texel(row, s.first, premultiply: premultiply) + w[1] * mid
                                + w[s.count - 1] * texel(row, last, premultiply: premultiply)
                        } else {
                            for i in 0..<s.count { line += w[i] * texel(row, s.first + i, premultiply: premultiply) }
                        }
                        expected += wy * line
                    }
                    for k in 0..<4 {
                        XCTAssertEqual(sums[4 * a + k].bitPattern, expected[k].bitPattern,
                                       "premultiply \(premultiply), span \(s), channel \(k): \(sums[4 * a + k]) vs \(expected[k])")
                    }
                }
            }
        }
    }
}

private extension SIMD4 {
    func map<T: SIMDScalar>(_ f: (Scalar) -> T) -> SIMD4<T> { SIMD4<T>(f(self[0]), f(self[1]), f(self[2]), f(self[3])) }
}
