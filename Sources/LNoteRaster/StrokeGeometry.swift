import LNoteFormat

/// One part of a stroke in pixel space: the convex hull of two discs (a tapered capsule), drawn
/// with a constant opacity factor `f` (tool and thin-stroke factors, not the colour alpha).
///
/// Stored in the form the scanline code evaluates: the hull's slice on a horizontal line is the
/// min/max over its two circles' slices and the two outer tangent segments' crossings, because
/// the hull's boundary is made of exactly those four pieces.
struct Capsule {
    var cx0: Double, cy0: Double, r0: Double   // circle 0: centre, radius
    var cx1: Double, cy1: Double, r1: Double   // circle 1
    // Outer tangent segments as x(y) = xa + (y − ya)·k for y in [ya, yb]; disabled when ya > yb.
    var ya1: Double, yb1: Double, xa1: Double, k1: Double
    var ya2: Double, yb2: Double, xa2: Double, k2: Double
    var yMin: Double, yMax: Double
    var f: Float
    /// Coordinates or slopes too large for the Float scanline path (see CoverageRasterizer).
    var large: Bool = false
}

/// A sample after the thin-stroke rule: radius max(ρ, 0.5), thin factor, pencil factor.
struct EffectiveSample {
    var x: Double, y: Double, r: Double, th: Double, pf: Double, rho: Double
}

/// Samples → capsules in pixel space (lnote-format.md section 6).
///
/// - Coordinates go through Double: x, y span the whole Int32 range and Float would lose the
///   sub-pixel part long before that.
/// - Thin-stroke rule: where ρ = r·s/10 < 0.5 px the radius is 0.5 px and the factor ρ/0.5.
///   A segment whose ρ crosses 0.5 is split there, so each part has a linear radius and a linear
///   thin factor.
/// - Varying factors (thin parts, pencil pressure) are linear along a part; a part is cut into
///   pieces over which the factor changes by at most `factorStep`, each drawn with the factor at
///   its middle. Cutting is exact for the shape: the hull of two discs is the union of the discs
///   with linearly interpolated centre and radius, so the pieces' hulls tile the part's hull.
///   Where pieces overlap, the rasterizer takes the larger factor, which is the spec's
///   "largest value counts" at the granularity of one piece.
/// - Pieces whose bounding box misses the image are dropped here, so nothing later loops over
///   off-image geometry.
enum StrokeGeometry {
    /// Largest change of the opacity factor within one piece (error ≤ half of it, 1/64).
    /// 1/64 was measured too: the exactness statistics barely move (largest error unchanged at
    /// every test scale), while 1/32 leaves a thumbnail's thin handwriting 22 % fewer pieces.
    static let factorStep: Double = 1.0 / 32
    /// Bound on pieces per part: the two factors span at most 0…1 each, so 2/factorStep pieces suffice.
    static let maxPieces = 80
    /// Largest displacement (px, in x, y, radius) of a dropped sample from the simplified path.
    static let shapeTolerance: Double = 0.02
    /// Samples merged into one capsule at most.
    static let maxSpan = 24
    /// Beyond this (px) a capsule's circles are evaluated in Double: Float keeps 1/128 px up to 2^17.
    static let largeCoordinate: Double = 65536
    /// Tangent slopes |dx/dy| beyond this are evaluated in Double (x moves by more than this per row).
    static let largeSlope: Double = 1024

    struct Result {
        var count = 0
        /// True when every capsule has the same factor (pen or highlighter, nowhere thin):
        /// the line union is then a plain interval merge.
        var constantFactor = true
        var yMin = Double.infinity, yMax = -Double.infinity
    }

