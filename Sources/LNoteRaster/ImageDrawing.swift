import Glibc
import LNoteBitmap
import LNoteFormat

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// Sampling is premultiplied. Along an axis where the image is shrunk, it is first resampled to
/// the frame's size in pixels (rounded up) by an exact area average — each new texel is the
/// mean of the source area it covers, partial texels weighted by the part covered — so a pixel
/// averages the whole area under it instead of aliasing, at any ratio; then it is sampled
/// bilinearly, which is plain bilinear where the image is enlarged (texel centres at +0.5, edges
/// clamped). Only pixels under the rotated frame's bounding box, clipped to the canvas, are visited.
extension Canvas {
    public mutating func draw(image: Bitmap, placement: ImagePlacement, scale: Double) {
        let opacity = Float(min(max(placement.opacity, 0), 1000)) / 1000
        guard opacity > 0, scale > 0, scale.isFinite, placement.width > 0, placement.height > 0 else { return }
        let k = scale / 10
        let fx = Double(placement.x) * k, fy = Double(placement.y) * k
        let fw = Double(placement.width) * k, fh = Double(placement.height) * k
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
        // Frame-local (u, v) in pixels of a canvas point, u along the rotated x axis.
        let w = bitmap.width
        // Texture texels per frame pixel.
        let tx = Double(texture.width) / fw, ty = Double(texture.height) / fh
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            let px = buf.baseAddress!
            for j in j0...j1 {
                for i in i0...i1 {
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
                    let s: (Float, Float, Float, Float)
                    if texture.shrunkX || texture.shrunkY {
                        // Four samples spread over the pixel along the shrunk axes.
                        let du = texture.shrunkX ? 0.25 : 0, dv = texture.shrunkY ? 0.25 : 0
                        let a = texture.sample((u - du) * tx, (v - dv) * ty), b = texture.sample((u + du) * tx, (v - dv) * ty)
                        let c2 = texture.sample((u - du) * tx, (v + dv) * ty), d = texture.sample((u + du) * tx, (v + dv) * ty)
                        s = ((a.0 + b.0 + c2.0 + d.0) * 0.25, (a.1 + b.1 + c2.1 + d.1) * 0.25,
                             (a.2 + b.2 + c2.2 + d.2) * 0.25, (a.3 + b.3 + c2.3 + d.3) * 0.25)
                    } else {
                        s = texture.sample(u * tx, v * ty)
                    }
                    let a = Float(c) * opacity
                    let p = px + 4 * (j * w + i)
                    let keep = 1 - s.3 / 255 * a
                    p[0] = Compositor.round8(s.0 * a + Float(p[0]) * keep)
                    p[1] = Compositor.round8(s.1 * a + Float(p[1]) * keep)
                    p[2] = Compositor.round8(s.2 * a + Float(p[2]) * keep)
                    p[3] = Compositor.round8(s.3 * a + Float(p[3]) * keep)
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
        var poly: [(Double, Double)] = [(0, 0), (1, 0), (1, 1), (0, 1)]
        // Half-planes n·q ≤ d with u = q·(cos, sin), v = q·(−sin, cos), |u| ≤ fw/2, |v| ≤ fh/2,
        // for q = (x, y) + p: n·p ≤ d − n·(x, y).
        let planes: [(Double, Double, Double)] = [(cosT, sinT, fw / 2), (-cosT, -sinT, fw / 2),
                                                  (-sinT, cosT, fh / 2), (sinT, -cosT, fh / 2)]
        for (nx, ny, d) in planes {
            let offset = d - (nx * x + ny * y)
            var out: [(Double, Double)] = []
            for k in 0..<poly.count {
                let a = poly[k], b = poly[(k + 1) % poly.count]
                let da = nx * a.0 + ny * a.1 - offset, db = nx * b.0 + ny * b.1 - offset
                if da <= 0 { out.append(a) }
                if (da < 0) != (db < 0) && da != db {
                    let t = da / (da - db)
                    out.append((a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t))
                }
            }
            poly = out
            if poly.count < 3 { return 0 }
        }
        var area = 0.0
        for k in 0..<poly.count {
            let a = poly[k], b = poly[(k + 1) % poly.count]
            area += a.0 * b.1 - b.0 * a.1
        }
        return min(1, abs(area) / 2)
    }
}

/// Premultiplied float texels (0…255), area-averaged down to the frame's size along each axis
/// where the image is larger than its frame.
struct Texture {
    let width: Int, height: Int
    let shrunkX: Bool, shrunkY: Bool
    private let texels: [Float]   // RGBA premultiplied, row-major

    /// The texture for `image` drawn into a frame of `frameWidth` × `frameHeight` pixels.
    init(_ image: Bitmap, frameWidth: Double, frameHeight: Double) {
        let w = Texture.resampledCount(image.width, frame: frameWidth)
        let h = Texture.resampledCount(image.height, frame: frameHeight)
        width = w; height = h
        shrunkX = Texture.isShrunk(image.width, frame: frameWidth)
        shrunkY = Texture.isShrunk(image.height, frame: frameHeight)
        // Rows first (each source row to w texels), then columns; both passes are exact box
        // filters, so together they average each texel's rectangle of the source. An axis that
        // is not shrunk skips its pass, so an enlarged image costs one float copy, not two.
        let across = shrunkX ? AreaWeights(source: image.width, target: w) : nil
        var rows = [Float](repeating: 0, count: w * image.height * 4)
        let premultiply = !image.isPremultiplied
        image.pixels.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                var line = [Float](repeating: 0, count: across == nil ? 0 : image.width * 4)
                for y in 0..<image.height {
                    let row = y * image.width * 4
                    line.withUnsafeMutableBufferPointer { line in
                        // Premultiplied floats of the source row: straight into the texture
                        // when the row is not resampled.
                        let out = across == nil ? dst.baseAddress! + y * w * 4 : line.baseAddress!
                        for x in 0..<image.width {
                            let o = row + x * 4
                            let a = Float(src[o + 3])
                            let m: Float = premultiply ? a / 255 : 1
                            out[x * 4] = Float(src[o]) * m
                            out[x * 4 + 1] = Float(src[o + 1]) * m
                            out[x * 4 + 2] = Float(src[o + 2]) * m
                            out[x * 4 + 3] = a
                        }
                        across?.apply(UnsafePointer(line.baseAddress!), stride: 4, into: dst.baseAddress! + y * w * 4, outStride: 4)
                    }
                }
            }
        }
        guard shrunkY else { texels = rows; return }
        let down = AreaWeights(source: image.height, target: h)
        var t = [Float](repeating: 0, count: w * h * 4)
        rows.withUnsafeBufferPointer { rows in
            t.withUnsafeMutableBufferPointer { dst in
                // One column of 4-channel texels at a time, gathered from stride w·4 in `rows`.
                var column = [Float](repeating: 0, count: image.height * 4)
                column.withUnsafeMutableBufferPointer { column in
                    for x in 0..<w {
                        for y in 0..<image.height { for c in 0..<4 { column[y * 4 + c] = rows[(y * w + x) * 4 + c] } }
                        down.apply(UnsafePointer(column.baseAddress!), stride: 4, into: dst.baseAddress! + x * 4, outStride: w * 4)
                    }
                }
            }
        }
        texels = t
    }

