import LNoteFormat
import LNoteShape

/// The raster backend's cost model: an upper-bound estimate of the time a page takes, made
/// before anything is drawn, so that a page no budget allows is refused in milliseconds
/// instead of stalling a server for minutes or exhausting its memory.
///
/// Units are nanoseconds of single-threaded work on the project's machine kind (release
/// build), from measurements of each term on pages built to stress it (`lnote-gen costly`,
/// reported by `tools/bench`):
/// - per stroke, a fixed `strokeCost` (setup, scratch, the row sort) and `sampleCost` per sample
///   (thin-stroke rule, simplification, streaming the pieces);
/// - `pieceRowCost` per capsule-row its pieces could touch (slices of K sub-lines, merging,
///   cell fills; interior runs keep a wide stroke's fills at its ends);
/// - `pixelCost` per pixel of its bounding box inside the image (summing and compositing the
///   touched spans): the bound a stroke that crosses the page pays, even if thin;
/// - for a stroke with more pieces than the rasterizer holds at once, `pieceStreamCost` per
///   piece for each extra pass over the shape (the histogram, then one pass per band);
/// - per image, `imagePixelCost` per pixel of a box around its frame (`framePixels`);
/// - the canvas itself, `pixelCost` per pixel (fill, background, encoding).
public struct RasterWork: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// Estimated nanoseconds.
    public var units: Double

    public init(units: Double) { self.units = units }

    public static let strokeCost: Double = 2000
    public static let sampleCost: Double = 20
    public static let pieceRowCost: Double = 250
    public static let pixelCost: Double = 8
    public static let pieceStreamCost: Double = 50
    public static let imagePixelCost: Double = 40

    public static func < (a: RasterWork, b: RasterWork) -> Bool { a.units < b.units }

    /// The estimate in seconds.
    public var seconds: Double { units / 1e9 }

    /// "12.3 s", "0.045 s": three significant digits.
    public var description: String { Self.secondsText(seconds) }

    public static func secondsText(_ s: Double) -> String {
        guard s.isFinite else { return "\(s) s" }
        if s >= 100 { return "\(Int(s.rounded())) s" }
        var digits = 2
        var v = s
        while v < 10 && digits < 6 && v > 0 { v *= 10; digits += 1 }
        let scale = pow10(digits - 1)
        let r = (s * scale).rounded() / scale
        return r == r.rounded() && abs(r) < 1e15 ? "\(Int(r)) s" : "\(r) s"
    }

    private static func pow10(_ n: Int) -> Double { (0..<max(0, n)).reduce(1.0) { r, _ in r * 10 } }

    /// The estimate for drawing `elements` through `transform` (whole image, not a strip):
    /// one pass over the samples, nothing allocated.
    public static func estimate(_ elements: [Element], transform: PageTransform) -> RasterWork {
        let capacity = CoverageRasterizer.defaultCapacity
        let W = transform.width, H = transform.height
        var units = pixelCost * Double(W) * Double(H)
        for element in elements {
            switch element.kind {
            case .stroke(let stroke):
                guard stroke.color.a > 0 else { continue }
                let e = StrokeShape.extent(of: stroke, transform: transform)
                units += strokeCost + sampleCost * Double(stroke.sampleCount)
                    + pieceRowCost * e.pieceRows + pixelCost * e.boxPixels
                if e.pieces > Double(capacity) {
                    let passes = (e.pieces / Double(capacity)).rounded(.up) + 1
                    units += pieceStreamCost * e.pieces * passes
                }
            case .image(let placement):
                units += imagePixelCost * framePixels(placement, transform: transform)
            case .unknown:
                continue
            }
        }
        return RasterWork(units: units)
    }

    /// Pixels of the box around the circle through the frame's corners (`ImageFrame`), inside
    /// the image: a bound of the rotated frame's box that needs no trigonometry.
    static func framePixels(_ p: ImagePlacement, transform t: PageTransform) -> Double {
        guard let frame = ImageFrame(p, transform: t) else { return 0 }
        let cx = frame.cx, cy = frame.cy, half = frame.cornerRadius
        let w = min(cx + half, Double(t.width)) - max(cx - half, 0)
        let h = min(cy + half, Double(t.height)) - max(cy - half, 0)
        return w > 0 && h > 0 && w.isFinite && h.isFinite ? (w + 1) * (h + 1) : 0
    }
}
