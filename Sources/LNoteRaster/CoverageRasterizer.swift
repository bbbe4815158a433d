import LNoteFormat

/// Receives a stroke's coverage one pixel row at a time: `coverage[k]` is the area-weighted
/// opacity factor of pixel (x0 + k, row), 0…1 (the colour alpha is not applied yet).
protocol CoverageSink {
    mutating func emit(row: Int, x0: Int, count: Int, coverage: UnsafePointer<Float>)
}

/// Exact-area coverage of one stroke's union, row by row.
///
/// Horizontally the coverage is exact: on a horizontal line the stroke is a union of intervals
/// (one per capsule, in closed form), merged into a piecewise-constant profile g(x) — for varying
/// opacity the upper envelope of the capsules' factors, so overlaps count once, with the larger
/// factor. The profile is kept as breakpoints (x, jump).
///
/// Vertically, each pixel row is integrated adaptively: lines at the band's top, middle and
/// bottom; when the three profiles have the same structure (same number of breakpoints, same
/// jump signs) and every middle breakpoint lies within `tolerance`/h × max(1, |Δx|) of the chord of its
/// neighbours, the band is two trapezoid slabs whose slanted edges are the matched breakpoints'
/// paths — exact for straight edges, and within a small sagitta for arcs. Otherwise the band is
/// halved, down to 1/32 px, where a band that still changes structure (a stroke's top, a merge)
/// falls back to the midpoint rule. Edges go into a per-row accumulator as exact trapezoid areas
/// per pixel column (a difference array: a partial cell and the full height to its right), so
/// one prefix sum gives every pixel's coverage. Cost follows the number of lines actually needed
/// (two per row where the outline is smooth) times the capsules active on the row.
final class CoverageRasterizer {
    struct Interval { var l: Double; var r: Double; var f: Float }
    struct Line { var start: Int; var count: Int }

    /// Allowed distance (px) of a middle breakpoint from its neighbours' chord.
    static let tolerance: Double = 1.0 / 32
    /// Bands are halved at most this often (1 px → 1/32 px).
    static let maxDepth = 5
    /// Adjacent pieces of a varying-opacity profile whose factors differ by at most this are
    /// merged: keeps the structure stable from line to line at a bounded error.
    static let factorMerge: Float = 1.0 / 128
    /// Factor steps inside the union below this are not tracked between lines.
    static let smallStep: Float = 1.0 / 32

    let caps = Scratch<Capsule>()
    private let effective = Scratch<EffectiveSample>()
    private let order = Scratch<Int32>()
    private let bucket = Scratch<Int32>()
    private let active = Scratch<Int32>()
    private let active2 = Scratch<Int32>()
    private let lk = Scratch<Bool>()
    private let ivl = Scratch<Interval>()
    private let levels = Scratch<Float>()
    private let lx = Scratch<Double>()
    private let lw = Scratch<Float>()
    private let acc = Scratch<Float>()
    private let cov = Scratch<Float>()

    private var lineTop = 0
    private var activeCount = 0
    private var width = 0
    private var W = 0.0
    private var constant = true
    private var cMin = 0, cMax = -1

    init() {}

