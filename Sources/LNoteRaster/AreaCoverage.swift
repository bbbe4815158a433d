import Glibc

/// Exact areas used by the background and by tests.
enum AreaCoverage {
    /// Length of the overlap of [a0, a1] and [b0, b1] (0 when disjoint).
    @inline(__always)
    static func overlap(_ a0: Double, _ a1: Double, _ b0: Double, _ b1: Double) -> Double {
        max(0, min(a1, b1) - max(a0, b0))
    }

    /// Area of the disc (cx, cy, r) inside the rectangle [x0, x1] × [y0, y1], in closed form.
    ///
    /// Integrates the vertical chord clipped to [y0, y1] over x. The clipped chord length is
    /// (y1 or cy + s) − (y0 or cy − s) with s = √(r² − u²), u = x − cx; which alternative holds
    /// changes only where s = |y1 − cy| or s = |y0 − cy|, so between those breakpoints the
    /// integrand is a constant plus 0, 1 or 2 times s, whose antiderivative is known.
    static func discRect(cx: Double, cy: Double, r: Double, x0: Double, x1: Double, y0: Double, y1: Double) -> Double {
        guard r > 0 else { return 0 }
        let ua = max(x0 - cx, -r), ub = min(x1 - cx, r)
        guard ub > ua, y1 > y0 else { return 0 }
        var bp = [ua, ub]
        for e in [y1 - cy, y0 - cy] where abs(e) < r {
            let w = (r * r - e * e).squareRoot()
            for u in [-w, w] where u > ua && u < ub { bp.append(u) }
        }
        bp.sort()
        let r2 = r * r
        func g(_ u: Double) -> Double {   // ∫ √(r² − u²) du
            let uc = min(max(u, -r), r)
            return 0.5 * (uc * max(0, r2 - uc * uc).squareRoot() + r2 * asin(uc / r))
        }
        var area = 0.0
        for k in 0..<(bp.count - 1) {
            let a = bp[k], b = bp[k + 1]
            guard b > a else { continue }
            let um = 0.5 * (a + b)
            let s = max(0, r2 - um * um).squareRoot()
            let hiConst = y1 < cy + s, loConst = y0 > cy - s
            let hi = hiConst ? y1 : cy + s, lo = loConst ? y0 : cy - s
            guard hi > lo else { continue }
            let constant = (hiConst ? y1 : cy) - (loConst ? y0 : cy)
            let sCount = (hiConst ? 0.0 : 1.0) + (loConst ? 0.0 : 1.0)
            area += constant * (b - a) + sCount * (g(b) - g(a))
        }
        return max(0, area)
    }
}
