import Glibc
import LNoteFormat
import LNoteShape

/// How a vector file writes numbers and paths. Both writers put coordinates on one integer grid
/// (`VectorGrid.perPixel` steps per reference pixel) so a content stream holds short integers,
/// never decimals: "12345" instead of "617.25", which is also what Flate compresses best.
public enum VectorGrid {
    /// The reference scale (pixels per point) at which the pixel-scale rules of spec §6 — the
    /// thin-stroke rule — are applied in a vector file: 2 px/pt, 144 dpi, the PNG export's
    /// default. A vector page therefore equals the default PNG export when viewed at 144 dpi,
    /// and at any other size it is the same geometry scaled (a stroke whose radius is below
    /// 0.25 pt is drawn 0.25 pt wide and fainter, as it is at 144 dpi).
    public static let referenceScale: Double = 2
    /// Grid steps per reference pixel: 1/40 pt, half of which (0.0125 pt = 0.025 px at 144 dpi)
    /// is the largest rounding error of a coordinate.
    public static let perPixel: Double = 20
    /// The transform a vector page is drawn with: page units → reference pixels. The one
    /// place it is built; the backends use the transform `beginPage` is given.
    public static func transform(for entry: PageEntry) -> PageTransform {
        PageTransform(pageWidth: entry.width, pageHeight: entry.height, scale: referenceScale)
    }

    /// `v` reference pixels on the grid.
    @inline(__always) static func grid(_ v: Double) -> Int {
        let g = (v * perPixel).rounded()
        return Int(max(min(g, 2e15), -2e15))
    }
}

/// Appends ASCII numbers to a byte buffer without going through `String`.
struct NumberText {
    /// An integer in decimal, appended in one step (digits are formed back to front in a
    /// stack buffer): most of a vector file is these.
    @inline(__always) static func int(_ v: Int, into out: inout [UInt8]) {
        var n = v.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { d in
            var k = 24
            repeat { k -= 1; d[k] = UInt8(truncatingIfNeeded: n % 10) &+ 0x30; n /= 10 } while n > 0
            if v < 0 { k -= 1; d[k] = 0x2D }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: d[k...]))
        }
    }

    /// A value in 0…1 with three decimals ("0", "1", ".5", ".125"): opacities and grey levels.
    static func unit(_ v: Double, into out: inout [UInt8]) {
        let m = Int((min(max(v, 0), 1) * 1000).rounded())
        if m == 0 { out.append(0x30); return }
        if m == 1000 { out.append(0x31); return }
        decimals(m, digits: 3, into: &out)
    }

    /// The colour component `c`/255 in the fewest decimals (at most three) whose value times 255
    /// lies in [c + 0.05, c + 0.45]: a viewer that rounds and one that truncates both get the
    /// byte back. The nearest three-decimal value is not enough — MuPDF truncates, so ".992"
    /// (252.96) came out 252 where poppler and PDFium give 253, a paper of #FFFDF5 one level
    /// darker over the whole page.
    static func component(_ c: UInt8, into out: inout [UInt8]) {
        if c == 0 { out.append(0x30); return }
        if c == 255 { out.append(0x31); return }
        var scale = 10
        for digits in 1...3 {
            let lo = ((Double(c) + 0.05) / 255 * Double(scale)).rounded(.up)
            if lo <= (Double(c) + 0.45) / 255 * Double(scale) || digits == 3 {
                decimals(Int(lo), digits: digits, into: &out)
                return
            }
            scale *= 10
        }
    }

    /// A real number with up to four decimals (matrices of images).
    static func real(_ v: Double, into out: inout [UInt8]) {
        let m = Int((v * 10000).rounded())
        if m < 0 { out.append(0x2D) }
        let a = Int(m.magnitude)
        int(a / 10000, into: &out)
        if a % 10000 != 0 { decimals(a % 10000, digits: 4, into: &out) }
    }

    /// "." and the `digits` decimals of the fraction `f`/10^digits (0 < f < 10^digits), trailing
    /// zeros dropped: ".5", ".05", ".125".
    private static func decimals(_ f: Int, digits: Int, into out: inout [UInt8]) {
        var f = f, n = digits
        while f % 10 == 0 { f /= 10; n -= 1 }
        out.append(0x2E)
        var scale = 1
        for _ in 1..<n { scale *= 10 }
        while scale > 0 { out.append(UInt8(f / scale % 10) + 0x30); scale /= 10 }
    }
}

/// The path syntax of the target format.
enum PathSyntax {
    /// PDF content-stream operators: `x y m`, `x y l`, `… c`, `h`.
    case pdf
    /// SVG path data: `Mx y`, `Lx y`, `C…`, `Z`.
    case svg
}

/// Writes closed sub-paths (polygons and circles) on the grid in one syntax. All sub-paths of
/// a stroke's runs and covers turn the same way (negative signed area in y-down coordinates),
/// so under the nonzero rule their union is filled exactly once; a traced union
/// (`UnionOutline`) is loops that do not overlap, its holes turning against its outer loops.
///
/// Numbers are kept short, since they are most of a vector file: a PDF path is written
/// relative to `origin` (the writer puts `1 0 0 1 x y cm` before it), so a stroke's
/// coordinates have the digits of its size, not of the page's; SVG path data is relative
/// (`m`/`l`/`c` from the current point), with a command letter only where it changes and no
/// space before a minus sign. The points are the same grid points either way: offsets are
/// taken between whole grid steps, so nothing is rounded twice.
struct PathText {
    let syntax: PathSyntax
    var out: [UInt8] = []
    /// PDF: the grid point every coordinate is written relative to.
    let origin: (x: Int, y: Int)
    /// SVG: the current point and the current sub-path's start (where `z` returns to).
    private var current = (x: 0, y: 0), subPathStart = (x: 0, y: 0)
    /// SVG: the command letter in effect, so that repeated commands are implicit.
    private var command: UInt8 = 0
    /// Sub-paths begun so far.
    private(set) var subPaths = 0

