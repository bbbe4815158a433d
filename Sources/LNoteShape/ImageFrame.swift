import Glibc
import LNoteFormat

/// A placed image through a page's `PageTransform` (lnote-format.md sections 4 and 6): its frame
/// in pixels, centre, rotation and opacity. The one place where page units meet pixels for
/// images: the raster's filter and work estimate and the vector writers' image matrix all read
/// it, none derives a frame of its own.
///
/// The image is scaled to fill the frame and rotated about the frame's centre, clockwise on
/// screen (+x turns toward +y).
public struct ImageFrame: Sendable, Equatable {
    /// Frame origin and size in pixels, before rotation.
    public let fx: Double, fy: Double, fw: Double, fh: Double
    /// The frame's centre in pixels.
    public let cx: Double, cy: Double
    /// The rotation's cosine and sine: exactly 0 or ±1 for a multiple of 90°.
    public let cosT: Double, sinT: Double
    /// 0…3 when the rotation is an exact multiple of 90°, else nil.
    public let quarterTurns: Int?
    /// The placement's opacity clamped to 0…1000.
    public let opacityPermille: Int

    /// Nil when there is nothing to draw: a transform without a positive finite scale, an
    /// empty frame, or one whose pixels are not finite (only reachable through the API, with an
    /// absurd scale).
    public init?(_ placement: ImagePlacement, transform t: PageTransform) {
        guard t.scale > 0, t.scale.isFinite, placement.width > 0, placement.height > 0 else { return nil }
        fx = t.x(Double(placement.x)); fy = t.y(Double(placement.y))
        fw = t.length(Double(placement.width)); fh = t.length(Double(placement.height))
        guard fx.isFinite, fy.isFinite, fw.isFinite, fh.isFinite, fw > 0, fh > 0 else { return nil }
        cx = fx + fw / 2; cy = fy + fh / 2
        if placement.rotation % 90_000 == 0 {
            let q = ((placement.rotation / 90_000) % 4 + 4) % 4
            quarterTurns = q
            cosT = [1, 0, -1, 0][q]; sinT = [0, 1, 0, -1][q]
        } else {
            quarterTurns = nil
            let theta = Self.angle(rotation: placement.rotation)
            cosT = cos(theta); sinT = sin(theta)
        }
        opacityPermille = min(max(placement.opacity, 0), 1000)
    }

    /// A placement's rotation (thousandths of a degree, clockwise on screen) in radians.
    public static func angle(rotation: Int) -> Double {
        Double(rotation) / 1000 * Double.pi / 180
    }

    /// The opacity, 0…1.
    public var opacity: Double { Double(opacityPermille) / 1000 }
    /// The opacity, 0…1, in the raster compositor's precision.
    public var opacityFloat: Float { Float(opacityPermille) / 1000 }
    /// Whether the image shows at all (opacity above 0).
    public var isVisible: Bool { opacityPermille > 0 }

    /// Frame-local (u, v) in pixels of canvas point (x, y): u along the image's x axis, from
    /// the frame's unrotated top-left corner.
    @inlinable @inline(__always) public func local(_ x: Double, _ y: Double) -> SIMD2<Double> {
        let qx = x - cx, qy = y - cy
        return SIMD2(qx * cosT + qy * sinT + fw / 2, -qx * sinT + qy * cosT + fh / 2)
    }

    /// Half the width and height of the rotated frame's bounding box.
    @inline(__always) var halfExtent: (x: Double, y: Double) {
        (abs(cosT) * fw / 2 + abs(sinT) * fh / 2, abs(sinT) * fw / 2 + abs(cosT) * fh / 2)
    }

    /// Whether the rotated frame's bounding box lies wholly on a `width` × `height` image.
    public func lies(within width: Int, _ height: Int) -> Bool {
        let (hx, hy) = halfExtent
        return cx - hx >= 0 && cy - hy >= 0 && cx + hx <= Double(width) && cy + hy <= Double(height)
    }

    /// The pixels under the rotated frame's bounding box, clipped to a `width` × `height` image;
    /// nil when none is.
    public func pixelBounds(width: Int, height: Int) -> PixelBox? {
        let (hx, hy) = halfExtent
        let i0 = max(0, Int(max(cx - hx, -1).rounded(.down)))
        let i1 = min(width - 1, Int(min(cx + hx, Double(width)).rounded(.up)))
        let j0 = max(0, Int(max(cy - hy, -1).rounded(.down)))
        let j1 = min(height - 1, Int(min(cy + hy, Double(height)).rounded(.up)))
        guard i0 <= i1, j0 <= j1 else { return nil }
        return PixelBox(i0: i0, i1: i1, j0: j0, j1: j1)
    }

    /// The radius of the circle through the frame's corners: a bound of the rotated frame
    /// that does not depend on the rotation.
    public var cornerRadius: Double { (fw * fw + fh * fh).squareRoot() / 2 }

    /// The affine map (a, b, c, d, e, f) that takes the unit square onto the rotated frame,
    /// in units of 1/`perPixel` pixel (a vector file's grid). `yUp`: the unit square's row 0
    /// lies at v = 1 (PDF image space); else at v = 0 (SVG).
    public func unitSquareMatrix(perPixel g: Double, yUp: Bool) -> [Double] {
        let fx = self.fx * g, fy = self.fy * g, fw = self.fw * g, fh = self.fh * g
        let cx = fx + fw / 2, cy = fy + fh / 2
        let cs = cosT, sn = sinT
        if yUp {
            return [fw * cs, fw * sn, fh * sn, -fh * cs, cx - (fw * cs + fh * sn) / 2, cy - (fw * sn - fh * cs) / 2]
        }
        return [fw * cs, fw * sn, -fh * sn, fh * cs, cx - (fw * cs - fh * sn) / 2, cy - (fw * sn + fh * cs) / 2]
    }
}

/// Whole pixels i0…i1 × j0…j1 (inclusive) of an image.
public struct PixelBox: Sendable, Equatable {
    public let i0: Int, i1: Int, j0: Int, j1: Int

    public init(i0: Int, i1: Int, j0: Int, j1: Int) {
        self.i0 = i0; self.i1 = i1; self.j0 = j0; self.j1 = j1
    }
}
