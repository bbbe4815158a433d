import Glibc
import LNoteBitmap
import LNoteFormat
import LNoteShape

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// Sampling is premultiplied. Where the image is enlarged it is plain bilinear (texel centres at
/// +0.5, edges clamped). Along an axis where it is shrunk 2:1 or more, it is first resampled to
/// two texels per frame pixel by an exact area average (each new texel the mean of the source
/// area it covers, partial texels weighted by the part covered), and a pixel averages four
/// bilinear taps at its quarter points along the shrunk axes: exactly the area average of the
/// pixel for an unrotated, pixel-aligned frame, close to it otherwise. Between 1:1 and 1:2 the
/// taps read the source itself (close to the area average, without a texture larger than the
/// image). Only pixels under the rotated frame's bounding box, clipped to the canvas, are visited.
extension Canvas {
    /// `draw(image:placement:transform:)` at `scale` pixels per point onto this canvas.
    public mutating func draw(image: Bitmap, placement: ImagePlacement, scale: Double) {
        draw(image: image, placement: placement, transform: PageTransform(scale: scale, width: width, height: height))
    }

    /// Draws `image` (decoded, straight alpha) into `placement`'s frame mapped through `transform`.
    public mutating func draw(image: Bitmap, placement: ImagePlacement, transform t: PageTransform) {
        let opacity = Float(min(max(placement.opacity, 0), 1000)) / 1000
        guard opacity > 0, t.scale > 0, t.scale.isFinite, placement.width > 0, placement.height > 0 else { return }
        let fx = t.x(Double(placement.x)), fy = t.y(Double(placement.y))
        let fw = t.length(Double(placement.width)), fh = t.length(Double(placement.height))
        // Only reachable through the API with an absurd scale: nothing sensible to draw.
        guard fx.isFinite, fy.isFinite, fw.isFinite, fh.isFinite else { return }
        let cx = fx + fw / 2, cy = fy + fh / 2
        let theta = Double(placement.rotation) / 1000 * Double.pi / 180
        let cosT = cos(theta), sinT = sin(theta)

        // Bounding box of the rotated frame, clipped to the canvas.
        let hx = abs(cosT) * fw / 2 + abs(sinT) * fh / 2
        let hy = abs(sinT) * fw / 2 + abs(cosT) * fh / 2
        let i0 = max(0, Int(max(cx - hx, -1).rounded(.down)))
        let i1 = min(bitmap.width - 1, Int(min(cx + hx, Double(bitmap.width)).rounded(.up)))
        let j0 = max(0, Int(max(cy - hy, -1).rounded(.down)))
        let j1 = min(bitmap.height - 1, Int(min(cy + hy, Double(bitmap.height)).rounded(.up)))
        guard i0 <= i1, j0 <= j1 else { return }

        let texture = Texture(image, frameWidth: fw, frameHeight: fh)
        // Texture texels per frame pixel.
        let tx = Double(texture.width) / fw, ty = Double(texture.height) / fh
        // Where the image is shrunk, four taps at the pixel's quarter points along the shrunk axes.
        let du = texture.shrunkX ? 0.25 : 0, dv = texture.shrunkY ? 0.25 : 0
        let taps = texture.shrunkX || texture.shrunkY
        let w = bitmap.width
        texture.withSampler { sample in
            bitmap.pixels.withUnsafeMutableBufferPointer { buf in
                let px = buf.baseAddress!
                for j in j0...j1 {
                    for i in i0...i1 {
                        // Frame-local (u, v) in pixels of the pixel centre, u along the rotated x axis.
                        let qx = Double(i) + 0.5 - cx, qy = Double(j) + 0.5 - cy
                        let u = qx * cosT + qy * sinT + fw / 2
                        let v = -qx * sinT + qy * cosT + fh / 2
                        let edge = min(u, fw - u, v, fh - v)
                        let c: Double
                        if edge >= 0.7072 { c = 1 }
                        else if edge <= -0.7072 { continue }
                        else {
                            c = Canvas.squareInFrame(Double(i) - cx, Double(j) - cy, cosT, sinT, fw, fh)
                            if c <= 0 { continue }
                        }
                        let s: SIMD4<Float>
                        if taps {
                            // Each axis's two positions are resolved once for the four taps.
                            let x0 = sample.column((u - du) * tx), x1 = sample.column((u + du) * tx)
                            let y0 = sample.row((v - dv) * ty), y1 = sample.row((v + dv) * ty)
                            s = (sample.blend(x0, y0) + sample.blend(x1, y0) + sample.blend(x0, y1) + sample.blend(x1, y1)) * 0.25
                        } else {
                            s = sample(u * tx, v * ty)
                        }
                        Compositor.sourceOver(px + 4 * (j * w + i), premultiplied: s, a: Float(c) * opacity)
                    }
                }
            }
        }
    }

