import LNoteBitmap
import LNoteFormat
import LNoteShape

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
    private var scratch: StrokeScratch

    /// A transparent canvas of `width` × `height` pixels (each at least 1).
    public init(width: Int, height: Int) {
        bitmap = Bitmap(width: width, height: height, fill: 0, isPremultiplied: true)
        scratch = StrokeScratch()
    }

    /// A canvas that continues drawing on `bitmap` (converted to premultiplied alpha if needed).
    public init(bitmap: Bitmap) {
        self.bitmap = bitmap.premultiplied()
        scratch = StrokeScratch()
    }

    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }

    private mutating func uniqueScratch() -> StrokeScratch {
        if !isKnownUniquelyReferenced(&scratch) { scratch = StrokeScratch() }
        return scratch
    }

    /// Draws `stroke` at `scale` pixels per point onto the whole canvas.
    public mutating func draw(_ stroke: Stroke, scale: Double) {
        draw(stroke, transform: PageTransform(scale: scale, width: bitmap.width, height: bitmap.height))
    }

    /// Draws `stroke` through `transform`: its exact union shape, anti-aliased by area,
    /// composited once with the tool's blend mode.
    public mutating func draw(_ stroke: Stroke, transform: PageTransform) {
        let ink = Ink(stroke)
        let gain = ink.opacity
        guard gain > 0 else { return }
        let s = uniqueScratch()
        let w = bitmap.width, h = bitmap.height
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            // Images wider than the rasterizer's limit are drawn in vertical strips.
            var x0 = 0
            while x0 < w {
                let strip = min(CoverageRasterizer.maxWidth, w - x0)
                s.shape.prepare(stroke, transform: transform.strip(from: x0))
                var sink = BlendSink(pixels: buf.baseAddress! + 4 * x0, rowStride: w, gain: gain, color: ink.color, mode: ink.mode)
                s.rasterizer.rasterize(s.shape, width: strip, height: h, sink: &sink)
                x0 += strip
            }
        }
    }
}

/// The reusable scratch of stroke drawing: the shape's effective samples and the rasterizer's
/// buffers. It holds nothing between strokes; canvases that share it get their own on first draw.
final class StrokeScratch {
    let shape = StrokeShape()
    let rasterizer: CoverageRasterizer

    init(capacity: Int = CoverageRasterizer.defaultCapacity) {
        rasterizer = CoverageRasterizer(capacity: capacity)
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
    /// colour alpha × tool factor × area coverage per pixel, row-major. For tests and tools;
    /// `capacity` bounds the capsules held at once (small values exercise banded drawing).
    static func coverageMask(_ stroke: Stroke, scale: Double, width: Int, height: Int,
                             capacity: Int = CoverageRasterizer.defaultCapacity) -> [Float] {
        var sink = MaskSink(mask: [Float](repeating: 0, count: width * height), width: width,
                            gain: Float(stroke.color.a) / 255)
        let scratch = StrokeScratch(capacity: capacity)
        scratch.shape.prepare(stroke, transform: PageTransform(scale: scale, width: width, height: height))
        scratch.rasterizer.rasterize(scratch.shape, width: width, height: height, sink: &sink)
        return sink.mask
    }
}
