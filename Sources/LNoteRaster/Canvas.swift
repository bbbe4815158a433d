import LNoteBitmap
import LNoteFormat

/// A premultiplied RGBA8 canvas that page elements are drawn onto, in z-order.
///
/// Every drawing call composites one element and rounds to 8 bits once (lnote-format.md
/// section 6). A new canvas is transparent; `fill` or `drawBackground` make it opaque, and the
/// compositing formulas then reduce exactly to the spec's straight-alpha ones.
///
/// The canvas owns reusable scratch space for strokes (a few arrays sized by the largest stroke
/// and one image row), never a second full-size buffer. Copies of a canvas share that scratch,
/// which holds nothing between calls; a copy that is drawn on while shared gets its own.
public struct Canvas {
    public internal(set) var bitmap: Bitmap
    private var rasterizer: CoverageRasterizer

    /// A transparent canvas of `width` × `height` pixels (each at least 1).
    public init(width: Int, height: Int) {
        bitmap = Bitmap(width: width, height: height, fill: 0, isPremultiplied: true)
        rasterizer = CoverageRasterizer()
    }

    /// A canvas that continues drawing on `bitmap` (converted to premultiplied alpha if needed).
    public init(bitmap: Bitmap) {
        self.bitmap = bitmap.premultiplied()
        rasterizer = CoverageRasterizer()
    }

    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }

    private mutating func uniqueRasterizer() -> CoverageRasterizer {
        if !isKnownUniquelyReferenced(&rasterizer) { rasterizer = CoverageRasterizer() }
        return rasterizer
    }

    /// Draws `stroke` at `scale` pixels per point: its exact union shape, anti-aliased by area,
    /// composited once with the tool's blend mode.
    public mutating func draw(_ stroke: Stroke, scale: Double) {
        let raster = uniqueRasterizer()
        let w = bitmap.width, h = bitmap.height
        let gain = Float(stroke.color.a) / 255
        guard gain > 0 else { return }
        let mode: BlendMode = stroke.tool == .highlighter ? .multiply : .sourceOver
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            // Images wider than the rasterizer's limit are drawn in vertical strips.
            var x0 = 0
            while x0 < w {
                let strip = min(CoverageRasterizer.maxWidth, w - x0)
                var sink = BlendSink(pixels: buf.baseAddress! + 4 * x0, rowStride: w, gain: gain, color: stroke.color, mode: mode)
                raster.rasterize(stroke, scale: scale, originX: Double(x0), width: strip, height: h, sink: &sink)
                x0 += strip
            }
        }
    }
}

/// Composites each coverage row straight into the canvas.
struct BlendSink: CoverageSink {
    /// The strip's first pixel of row 0.
    let pixels: UnsafeMutablePointer<UInt8>
    /// Pixels per row of the whole image.
    let rowStride: Int
    let gain: Float
    let color: Color
    let mode: BlendMode

    @inline(__always)
    mutating func emit(row: Int, x0: Int, count: Int, coverage: UnsafePointer<Float>) {
        Compositor.blendRow(dst: pixels + 4 * (row * rowStride + x0), coverage: coverage, gain: gain, count: count,
                            color: color, mode: mode)
    }
}

/// Collects coverage into a full-size mask (tests, tools).
struct MaskSink: CoverageSink {
    var mask: [Float]
    let width: Int
    let gain: Float

    mutating func emit(row: Int, x0: Int, count: Int, coverage: UnsafePointer<Float>) {
        for k in 0..<count { mask[row * width + x0 + k] = coverage[k] * gain }
    }
}

extension Canvas {
    /// The opacity mask a·c of `stroke` on a `width` × `height` image, before compositing:
    /// colour alpha × tool factor × area coverage per pixel, row-major. For tests and tools.
    static func coverageMask(_ stroke: Stroke, scale: Double, width: Int, height: Int) -> [Float] {
        var sink = MaskSink(mask: [Float](repeating: 0, count: width * height), width: width,
                            gain: Float(stroke.color.a) / 255)
        CoverageRasterizer().rasterize(stroke, scale: scale, width: width, height: height, sink: &sink)
        return sink.mask
    }
}
