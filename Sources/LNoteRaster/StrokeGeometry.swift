import LNoteFormat

/// One part of a stroke in pixel space: the convex hull of two discs (a tapered capsule), drawn
/// with a constant opacity factor `f` (tool and thin-stroke factors, not the colour alpha).
///
/// Stored in the form the scanline code evaluates: the hull's slice on a horizontal line is the
/// min/max over its two circles' slices and the two outer tangent segments' crossings, because
/// the hull's boundary is made of exactly those four pieces.
struct Capsule {
    var cx0: Double, cy0: Double, rr0: Double   // circle 0: centre, radius squared
    var cx1: Double, cy1: Double, rr1: Double   // circle 1
    // Outer tangent segments as x(y) = xa + (y − ya)·k for y in [ya, yb]; disabled when ya > yb.
    var ya1: Double, yb1: Double, xa1: Double, k1: Double
    var ya2: Double, yb2: Double, xa2: Double, k2: Double
    var yMin: Double, yMax: Double
    var f: Float
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
    /// Largest change of the opacity factor within one piece (error ≤ half of it).
    static let factorStep: Double = 1.0 / 64
    /// Bound on pieces per part: a factor spans at most 0…1, so 1/factorStep pieces suffice.
    static let maxPieces = 80

    struct Result {
        var count = 0
        /// True when every capsule has the same factor (pen or highlighter, nowhere thin):
        /// the line union is then a plain interval merge.
        var constantFactor = true
        var yMin = Double.infinity, yMax = -Double.infinity
    }

    static func build(_ stroke: Stroke, scale: Double, width: Int, height: Int, into caps: Scratch<Capsule>) -> Result {
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

        stroke.points.withUnsafeBufferPointer { pts in
            @inline(__always) func sample(_ i: Int) -> (x: Double, y: Double, rho: Double, pf: Double) {
                let b = i * 5
                let pf = pencil ? 0.25 + 0.75 * Double(pts[b + 3]) / 1000 : 1
                return (Double(pts[b]) * k, Double(pts[b + 1]) * k, Double(pts[b + 2]) * k, pf)
            }
            if n == 1 {
                let s = sample(0)
                add(s.x, s.y, max(s.rho, 0.5), s.x, s.y, max(s.rho, 0.5), Float(min(1, s.rho / 0.5) * s.pf))
                return
            }
            var a = sample(0)
            for i in 1..<n {
                let b = sample(i)
                defer { a = b }
                // Split where ρ crosses 0.5 so each part has one radius rule.
                var cuts: (Double, Double, Double) = (0, 1, 1)
                var partCount = 1
                if (a.rho < 0.5) != (b.rho < 0.5) {
                    let t = (0.5 - a.rho) / (b.rho - a.rho)
                    cuts = (0, t, 1); partCount = 2
                }
                for part in 0..<partCount {
                    let ta = part == 0 ? cuts.0 : cuts.1
                    let tb = part == 0 ? (partCount == 1 ? cuts.2 : cuts.1) : cuts.2
                    if tb <= ta { continue }
                    @inline(__always) func at(_ t: Double) -> (x: Double, y: Double, rho: Double, pf: Double) {
                        (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.rho + (b.rho - a.rho) * t, a.pf + (b.pf - a.pf) * t)
                    }
                    let pa = at(ta), pb = at(tb)
                    let thin = (pa.rho + pb.rho) * 0.5 < 0.5
                    let thA = thin ? pa.rho / 0.5 : 1, thB = thin ? pb.rho / 0.5 : 1
                    let rA = thin ? 0.5 : pa.rho, rB = thin ? 0.5 : pb.rho
                    if thA <= 0 && thB <= 0 { continue }   // a zero-radius run draws nothing
                    let variation = abs(thB - thA) + abs(pb.pf - pa.pf)
                    let pieces = min(maxPieces, max(1, Int((variation / factorStep).rounded(.up))))
                    let inv = 1 / Double(pieces)
                    for q in 0..<pieces {
                        let u0 = Double(q) * inv, u1 = Double(q + 1) * inv, um = (u0 + u1) * 0.5
                        let f = (thA + (thB - thA) * um) * (pa.pf + (pb.pf - pa.pf) * um)
                        add(pa.x + (pb.x - pa.x) * u0, pa.y + (pb.y - pa.y) * u0, rA + (rB - rA) * u0,
                            pa.x + (pb.x - pa.x) * u1, pa.y + (pb.y - pa.y) * u1, rA + (rB - rA) * u1, Float(f))
                    }
                }
            }
        }
        return res
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
            return Capsule(cx0: cx, cy0: cy, rr0: r * r, cx1: cx, cy1: cy, rr1: r * r,
                           ya1: off, yb1: -off, xa1: 0, k1: 0, ya2: off, yb2: -off, xa2: 0, k2: 0,
                           yMin: yMin, yMax: yMax, f: f)
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
        return Capsule(cx0: x0, cy0: y0, rr0: r0 * r0, cx1: x1, cy1: y1, rr1: r1 * r1,
                       ya1: s1.0, yb1: s1.1, xa1: s1.2, k1: s1.3, ya2: s2.0, yb2: s2.1, xa2: s2.2, k2: s2.3,
                       yMin: yMin, yMax: yMax, f: f)
    }
}
