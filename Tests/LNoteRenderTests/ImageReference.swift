// The independent image reference (issue 16): section 6's "area average when shrunk" computed
// the slow, obvious way, sharing no code with the renderer's filter.
//
// Each canvas pixel is split into S × S equal cells (S ≥ 24), one sub-sample in each at a
// seeded random position inside the cell (stratified jitter: on an unrotated frame, texel
// edges parallel to a fixed sub-sample grid would round every texel column's share the same
// way in every row, an error that never averages out). Every sub-sample point is mapped back
// through the frame and its rotation to frame-local (u, v); if it lies inside the frame, it
// takes the colour of the texel it falls in (box reconstruction, nearest texel, no
// interpolation) of the FULLY decoded image, premultiplied. The pixel's colour is the mean over
// all S² sub-samples (outside ones count as transparent), which estimates the area average of
// the box image over the pixel times its coverage; it is composited once over the background.
//
// Enlargement has its own reference (`bilinear`): the premultiplied bilinear sample at the
// pixel centre, texel centres at +0.5, edges clamped.

import Foundation
import LNoteBitmap
import LNoteFormat

enum ImageReference {
    /// The frame of `placement` at `scale`, in pixels.
    struct Frame {
        let fw: Double, fh: Double, cx: Double, cy: Double, cosT: Double, sinT: Double

        init(_ p: ImagePlacement, scale: Double) {
            let k = scale / 10
            fw = Double(p.width) * k; fh = Double(p.height) * k
            cx = Double(p.x) * k + fw / 2; cy = Double(p.y) * k + fh / 2
            let theta = Double(p.rotation) / 1000 * Double.pi / 180
            cosT = cos(theta); sinT = sin(theta)
        }

        /// Frame-local (u, v) of canvas point (x, y).
        func local(_ x: Double, _ y: Double) -> (Double, Double) {
            let qx = x - cx, qy = y - cy
            return (qx * cosT + qy * sinT + fw / 2, -qx * sinT + qy * cosT + fh / 2)
        }

        func contains(_ x: Double, _ y: Double) -> Bool {
            let (u, v) = local(x, y)
            return u >= 0 && u < fw && v >= 0 && v < fh
        }

        /// Which pixels the comparison counts where: all four corners inside (interior), some
        /// of the pixel inside (edge), or none.
        func kind(_ i: Int, _ j: Int) -> PixelKind {
            let corners = [(0.0, 0.0), (1, 0), (0, 1), (1, 1)].map { contains(Double(i) + $0.0, Double(j) + $0.1) }
            if corners.allSatisfy({ $0 }) { return .interior }
            // Sample the pixel finely: a frame corner can poke into a pixel none of whose corners is inside.
            for a in 0..<8 { for b in 0..<8 where contains(Double(i) + (Double(a) + 0.5) / 8, Double(j) + (Double(b) + 0.5) / 8) { return .edge } }
            return corners.contains(true) ? .edge : .outside
        }
    }

    enum PixelKind { case interior, edge, outside }

    /// Premultiplied RGBA (0…255) of texel (x, y) of straight-alpha `image`.
    static func premultiplied(_ image: Bitmap, _ x: Int, _ y: Int) -> (Double, Double, Double, Double) {
        let o = (y * image.width + x) * 4
        let a = Double(image.pixels[o + 3])
        let m = image.isPremultiplied ? 1 : a / 255
        return (Double(image.pixels[o]) * m, Double(image.pixels[o + 1]) * m, Double(image.pixels[o + 2]) * m, a)
    }

    /// Source-over of premultiplied (r, g, b, a) with opacity onto an opaque background colour.
    static func over(_ s: (Double, Double, Double, Double), opacity: Double, background: (Double, Double, Double)) -> [Double] {
        let keep = 1 - s.3 / 255 * opacity
        return [s.0 * opacity + background.0 * keep, s.1 * opacity + background.1 * keep, s.2 * opacity + background.2 * keep]
    }

    /// The fully decoded image as premultiplied doubles, 4 per texel (read by `areaAverage`).
    struct Texels {
        let width: Int, height: Int
        let values: [Double]