    /// Where the path stands: `rewind(to:)` takes it back there.
    struct Mark { fileprivate let count: Int, current: (x: Int, y: Int), subPathStart: (x: Int, y: Int), command: UInt8, subPaths: Int }
    var mark: Mark { Mark(count: out.count, current: current, subPathStart: subPathStart, command: command, subPaths: subPaths) }

    /// Drops what was written since `mark`.
    mutating func rewind(to mark: Mark) {
        out.removeSubrange(mark.count...)
        current = mark.current; subPathStart = mark.subPathStart; command = mark.command; subPaths = mark.subPaths
    }

    init(_ syntax: PathSyntax, origin: (x: Int, y: Int) = (0, 0)) {
        self.syntax = syntax
        self.origin = origin
    }

    /// Runs `draw` on a path whose text goes straight to the end of `out` (a page's content
    /// stream, a form, an SVG body), so no path text is copied.
    static func append(to out: inout [UInt8], _ syntax: PathSyntax, origin: (x: Int, y: Int) = (0, 0),
                       _ draw: (inout PathText) -> Void) {
        var path = PathText(syntax, origin: origin)
        swap(&path.out, &out)
        draw(&path)
        swap(&path.out, &out)
    }

    @inline(__always) private mutating func pdfPoint(_ x: Int, _ y: Int) {
        NumberText.int(x - origin.x, into: &out); out.append(0x20); NumberText.int(y - origin.y, into: &out)
    }

    /// An SVG number after another number or a command letter: a space only between two
    /// numbers where the second has no sign of its own.
    @inline(__always) private mutating func svgNumber(_ v: Int, first: Bool) {
        if !first && v >= 0 { out.append(0x20) }
        NumberText.int(v, into: &out)
    }

    /// Starts an SVG command: the letter unless `letter` is already in effect (after `m`,
    /// further pairs are `l`). False when the letter was written (no space needed next).
    @inline(__always) private mutating func svgCommand(_ letter: UInt8) -> Bool {
        if command == letter || (letter == 0x6C && command == 0x6D) { return false }
        out.append(letter); command = letter
        return true
    }

    @inline(__always) private mutating func svgPoint(_ x: Int, _ y: Int, first: Bool) {
        svgNumber(x - current.x, first: first); svgNumber(y - current.y, first: false)
        current = (x, y)
    }

    @inline(__always) mutating func move(_ x: Int, _ y: Int) {
        subPaths += 1
        if syntax == .svg {
            out.append(0x6D); command = 0x6D
            svgPoint(x, y, first: true)
            subPathStart = current
        } else { pdfPoint(x, y); out.append(contentsOf: [0x20, 0x6D, 0x0A]) }
    }

    @inline(__always) mutating func line(_ x: Int, _ y: Int) {
        if syntax == .svg { svgPoint(x, y, first: svgCommand(0x6C)) } else { pdfPoint(x, y); out.append(contentsOf: [0x20, 0x6C, 0x0A]) }
    }

    @inline(__always) mutating func curve(_ x1: Int, _ y1: Int, _ x2: Int, _ y2: Int, _ x3: Int, _ y3: Int) {
        if syntax == .svg {
            // All three points of a relative cubic are offsets from the point it starts at.
            let first = svgCommand(0x63)
            let from = current
            svgNumber(x1 - from.x, first: first); svgNumber(y1 - from.y, first: false)
            svgNumber(x2 - from.x, first: false); svgNumber(y2 - from.y, first: false)
            svgNumber(x3 - from.x, first: false); svgNumber(y3 - from.y, first: false)
            current = (x3, y3)
        } else {
            pdfPoint(x1, y1); out.append(0x20); pdfPoint(x2, y2); out.append(0x20); pdfPoint(x3, y3)
            out.append(contentsOf: [0x20, 0x63, 0x0A])
        }
    }

    @inline(__always) mutating func close() {
        if syntax == .svg { out.append(0x7A); command = 0x7A; current = subPathStart } else { out.append(contentsOf: [0x68, 0x0A]) }
    }

    /// Open polylines (a soft mask's centre lines, stroked).
    mutating func polylines(_ lines: [[(x: Int, y: Int)]]) {
        for l in lines {
            guard let first = l.first else { continue }
            move(first.x, first.y)
            for q in l.dropFirst() { line(q.x, q.y) }
        }
    }

    /// An axis-aligned rectangle in grid steps, negative orientation.
    mutating func rect(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) {
        move(x0, y0); line(x0, y1); line(x1, y1); line(x1, y0); close()
    }

