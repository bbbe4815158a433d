/// The outer tangents of a piece's hull: with the two discs they bound it. The one derivation
/// of them, and the one rule for when there are none, for both backends (the rasterizer's
/// `Capsule` and the vector writers' `OutlineBuilder`).
///
/// A unit normal n of an outer tangent satisfies n·(c₁ − c₀) = r₀ − r₁, so with u the unit
/// vector from c₀ to c₁, c = (r₀ − r₁)/d and s = √(1 − c²): n = c·u ± s·u⊥. The tangent
/// segments run from cᵢ + rᵢ·n on each disc.
public struct OuterTangents: Sendable, Equatable {
    /// The unit vector from disc 0's centre to disc 1's.
    public var ux: Double, uy: Double
    /// The unit normal of the left tangent (c·u + s·u⊥, u⊥ = (−uy, ux)) and of the right one
    /// (c·u − s·u⊥).
    public var lx: Double, ly: Double, rx: Double, ry: Double

    @inlinable @inline(__always)
    public init(ux: Double, uy: Double, lx: Double, ly: Double, rx: Double, ry: Double) {
        self.ux = ux; self.uy = uy; self.lx = lx; self.ly = ly; self.rx = rx; self.ry = ry
    }
}

extension ShapePiece {
    /// The outer tangents of the piece's hull, or nil when one disc holds the other: when the
    /// centres' distance d is at most |r₁ − r₀| + `tolerance` (which includes d = 0, and a
    /// piece whose coordinates are not numbers). The piece is then just its larger disc.
    ///
    /// `tolerance` (pixels, ≥ 0) is the consumer's: how much farther apart than nested the
    /// centres must be for their direction to count. The rasterizer takes 0, the geometric
    /// test (its coverage of such a sliver differs from the disc's by a level on a rare pixel);
    /// the vector outline takes `OutlineBuilder.nestedTolerance`, because it joins a piece to
    /// its neighbours by the tangents' directions, which such a piece has only as rounding
    /// noise.
    ///
    /// Where d > |r₁ − r₀|, c = (r₀ − r₁)/d lies in [−1, 1] after rounding too, so the clamp
    /// of 1 − c² at 0 changes no value; it tells the compiler the square root's argument is
    /// not negative, so the rasterizer's inlined copy is a bare `sqrtsd` with no libm call on
    /// a path for negative arguments.
    @inlinable @inline(__always)
    public func outerTangents(tolerance: Double) -> OuterTangents? {
        let dx = x1 - x0, dy = y1 - y0
        let d = (dx * dx + dy * dy).squareRoot()
        guard d > abs(r1 - r0) + tolerance else { return nil }
        let ux = dx / d, uy = dy / d
        let c = (r0 - r1) / d
        let s = max(0, 1 - c * c).squareRoot()
        return OuterTangents(ux: ux, uy: uy, lx: ux * c - uy * s, ly: uy * c + ux * s, rx: ux * c + uy * s, ry: uy * c - ux * s)
    }
}
