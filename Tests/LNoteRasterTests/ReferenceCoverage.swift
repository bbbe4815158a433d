// An independent, slow, obviously-correct reference for a stroke's coverage, written from the
// spec's words (lnote-format.md section 6), sharing no code with the rasterizer.
//
// The shape: every sample i is a disc; every consecutive pair sweeps the discs with linearly
// interpolated centre and radius between them (that sweep is exactly the convex hull of the two
// discs). Thin rule: the swept radius is max(ρ, 0.5) and the factor min(1, ρ/0.5), ρ interpolated;
// the pencil factor 0.25 + 0.75·p/1000 with p interpolated. A point's value is the largest factor
// of any swept disc containing it ("where parts overlap, the larger value counts"), 0 outside.
// A pixel's coverage is the mean of that value over a 377-point Fibonacci lattice in the pixel
// (all sample y values distinct, so axis-aligned edges are resolved to 1/377, unlike an n×n grid).

import LNoteFormat

struct ReferencePart {
    // Along-axis coordinate s ∈ [0, len] from centre A; radius R(s) = ra + k·s.
    var ax: Double, ay: Double, ux: Double, uy: Double, len: Double
    var ra: Double, rb: Double, k: Double
    // Factor at parameter t = s/len: (thA + dTh·t)·(pA + dP·t).
    var thA: Double, dTh: Double, pA: Double, dP: Double
    var minX: Double, maxX: Double, minY: Double, maxY: Double
    var constantFactor: Bool

    func factor(_ t: Double) -> Double { (thA + dTh * t) * (pA + dP * t) }

    /// Largest factor among the swept discs that contain (qx, qy), or −1 when none does.
    func value(_ qx: Double, _ qy: Double) -> Double {
        let ex = qx - ax, ey = qy - ay
        if len == 0 {
            // Concentric discs: those with R(t) ≥ distance contain the point.
            let dist = (ex * ex + ey * ey).squareRoot()
            var best = -1.0
            var cands: [Double] = [0, 1]
            if rb != ra { cands.append((dist - ra) / (rb - ra)) }
            for t in cands where t >= 0 && t <= 1 && ra + (rb - ra) * t >= dist - 1e-12 {
                best = max(best, factor(t))
            }
            return best
        }
        // Foot of the perpendicular at s* along the axis, distance p from it (stable for huge
        // coordinates: no squared large numbers are subtracted).
        let sStar = ex * ux + ey * uy
        let p = abs(ex * uy - ey * ux)
        let rStar = ra + k * sStar
        // g(σ) = p² + σ² − (R* + kσ)², σ = s − s*: inside where g ≤ 0.
        func g(_ sigma: Double) -> Double {
            let r = rStar + k * sigma
            return p * p + sigma * sigma - r * r
        }
        // Candidate σ values: the segment's ends, the roots of g, the factor's vertex. Between
        // consecutive candidates g keeps its sign and the factor is monotone, so the largest
        // factor over the inside set is at a candidate.
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 6) { sig in
            var n = 0
            let lo = -sStar, hi = len - sStar
            func push(_ v: Double) { if v >= lo && v <= hi { sig[n] = v; n += 1 } }
            push(lo); push(hi)
            let qa = 1 - k * k, qb = -2 * rStar * k, qc = p * p - rStar * rStar
            if abs(qa) > 1e-15 {
                let disc = qb * qb - 4 * qa * qc
                if disc >= 0 {
                    let sq = disc.squareRoot()
                    push((-qb - sq) / (2 * qa)); push((-qb + sq) / (2 * qa))
                }
            } else if qb != 0 {
                push(-qc / qb)
            }
            let a2 = dTh * dP
            if a2 != 0 { push((-(thA * dP + pA * dTh) / (2 * a2)) * len - sStar) }
            for i in 1..<n {   // insertion sort
                let v = sig[i]; var j = i - 1
                while j >= 0 && sig[j] > v { sig[j + 1] = sig[j]; j -= 1 }
                sig[j + 1] = v
            }
            var best = -1.0
            let tol = 1e-9 * max(1, rStar * rStar)
            for i in 0..<n {
                let s = sig[i]
                if g(s) <= tol { best = max(best, factor((s + sStar) / len)) }
                if i + 1 < n {
                    let s2 = sig[i + 1]
                    if g((s + s2) * 0.5) <= 0 {
                        best = max(best, factor((s + sStar) / len), factor((s2 + sStar) / len))
                    }
                }
            }
            return best
        }
    }
}

