import CRasterKernels
import CUnchecked
import LNoteBitmap
import LNoteFormat
import LNoteShape

/// The one owner of blending for the raster backend: strokes, backgrounds and images all
/// combine with the canvas through these functions (lnote-format.md section 6).
///
/// Pixels are premultiplied RGBA8. The arithmetic is on 0…255 values in Float and rounds to
/// nearest (halves up) once per element, as the format asks. With an opaque destination the
/// premultiplied formulas are the spec's straight formulas exactly, so one code path serves
/// opaque and transparent canvases.
enum Compositor {
    @inline(__always)
    static func round8(_ v: Float) -> UInt8 {
        // v is in [−0.5, 255.5) up to float error; clamp, then truncate v + 0.5 (unchecked: the
        // clamp keeps it in range, NaN included, which max/min turn into 0).
        let c = min(max(v + 0.5, 0), 255)
        return UInt8(truncatingIfNeeded: lnote_trunc_f32_i32(c))
    }

    /// Source-over of a solid straight colour (s) at opacity `a` onto the destination values
    /// (d, unrounded or read from the pixel), written rounded to `p`.
    @inline(__always)
    static func sourceOver(_ p: UnsafeMutablePointer<UInt8>, sr: Float, sg: Float, sb: Float, a: Float,
                           dr: Float, dg: Float, db: Float, da: Float) {
        p[0] = round8(dr + (sr - dr) * a)
        p[1] = round8(dg + (sg - dg) * a)
        p[2] = round8(db + (sb - db) * a)
        p[3] = round8(da + (255 - da) * a)
    }

    /// Source-over of a solid straight colour at opacity `a` onto pixel `p`.
    @inline(__always)
    static func sourceOver(_ p: UnsafeMutablePointer<UInt8>, sr: Float, sg: Float, sb: Float, a: Float) {
        sourceOver(p, sr: sr, sg: sg, sb: sb, a: a, dr: Float(p[0]), dg: Float(p[1]), db: Float(p[2]), da: Float(p[3]))
    }

    /// Source-over of a premultiplied texel `s` (0…255 per channel) at opacity `a` onto pixel `p`.
    @inline(__always)
    static func sourceOver(_ p: UnsafeMutablePointer<UInt8>, premultiplied s: SIMD4<Float>, a: Float) {
        let keep = 1 - s[3] / 255 * a
        p[0] = round8(s[0] * a + Float(p[0]) * keep)
        p[1] = round8(s[1] * a + Float(p[1]) * keep)
        p[2] = round8(s[2] * a + Float(p[2]) * keep)
        p[3] = round8(s[3] * a + Float(p[3]) * keep)
    }

    /// Blends `color` (straight sRGB) over `count` pixels starting at `dst`, pixel k with opacity
    /// `gain · coverage[k]` (gain: colour alpha; coverage: area × tool factor, 0…1). Zero opacity
    /// leaves a pixel as is.
    ///
    /// The row kernels are C (`CRasterKernels`): the same operations as `sourceOver` above and the
    /// multiply formula (d + (s·(1 − αd) + s·d/255 − d)·a, the premultiplied W3C form: where the
    /// canvas is transparent the source shows as itself), vectorized four pixels at a time.
    /// `CompositingTests.testRowKernelsMatchThePerPixelFormulas` checks both kernels against
    /// these formulas bit for bit.
    static func blendRow(dst: UnsafeMutablePointer<UInt8>, coverage: UnsafePointer<Float>, gain: Float, count: Int,
                         color: Color, mode: BlendMode) {
        let sr = Float(color.r), sg = Float(color.g), sb = Float(color.b)
        let n = Int32(truncatingIfNeeded: count)   // a row: at most CoverageRasterizer.maxWidth
        switch mode {
        case .sourceOver: lnote_blend_row_source_over(dst, coverage, n, gain, sr, sg, sb)
        case .multiply: lnote_blend_row_multiply(dst, coverage, n, gain, sr, sg, sb)
        }
    }

    /// `color` composited over white, unrounded (0…255 per channel): the page colour rule.
    static func overWhite(_ color: Color) -> (Float, Float, Float) {
        let a = Float(color.a) / 255
        return (255 + (Float(color.r) - 255) * a, 255 + (Float(color.g) - 255) * a, 255 + (Float(color.b) - 255) * a)
    }
}

extension Bitmap {
    /// This premultiplied image composited onto opaque `paper` (straight sRGB, its alpha
    /// ignored), rounding to nearest: the explicit flattening step before an encoder without
    /// alpha (JPEG, RGB PNG). An opaque image comes back unchanged.
    public func flattened(onto paper: Color = .white) -> Bitmap {
        precondition(isPremultiplied, "the canvas is premultiplied; decoded images are flattened by drawing them")
        if isOpaque { return self }
        var out = self
        let pr = Int(paper.r), pg = Int(paper.g), pb = Int(paper.b)
        out.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = Int(p[i &+ 3])
                if a != 255 {
                    // Premultiplied source-over: c + paper·(1 − α), rounded to nearest.
                    let rest = 255 &- a
                    p[i] = UInt8(min(255, Int(p[i]) &+ (pr &* rest &+ 127) / 255))
                    p[i &+ 1] = UInt8(min(255, Int(p[i &+ 1]) &+ (pg &* rest &+ 127) / 255))
                    p[i &+ 2] = UInt8(min(255, Int(p[i &+ 2]) &+ (pb &* rest &+ 127) / 255))
                    p[i &+ 3] = 255
                }
                i &+= 4
            }
        }
        return out
    }
}