    /// Rasterizes `stroke` at `scale` on a `width` × `height` image, handing each touched row's
    /// coverage to `sink`.
    func rasterize<S: CoverageSink>(_ stroke: Stroke, scale: Double, width: Int, height: Int, sink: inout S) {
        let geo = StrokeGeometry.build(stroke, scale: scale, width: width, height: height, into: caps, effective: effective)
        guard geo.count > 0 else { return }
        self.width = width
        self.W = Double(width)
        self.constant = geo.constantFactor
        acc.reserve(width + 2)
        cov.reserve(width + 1)
        acc.p.update(repeating: 0, count: width + 2)
        cMin = Int.max; cMax = -1

        let rowMin = max(0, Int(geo.yMin.rounded(.down)))
        let rowMax = min(height, Int(geo.yMax.rounded(.up)))   // exclusive
        guard rowMin < rowMax else { return }

        // Counting sort of the capsules by first row, so each row adds its newcomers in O(1).
        let n = geo.count
        let rows = rowMax - rowMin
        bucket.reserve(rows + 1)
        bucket.p.update(repeating: 0, count: rows + 1)
        order.reserve(n)
        active.reserve(n)
        active2.reserve(n)
        for i in 0..<n {
            let s = max(rowMin, Int(caps.p[i].yMin.rounded(.down))) - rowMin
            bucket.p[s + 1] += 1
        }
        for r in 0..<rows { bucket.p[r + 1] += bucket.p[r] }
        for i in 0..<n {
            let s = max(rowMin, Int(caps.p[i].yMin.rounded(.down))) - rowMin
            order.p[Int(bucket.p[s])] = Int32(i)
            bucket.p[s] += 1
        }
        // bucket[r] is now the end of row r's run; runs are consecutive.

        activeCount = 0
        var next = 0
        var haveTop = false
        for j in rowMin..<rowMax {
            let y0 = Double(j)
            // Drop capsules that ended, merge in those that start on this row. The list stays in
            // capsule order (the counting sort is stable), so neighbours along the stroke, whose
            // slices mostly overlap, come one after another in evalLine.
            var k = 0
            for a in 0..<activeCount {
                let c = active.p[a]
                if caps.p[Int(c)].yMax > y0 { active.p[k] = c; k += 1 }
            }
            let end = Int(bucket.p[j - rowMin])
            if next < end {
                var a = 0, o = 0
                let merged = active2.p
                while a < k || next < end {
                    if next >= end || (a < k && active.p[a] < order.p[next]) { merged[o] = active.p[a]; a += 1 }
                    else { merged[o] = order.p[next]; next += 1 }
                    o += 1
                }
                active.p.update(from: merged, count: o)
                k = o
            }
            activeCount = k
            if activeCount == 0 { haveTop = false; continue }

            var top: Line
            if haveTop {
                top = Line(start: 0, count: lineTop)
            } else {
                lineTop = 0
                top = evalLine(y0)
            }
            let bottom = evalLine(y0 + 1)
            integrate(y0, y0 + 1, top, bottom, depth: 0)
            flushRow(j, sink: &sink)
            // The bottom line is the next row's top: move it to the front of the store.
            if bottom.start > 0 && bottom.count > 0 {
                for q in 0..<bottom.count {   // forward copy: safe although the ranges may overlap
                    lx.p[q] = lx.p[bottom.start + q]; lw.p[q] = lw.p[bottom.start + q]; lk.p[q] = lk.p[bottom.start + q]
                }
            }
            lineTop = bottom.count
            haveTop = true
        }
    }

    // MARK: - One horizontal line

    /// The union profile of the active capsules on the line at `y`, pushed onto the line store.
    ///
    /// Capsules come in stroke order and neighbours' slices mostly overlap, so slices are first
    /// gathered into runs (a run absorbs every slice overlapping it whose factor is within
    /// `factorMerge` of the run's first one, taking the larger factor); only the few runs are
    /// sorted and merged.
    private func evalLine(_ y: Double) -> Line {
        ivl.reserve(2 * activeCount + 2)
        var n = 0
        let iv = ivl.p
        var runL = 0.0, runR = 0.0
        var runF: Float = 0, runF0: Float = 0
        var haveRun = false
        let merge = CoverageRasterizer.factorMerge
        let capsP = caps.p, act = active.p
        for a in 0..<activeCount {
            // Field-wise loads through the pointer: copying the whole capsule costs more than
            // the slice itself.
            let c = capsP + Int(act[a])
            if y <= c.pointee.yMin || y >= c.pointee.yMax { continue }
            let d0 = y - c.pointee.cy0, t0 = c.pointee.rr0 - d0 * d0
            let d1 = y - c.pointee.cy1, t1 = c.pointee.rr1 - d1 * d1
            let s0 = max(t0, 0).squareRoot(), s1 = max(t1, 0).squareRoot()
            let cx0 = c.pointee.cx0, cx1 = c.pointee.cx1
            var l = min(t0 > 0 ? cx0 - s0 : .infinity, t1 > 0 ? cx1 - s1 : .infinity)
            var r = max(t0 > 0 ? cx0 + s0 : -.infinity, t1 > 0 ? cx1 + s1 : -.infinity)
            let ya1 = c.pointee.ya1, ya2 = c.pointee.ya2
            if y >= ya1 && y <= c.pointee.yb1 { let x = c.pointee.xa1 + (y - ya1) * c.pointee.k1; l = min(l, x); r = max(r, x) }
            if y >= ya2 && y <= c.pointee.yb2 { let x = c.pointee.xa2 + (y - ya2) * c.pointee.k2; l = min(l, x); r = max(r, x) }
            let cf = c.pointee.f
            if !(l < r) { continue }
            if haveRun && l <= runR && r >= runL && abs(cf - runF0) <= merge {
                runL = min(runL, l); runR = max(runR, r); runF = max(runF, cf)
            } else {
                if haveRun { iv[n] = Interval(l: runL, r: runR, f: runF); n += 1 }
                runL = l; runR = r; runF = cf; runF0 = cf; haveRun = true
            }
        }
        if haveRun { iv[n] = Interval(l: runL, r: runR, f: runF); n += 1 }
        let start = lineTop
        lx.reserve(start + 2 * n + 2, keep: start)
        lw.reserve(start + 2 * n + 2, keep: start)
        lk.reserve(start + 2 * n + 2, keep: start)
        if n == 0 { return Line(start: start, count: 0) }
        for i in 1..<n {   // insertion sort by left end: runs are few
            let v = iv[i]
            var j = i - 1
            while j >= 0 && iv[j].l > v.l { iv[j + 1] = iv[j]; j -= 1 }
            iv[j + 1] = v
        }
        var m = start
        if constant {
            let f = iv[0].f
            var l = iv[0].l, r = iv[0].r
            for i in 1..<n {
                let v = iv[i]
                if v.l <= r { r = max(r, v.r) } else {
                    lx.p[m] = l; lw.p[m] = f; lk.p[m] = true; lx.p[m + 1] = r; lw.p[m + 1] = -f; lk.p[m + 1] = true; m += 2
                    l = v.l; r = v.r
                }
            }
            lx.p[m] = l; lw.p[m] = f; lk.p[m] = true; lx.p[m + 1] = r; lw.p[m + 1] = -f; lk.p[m + 1] = true; m += 2
        } else {
            m = envelope(n, start: start)
        }
        lineTop = m
        return Line(start: start, count: m - start)
    }