    /// Area of the unit pixel square with corner (x, y) (relative to the frame centre) inside the
    /// rotated frame: the square clipped by the frame's four half-planes, then the shoelace area.
    ///
    /// The square is clipped in its own coordinates (corner at the origin), each half-plane's
    /// offset moved there instead: coordinates may lie anywhere in the 32-bit range, and with the
    /// corner 10^8 px from the centre the shoelace products of absolute coordinates would be
    /// ~10^16, where Double's rounding is larger than the area itself.
    static func squareInFrame(_ x: Double, _ y: Double, _ cosT: Double, _ sinT: Double, _ fw: Double, _ fh: Double) -> Double {
        // Sutherland–Hodgman with one inside test (n·p ≤ offset) for vertices and crossings
        // alike: the inside vertices of a convex polygon are contiguous, so a plane adds at most
        // one vertex and four planes leave at most 8. (Testing crossings with a strict `<` while
        // keeping vertices with `≤` repeats a vertex lying on a plane — a frame edge exactly on a
        // pixel edge — up to three times, and overran these buffers.) Two fixed buffers on the
        // stack, used in turn: this runs for every pixel along a frame's edges.
        withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: 16) { buffer in
            var poly = buffer.baseAddress!, spare = poly + 8
            poly[0] = [0, 0]; poly[1] = [1, 0]; poly[2] = [1, 1]; poly[3] = [0, 1]
            var count = 4
            // Half-planes n·q ≤ d with u = q·(cos, sin), v = q·(−sin, cos), |u| ≤ fw/2,
            // |v| ≤ fh/2, for q = (x, y) + p: n·p ≤ d − n·(x, y).
            let planes: [(Double, Double, Double)] = [(cosT, sinT, fw / 2), (-cosT, -sinT, fw / 2),
                                                      (-sinT, cosT, fh / 2), (sinT, -cosT, fh / 2)]
            for (nx, ny, d) in planes {
                let offset = d - (nx * x + ny * y)
                var kept = 0
                for k in 0..<count {
                    let a = poly[k], b = poly[k + 1 == count ? 0 : k + 1]
                    let da = nx * a.x + ny * a.y - offset, db = nx * b.x + ny * b.y - offset
                    if da <= 0 { spare[kept] = a; kept += 1 }
                    if (da <= 0) != (db <= 0) {
                        let t = da / (da - db)
                        spare[kept] = [a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t]
                        kept += 1
                    }
                }
                swap(&poly, &spare)
                count = kept
                if count < 3 { return 0 }
            }
            var area = 0.0
            for k in 0..<count {
                let a = poly[k], b = poly[k + 1 == count ? 0 : k + 1]
                area += a.x * b.y - b.x * a.y
            }
            return min(1, abs(area) / 2)
        }
    }
}

/// Premultiplied float texels (RGBA, 0…255), area-averaged down to twice the frame's size along
/// each axis where the image is more than twice as large as its frame.
struct Texture {
    let width: Int, height: Int
    /// The image is larger than the frame along x (y): the draw takes four taps per pixel.
    let shrunkX: Bool, shrunkY: Bool
    private let texels: [SIMD4<Float>]   // row-major

