import LNoteFormat

/// How a solid-coloured shape combines with the canvas (lnote-format.md section 6).
public enum BlendMode: Sendable {
    /// dst' = dst + (src − dst)·a·c
    case sourceOver
    /// dst' = dst + (dst·src − dst)·a·c on an opaque canvas; the premultiplied (W3C) form on a
    /// transparent one, which reduces to that formula when dst alpha is 255.
    case multiply
}

/// Blends solid colours into rows of premultiplied RGBA8 pixels.
///
/// The arithmetic is on 0…255 values in Float and rounds to nearest (halves up) once per
/// element, as the format asks. With an opaque destination the premultiplied formulas are the
/// spec's straight formulas exactly, so one code path serves opaque and transparent canvases.
enum Compositor {
    @inline(__always)
    static func round8(_ v: Float) -> UInt8 {
        // v is in [−0.5, 255.5) up to float error; clamp, then truncate v + 0.5.
        let c = min(max(v + 0.5, 0), 255)
        return UInt8(Int32(c))
    }

    /// Blends `color` (straight sRGB) over `count` pixels starting at `dst`, pixel k with opacity
    /// `gain · coverage[k]` (gain: colour alpha; coverage: area × tool factor, 0…1). Zero opacity
    /// leaves a pixel as is.
    static func blendRow(dst: UnsafeMutablePointer<UInt8>, coverage: UnsafePointer<Float>, gain: Float, count: Int,
                         color: Color, mode: BlendMode) {
        let sr = Float(color.r), sg = Float(color.g), sb = Float(color.b)
        switch mode {
        case .sourceOver:
            for k in 0..<count {
                let a = coverage[k] * gain
                if a <= 0 { continue }
                let p = dst + 4 * k
                let dr = Float(p[0]), dg = Float(p[1]), db = Float(p[2]), da = Float(p[3])
                p[0] = round8(dr + (sr - dr) * a)
                p[1] = round8(dg + (sg - dg) * a)
                p[2] = round8(db + (sb - db) * a)
                p[3] = round8(da + (255 - da) * a)
            }
        case .multiply:
            let inv: Float = 1.0 / 255.0
            for k in 0..<count {
                let a = coverage[k] * gain
                if a <= 0 { continue }
                let p = dst + 4 * k
                let dr = Float(p[0]), dg = Float(p[1]), db = Float(p[2]), da = Float(p[3])
                let uncovered = (255 - da) * inv   // 0 on an opaque canvas
                p[0] = round8(dr + (sr * uncovered + sr * dr * inv - dr) * a)
                p[1] = round8(dg + (sg * uncovered + sg * dg * inv - dg) * a)
                p[2] = round8(db + (sb * uncovered + sb * db * inv - db) * a)
                p[3] = round8(da + (255 - da) * a)
            }
        }
    }

    /// `color` composited over white, unrounded (0…255 per channel): the page colour rule.
    static func overWhite(_ color: Color) -> (Float, Float, Float) {
        let a = Float(color.a) / 255
        return (255 + (Float(color.r) - 255) * a, 255 + (Float(color.g) - 255) * a, 255 + (Float(color.b) - 255) * a)
    }
}
