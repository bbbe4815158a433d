import LNoteBitmap
import LNoteFormat
import LNoteShape

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
    public mutating func drawTemplate(_ background: PageBackground, pageWidth: Int, pageHeight: Int,
                                      transform: PageTransform) {
        paintTemplate(background, pageWidth: pageWidth, pageHeight: pageHeight, transform: transform, base: nil)
    }

    /// The whole background: colour over white, then the template, rounded once per pixel (so a
    /// translucent page colour is not rounded twice where a line crosses it).
    public mutating func drawBackground(_ background: PageBackground, pageWidth: Int, pageHeight: Int,
                                        transform: PageTransform) {
        let base = Compositor.overWhite(background.color)
        fillOpaque(Compositor.round8(base.0), Compositor.round8(base.1), Compositor.round8(base.2))
        paintTemplate(background, pageWidth: pageWidth, pageHeight: pageHeight, transform: transform, base: base)
    }

    /// `drawTemplate` at `scale` pixels per point onto this canvas.
    public mutating func drawTemplate(_ background: PageBackground, pageWidth: Int, pageHeight: Int, scale: Double) {
        drawTemplate(background, pageWidth: pageWidth, pageHeight: pageHeight,
                     transform: PageTransform(scale: scale, width: width, height: height))
    }

    /// `drawBackground` at `scale` pixels per point onto this canvas.
    public mutating func drawBackground(_ background: PageBackground, pageWidth: Int, pageHeight: Int, scale: Double) {
        drawBackground(background, pageWidth: pageWidth, pageHeight: pageHeight,
                       transform: PageTransform(scale: scale, width: width, height: height))
    }

    private mutating func fillOpaque(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        bitmap.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count { p[i] = r; p[i + 1] = g; p[i + 2] = b; p[i + 3] = 255; i += 4 }
        }
    }

    /// Per-row (or per-column) coverage of lines centred on k·spacing for k ≥ 1, k·spacing < limit.
    private static func lineCoverage(count n: Int, spacing: Int, limit: Int, transform t: PageTransform,
                                     columns: Bool) -> [Double] {
        var cov = [Double](repeating: 0, count: n)
        let sp = t.length(Double(spacing))
        let hw = t.length(TemplateGeometry.lineWidth / 2)
        guard sp > 0, hw > 0 else { return cov }
        let kMax = min(TemplateGeometry.lastIndex(spacing: spacing, limit: limit),
                       Int(min((Double(n) + hw) / sp + 1, Double(Int32.max))))
        guard kMax >= 1 else { return cov }
        for k in 1...kMax {
            let c = columns ? t.x(Double(k * spacing)) : t.y(Double(k * spacing))
            let lo = c - hw, hi = c + hw
            if hi <= 0 || lo >= Double(n) { continue }
            let j0 = max(0, Int(lo.rounded(.down))), j1 = min(n - 1, Int(hi.rounded(.down)))
            if j0 > j1 { continue }
            for j in j0...j1 { cov[j] += AreaCoverage.overlap(lo, hi, Double(j), Double(j + 1)) }
        }
        for j in 0..<n { cov[j] = min(cov[j], 1) }
        return cov
    }

    private mutating func paintTemplate(_ bg: PageBackground, pageWidth: Int, pageHeight: Int, transform t: PageTransform,
                                        base: (Float, Float, Float)?) {
        guard TemplateGeometry.hasMarks(bg), t.scale > 0, t.scale.isFinite else { return }
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
                if let base {
                    Compositor.sourceOver(p, sr: lr, sg: lg, sb: lb, a: a, dr: base.0, dg: base.1, db: base.2, da: 255)
                } else {
                    Compositor.sourceOver(p, sr: lr, sg: lg, sb: lb, a: a)
                }
            }
            switch bg.template {
            case .blank:
                break
            case .ruled, .grid:
                let rows = Canvas.lineCoverage(count: h, spacing: bg.spacing, limit: pageHeight, transform: t, columns: false)
                let cols = bg.template == .grid
                    ? Canvas.lineCoverage(count: w, spacing: bg.spacing, limit: pageWidth, transform: t, columns: true)
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
                let sp = t.length(Double(bg.spacing))
                let r = t.length(TemplateGeometry.dotRadius)
                let kMax = min(TemplateGeometry.lastIndex(spacing: bg.spacing, limit: pageWidth),
                               Int(min((Double(w) + r) / sp + 1, Double(Int32.max))))
                let mMax = min(TemplateGeometry.lastIndex(spacing: bg.spacing, limit: pageHeight),
                               Int(min((Double(h) + r) / sp + 1, Double(Int32.max))))
                guard kMax >= 1, mMax >= 1 else { return }
                let kMin = max(1, Int(((-r) / sp).rounded(.down)))
                for m in 1...mMax {
                    let cy = t.y(Double(m * bg.spacing))
                    if cy + r <= 0 || cy - r >= Double(h) { continue }
                    for k in kMin...max(kMin, kMax) where k <= kMax {
                        let cx = t.x(Double(k * bg.spacing))
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