    /// Upper envelope of sorted intervals with factors, as breakpoints from `start`; returns the
    /// end index. Sweeps the interval ends in x order keeping the covering factors.
    private func envelope(_ n: Int, start: Int) -> Int {
        // ivl holds the n sorted intervals, then room for n covering ones (reserved by evalLine).
        let iv = ivl.p
        let act = ivl.p + n
        var live = 0
        var m = start
        var cur: Float = 0      // level currently represented by the emitted breakpoints
        var i = 0               // next interval to start
        while i < n || live > 0 {
            // Next event: the smaller of the next start and the earliest covering end.
            var endX = Double.infinity
            for q in 0..<live where act[q].r < endX { endX = act[q].r }
            let x: Double
            if i < n && iv[i].l <= endX {
                x = iv[i].l
                while i < n && iv[i].l == x { act[live] = iv[i]; live += 1; i += 1 }
            } else {
                x = endX
                var q = 0
                while q < live { if act[q].r <= x { act[q] = act[live - 1]; live -= 1 } else { q += 1 } }
            }
            var level: Float = 0
            for q in 0..<live where act[q].f > level { level = act[q].f }
            if level != cur && (level == 0 || cur == 0 || abs(level - cur) > CoverageRasterizer.factorMerge) {
                lx.reserve(m + 1, keep: m); lw.reserve(m + 1, keep: m); lk.reserve(m + 1, keep: m)
                lx.p[m] = x; lw.p[m] = level - cur
                // Edges of the union, and large factor steps, are tracked between lines; small
                // steps inside the union take the midpoint rule (error ≤ step·h/2).
                lk.p[m] = level == 0 || cur == 0 || abs(level - cur) >= CoverageRasterizer.smallStep
                m += 1
                cur = level
            }
        }
        return m
    }

    // MARK: - Vertical integration

    @inline(__always) private func clampX(_ x: Double) -> Double { min(max(x, -1), W + 1) }

    /// Same number of tracked breakpoints with the same jump signs, in order.
    private func sameStructure(_ a: Line, _ b: Line) -> Bool {
        var i = a.start, j = b.start
        let ie = a.start + a.count, je = b.start + b.count
        while true {
            while i < ie && !lk.p[i] { i += 1 }
            while j < je && !lk.p[j] { j += 1 }
            if i == ie || j == je { return i == ie && j == je }
            if (lw.p[i] > 0) != (lw.p[j] > 0) { return false }
            i += 1; j += 1
        }
    }

    private func integrate(_ ya: Double, _ yb: Double, _ a: Line, _ b: Line, depth: Int) {
        if a.count == 0 && b.count == 0 && depth > 0 { return }
        let ym = (ya + yb) * 0.5
        let mark = lineTop
        let m = evalLine(ym)
        defer { lineTop = mark }
        let smooth = sameStructure(a, m) && sameStructure(m, b)
        if smooth && (depth == CoverageRasterizer.maxDepth || isLinear(a, m, b, yb - ya)) {
            slabs(ya, ym, yb, a, m, b)
            return
        }
        if depth == CoverageRasterizer.maxDepth {
            // Structure changes inside a 1/32 px band: midpoint rule.
            for k in 0..<m.count { addEdge(lx.p[m.start + k], ya, lx.p[m.start + k], yb, lw.p[m.start + k]) }
            return
        }
        integrate(ya, ym, a, m, depth: depth + 1)
        integrate(ym, yb, m, b, depth: depth + 1)
    }

