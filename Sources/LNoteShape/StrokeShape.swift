import LNoteFormat

/// One part of a stroke's shape in pixel space: the convex hull of the discs (x0, y0, r0) and
/// (x1, y1, r1) — a tapered capsule, or a disc when both are the same — drawn with the constant
/// opacity factor `f` (tool and thin-stroke factors, 0 < f ≤ 1; not the colour alpha).
///
/// A stroke's shape is the union of its pieces. Where pieces overlap, the larger factor counts
/// (the spec's "largest value counts" for pencil, at the granularity of one piece).
public struct ShapePiece: Sendable, Equatable {
    public var x0: Double, y0: Double, r0: Double
    public var x1: Double, y1: Double, r1: Double
    public var f: Float

    @inline(__always)
    public init(x0: Double, y0: Double, r0: Double, x1: Double, y1: Double, r1: Double, f: Float) {
        self.x0 = x0; self.y0 = y0; self.r0 = r0
        self.x1 = x1; self.y1 = y1; self.r1 = r1
        self.f = f
    }

    /// The piece's bounding box in pixels.
    @inline(__always) public var minX: Double { min(x0 - r0, x1 - r1) }
    @inline(__always) public var maxX: Double { max(x0 + r0, x1 + r1) }
    @inline(__always) public var minY: Double { min(y0 - r0, y1 - r1) }
    @inline(__always) public var maxY: Double { max(y0 + r0, y1 + r1) }
}

/// Receives a stroke's shape piece by piece. Clipping is the consumer's job: the coverage
/// rasterizer drops pieces off its image, a vector writer keeps what its page shows.
public protocol ShapeSink {
    mutating func piece(_ piece: ShapePiece)
}

/// Samples → the stroke's shape, streamed (lnote-format.md section 6). Knows nothing of images.
///
/// - Coordinates go through Double: x, y span the whole Int32 range and Float would lose the
///   sub-pixel part long before that.
/// - Thin-stroke rule, for the transform's pixel scale: where ρ = r·s/10 < 0.5 px the radius is
///   0.5 px and the factor ρ/0.5. A segment whose ρ crosses 0.5 is split there, so each part has
///   a linear radius and a linear thin factor.
/// - Varying factors (thin parts, pencil pressure) are linear along a part; a part is cut into
///   pieces over which the factor changes by at most `factorStep`, each drawn with the factor at
///   its middle. Cutting is exact for the shape: the hull of two discs is the union of the discs
///   with linearly interpolated centre and radius, so the pieces' hulls tile the part's hull.
/// - Samples that lie within `shapeTolerance` of the straight path between their neighbours are
///   merged into one part (dense handwriting samples sit a fraction of a pixel apart).
///
/// Memory: `prepare` keeps the effective samples (at most twice the stroke's samples); the pieces
/// are never stored here, so a consumer that needs several passes (the rasterizer, on a stroke
/// with more pieces than it holds at once) calls `stream` again and gets the same pieces in the
/// same order. A class only so that its scratch is reused from stroke to stroke.
public final class StrokeShape {
    /// Largest change of the opacity factor within one piece (error ≤ half of it, 1/64).
    /// 1/64 was measured too: the exactness statistics barely move (largest error unchanged at
    /// every test scale), while 1/32 leaves a thumbnail's thin handwriting 22 % fewer pieces.
    public static let factorStep: Double = 1.0 / 32
    /// Bound on pieces per part: the two factors span at most 0…1 each, so 2/factorStep pieces suffice.
    public static let maxPieces = 80
    /// Largest displacement (px, in x, y, radius) of a dropped sample from the simplified path.
    public static let shapeTolerance: Double = 0.02
    /// Samples merged into one part at most.
    public static let maxSpan = 24
    /// The thin-stroke threshold: radii below this many pixels are drawn at it, fainter.
    public static let thinRadius: Double = 0.5

    /// A sample after the thin-stroke rule: radius max(ρ, 0.5), thin factor, pencil factor.
    @usableFromInline
    struct EffectiveSample {
        @usableFromInline var x: Double, y: Double, r: Double, th: Double, pf: Double, rho: Double

        @usableFromInline @inline(__always)
        init(x: Double, y: Double, r: Double, th: Double, pf: Double, rho: Double) {
            self.x = x; self.y = y; self.r = r; self.th = th; self.pf = pf; self.rho = rho
        }
    }

    // Inlinable (with what it touches) so that `stream` is specialized for each consumer's sink
    // in the consumer's module: the pieces go straight into the sink, with no call per piece.
    @usableFromInline let effective = Scratch<EffectiveSample>()
    @usableFromInline var count = 0

    public init() {}

    /// The number of effective samples prepared (the stroke's samples plus thin-rule splits).
    public var preparedSamples: Int { count }