    /// A circle of four cubic Béziers (radial error 0.027 %), negative orientation:
    /// (r, 0) → (0, −r) → (−r, 0) → (0, r) in y-down coordinates.
    mutating func circle(cx: Double, cy: Double, r: Double) {
        let k = 0.5522847498 * r
        let x = VectorGrid.grid(cx), y = VectorGrid.grid(cy)
        let R = VectorGrid.grid(cx + r) - x, K = VectorGrid.grid(cx + k) - x
        let Ry = VectorGrid.grid(cy + r) - y, Ky = VectorGrid.grid(cy + k) - y
        move(x + R, y)
        curve(x + R, y - Ky, x + K, y - Ry, x, y - Ry)
        curve(x - K, y - Ry, x - R, y - Ky, x - R, y)
        curve(x - R, y + Ky, x - K, y + Ry, x, y + Ry)
        curve(x + K, y + Ry, x + R, y + Ky, x + R, y)
        close()
    }
}

/// One stroked path of a soft mask (`StrokePieces.maskStrokes`): centre lines (grid points),
/// stroked with round caps and joins at one factor level (`StrokePieces.levels` per unit) and
/// line width (grid steps).
struct MaskStroke {
    var level: Int
    var width: Int
    var lines: [[(x: Int, y: Int)]]
    var factor: Double { Double(level) / StrokePieces.levels }
}

/// A stroke's pieces, collected so that a writer can decide how to express them: one fill of
/// constant opacity when every piece has the same factor, or a soft mask otherwise.
struct StrokePieces: ShapeSink {
    var pieces: [ShapePiece] = []
    /// The visible page in reference pixels: pieces wholly outside it are dropped (spec §6:
    /// drawing is clipped to the page), which also keeps far-off coordinates out of the file.
    var width: Double, height: Double

    init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// The pieces of `stroke` that `page` shows, prepared with the page's transform in `shape`
    /// (a backend's reusable scratch); nil when none is visible, so nothing is written.
    static func visible(_ stroke: Stroke, on page: VectorPage, using shape: StrokeShape) -> StrokePieces? {
        shape.prepare(stroke, transform: page.transform)
        var pieces = StrokePieces(width: page.width, height: page.height)
        shape.stream(into: &pieces)
        return pieces.pieces.isEmpty ? nil : pieces
    }

    mutating func piece(_ p: ShapePiece) {
        guard p.maxX > 0, p.minX < width, p.maxY > 0, p.minY < height else { return }
        pieces.append(Self.clipped(p, width: width, height: height))
    }

    /// The part of a piece whose discs can reach the page: its centre line clipped (Liang–Barsky)
    /// to the page grown by the larger radius plus a pixel. The hull of interpolated discs is the
    /// piece's hull restricted to that range, so the visible shape is unchanged, but a stroke
    /// spanning ±2³¹ page units keeps coordinates that every viewer can handle (MuPDF drops
    /// paths with coordinates past its fixed-point range).
    static func clipped(_ p: ShapePiece, width: Double, height: Double) -> ShapePiece {
        let m = max(p.r0, p.r1) + 1
        let dx = p.x1 - p.x0, dy = p.y1 - p.y0
        var t0 = 0.0, t1 = 1.0
        for (q, d) in [(p.x0 + m, -dx), (width + m - p.x0, dx), (p.y0 + m, -dy), (height + m - p.y0, dy)] {
            if d == 0 { if q < 0 { return p }; continue }
            let t = q / d
            if d < 0 { t0 = max(t0, t) } else { t1 = min(t1, t) }
        }
        guard t0 > 0 || t1 < 1, t0 < t1 else { return p }
        let dr = p.r1 - p.r0
        return ShapePiece(x0: p.x0 + dx * t0, y0: p.y0 + dy * t0, r0: p.r0 + dr * t0,
                          x1: p.x0 + dx * t1, y1: p.y0 + dy * t1, r1: p.r0 + dr * t1, f: p.f)
    }

    /// The one factor level all pieces share, or nil when they differ (see `levels`).
    var uniformFactor: Float? {
        guard let first = pieces.first else { return nil }
        let k = Self.level(first)
        for p in pieces where Self.level(p) != k { return nil }
        return Float(Double(k) / Self.levels)
    }

    /// Factor levels per unit: a piece's factor is written rounded to 1/128 (half a level of
    /// an 8-bit channel at most), so that the pieces of a slowly varying pencil stroke fall
    /// into a few levels, each one path.
    static let levels: Double = 128

    /// The soft mask: centre lines of runs — consecutive, connected pieces at one factor level
    /// whose radii differ by at most `runRadiusTolerance` — stroked with round caps and joins,
    /// in two passes, each in ascending level.
    ///
    /// Painted in this order with the Normal blend mode, each point of the stroke ends with the
    /// largest factor of the runs reaching it — the max of spec §6 — while an anti-aliased edge
    /// of a larger level over a smaller one mixes the two by its coverage. (The Lighten blend
    /// mode expresses the same max, but poppler does not apply it inside a soft mask: measured
    /// 25.0 dB against 39.8 dB for this order on the notes sample's pencil page.)
    ///
    /// The stroke's outline, filled through the mask, gives the coverage, so the mask must hold
    /// the factor alone, also in the pixels the outline's sides cut. Level paths of the
    /// stroke's own size do not: their sides are anti-aliased like the outline's, once per
    /// overlapping level, and the two coverages multiply (9–18 % too much ink on pencil
    /// handwriting in every viewer, exact ones included). Hence the two passes:
    /// 1. spread: each run `maskSpread` wider than its largest radius on every side, so every
    ///    pixel the outline touches holds a factor of the nearby part of the stroke;
    /// 2. exact: each run at its largest radius — its pieces, within `runRadiusTolerance` — so
    ///    that inside the stroke the largest factor covering a point wins, over values already
    ///    close to it.
    /// (The second pass alone is the problem above; the first alone carries each level a
    /// spread's width along the stroke: 45–50 against 56–57 dB in librsvg on real pencil.) A
    /// centre line is two numbers a sample, against four and the caps for an outline.
    var maskStrokes: [MaskStroke] {
        let runs = maskRuns
        return Self.strokes(of: runs, spread: Self.maskSpread) + Self.strokes(of: runs, spread: 0)
    }