    /// Whether the two slabs a→m→b follow the true edges closely enough. The estimate of the
    /// area error one edge makes in a pixel is δ·h/6 (δ: the middle point's distance from the
    /// chord), spread over the columns the edge crosses; near-horizontal edges therefore need
    /// no refinement, steep curved ones do.
    private func isLinear(_ a: Line, _ m: Line, _ b: Line, _ h: Double) -> Bool {
        let tol = CoverageRasterizer.tolerance / h
        var i = a.start, j = m.start, k = b.start
        let ie = a.start + a.count
        while true {
            while i < ie && !lk.p[i] { i += 1 }
            while !lk.p[j] && j < m.start + m.count { j += 1 }
            while !lk.p[k] && k < b.start + b.count { k += 1 }
            if i == ie { return true }
            let xa = clampX(lx.p[i]), xm = clampX(lx.p[j]), xb = clampX(lx.p[k])
            if abs(xm - (xa + xb) * 0.5) > tol * max(1, abs(xb - xa)) { return false }
            if !constant && abs(lw.p[j] - (lw.p[i] + lw.p[k]) * 0.5) > CoverageRasterizer.factorMerge { return false }
            i += 1; j += 1; k += 1
        }
    }

    /// The band [ya, yb] from lines a, m, b of the same tracked structure: each tracked
    /// breakpoint moves linearly from a to m and from m to b; untracked small factor steps are
    /// taken at the middle line for the whole band.
    private func slabs(_ ya: Double, _ ym: Double, _ yb: Double, _ a: Line, _ m: Line, _ b: Line) {
        var i = a.start, k = b.start
        for j in m.start..<(m.start + m.count) {
            let xm = lx.p[j], wm = lw.p[j]
            if !lk.p[j] { addEdge(xm, ya, xm, yb, wm); continue }
            while !lk.p[i] { i += 1 }
            while !lk.p[k] { k += 1 }
            addEdge(lx.p[i], ya, xm, ym, (lw.p[i] + wm) * 0.5)
            addEdge(xm, ym, lx.p[k], yb, (wm + lw.p[k]) * 0.5)
            i += 1; k += 1
        }
    }

    /// Adds the coverage to the right of the straight edge (xa, ya)–(xb, yb), yb > ya, weighted
    /// by `w`: each column the edge crosses gets the exact area right of the edge in it, and
    /// every column further right the full height (via the difference array). The part of the
    /// edge left of the image counts as a vertical edge at x = 0; the part right of it is dropped.
    @inline(__always)
    private func addEdge(_ xa: Double, _ ya: Double, _ xb: Double, _ yb: Double, _ w: Float) {
        let h = yb - ya
        var x0 = min(xa, xb), x1 = max(xa, xb)
        if x0 >= W { return }
        let d = acc.p
        if x1 <= 0 {
            d[0] += w * Float(h)
            cMin = 0; if cMax < 0 { cMax = 0 }
            return
        }
        let span = x1 - x0
        if span < 1e-9 {
            let i = Int(x0), fr = x0 - Double(i)
            let a = Double(w) * h
            d[i] += Float(a * (1 - fr)); d[i + 1] += Float(a * fr)
            if i < cMin { cMin = i }
            if i + 1 > cMax { cMax = i + 1 }
            return
        }
        let dydx = h / span
        if x0 < 0 { d[0] += Float(Double(w) * (-x0) * dydx); x0 = 0 }
        if x1 > W { x1 = W }
        var i = Int(x0)
        let iLast = min(Int(x1), width - 1)
        if i < cMin { cMin = i }
        if iLast + 1 > cMax { cMax = iLast + 1 }
        let wd = Double(w) * dydx
        while i <= iLast {
            let ci = Double(i)
            let xs = max(x0, ci), xe = min(x1, ci + 1)
            if xe > xs {
                let a = wd * (xe - xs)               // w × height of this piece
                let fr = (xs + xe) * 0.5 - ci         // mean x within the column
                d[i] += Float(a * (1 - fr)); d[i + 1] += Float(a * fr)
            }
            i += 1
        }
    }

    /// Prefix-sums the row's accumulator into coverage, hands it to the sink, clears it.
    private func flushRow<S: CoverageSink>(_ row: Int, sink: inout S) {
        guard cMax >= cMin else { cMin = Int.max; cMax = -1; return }
        let lo = cMin
        var hi = min(cMax, width - 1)
        let d = acc.p, o = cov.p
        var s: Float = 0
        if lo <= hi {
            for i in lo...hi {
                s += d[i]
                o[i - lo] = min(max(s, 0), 1)
            }
            // Edges right of the image were dropped, so the shape may run on to the last column.
            if s > 1e-6 && hi < width - 1 {
                let v = min(s, 1)
                for i in (hi + 1)..<width { o[i - lo] = v }
                hi = width - 1
            }
            sink.emit(row: row, x0: lo, count: hi - lo + 1, coverage: o)
        }
        d.advanced(by: lo).update(repeating: 0, count: min(cMax, width + 1) - lo + 1)
        cMin = Int.max; cMax = -1
    }
}