    static func build(_ stroke: Stroke, scale: Double, originX: Double = 0, width: Int, height: Int,
                      into caps: Scratch<Capsule>, effective eff: Scratch<EffectiveSample>) -> Result {
        var res = Result()
        let n = stroke.sampleCount
        guard n > 0, scale > 0, scale.isFinite else { return res }
        let k = scale / 10
        let pencil = stroke.tool == .pencil
        let W = Double(width), H = Double(height)
        var firstF: Float = -1

        func add(_ x0: Double, _ y0: Double, _ r0: Double, _ x1: Double, _ y1: Double, _ r1: Double, _ f: Float) {
            guard f > 0 else { return }
            let xMin = min(x0 - r0, x1 - r1), xMax = max(x0 + r0, x1 + r1)
            let yMin = min(y0 - r0, y1 - r1), yMax = max(y0 + r0, y1 + r1)
            guard xMax > 0, xMin < W, yMax > 0, yMin < H else { return }
            caps.reserve(res.count + 1, keep: res.count)
            caps.p[res.count] = makeCapsule(x0, y0, r0, x1, y1, r1, f, yMin: yMin, yMax: yMax)
            res.count += 1
            res.yMin = min(res.yMin, yMin); res.yMax = max(res.yMax, yMax)
            if firstF < 0 { firstF = f } else if f != firstF { res.constantFactor = false }
        }

        // Effective samples: radius max(ρ, 0.5), thin factor min(1, ρ/0.5), pencil factor; with
        // a sample inserted wherever ρ crosses 0.5, all three are linear between neighbours.
        var m = 0
        eff.reserve(2 * n)
        stroke.points.withUnsafeBufferPointer { pts in
            let e = eff.p
            func sample(_ i: Int) -> EffectiveSample {
                let b = i * 5
                let pf = pencil ? 0.25 + 0.75 * Double(pts[b + 3]) / 1000 : 1
                let rho = Double(pts[b + 2]) * k
                return EffectiveSample(x: Double(pts[b]) * k - originX, y: Double(pts[b + 1]) * k, r: max(rho, 0.5),
                                       th: min(1, rho / 0.5), pf: pf, rho: rho)
            }
            var prev = sample(0)
            e[0] = prev; m = 1
            for i in 1..<n {
                let cur = sample(i)
                if (prev.rho < 0.5) != (cur.rho < 0.5) {
                    let t = (0.5 - prev.rho) / (cur.rho - prev.rho)
                    if t > 0 && t < 1 {
                        e[m] = EffectiveSample(x: prev.x + (cur.x - prev.x) * t, y: prev.y + (cur.y - prev.y) * t, r: 0.5,
                                               th: 1, pf: prev.pf + (cur.pf - prev.pf) * t, rho: 0.5)
                        m += 1
                    }
                }
                e[m] = cur; m += 1
                prev = cur
            }
        }
        let e = eff.p
        if m == 1 {
            let s = e[0]
            add(s.x, s.y, s.r, s.x, s.y, s.r, Float(s.th * s.pf))
            return res
        }
        var i = 0
        while i < m - 1 {
            let j = farthestReach(e, from: i, count: m)
            emitPart(e[i], e[j], add)
            i = j
        }
        return res
    }

    /// Greedy simplification: the farthest sample j (at most `maxSpan` ahead) such that every
    /// sample between i and j lies within `shapeTolerance` of the straight path from i to j in
    /// (x, y, radius) space, and its factors within `factorStep`/2 of the interpolated ones.
    /// The swept-disc union along a path moves by at most √2 × the path's displacement, so the
    /// shape changes by at most about 0.007 px — a few thousandths of a pixel's coverage — while
    /// dense handwriting samples (a fraction of a pixel apart) collapse into far fewer capsules.
    static func farthestReach(_ e: UnsafeMutablePointer<EffectiveSample>, from i: Int, count m: Int) -> Int {
        var best = i + 1
        var j = i + 2
        let a = e[i]
        while j < m && j - i <= maxSpan {
            let b = e[j]
            let dx = b.x - a.x, dy = b.y - a.y, dr = b.r - a.r
            let len2 = dx * dx + dy * dy + dr * dr
            var ok = true
            for q in (i + 1)..<j {
                let c = e[q]
                let px = c.x - a.x, py = c.y - a.y, pr = c.r - a.r
                let t = len2 > 0 ? min(1, max(0, (px * dx + py * dy + pr * dr) / len2)) : 0
                let ex = px - t * dx, ey = py - t * dy, er = pr - t * dr
                if ex * ex + ey * ey + er * er > shapeTolerance * shapeTolerance
                    || abs(c.th - (a.th + (b.th - a.th) * t)) > factorStep / 2
                    || abs(c.pf - (a.pf + (b.pf - a.pf) * t)) > factorStep / 2 {
                    ok = false
                    break
                }
            }
            if !ok { break }
            best = j
            j += 1
        }
        return best
    }