    /// Largest difference (reference pixels) of the radii in one run: a run is stroked at its
    /// largest radius, so its round caps reach at most this much past its pieces' discs.
    /// (Without it, a run of full factor starting where a tapering end stops being thin took
    /// its thickest radius back over the faint tip: 13–17 % too much ink there.)
    static let runRadiusTolerance: Double = 0.25

    /// A run of `maskStrokes`: its level, its largest radius and its centre line on the grid.
    private typealias MaskRun = (level: Int, radius: Double, line: [(x: Int, y: Int)])

    /// The runs of `maskStrokes`, in stroke order (level-0 pieces are in none).
    private var maskRuns: [MaskRun] {
        var runs: [MaskRun] = []
        var start = 0, lo = 0.0, hi = 0.0
        func close(_ end: Int) {
            let level = Self.level(pieces[start])
            guard level > 0 else { return }
            var line = [(x: VectorGrid.grid(pieces[start].x0), y: VectorGrid.grid(pieces[start].y0))]
            for p in pieces[start..<end] {
                let q = (x: VectorGrid.grid(p.x1), y: VectorGrid.grid(p.y1))
                if q != line.last! { line.append(q) }
            }
            if line.count == 1 { line.append((line[0].x + 1, line[0].y)) }   // a dot: round caps draw its disc
            runs.append((level, hi, line))
        }
        for (i, p) in pieces.enumerated() {
            let pmin = min(p.r0, p.r1), pmax = max(p.r0, p.r1)
            if i > start {
                let q = pieces[i - 1]
                if Self.level(p) != Self.level(q) || !Self.connected(q, p) || max(hi, pmax) - min(lo, pmin) > Self.runRadiusTolerance {
                    close(i)
                    start = i
                }
            }
            if i == start { lo = pmin; hi = pmax } else { lo = min(lo, pmin); hi = max(hi, pmax) }
        }
        if start < pieces.count { close(pieces.count) }
        return runs
    }

    @inline(__always) static func level(_ p: ShapePiece) -> Int { Int((Double(p.f) * levels).rounded()) }
    @inline(__always) static func connected(_ a: ShapePiece, _ b: ShapePiece) -> Bool {
        VectorGrid.grid(a.x1) == VectorGrid.grid(b.x0) && VectorGrid.grid(a.y1) == VectorGrid.grid(b.y0)
    }

    /// One pass of `maskStrokes`: the runs, each stroked `spread` wider than its largest radius
    /// on every side, one stroke per level and width, levels ascending, stroke order kept inside.
    private static func strokes(of runs: [MaskRun], spread: Double) -> [MaskStroke] {
        var index: [SIMD2<Int>: Int] = [:]
        var strokes: [MaskStroke] = []
        for run in runs {
            let width = Int((2 * (run.radius + spread) * VectorGrid.perPixel).rounded(.up))
            if let i = index[SIMD2(run.level, width)] {
                strokes[i].lines.append(run.line)
            } else {
                index[SIMD2(run.level, width)] = strokes.count
                strokes.append(MaskStroke(level: run.level, width: width, lines: [run.line]))
            }
        }
        return strokes.sorted { ($0.level, $0.width) < ($1.level, $1.width) }
    }

    /// The grid point a PDF writes the stroke's path relative to (`PathText.origin`): the
    /// corner of its pieces' bounding box, so its coordinates have the digits of the stroke's
    /// size. Not clamped to the page: the clipped pieces reach a little past it.
    var origin: (x: Int, y: Int) {
        let e = extent
        return (VectorGrid.grid(e.x0), VectorGrid.grid(e.y0))
    }

    /// How far (reference pixels: 1 pt, a device pixel at 72 dpi) the mask's spread pass
    /// reaches past the stroke's sides (see `maskStrokes`).
    static let maskSpread: Double = VectorGrid.referenceScale

    /// The box, on the grid, that a soft mask spans (the form's bounding box, the SVG mask's
    /// region): the spread pass's box plus a reference pixel, clamped to the page (whose edges
    /// are pixel edges). A box edge must not cut a pixel the ink covers: viewers anti-alias it too, and the
    /// two coverages multiply (a box 0.05 px outside a pencil line took 55 % of the pixel row
    /// under it in MuPDF and librsvg, and all of it in Chromium, which rounds the box to pixels).
    var maskBox: (x0: Int, y0: Int, x1: Int, y1: Int) {
        let e = extent, m = Self.maskSpread + 1
        return (VectorGrid.grid(max(e.x0 - m, 0)), VectorGrid.grid(max(e.y0 - m, 0)),
                VectorGrid.grid(min(e.x1 + m, width)), VectorGrid.grid(min(e.y1 + m, height)))
    }