    /// Texels along an axis: the source count where the image is enlarged (sampled bilinearly as
    /// is); where it is shrunk, two per frame pixel (rounded up), which the area average makes
    /// from the source whatever the ratio (also above 1:2, where a texel takes from one or two
    /// source texels).
    static func resampledCount(_ source: Int, frame: Double) -> Int {
        guard isShrunk(source, frame: frame) else { return source }
        return max(1, Int((2 * frame).rounded(.up)))
    }

    static func isShrunk(_ source: Int, frame: Double) -> Bool { frame.isFinite && frame < Double(source) }

    /// Bilinear sample at texture coordinates (texel units, centres at +0.5), edges clamped.
    func sample(_ x: Double, _ y: Double) -> (Float, Float, Float, Float) {
        let sx = min(max(x - 0.5, 0), Double(width - 1)), sy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(sx), y0 = Int(sy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
        return texels.withUnsafeBufferPointer { t in
            func at(_ xx: Int, _ yy: Int, _ c: Int) -> Float { t[(yy * width + xx) * 4 + c] }
            func ch(_ c: Int) -> Float {
                let top = at(x0, y0, c) + (at(x1, y0, c) - at(x0, y0, c)) * fx
                let bot = at(x0, y1, c) + (at(x1, y1, c) - at(x0, y1, c)) * fx
                return top + (bot - top) * fy
            }
            return (ch(0), ch(1), ch(2), ch(3))
        }
    }
}

/// An exact area average from `source` texels to `target` texels along one axis:
/// target texel t covers source [t·r, (t + 1)·r) with r = source/target, each source texel
/// weighted by the length of it inside.
struct AreaWeights {
    /// For target texel t: its first source texel, and its weights in `weights[offsets[t]...]`.
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

    /// out[t·outStride + c] = Σ weight · v[s·stride + c] for the 4 channels c.
    func apply(_ v: UnsafePointer<Float>, stride: Int, into out: UnsafeMutablePointer<Float>, outStride: Int) {
        for t in 0..<target {
            var acc = SIMD4<Float>()
            var s = first[t]
            for k in offsets[t]..<offsets[t + 1] {
                let o = s * stride
                acc += weights[k] * SIMD4<Float>(v[o], v[o + 1], v[o + 2], v[o + 3])
                s += 1
            }
            let q = out + t * outStride
            q[0] = acc[0]; q[1] = acc[1]; q[2] = acc[2]; q[3] = acc[3]
        }
    }
}