    /// Computes the effective samples of `stroke` under `transform`: radius max(ρ, 0.5), thin
    /// factor min(1, ρ/0.5), pencil factor; with a sample inserted wherever ρ crosses 0.5, all
    /// three are linear between neighbours.
    public func prepare(_ stroke: Stroke, transform: PageTransform) {
        count = 0
        let n = stroke.sampleCount
        let k = transform.pixelsPerUnit
        guard n > 0, k > 0, k.isFinite else { return }
        let pencil = stroke.tool == .pencil
        let origin = transform.originX
        let thin = Self.thinRadius
        effective.reserve(2 * n)
        var m = 0
        stroke.points.withUnsafeBufferPointer { pts in
            let e = effective.p
            func sample(_ i: Int) -> EffectiveSample {
                let b = i &* 5
                let pf = pencil ? 0.25 + 0.75 * Double(pts[b &+ 3]) / 1000 : 1
                let rho = Double(pts[b &+ 2]) * k
                return EffectiveSample(x: Double(pts[b]) * k - origin, y: Double(pts[b &+ 1]) * k, r: max(rho, thin),
                                       th: min(1, rho / thin), pf: pf, rho: rho)
            }
            var prev = sample(0)
            e[0] = prev; m = 1
            for i in 1..<n {
                let cur = sample(i)
                if (prev.rho < thin) != (cur.rho < thin) {
                    let t = (thin - prev.rho) / (cur.rho - prev.rho)
                    if t > 0 && t < 1 {
                        e[m] = EffectiveSample(x: prev.x + (cur.x - prev.x) * t, y: prev.y + (cur.y - prev.y) * t, r: thin,
                                               th: 1, pf: prev.pf + (cur.pf - prev.pf) * t, rho: thin)
                        m &+= 1
                    }
                }
                e[m] = cur; m &+= 1
                prev = cur
            }
        }
        count = m
    }

    /// Hands the prepared stroke's pieces to `sink`, in stroke order. Pieces of factor 0 (a
    /// zero-radius run) are not emitted.
    @inlinable
    public func stream<S: ShapeSink>(into sink: inout S) {
        let m = count
        guard m > 0 else { return }
        let e = effective.p
        if m == 1 {
            let s = e[0]
            let f = Float(s.th * s.pf)
            if f > 0 { sink.piece(ShapePiece(x0: s.x, y0: s.y, r0: s.r, x1: s.x, y1: s.y, r1: s.r, f: f)) }
            return
        }
        var i = 0
        while i < m &- 1 {
            let j = Self.farthestReach(e, from: i, count: m)
            Self.emitPart(e[i], e[j], into: &sink)
            i = j
        }
    }

    /// Greedy simplification: the farthest sample j (at most `maxSpan` ahead) such that every
    /// sample between i and j lies within `shapeTolerance` of the straight path from i to j in
    /// (x, y, radius) space, and its factors within `factorStep`/2 of the interpolated ones.
    /// The swept-disc union along a path moves by at most √2 × the path's displacement, so the
    /// shape changes by at most about 0.007 px — a few thousandths of a pixel's coverage — while
    /// dense handwriting samples (a fraction of a pixel apart) collapse into far fewer parts.
    @inlinable
    static func farthestReach(_ e: UnsafeMutablePointer<EffectiveSample>, from i: Int, count m: Int) -> Int {
        var best = i &+ 1
        var j = i &+ 2
        let a = e[i]
        while j < m && j &- i <= maxSpan {
            let b = e[j]
            let dx = b.x - a.x, dy = b.y - a.y, dr = b.r - a.r
            let len2 = dx * dx + dy * dy + dr * dr
            var ok = true
            var q = i &+ 1
            while q < j {
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
                q &+= 1
            }
            if !ok { break }
            best = j
            j &+= 1
        }
        return best
    }

    /// The number of pieces a part from `pa` to `pb` is cut into (0 for a zero-radius run).
    @inlinable @inline(__always)
    static func pieceCount(thin0: Double, thin1: Double, pencil0: Double, pencil1: Double) -> Int {
        if thin0 <= 0 && thin1 <= 0 { return 0 }   // a zero-radius run draws nothing
        let variation = abs(thin1 - thin0) + abs(pencil1 - pencil0)
        return min(maxPieces, max(1, Int((variation / factorStep).rounded(.up))))
    }

