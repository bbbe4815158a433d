import LNoteShape

/// A shape piece in the form the scanline code evaluates: the hull's slice on a horizontal line
/// is the min/max over its two circles' slices and the two outer tangent segments' crossings,
/// because the hull's boundary is made of exactly those four pieces.
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

    /// Beyond this (px) a capsule's circles are evaluated in Double: Float keeps 1/128 px up to 2^17.
    static let largeCoordinate: Double = 65536
    /// Tangent slopes |dx/dy| beyond this are evaluated in Double (x moves by more than this per row).
    static let largeSlope: Double = 1024

    /// The hull of `piece`'s two discs in evaluation form (`yMin`, `yMax`: the piece's).
    @inline(__always)
    init(_ piece: ShapePiece, yMin: Double, yMax: Double) {
        let (x0, y0, r0, x1, y1, r1) = (piece.x0, piece.y0, piece.r0, piece.x1, piece.y1, piece.r1)
        let off = Double.infinity
        guard let t = piece.outerTangents(tolerance: 0) else {
            // One disc contains the other: the hull is the larger disc.
            let (cx, cy, r) = r0 >= r1 ? (x0, y0, r0) : (x1, y1, r1)
            self.init(cx0: cx, cy0: cy, r0: r, cx1: cx, cy1: cy, r1: r,
                      ya1: off, yb1: -off, xa1: 0, k1: 0, ya2: off, yb2: -off, xa2: 0, k2: 0,
                      yMin: yMin, yMax: yMax, f: piece.f)
            large = abs(cx) > Self.largeCoordinate || r > Self.largeCoordinate
            return
        }
        // The outer tangents (`ShapePiece.outerTangents`, exact nesting) as segments x(y).
        func segment(_ nx: Double, _ ny: Double) -> (Double, Double, Double, Double) {
            let px = x0 + r0 * nx, py = y0 + r0 * ny
            let qx = x1 + r1 * nx, qy = y1 + r1 * ny
            let (tx, ty, bx, by) = py <= qy ? (px, py, qx, qy) : (qx, qy, px, py)
            // A horizontal tangent touches a line only at one y: the circles already give it.
            guard by - ty > 0 else { return (off, -off, 0, 0) }
            return (ty, by, tx, (bx - tx) / (by - ty))
        }
        let s1 = segment(t.lx, t.ly)
        let s2 = segment(t.rx, t.ry)
        self.init(cx0: x0, cy0: y0, r0: r0, cx1: x1, cy1: y1, r1: r1,
                  ya1: s1.0, yb1: s1.1, xa1: s1.2, k1: s1.3, ya2: s2.0, yb2: s2.1, xa2: s2.2, k2: s2.3,
                  yMin: yMin, yMax: yMax, f: piece.f)
        large = max(abs(x0), abs(x1), r0, r1) > Self.largeCoordinate
            || abs(s1.3) > Self.largeSlope || abs(s2.3) > Self.largeSlope
    }

    private init(cx0: Double, cy0: Double, r0: Double, cx1: Double, cy1: Double, r1: Double,
                 ya1: Double, yb1: Double, xa1: Double, k1: Double, ya2: Double, yb2: Double, xa2: Double, k2: Double,
                 yMin: Double, yMax: Double, f: Float) {
        self.cx0 = cx0; self.cy0 = cy0; self.r0 = r0; self.cx1 = cx1; self.cy1 = cy1; self.r1 = r1
        self.ya1 = ya1; self.yb1 = yb1; self.xa1 = xa1; self.k1 = k1
        self.ya2 = ya2; self.yb2 = yb2; self.xa2 = xa2; self.k2 = k2
        self.yMin = yMin; self.yMax = yMax; self.f = f
    }
}