    /// Bounding box of the pieces in reference pixels, where they are (`maskBox` and `origin`).
    var extent: (x0: Double, y0: Double, x1: Double, y1: Double) {
        var b = (x0: Double.infinity, y0: Double.infinity, x1: -Double.infinity, y1: -Double.infinity)
        for p in pieces {
            b.x0 = min(b.x0, p.minX); b.y0 = min(b.y0, p.minY); b.x1 = max(b.x1, p.maxX); b.y1 = max(b.y1, p.maxY)
        }
        return b
    }
}

/// Turns pieces into the path text of the stroke's shape: for each piece the quadrilateral
/// between the outer tangents of its two discs, plus the discs at the ends of the stroke and
/// at the joints where the outline turns.
///
/// Where a joint turns so little that the circular segment between the tangent points of the
/// two pieces is at most `jointTolerance` high (its sagitta r·(1 − cos(Δ/2))), the disc
/// (four curves) is replaced by the convex hull of the four tangent points (four corners):
/// it lies inside the disc and fills the wedge between the two quadrilaterals up to that
/// segment. On dense handwriting most joints turn by a fraction of a degree, so this is what
/// keeps the PDF near the content file's size; the shape changes by at most the tolerance,
/// like the shape tolerance `StrokeShape` already applies to samples.
enum OutlineBuilder {
    /// Largest gap (reference pixels: 0.02 px at 144 dpi, `StrokeShape.shapeTolerance`) left
    /// open where a joint's disc is replaced by its tangent points' hull.
    static let jointTolerance: Double = 0.02
    /// A piece whose centres are at most this much (reference pixels) farther apart than
    /// nested is its larger disc (`ShapePiece.outerTangents(tolerance:)`): closer than that the
    /// direction between them is rounding noise (two samples split at one point), and joining
    /// the run through it would turn the outline by a random angle.
    static let nestedTolerance: Double = 1e-9

    /// Writes the quadrilateral of a piece (negative orientation, as `PathText.circle`).
    @inline(__always)
    static func quad(_ p: ShapePiece, _ t: OuterTangents, into path: inout PathText) {
        path.move(VectorGrid.grid(p.x0 + p.r0 * t.lx), VectorGrid.grid(p.y0 + p.r0 * t.ly))
        path.line(VectorGrid.grid(p.x1 + p.r1 * t.lx), VectorGrid.grid(p.y1 + p.r1 * t.ly))
        path.line(VectorGrid.grid(p.x1 + p.r1 * t.rx), VectorGrid.grid(p.y1 + p.r1 * t.ry))
        path.line(VectorGrid.grid(p.x0 + p.r0 * t.rx), VectorGrid.grid(p.y0 + p.r0 * t.ry))
        path.close()
    }

    /// The order of four keys, largest first (an insertion sort, stable: a joint's four
    /// tangent points by angle, without an array per joint).
    @inline(__always) static func descending(_ key: SIMD4<Double>) -> SIMD4<Int> {
        var order = SIMD4<Int>(0, 1, 2, 3)
        for i in 1..<4 {
            var j = i
            while j > 0 && key[order[j]] > key[order[j - 1]] { (order[j], order[j - 1]) = (order[j - 1], order[j]); j -= 1 }
        }
        return order
    }

    /// The convex polygon of four points c + r·n on a joint's circle, in descending angle
    /// (negative orientation, as the circles and quadrilaterals).
    static func jointQuad(cx: Double, cy: Double, r: Double, nx: SIMD4<Double>, ny: SIMD4<Double>, into path: inout PathText) {
        let order = descending(SIMD4(atan2(ny[0], nx[0]), atan2(ny[1], nx[1]), atan2(ny[2], nx[2]), atan2(ny[3], nx[3])))
        for i in 0..<4 {
            let n = order[i]
            let x = VectorGrid.grid(cx + r * nx[n]), y = VectorGrid.grid(cy + r * ny[n])
            if i == 0 { path.move(x, y) } else { path.line(x, y) }
        }
        path.close()
    }