    /// The texture for `image` drawn into a frame of `frameWidth` × `frameHeight` pixels.
    init(_ image: Bitmap, frameWidth: Double, frameHeight: Double) {
        let w = Texture.resampledCount(image.width, frame: frameWidth)
        let h = Texture.resampledCount(image.height, frame: frameHeight)
        width = w; height = h
        shrunkX = Texture.isShrunk(image.width, frame: frameWidth)
        shrunkY = Texture.isShrunk(image.height, frame: frameHeight)
        // Rows first (each source row to w texels), then rows of the result to h; both passes are
        // exact box filters, so together they average each texel's rectangle of the source. An
        // axis that is not shrunk skips its pass, so an enlarged image costs one float copy.
        let across = shrunkX ? AreaWeights(source: image.width, target: w) : nil
        // Every texel of both buffers is written before it is read; no need to zero them first.
        var rows = [SIMD4<Float>](unsafeUninitializedCapacity: w * image.height) { _, n in n = w * image.height }
        let premultiply = !image.isPremultiplied
        var line = [SIMD4<Float>](repeating: .zero, count: across == nil ? 0 : image.width)
        image.pixels.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { rows in
                line.withUnsafeMutableBufferPointer { line in
                    for y in 0..<image.height {
                        // The source row in premultiplied floats: straight into the texture when
                        // it is not resampled.
                        let out = across == nil ? rows.baseAddress! + y * w : line.baseAddress!
                        let row = y * image.width * 4
                        for x in 0..<image.width {
                            let o = row + x * 4
                            let a = Float(src[o + 3])
                            let m: Float = premultiply ? a / 255 : 1
                            out[x] = SIMD4(Float(src[o]) * m, Float(src[o + 1]) * m, Float(src[o + 2]) * m, a)
                        }
                        across?.resample(UnsafePointer(line.baseAddress!), into: rows.baseAddress! + y * w)
                    }
                }
            }
        }
        guard shrunkY else { texels = rows; return }
        let down = AreaWeights(source: image.height, target: h)
        var t = [SIMD4<Float>](unsafeUninitializedCapacity: w * h) { _, n in n = w * h }
        rows.withUnsafeBufferPointer { rows in
            t.withUnsafeMutableBufferPointer { t in
                down.resampleRows(UnsafePointer(rows.baseAddress!), width: w, into: t.baseAddress!)
            }
        }
        texels = t
    }

    /// Texels along an axis: the source count where the image is enlarged (sampled bilinearly as
    /// is); where it is shrunk, two per frame pixel (rounded up) but never more than the source
    /// has — between 1:1 and 1:2 the four taps read the source itself, and a texture is never
    /// larger than its image (a 10000² photo in a 9000 px frame would otherwise take 5 GB).
    static func resampledCount(_ source: Int, frame: Double) -> Int {
        guard isShrunk(source, frame: frame) else { return source }
        return max(1, min(source, Int((2 * frame).rounded(.up))))
    }

    static func isShrunk(_ source: Int, frame: Double) -> Bool { frame.isFinite && frame < Double(source) }

    /// Calls `body` with a bilinear sampler of the texture.
    func withSampler<R>(_ body: (Sampler) -> R) -> R {
        texels.withUnsafeBufferPointer { body(Sampler(texels: $0.baseAddress!, width: width, height: height)) }
    }

    /// Bilinear sampling at texture coordinates (texel units, centres at +0.5), edges clamped.
    struct Sampler {
        let texels: UnsafePointer<SIMD4<Float>>
        let width: Int, height: Int

        /// The two texels either side of texture coordinate x along an axis of n texels, and
        /// the weight of the second.
        typealias Stop = (first: Int, second: Int, weight: Float)

        @inline(__always) private static func stop(_ x: Double, _ n: Int) -> Stop {
            let s = min(max(x - 0.5, 0), Double(n - 1))
            let i = Int(s)
            return (i, min(i + 1, n - 1), Float(s - Double(i)))
        }

        @inline(__always) func column(_ x: Double) -> Stop { Sampler.stop(x, width) }
        @inline(__always) func row(_ y: Double) -> Stop { Sampler.stop(y, height) }

        @inline(__always) func blend(_ x: Stop, _ y: Stop) -> SIMD4<Float> {
            let upper = texels + y.first * width, lower = texels + y.second * width
            let a = upper[x.first], b = upper[x.second], c = lower[x.first], d = lower[x.second]
            let top = a + (b - a) * x.weight
            let bottom = c + (d - c) * x.weight
            return top + (bottom - top) * y.weight
        }

        @inline(__always) func callAsFunction(_ x: Double, _ y: Double) -> SIMD4<Float> { blend(column(x), row(y)) }
    }
}

/// An exact area average from `source` texels to `target` texels along one axis:
/// target texel t covers source [t·r, (t + 1)·r) with r = source/target, each source texel
/// weighted by the length of it inside.
struct AreaWeights {
    /// For target texel t: its first source texel, and its weights in `weights[offsets[t]..<offsets[t + 1]]`.
    private var first: [Int] = [], offsets: [Int] = [0], weights: [Float] = []
    let target: Int

    init(source: Int, target: Int) {
        self.target = target
        let r = Double(source) / Double(target)
        for t in 0..<target {
            let a = Double(t) * r, b = t == target - 1 ? Double(source) : Double(t + 1) * r
            let s0 = Int(a.rounded(.down)), s1 = min(source, Int(b.rounded(.up)))
            first.append(s0)
            for s in s0..<s1 {
                let inside = min(b, Double(s + 1)) - max(a, Double(s))
                weights.append(Float(max(0, inside) / (b - a)))
            }
            offsets.append(weights.count)
        }
    }

    /// One line: out[t] = Σ weight · v[s].
    func resample(_ v: UnsafePointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        first.withUnsafeBufferPointer { first in offsets.withUnsafeBufferPointer { offsets in weights.withUnsafeBufferPointer { weights in
            for t in 0..<target {
                var acc = SIMD4<Float>()
                var s = first[t]
                for k in offsets[t]..<offsets[t + 1] { acc += weights[k] * v[s]; s += 1 }
                out[t] = acc
            }
        } } }
    }

    /// Whole rows of `width` texels: out row t = Σ weight · row s, a contiguous sweep per weight.
    func resampleRows(_ v: UnsafePointer<SIMD4<Float>>, width: Int, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        first.withUnsafeBufferPointer { first in offsets.withUnsafeBufferPointer { offsets in weights.withUnsafeBufferPointer { weights in
            for t in 0..<target {
                let o = out + t * width
                var s = first[t]
                for k in offsets[t]..<offsets[t + 1] {
                    let weight = weights[k], row = v + s * width
                    // The first weight stores, the rest add: the same sums, in the same order,
                    // as accumulating from zero.
                    if k == offsets[t] { for x in 0..<width { o[x] = weight * row[x] } }
                    else { for x in 0..<width { o[x] += weight * row[x] } }
                    s += 1
                }
            }
        } } }
    }
}