    /// One simplified part: cut into pieces of bounded factor change.
    @inlinable @inline(__always)
    static func emitPart<S: ShapeSink>(_ pa: EffectiveSample, _ pb: EffectiveSample, into sink: inout S) {
        let pieces = pieceCount(thin0: pa.th, thin1: pb.th, pencil0: pa.pf, pencil1: pb.pf)
        guard pieces > 0 else { return }
        let inv = 1 / Double(pieces)
        for q in 0..<pieces {
            let u0 = Double(q) * inv, u1 = Double(q &+ 1) * inv, um = (u0 + u1) * 0.5
            let f = Float((pa.th + (pb.th - pa.th) * um) * (pa.pf + (pb.pf - pa.pf) * um))
            guard f > 0 else { continue }
            sink.piece(ShapePiece(x0: pa.x + (pb.x - pa.x) * u0, y0: pa.y + (pb.y - pa.y) * u0, r0: pa.r + (pb.r - pa.r) * u0,
                                  x1: pa.x + (pb.x - pa.x) * u1, y1: pa.y + (pb.y - pa.y) * u1, r1: pa.r + (pb.r - pa.r) * u1,
                                  f: f))
        }
    }
}

/// How much of an image a prepared stroke reaches, measured without cutting it into pieces:
/// an upper-bound estimate of the work a rasterizer will do on it.
public struct ShapeExtent: Sendable, Equatable {
    /// Σ over the stroke's segments of (pieces × pixel rows the segment's box covers in the
    /// image): a bound on the capsule-rows a scanline rasterizer evaluates (simplification
    /// only merges segments, and a merged part has at most the pieces of its segments).
    public var pieceRows: Double = 0
    /// Pixels of the stroke's bounding box inside the image: a bound on the pixels whose
    /// coverage is summed and composited.
    public var boxPixels: Double = 0
    /// Pieces of the segments that reach the image horizontally (a bound on the pieces a
    /// clipping consumer keeps).
    public var pieces: Double = 0

    public init(pieceRows: Double = 0, boxPixels: Double = 0, pieces: Double = 0) {
        self.pieceRows = pieceRows
        self.boxPixels = boxPixels
        self.pieces = pieces
    }
}

extension StrokeShape {
    /// The extent of `stroke` through `transform` on its image (`transform.width` ×
    /// `transform.height`): one pass over the samples, nothing stored, no pieces cut. Where ρ
    /// crosses the thin-stroke threshold a segment counts one piece more than its factor change
    /// asks for (`prepare` splits it there in two).
    public static func extent(of stroke: Stroke, transform: PageTransform) -> ShapeExtent {
        let n = stroke.sampleCount
        let k = transform.pixelsPerUnit
        guard n > 0, k > 0, k.isFinite else { return ShapeExtent() }
        let W = Double(transform.width), H = Double(transform.height), origin = transform.originX
        let pencil = stroke.tool == .pencil
        @inline(__always) func rows(_ lo: Double, _ hi: Double) -> Double {
            let a = max(lo, 0).rounded(.down), b = min(hi, H).rounded(.up)
            return b > a ? b - a : 0
        }
        var out = ShapeExtent()
        var bx0 = Double.infinity, bx1 = -Double.infinity, by0 = Double.infinity, by1 = -Double.infinity
        stroke.points.withUnsafeBufferPointer { pts in
            @inline(__always) func sample(_ i: Int) -> (x: Double, y: Double, r: Double, th: Double, pf: Double, thin: Bool) {
                let b = i &* 5
                let rho = Double(pts[b &+ 2]) * k
                return (Double(pts[b]) * k - origin, Double(pts[b &+ 1]) * k, max(rho, thinRadius), min(1, rho / thinRadius),
                        pencil ? 0.25 + 0.75 * Double(pts[b &+ 3]) / 1000 : 1, rho < thinRadius)
            }
            var a = sample(0)
            bx0 = a.x - a.r; bx1 = a.x + a.r; by0 = a.y - a.r; by1 = a.y + a.r
            if n == 1 {
                if bx1 > 0 && bx0 < W && a.th > 0 { out.pieceRows = rows(by0, by1); out.pieces = 1 }
                return
            }
            for i in 1..<n {
                let b = sample(i)
                let x0 = min(a.x - a.r, b.x - b.r), x1 = max(a.x + a.r, b.x + b.r)
                let y0 = min(a.y - a.r, b.y - b.r), y1 = max(a.y + a.r, b.y + b.r)
                bx0 = min(bx0, x0); bx1 = max(bx1, x1); by0 = min(by0, y0); by1 = max(by1, y1)
                defer { a = b }
                guard x1 > 0 && x0 < W else { continue }
                let pieces = pieceCount(thin0: a.th, thin1: b.th, pencil0: a.pf, pencil1: b.pf) + (a.thin != b.thin ? 1 : 0)
                let r = rows(y0, y1)
                if r > 0 { out.pieces += Double(pieces) }
                out.pieceRows += Double(pieces) * r
            }
        }
        let spanX = min(bx1, W).rounded(.up) - max(bx0, 0).rounded(.down)
        out.boxPixels = spanX > 0 ? spanX * rows(by0, by1) : 0
        return out
    }
}