    /// A sharp joint's cover: the convex hull of the four tangent points with each side's
    /// chord replaced by the arc of the joint's circle between them — inside the disc, and
    /// covering what the disc would add to the two runs (the wedge on the outer side up to the
    /// circle), with two curves instead of the disc's four. False (nothing written) when a
    /// side turns by more than 90° or the points do not alternate side by side around the
    /// circle (a strong taper); the caller then writes the disc. `nx`, `ny`: the normals of
    /// the two left tangent points, then of the two right ones.
    static func jointArcs(cx: Double, cy: Double, r: Double, nx: SIMD4<Double>, ny: SIMD4<Double>,
                          into path: inout PathText) -> Bool {
        let angles = SIMD4(atan2(ny[0], nx[0]), atan2(ny[1], nx[1]), atan2(ny[2], nx[2]), atan2(ny[3], nx[3]))
        let order = descending(angles)   // descending angle: negative orientation
        @inline(__always) func angle(_ i: Int) -> Double { angles[order[i]] }
        @inline(__always) func isLeft(_ i: Int) -> Bool { order[i] < 2 }
        // Same-side points must be neighbours: L L R R up to rotation.
        guard (isLeft(0) == isLeft(1) && isLeft(2) == isLeft(3)) || (isLeft(1) == isLeft(2) && isLeft(3) == isLeft(0)) else { return false }
        let firstArc = isLeft(0) == isLeft(1) ? 0 : 1
        var spans = SIMD4<Double>()
        for i in 0..<4 {
            var phi = angle(i) - angle((i + 1) % 4)
            if phi < 0 { phi += 2 * Double.pi }
            spans[i] = phi
        }
        guard spans[firstArc] <= Double.pi / 2, spans[firstArc + 2] <= Double.pi / 2 else { return false }
        @inline(__always) func point(_ th: Double, _ k: Double = 0, _ sign: Double = 0) -> (Int, Int) {
            // c + r(cos, sin) + sign·k·(sin, −cos): the tangent for decreasing angle.
            (VectorGrid.grid(cx + r * cos(th) + sign * k * sin(th)), VectorGrid.grid(cy + r * sin(th) - sign * k * cos(th)))
        }
        let s0 = point(angle(0))
        path.move(s0.0, s0.1)
        for i in 0..<4 {
            let a = angle(i), b = angle((i + 1) % 4)
            let e = point(b)
            if i == firstArc || i == firstArc + 2 {
                let k = 4.0 / 3.0 * tan(spans[i] / 4) * r
                let c1 = point(a, k, 1), c2 = point(b, k, -1)
                path.curve(c1.0, c1.1, c2.0, c2.1, e.0, e.1)
            } else if i < 3 {
                path.line(e.0, e.1)
            }
        }
        path.close()
        return true
    }

    /// The stroke's outline as the backends write it: the runs and joint covers of
    /// `outline(_:into:)`, or, where those break more than `unionBreakDensity` times per
    /// stroke width of length, the boundary of the pieces' union (`UnionOutline`), in which no
    /// two sub-paths cover the same point. A stroke too costly to trace keeps its runs.
    static func outline(_ pieces: [ShapePiece], into path: inout PathText, union: inout UnionOutline) {
        let mark = path.mark
        outline(pieces, into: &path)
        let breaks = path.subPaths - mark.subPaths - 1
        guard breaks > 0 else { return }
        var length = 0.0, diameters = 0.0
        for p in pieces { length += Self.length(p); diameters += p.r0 + p.r1 }
        guard Double(breaks) * diameters / Double(pieces.count) > unionBreakDensity * length else { return }
        path.rewind(to: mark)
        if !union.write(pieces, into: &path) { outline(pieces, into: &path) }
    }

    /// Breaks of a stroke's runs per stroke width (mean diameter) of its length above which
    /// the stroke is written as its union.
    ///
    /// Where runs break, the two runs and the joint's cover overlap near the joint, and a
    /// viewer that adds the coverages of a path's sub-paths in a pixel (PDFium: AGG's
    /// rasterizer sums the signed areas of all of a path's edges in a cell and clamps at 1)
    /// draws the edge pixels there too dark. Real handwriting's quantized samples, a fraction
    /// of a pixel apart and turning by 45–90°, break at nearly every joint (the real-notebook
    /// sample: median 2.2 breaks per width, up to 15): PDFium's worst 64-px tile on its pen
    /// page was 26 % too dark at 72 dpi and is 1 % as a union. Smooth handwriting breaks at
    /// sharp turns only (the dense bench page: median 0.7, 90 % of strokes under 1.2) and keeps
    /// its runs. Measured on the dense page (export in one process, PNG at scale 2: 269 ms):
    /// runs only 255 ms; this limit 265 ms; a limit of 1, 313 ms; every broken stroke traced,
    /// 710 ms — which would lift PDFium there from 33 to 48 dB (the closing note of issue 27).
    static let unionBreakDensity = 1.5