        init(_ image: Bitmap) {
            width = image.width; height = image.height
            var v = [Double](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let t = ImageReference.premultiplied(image, x, y)
                    let o = (y * width + x) * 4
                    v[o] = t.0; v[o + 1] = t.1; v[o + 2] = t.2; v[o + 3] = t.3
                }
            }
            values = v
        }
    }

    /// The area-average reference of pixel (i, j) (RGB after compositing), `samples` per axis.
    static func areaAverage(_ texels: Texels, frame: Frame, opacity: Double, background: (Double, Double, Double),
                            pixel i: Int, _ j: Int, samples s: Int) -> [Double] {
        precondition(s >= 24, "the reference takes at least 24 × 24 sub-samples per pixel")
        let texelsPerU = Double(texels.width) / frame.fw, texelsPerV = Double(texels.height) / frame.fh
        var r = 0.0, g = 0.0, bl = 0.0, al = 0.0
        // The jitter's generator (an LCG), seeded by the pixel: the reference is the same every run.
        var state = UInt64(truncatingIfNeeded: i &* 73_856_093 ^ j &* 19_349_663) &+ 0x9E37_79B9_7F4A_7C15
        let step = 1 / Double(s), unit = 1 / Double(1 << 53)
        texels.values.withUnsafeBufferPointer { v in
            for b in 0..<s {
                for a in 0..<s {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let jx = Double(state >> 11) * unit
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let jy = Double(state >> 11) * unit
                    let (u, w) = frame.local(Double(i) + (Double(a) + jx) * step, Double(j) + (Double(b) + jy) * step)
                    guard u >= 0, u < frame.fw, w >= 0, w < frame.fh else { continue }
                    let tx = min(texels.width - 1, Int(u * texelsPerU)), ty = min(texels.height - 1, Int(w * texelsPerV))
                    let o = (ty * texels.width + tx) * 4
                    r += v[o]; g += v[o + 1]; bl += v[o + 2]; al += v[o + 3]
                }
            }
        }
        let n = Double(s * s)
        return over((r / n, g / n, bl / n, al / n), opacity: opacity, background: background)
    }

    /// The enlargement reference of an interior pixel (i, j): bilinear at its centre.
    static func bilinear(_ image: Bitmap, frame: Frame, opacity: Double, background: (Double, Double, Double),
                         pixel i: Int, _ j: Int) -> [Double] {
        let (u, v) = frame.local(Double(i) + 0.5, Double(j) + 0.5)
        let x = min(max(u * Double(image.width) / frame.fw - 0.5, 0), Double(image.width - 1))
        let y = min(max(v * Double(image.height) / frame.fh - 0.5, 0), Double(image.height - 1))
        let x0 = Int(x), y0 = Int(y), x1 = min(x0 + 1, image.width - 1), y1 = min(y0 + 1, image.height - 1)
        let fx = x - Double(x0), fy = y - Double(y0)
        func mix(_ a: (Double, Double, Double, Double), _ b: (Double, Double, Double, Double), _ t: Double) -> (Double, Double, Double, Double) {
            (a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t, a.2 + (b.2 - a.2) * t, a.3 + (b.3 - a.3) * t)
        }
        let top = mix(premultiplied(image, x0, y0), premultiplied(image, x1, y0), fx)
        let bottom = mix(premultiplied(image, x0, y1), premultiplied(image, x1, y1), fx)
        return over(mix(top, bottom, fy), opacity: opacity, background: background)
    }
}

/// Interior and frame-edge error statistics of a render against a reference, in levels (0…255)
/// of the largest channel difference per pixel.
struct ImageErrorStats: CustomStringConvertible {
    var interior = 0, interiorOver8 = 0, interiorMax = 0.0
    var edge = 0, edgeSum = 0.0, edgeMax = 0.0
    var worst = (0, 0)

    mutating func add(_ kind: ImageReference.PixelKind, actual: [UInt8], reference: [Double], at pixel: (Int, Int)) {
        var e = 0.0
        for c in 0..<3 { e = max(e, abs(Double(actual[c]) - reference[c])) }
        switch kind {
        case .interior:
            interior += 1
            if e > 8 { interiorOver8 += 1 }
            if e > interiorMax { interiorMax = e; worst = pixel }
        case .edge:
            edge += 1; edgeSum += e; edgeMax = max(edgeMax, e)
        case .outside:
            break
        }
    }

    var interiorWithin8: Double { interior == 0 ? 1 : 1 - Double(interiorOver8) / Double(interior) }
    var edgeMean: Double { edge == 0 ? 0 : edgeSum / Double(edge) }

    var description: String {
        String(format: "interior %d px: %.2f%% within 8/255, max %.1f at (%d, %d); edge %d px: mean %.2f, max %.1f",
               interior, 100 * interiorWithin8, interiorMax, worst.0, worst.1, edge, edgeMean, edgeMax)
    }
}
