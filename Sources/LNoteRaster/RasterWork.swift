import LNoteFormat
import LNoteShape

/// The raster backend's cost model: an upper-bound estimate of the work a page takes, in
/// pixel operations, made before anything is drawn so that a page no budget allows is refused
/// in milliseconds instead of stalling a server for minutes.
///
/// - A stroke costs `pieceRowCost` per capsule-row its pieces could touch (the scanline
///   evaluation: slices of K sub-lines, merging, cell fills at its ends) plus one per pixel of its
///   bounding box inside the image (summing and compositing the touched spans). Interior runs
///   make a wide stroke's cell work proportional to its outline, so the area term is the
///   compositing alone.
/// - An image costs `imagePixelCost` per pixel of its frame's bounding box inside the image.
/// - The canvas itself costs one per pixel (fill, background, encoding are all linear in it).
///
/// The weights were measured on the project's machine kind (release build): one capsule-row
/// takes about as long as compositing 48 pixels; a resampled image pixel about 8.
public struct RasterWork: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// Pixel operations.
    public var units: Double

    public init(units: Double) { self.units = units }

    public static let pieceRowCost: Double = 48
    public static let imagePixelCost: Double = 8

    public static func < (a: RasterWork, b: RasterWork) -> Bool { a.units < b.units }

    /// Units in engineering notation with an SI prefix: "3.2 G".
    public var description: String {
        let v = units
        for (limit, suffix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] where v >= limit {
            return "\(Self.oneDecimal(v / limit)) \(suffix)"
        }
        return Self.oneDecimal(v)
    }

    private static func oneDecimal(_ v: Double) -> String {
        guard v.isFinite else { return String(v) }
        let t = (v * 10).rounded()
        return t.truncatingRemainder(dividingBy: 10) == 0 ? String(Int(t / 10)) : String(t / 10)
    }

    /// The estimate for drawing `elements` through `transform` (whole image, not a strip).
    /// `shape` is scratch (the strokes' effective samples are prepared into it one by one).
    public static func estimate(_ elements: [Element], transform: PageTransform, shape: StrokeShape = StrokeShape()) -> RasterWork {
        let W = transform.width, H = transform.height
        var units = Double(W) * Double(H)
        for element in elements {
            switch element.kind {
            case .stroke(let stroke):
                guard stroke.color.a > 0 else { continue }
                shape.prepare(stroke, transform: transform)
                let e = shape.extent(width: W, height: H)
                units += e.pieceRows * pieceRowCost + e.boxPixels
            case .image(let placement):
                units += imagePixelCost * framePixels(placement, transform: transform)
            case .unknown:
                continue
            }
        }
        return RasterWork(units: units)
    }

    /// Pixels of the (rotated) frame's bounding box inside the image.
    static func framePixels(_ p: ImagePlacement, transform t: PageTransform) -> Double {
        let fw = t.length(Double(p.width)), fh = t.length(Double(p.height))
        let cx = t.x(Double(p.x)) + fw / 2, cy = t.y(Double(p.y)) + fh / 2
        // The rotated frame's box lies within the circle through its corners.
        let half = (fw * fw + fh * fh).squareRoot() / 2
        let w = min(cx + half, Double(t.width)) - max(cx - half, 0)
        let h = min(cy + half, Double(t.height)) - max(cy - half, 0)
        return w > 0 && h > 0 && w.isFinite && h.isFinite ? (w + 1) * (h + 1) : 0
    }
}
