import LNoteBitmap
import LNoteFormat

/// Page backgrounds (lnote-format.md section 2): a colour composited over white, then ruled
/// lines, a grid or dots in `lineColor`.
///
/// Lines are 0.6 pt wide and centred on k·spacing; their coverage of a pixel is the exact area
/// (row overlap × 1 for a horizontal line). Lines of one direction never overlap each other
/// (spacing ≥ 4 pt), so per row their coverages add; a grid crossing is the union of the two
/// directions, h + v − h·v, covered once. Dots are discs of radius 0.8 pt with exact
/// disc-square areas. The thin-stroke rule does not apply.
extension Canvas {
    /// Fills the whole canvas with `color` composited over white (opaque result).
    public mutating func fill(_ color: Color) {
        let (r, g, b) = Compositor.overWhite(color)
        fillOpaque(Compositor.round8(r), Compositor.round8(g), Compositor.round8(b))
    }

    /// Draws the template lines or dots of `background` (its colour is not painted) onto the
    /// current pixels, source-over in `lineColor`, rounding once.
    public mutating func drawTemplate(_ background: PageBackground, pageWidth: Int, pageHeight: Int, scale: Double) {
        paintTemplate(background, pageWidth: pageWidth, pageHeight: pageHeight, scale: scale, base: nil)
    }

    /// The whole background: colour over white, then the template, rounded once per pixel (so a
    /// translucent page colour is not rounded twice where a line crosses it).
    public mutating func drawBackground(_ background: PageBackground, pageWidth: Int, pageHeight: Int, scale: Double) {
        let base = Compositor.overWhite(background.color)
        fillOpaque(Compositor.round8(base.0), Compositor.round8(base.1), Compositor.round8(base.2))
        paintTemplate(background, pageWidth: pageWidth, pageHeight: pageHeight, scale: scale, base: base)
    }

    private mutating func fillOpaque(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        bitmap.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count { p[i] = r; p[i + 1] = g; p[i + 2] = b; p[i + 3] = 255; i += 4 }
        }
    }

    /// Per-row (or per-column) coverage of lines centred on k·spacing for k ≥ 1, k·spacing < limit.
    private static func lineCoverage(count n: Int, spacing: Int, limit: Int, scale: Double) -> [Double] {
        var cov = [Double](repeating: 0, count: n)
        let sp = Double(spacing) * scale / 10
        let hw = 0.3 * scale                         // half of 0.6 pt, in pixels
        guard sp > 0, hw > 0 else { return cov }
        let kMax = min((limit - 1) / spacing, Int(min((Double(n) + hw) / sp + 1, Double(Int32.max))))
        guard kMax >= 1 else { return cov }
        for k in 1...kMax {
            let c = Double(k * spacing) * scale / 10
            let lo = c - hw, hi = c + hw
            if hi <= 0 || lo >= Double(n) { continue }
            let j0 = max(0, Int(lo.rounded(.down))), j1 = min(n - 1, Int(hi.rounded(.down)))
            if j0 > j1 { continue }
            for j in j0...j1 { cov[j] += AreaCoverage.overlap(lo, hi, Double(j), Double(j + 1)) }
        }
        for j in 0..<n { cov[j] = min(cov[j], 1) }
        return cov
    }

    private mutating func paintTemplate(_ bg: PageBackground, pageWidth: Int, pageHeight: Int, scale: Double,
                                        base: (Float, Float, Float)?) {
        guard bg.template != .blank, bg.spacing > 0, scale > 0, scale.isFinite else { return }
        let w = bitmap.width, h = bitmap.height
        let line = bg.lineColor
        let la = Float(line.a) / 255
        let lr = Float(line.r), lg = Float(line.g), lb = Float(line.b)
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            let px = buf.baseAddress!
            // Source-over of the line colour at opacity la·c onto pixel i; `base` replaces the
            // pixel's (already rounded) value by the exact page colour.
            @inline(__always) func blend(_ i: Int, _ c: Double) {
                let a = la * Float(c)
                if a <= 0 { return }
                let p = px + 4 * i
                let dr: Float, dg: Float, db: Float, da: Float
                if let base { (dr, dg, db, da) = (base.0, base.1, base.2, 255) }
                else { (dr, dg, db, da) = (Float(p[0]), Float(p[1]), Float(p[2]), Float(p[3])) }
                p[0] = Compositor.round8(dr + (lr - dr) * a)
                p[1] = Compositor.round8(dg + (lg - dg) * a)
                p[2] = Compositor.round8(db + (lb - db) * a)
                p[3] = Compositor.round8(da + (255 - da) * a)
            }
            switch bg.template {
            case .blank:
                break
            case .ruled, .grid:
                let rows = Canvas.lineCoverage(count: h, spacing: bg.spacing, limit: pageHeight, scale: scale)
                let cols = bg.template == .grid
                    ? Canvas.lineCoverage(count: w, spacing: bg.spacing, limit: pageWidth, scale: scale)
                    : [Double](repeating: 0, count: w)
                let hitCols = (0..<w).filter { cols[$0] > 0 }
                for j in 0..<h {
                    let hy = rows[j]
                    if hy > 0 {
                        for i in 0..<w { let v = cols[i]; blend(j * w + i, hy + v - hy * v) }
                    } else {
                        for i in hitCols { blend(j * w + i, cols[i]) }
                    }
                }
            case .dots:
                let sp = Double(bg.spacing) * scale / 10
                let r = 0.8 * scale
                let kMax = min((pageWidth - 1) / bg.spacing, Int(min((Double(w) + r) / sp + 1, Double(Int32.max))))
                let mMax = min((pageHeight - 1) / bg.spacing, Int(min((Double(h) + r) / sp + 1, Double(Int32.max))))
                guard kMax >= 1, mMax >= 1 else { return }
                let kMin = max(1, Int(((-r) / sp).rounded(.down)))
                for m in 1...mMax {
                    let cy = Double(m * bg.spacing) * scale / 10
                    if cy + r <= 0 || cy - r >= Double(h) { continue }
                    for k in kMin...max(kMin, kMax) where k <= kMax {
                        let cx = Double(k * bg.spacing) * scale / 10
                        if cx + r <= 0 || cx - r >= Double(w) { continue }
                        let i0 = max(0, Int((cx - r).rounded(.down))), i1 = min(w - 1, Int((cx + r).rounded(.down)))
                        let j0 = max(0, Int((cy - r).rounded(.down))), j1 = min(h - 1, Int((cy + r).rounded(.down)))
                        for j in j0...j1 {
                            for i in i0...i1 {
                                let a = AreaCoverage.discRect(cx: cx, cy: cy, r: r, x0: Double(i), x1: Double(i + 1),
                                                              y0: Double(j), y1: Double(j + 1))
                                blend(j * w + i, min(a, 1))
                            }
                        }
                    }
                }
            }
        }
    }
}