    /// One simplified segment: cut into pieces of bounded factor change.
    @inline(__always)
    static func emitPart(_ pa: EffectiveSample, _ pb: EffectiveSample,
                         _ add: (Double, Double, Double, Double, Double, Double, Float) -> Void) {
        if pa.th <= 0 && pb.th <= 0 { return }   // a zero-radius run draws nothing
        let variation = abs(pb.th - pa.th) + abs(pb.pf - pa.pf)
        let pieces = min(maxPieces, max(1, Int((variation / factorStep).rounded(.up))))
        let inv = 1 / Double(pieces)
        for q in 0..<pieces {
            let u0 = Double(q) * inv, u1 = Double(q + 1) * inv, um = (u0 + u1) * 0.5
            let f = (pa.th + (pb.th - pa.th) * um) * (pa.pf + (pb.pf - pa.pf) * um)
            add(pa.x + (pb.x - pa.x) * u0, pa.y + (pb.y - pa.y) * u0, pa.r + (pb.r - pa.r) * u0,
                pa.x + (pb.x - pa.x) * u1, pa.y + (pb.y - pa.y) * u1, pa.r + (pb.r - pa.r) * u1, Float(f))
        }
    }

    /// The hull of discs (x0, y0, r0) and (x1, y1, r1) in evaluation form.
    static func makeCapsule(_ x0: Double, _ y0: Double, _ r0: Double, _ x1: Double, _ y1: Double, _ r1: Double,
                            _ f: Float, yMin: Double, yMax: Double) -> Capsule {
        let off = Double.infinity
        let dx = x1 - x0, dy = y1 - y0
        let len = (dx * dx + dy * dy).squareRoot()
        let dr = r1 - r0
        if len <= abs(dr) || len == 0 {
            // One disc contains the other: the hull is the larger disc.
            let (cx, cy, r) = r0 >= r1 ? (x0, y0, r0) : (x1, y1, r1)
            var c = Capsule(cx0: cx, cy0: cy, r0: r, cx1: cx, cy1: cy, r1: r,
                            ya1: off, yb1: -off, xa1: 0, k1: 0, ya2: off, yb2: -off, xa2: 0, k2: 0,
                            yMin: yMin, yMax: yMax, f: f)
            c.large = abs(cx) > largeCoordinate || r > largeCoordinate
            return c
        }
        // Outer tangents: unit normal n with n·(c1 − c0) = r0 − r1, i.e. n = a·u ± b·v.
        let ux = dx / len, uy = dy / len
        let a = -dr / len, b = max(0, 1 - a * a).squareRoot()
        func segment(_ nx: Double, _ ny: Double) -> (Double, Double, Double, Double) {
            let px = x0 + r0 * nx, py = y0 + r0 * ny
            let qx = x1 + r1 * nx, qy = y1 + r1 * ny
            let (tx, ty, bx, by) = py <= qy ? (px, py, qx, qy) : (qx, qy, px, py)
            // A horizontal tangent touches a line only at one y: the circles already give it.
            guard by - ty > 0 else { return (off, -off, 0, 0) }
            return (ty, by, tx, (bx - tx) / (by - ty))
        }
        let s1 = segment(a * ux - b * uy, a * uy + b * ux)
        let s2 = segment(a * ux + b * uy, a * uy - b * ux)
        var c = Capsule(cx0: x0, cy0: y0, r0: r0, cx1: x1, cy1: y1, r1: r1,
                        ya1: s1.0, yb1: s1.1, xa1: s1.2, k1: s1.3, ya2: s2.0, yb2: s2.1, xa2: s2.2, k2: s2.3,
                        yMin: yMin, yMax: yMax, f: f)
        c.large = max(abs(x0), abs(x1), r0, r1) > largeCoordinate || abs(s1.3) > largeSlope || abs(s2.3) > largeSlope
        return c
    }
}
