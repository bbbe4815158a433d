import Foundation
import XCTest
import CRasterKernels
import LNoteBitmap
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
        // Wide enough for a span whose sums pass 2^24 (over 65,793 texels), where the float
        // total depends on how the exact integer blocks are split.
        let width = 70_000
        let row = texels(width, using: &rng)
        for premultiply in [false, true] {
            for _ in 0..<40 {
                var spans: [lnote_axis_span] = [], weights: [Float] = []
                for _ in 0..<Int.random(in: 1...24, using: &rng) {
                    let count = [0, 1, 2, 3, 4, 5, 13, 255, 256, 258, 600, 1300, 69_000][Int.random(in: 0..<13, using: &rng)]
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

// MARK: - Rotated frames: lnote_tile_edges against the Swift it replaced

extension TexelKernelTests {
    func testTileEdgesMatchTheSwiftReference() {
        var rng = SeededRNG(seed: 0xED6E5)
        for round in 0..<60 {
            let w = Int.random(in: 1...300, using: &rng), h = Int.random(in: 1...200, using: &rng)
            let bitmap = Bitmap(width: w, height: h, pixels: texels(w * h, using: &rng), isPremultiplied: false)
            // Some textures span less than all their texels (a DCT-scaled JPEG's last column).
            let span = round % 3 == 0 ? (x: Double(w) - Double.random(in: 0..<1, using: &rng) * 0.9, y: Double(h) - 0.5) : nil
            let texture = ImageTexture(bitmap, span: span.map { (max(0.1, $0.x), max(0.1, $0.y)) }, knownOpaque: round % 2 == 0)
            let angle = Double.random(in: -Double.pi...Double.pi, using: &rng)
            let sx = [0.7, 1.3, 4, 11, 29, 60][Int.random(in: 0..<6, using: &rng)], sy = sx * Double.random(in: 0.8...1.25, using: &rng)
            let ex = SIMD2(cos(angle) * sx, -sin(angle) * sy), ey = SIMD2(sin(angle) * sx, cos(angle) * sy)
            let n = max(1, min(32, Int(192 / max(sx, sy))))
            let q = SIMD2(Double.random(in: -40...(Double(w) + 20), using: &rng), Double.random(in: -40...(Double(h) + 20), using: &rng))
            let ni = Int.random(in: 1...n, using: &rng), nj = Int.random(in: 1...n, using: &rng)
            texture.withTexels { reader in
                EdgeIntegrator.with(reader, ex: ex, ey: ey, tile: n) { integrator in
                    integrator.integrate(corner: q, ni: ni, nj: nj)
                    // The rows integrate held, as it computes them.
                    let c1 = q + Double(ni) * ex, c2 = c1 + Double(nj) * ey, c3 = q + Double(nj) * ey
                    let k0 = max(0, floorInt(min(q.y, c1.y, c2.y, c3.y)))
                    let k1 = min(ceilInt(reader.spanY) - 1, ceilInt(max(q.y, c1.y, c2.y, c3.y)) - 1)
                    let count = max(0, min(integrator.rowCapacity, k1 - k0 + 1))
                    let rows = Array(UnsafeBufferPointer(start: integrator.rows, count: count))
                    let reference = ReferenceEdges(rows: rows, k0: k0, spanX: reader.spanX, spanY: reader.spanY,
                                                   premultiply: reader.premultiply)
                    for b in 0...nj {
                        for a in 0..<ni {
                            let p = q + Double(a) * ex + Double(b) * ey
                            XCTAssertEqual(integrator.h[a + b * n], reference.edge(p, p + ex), "round \(round): h(\(a), \(b))")
                        }
                    }
                    for b in 0..<nj {
                        for a in 0...ni {
                            let p = q + Double(a) * ex + Double(b) * ey
                            XCTAssertEqual(integrator.v[a + b * (n + 1)], reference.edge(p, p + ey), "round \(round): v(\(a), \(b))")
                        }
                    }
                }
            }
        }
    }
}

/// The edge integral as EdgeIntegrator computed it in Swift before the C kernel: the reference.
private struct ReferenceEdges {
    let rows: [lnote_prefix_row], k0: Int, spanX: Double, spanY: Double, premultiply: Bool

    func entry(_ row: lnote_prefix_row, _ c: Int) -> SIMD4<Float> {
        let p = UnsafeRawPointer(row.base + 4 * (c - row.first_column)).loadUnaligned(as: SIMD4<UInt32>.self)
        if premultiply { return unsafeBitCast(p, to: SIMD4<Float>.self) }
        return SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: p))
    }

    func f(_ row: lnote_prefix_row, _ x: Double) -> SIMD4<Float> {
        guard row.last_column >= 0, row.last > row.first else { return SIMD4() }
        let xc = min(max(x, row.first), row.last)
        let c = min(Int(xc), row.last_column)
        let p0 = entry(row, c)
        return p0 + (entry(row, c + 1) - p0) * Float(xc - Double(c))
    }

    func edge(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> SIMD4<Float> {
        let count = rows.count
        let dy = b.y - a.y
        guard dy != 0, count > 0 else { return SIMD4() }
        let ylo = max(min(a.y, b.y), Double(k0)), yhi = min(max(a.y, b.y), Double(k0 + count), spanY)
        guard ylo < yhi else { return SIMD4() }
        let slope = (b.x - a.x) / dy
        var total = SIMD4<Float>()
        var y0 = ylo
        var r = min(count - 1, floorInt(ylo) - k0)
        while y0 < yhi && r < count {
            let row = rows[r]
            let y1 = min(Double(k0 + r + 1), yhi)
            let x0 = a.x + (y0 - a.y) * slope, x1 = a.x + (y1 - a.y) * slope
            let height = y1 - y0
            let lo = min(x0, x1), hi = max(x0, x1)
            let cell = floorInt(lo)
            if Double(cell + 1) >= hi || hi - lo < 1e-12 {
                total += f(row, (lo + hi) / 2) * Float(height)
            } else if lo >= row.first && hi <= row.last {
                let perX = height / (hi - lo)
                let c1 = floorInt(hi)
                var piece = f(row, (lo + Double(cell + 1)) / 2) * Float((Double(cell + 1) - lo) * perX)
                if hi > Double(c1) { piece += f(row, (Double(c1) + hi) / 2) * Float((hi - Double(c1)) * perX) }
                if c1 > cell + 1 {
                    var inner = (entry(row, cell + 1) + entry(row, c1)) * 0.5
                    var c = cell + 2
                    while c < c1 { inner += entry(row, c); c += 1 }
                    piece += inner * Float(perX)
                }
                total += piece
            } else {
                let perX = height / (hi - lo)
                var p = lo, next = Double(cell + 1)
                while p < hi {
                    var end = min(hi, next)
                    if p < spanX && spanX < end { end = spanX }
                    total += f(row, (p + end) / 2) * Float((end - p) * perX)
                    if end == next { next += 1 }
                    p = end
                }
            }
            y0 = y1; r += 1
        }
        return dy > 0 ? total : -total
    }
}

private extension SIMD4 {
    func map<T: SIMDScalar>(_ f: (Scalar) -> T) -> SIMD4<T> { SIMD4<T>(f(self[0]), f(self[1]), f(self[2]), f(self[3])) }
}