enum ReferenceCoverage {
    static func parts(_ stroke: Stroke, scale: Double) -> [ReferencePart] {
        let n = stroke.sampleCount
        let k = scale / 10
        let pts = stroke.points
        func sample(_ i: Int) -> (x: Double, y: Double, rho: Double, pf: Double) {
            let pf = stroke.tool == .pencil ? 0.25 + 0.75 * Double(pts[5 * i + 3]) / 1000 : 1
            return (Double(pts[5 * i]) * k, Double(pts[5 * i + 1]) * k, Double(pts[5 * i + 2]) * k, pf)
        }
        var out: [ReferencePart] = []
        func add(_ a: (x: Double, y: Double, rho: Double, pf: Double), _ b: (x: Double, y: Double, rho: Double, pf: Double)) {
            let thin = (a.rho + b.rho) / 2 < 0.5
            let ra = thin ? 0.5 : a.rho, rb = thin ? 0.5 : b.rho
            let thA = thin ? a.rho / 0.5 : 1, thB = thin ? b.rho / 0.5 : 1
            if thA <= 0 && thB <= 0 { return }
            let dx = b.x - a.x, dy = b.y - a.y
            let len = (dx * dx + dy * dy).squareRoot()
            let ux = len > 0 ? dx / len : 1, uy = len > 0 ? dy / len : 0
            out.append(ReferencePart(
                ax: a.x, ay: a.y, ux: ux, uy: uy, len: len, ra: ra, rb: rb, k: len > 0 ? (rb - ra) / len : 0,
                thA: thA, dTh: thB - thA, pA: a.pf, dP: b.pf - a.pf,
                minX: min(a.x - ra, b.x - rb), maxX: max(a.x + ra, b.x + rb),
                minY: min(a.y - ra, b.y - rb), maxY: max(a.y + ra, b.y + rb),
                constantFactor: thA == thB && a.pf == b.pf))
        }
        if n == 1 { let s = sample(0); add(s, s); return out }
        for i in 0..<(n - 1) {
            let a = sample(i), b = sample(i + 1)
            if (a.rho < 0.5) != (b.rho < 0.5) {
                let t = (0.5 - a.rho) / (b.rho - a.rho)
                let m = (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, 0.5, a.pf + (b.pf - a.pf) * t)
                add(a, m); add(m, b)
            } else {
                add(a, b)
            }
        }
        return out
    }

    static let latticeN = 377, latticeG = 233

    /// a·c per pixel of a `width` × `height` image (colour alpha included).
    static func mask(_ stroke: Stroke, scale: Double, width: Int, height: Int) -> [Float] {
        let parts = parts(stroke, scale: scale)
        var mask = [Float](repeating: 0, count: width * height)
        let alpha = Double(stroke.color.a) / 255
        var lattice: [(Double, Double)] = []
        for i in 0..<latticeN {
            let x = (Double(i) + 0.5) / Double(latticeN)
            var y = Double(i * latticeG % latticeN) / Double(latticeN) + 0.5 / Double(latticeN)
            y = y - y.rounded(.down)
            lattice.append((x, y))
        }
        let uniform = parts.allSatisfy { $0.constantFactor } && Set(parts.map { $0.factor(0) }).count <= 1
        var rowParts: [ReferencePart] = [], cand: [ReferencePart] = []
        for j in 0..<height {
            let y0 = Double(j)
            rowParts.removeAll(keepingCapacity: true)
            for p in parts where p.maxY > y0 && p.minY < y0 + 1 { rowParts.append(p) }
            if rowParts.isEmpty { continue }
            for i in 0..<width {
                let x0 = Double(i)
                cand.removeAll(keepingCapacity: true)
                for p in rowParts where p.maxX > x0 && p.minX < x0 + 1 { cand.append(p) }
                if cand.isEmpty { continue }
                if uniform {
                    // A convex part holding all four corners holds the whole pixel.
                    let f = cand[0].factor(0)
                    if cand.contains(where: { p in
                        p.value(x0, y0) >= 0 && p.value(x0 + 1, y0) >= 0 && p.value(x0, y0 + 1) >= 0 && p.value(x0 + 1, y0 + 1) >= 0
                    }) {
                        mask[j * width + i] = Float(f * alpha)
                        continue
                    }
                }
                var sum = 0.0
                for (lx, ly) in lattice {
                    var best = 0.0
                    for p in cand { best = max(best, p.value(x0 + lx, y0 + ly)) }
                    sum += best
                }
                mask[j * width + i] = Float(sum / Double(latticeN) * alpha)
            }
        }
        return mask
    }
}