    /// The whole stroke as one path (to be filled once, nonzero).
    ///
    /// Runs of pieces become one polygon: the left tangent edges forward, the right ones
    /// back. At a joint both edges of the inner side (where the stroke turns to) are cut at
    /// their intersection, the point c + 2r(n₁ + n₂)/|n₁ + n₂|² where both touch the joint's
    /// circle, r·tan(Δ/2) from each tangent point along its edge; that is allowed while what
    /// the joints at both ends of an edge cut from it together fits in the edge (so the inner
    /// side never folds back over itself, which under nonzero would leave a hole or cover
    /// twice). On the outer side the edges are joined at their intersection too where that
    /// corner lies at most r(1/cos(Δ/2) − 1) outside the circle, about the sagitta
    /// r(1 − cos(Δ/2)), which must be within `jointTolerance`; where the joint turns more (up
    /// to 90°), by the joint circle's arc between the two tangent points, one cubic (radial
    /// error 0.027 %) — the round join of the union. A joint whose inner edges do not fit, or
    /// that turns more than 90°, breaks the run and gets its disc (or a cover inside it). A run
    /// starts and ends with the arcs of its end discs that lie outside it (caps, one to four
    /// cubics each) in its own sub-path: every point of an end disc in front of its tangent
    /// points is inside the piece's hull or its next disc, so the caps complete the disc. Every sub-path turns the same way, so overlaps are
    /// covered once.
    static func outline(_ pieces: [ShapePiece], into path: inout PathText) {
        typealias T = OuterTangents
        typealias Point = (Int, Int)
        /// A side's vertices in stroke order, each with the controls of the cubic arriving at
        /// it (nil: a straight edge).
        var left: [(Point, (Point, Point)?)] = [], right: [(Point, (Point, Point)?)] = []
        /// The run's start cap (the arc of its first disc behind the tangent points), written
        /// when the run is closed; empty when the run starts at a joint cover.
        var startCap: [(Point, (Point, Point)?)] = []
        @inline(__always) func at(_ x: Double, _ y: Double) -> Point { (VectorGrid.grid(x), VectorGrid.grid(y)) }
        func flush() {
            guard let first = left.first else { return }
            path.move(first.0.0, first.0.1)
            var last = first.0
            for (q, c) in left.dropFirst() {
                if let c { path.curve(c.0.0, c.0.1, c.1.0, c.1.1, q.0, q.1) } else { path.line(q.0, q.1) }
                last = q
            }
            // The right side backwards: the cubic arriving at right[i] is travelled from
            // right[i] to right[i − 1], its controls swapped.
            var i = right.count - 1
            if i >= 0 && right[i].0 != last { path.line(right[i].0.0, right[i].0.1) }  // an end cap ends there
            while i > 0 {
                let q = right[i - 1].0
                if let c = right[i].1 { path.curve(c.1.0, c.1.1, c.0.0, c.0.1, q.0, q.1) } else { path.line(q.0, q.1) }
                i -= 1
            }
            for (q, c) in startCap {
                if let c { path.curve(c.0.0, c.0.1, c.1.0, c.1.1, q.0, q.1) } else { path.line(q.0, q.1) }
            }
            path.close()
            left.removeAll(keepingCapacity: true); right.removeAll(keepingCapacity: true); startCap.removeAll(keepingCapacity: true)
        }
        /// Starts a run at piece `p`; `capped`: with its start disc's arc (a new run), not at a
        /// joint cover (a run broken at a joint).
        func start(_ p: ShapePiece, _ t: T, capped: Bool) {
            left = [(at(p.x0 + p.r0 * t.lx, p.y0 + p.r0 * t.ly), nil)]
            right = [(at(p.x0 + p.r0 * t.rx, p.y0 + p.r0 * t.ry), nil)]
            if capped { capArc(p.x0, p.y0, p.r0, from: (t.rx, t.ry), to: (t.lx, t.ly), through: (-t.ux, -t.uy), into: &startCap) }
        }
        /// Ends the run at piece `p`; `capped`: with its end disc's arc beyond the tangent points.
        func end(_ p: ShapePiece, _ t: T, capped: Bool) {
            left.append((at(p.x1 + p.r1 * t.lx, p.y1 + p.r1 * t.ly), nil))
            if capped { capArc(p.x1, p.y1, p.r1, from: (t.lx, t.ly), to: (t.rx, t.ry), through: (t.ux, t.uy), into: &left) }
            right.append((at(p.x1 + p.r1 * t.rx, p.y1 + p.r1 * t.ry), nil))
            flush()
        }
        /// The arc of the circle (centre c, radius r) from normal a to normal b the way that
        /// passes direction u, as cubics of at most 90° each (radial error 0.027 %), appended
        /// after the point at a: the part of a run's end disc outside the run, so the disc
        /// needs no sub-path of its own.
        func capArc(_ cx: Double, _ cy: Double, _ r: Double, from a: (Double, Double), to b: (Double, Double),
                    through u: (Double, Double), into side: inout [(Point, (Point, Point)?)]) {
            let turn = 2 * Double.pi
            @inline(__always) func ccw(_ x: Double) -> Double { let m = x.truncatingRemainder(dividingBy: turn); return m < 0 ? m + turn : m }
            let from = atan2(a.1, a.0)
            let toB = ccw(atan2(b.1, b.0) - from), toU = ccw(atan2(u.1, u.0) - from)
            let sweep = toU < toB ? toB : toB - turn
            let n = max(1, Int((abs(sweep) / (Double.pi / 2) - 1e-9).rounded(.up)))
            let step = sweep / Double(n)
            let k = 4.0 / 3.0 * tan(step / 4) * r
            var ax = a.0, ay = a.1
            for i in 1...n {
                let (bx, by) = i == n ? b : (cos(from + step * Double(i)), sin(from + step * Double(i)))
                let c1 = at(cx + r * ax - k * ay, cy + r * ay + k * ax)
                let c2 = at(cx + r * bx + k * by, cy + r * by - k * bx)
                side.append((at(cx + r * bx, cy + r * by), (c1, c2)))
                (ax, ay) = (bx, by)
            }
        }
        func miter(_ cx: Double, _ cy: Double, _ r: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) -> Point {
            let sx = ax + bx, sy = ay + by
            let k = 2 * r / (sx * sx + sy * sy)
            return at(cx + k * sx, cy + k * sy)
        }
        /// The outer side's round join: the tangent point of the previous edge, then the arc
        /// of the joint's circle (centre c, radius r) from normal a to normal b, the short way.
        func arc(_ cx: Double, _ cy: Double, _ r: Double, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
                 into side: inout [(Point, (Point, Point)?)]) {
            let delta = atan2(ax * by - ay * bx, ax * bx + ay * by)
            let k = 4.0 / 3.0 * tan(abs(delta) / 4) * r * (delta < 0 ? -1 : 1)
            side.append((at(cx + r * ax, cy + r * ay), nil))
            let c1 = at(cx + r * ax - k * ay, cy + r * ay + k * ax)
            let c2 = at(cx + r * bx + k * by, cy + r * by - k * bx)
            side.append((at(cx + r * bx, cy + r * by), (c1, c2)))
        }
        /// What the joint at its start cut from the previous piece's left and right edges.
        var usedLeft = 0.0, usedRight = 0.0
        var previous: (p: ShapePiece, t: T)? = nil
        for p in pieces {
            guard let t = p.outerTangents(tolerance: nestedTolerance) else {
                // One disc holds the other: the piece is its larger disc.
                if let prev = previous { end(prev.p, prev.t, capped: true) }
                previous = nil
                if p.r0 >= p.r1 { path.circle(cx: p.x0, cy: p.y0, r: p.r0) } else { path.circle(cx: p.x1, cy: p.y1, r: p.r1) }
                continue
            }
            guard let prev = previous, prev.p.x1 == p.x0, prev.p.y1 == p.y0, prev.p.r1 == p.r0 else {
                // A new run (the first piece, or after a gap: pieces dropped off the page or a
                // zero-factor run): the previous run's end disc, this one's start disc.
                if let prev = previous { end(prev.p, prev.t, capped: true) }
                start(p, t, capped: true)
                previous = (p, t)
                usedLeft = 0; usedRight = 0
                continue
            }
            let a = prev.t
            let r = p.r0
            let cosL = min(1, a.lx * t.lx + a.ly * t.ly), cosR = min(1, a.rx * t.rx + a.ry * t.ry)
            // Each side on its own: inner where the two edges cross (the next tangent point
            // lies behind the previous one along the previous edge), else outer.
            let ex = prev.p.x1 - prev.p.x0, ey = prev.p.y1 - prev.p.y0, er = prev.p.r1 - prev.p.r0
            let innerL = (t.lx - a.lx) * (ex + er * a.lx) + (t.ly - a.ly) * (ey + er * a.ly) < 0
            let innerR = (t.rx - a.rx) * (ex + er * a.rx) + (t.ry - a.ry) * (ey + er * a.ry) < 0
            let edgePrev = edgeLength(prev.p), edgeNext = edgeLength(p)
            /// How the side joins: nil when it cannot (the run breaks); else the cut from the
            /// edges (inner), and whether the outer corner needs the arc.
            func join(_ inner: Bool, _ cosD: Double, _ used: Double) -> (cut: Double, arc: Bool)? {
                if inner {
                    // r·tan(Δ/2) = r·√((1 − cos Δ)/(1 + cos Δ))
                    let cut = r * (max(0, 1 - cosD) / max(1e-12, 1 + cosD)).squareRoot()
                    return used + cut <= edgePrev && cut <= edgeNext ? (cut, false) : nil
                }
                // r(1 − cos(Δ/2)) = r(1 − √((1 + cos Δ)/2))
                if r * (1 - ((1 + cosD) / 2).squareRoot()) <= jointTolerance { return (0, false) }
                return cosD >= 0 ? (0, true) : nil
            }
            if let jl = join(innerL, cosL, usedLeft), let jr = join(innerR, cosR, usedRight) {
                if jl.arc { arc(p.x0, p.y0, r, a.lx, a.ly, t.lx, t.ly, into: &left) }
                else { left.append((miter(p.x0, p.y0, r, a.lx, a.ly, t.lx, t.ly), nil)) }
                if jr.arc { arc(p.x0, p.y0, r, a.rx, a.ry, t.rx, t.ry, into: &right) }
                else { right.append((miter(p.x0, p.y0, r, a.rx, a.ry, t.rx, t.ry), nil)) }
                usedLeft = jl.cut; usedRight = jr.cut
            } else {
                end(prev.p, prev.t, capped: false)
                let cosD = min(cosL, cosR)
                let sag = r * (1 - ((1 + cosD) / 2).squareRoot())
                if sag <= jointTolerance {
                    // The four tangent points lie on the joint's circle: their convex hull is
                    // inside the disc and covers the gap between the two runs up to the
                    // circular segments beyond its sides, each at most `sag` high.
                    jointQuad(cx: p.x0, cy: p.y0, r: r, nx: SIMD4(a.lx, t.lx, a.rx, t.rx), ny: SIMD4(a.ly, t.ly, a.ry, t.ry), into: &path)
                } else if !jointArcs(cx: p.x0, cy: p.y0, r: r, nx: SIMD4(a.lx, t.lx, a.rx, t.rx),
                                     ny: SIMD4(a.ly, t.ly, a.ry, t.ry), into: &path) {
                    path.circle(cx: p.x0, cy: p.y0, r: r)
                }
                start(p, t, capped: false)
                usedLeft = 0; usedRight = 0
            }
            previous = (p, t)
        }
        if let prev = previous { end(prev.p, prev.t, capped: true) }
    }

    /// The length of a piece's tangent edges: √(d² − (r₁ − r₀)²).
    @inline(__always) static func edgeLength(_ p: ShapePiece) -> Double {
        let dx = p.x1 - p.x0, dy = p.y1 - p.y0, dr = p.r1 - p.r0
        return max(0, dx * dx + dy * dy - dr * dr).squareRoot()
    }

    @inline(__always) static func length(_ p: ShapePiece) -> Double {
        let dx = p.x1 - p.x0, dy = p.y1 - p.y0
        return (dx * dx + dy * dy).squareRoot()
    }
}
