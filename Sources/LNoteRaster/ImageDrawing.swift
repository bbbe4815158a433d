import Glibc
import LNoteBitmap
import LNoteFormat

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// Sampling is premultiplied. When the image is shrunk, it is first box-averaged by the integer
/// factor that brings it closest to (but not below) the frame's pixel size, then sampled
/// bilinearly — so each pixel averages the whole area it covers instead of aliasing; when
/// enlarged, plain bilinear (texel centres at +0.5, edges clamped). Only pixels under the rotated
/// frame's bounding box, clipped to the canvas, are visited.
extension Canvas {
    public mutating func draw(image: Bitmap, placement: ImagePlacement, scale: Double) {
        let opacity = Float(min(max(placement.opacity, 0), 1000)) / 1000
        guard opacity > 0, scale > 0, scale.isFinite, placement.width > 0, placement.height > 0 else { return }
        let k = scale / 10
        let fx = Double(placement.x) * k, fy = Double(placement.y) * k
        let fw = Double(placement.width) * k, fh = Double(placement.height) * k
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

        let texture = Texture(image, texelsPerPixelX: Double(image.width) / fw, texelsPerPixelY: Double(image.height) / fh)
        // Frame-local (u, v) in pixels of a canvas point, u along the rotated x axis.
        let w = bitmap.width
        // Source texels per frame pixel, in units of the (possibly reduced) texture.
        let tx = Double(image.width) / fw / Double(texture.kx), ty = Double(image.height) / fh / Double(texture.ky)
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
                    let s = texture.sample(u * tx, v * ty)
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
    static func squareInFrame(_ x: Double, _ y: Double, _ cosT: Double, _ sinT: Double, _ fw: Double, _ fh: Double) -> Double {
        var poly: [(Double, Double)] = [(x, y), (x + 1, y), (x + 1, y + 1), (x, y + 1)]
        // Half-planes n·q ≤ d with u = q·(cos, sin), v = q·(−sin, cos), |u| ≤ fw/2, |v| ≤ fh/2.
        let planes: [(Double, Double, Double)] = [(cosT, sinT, fw / 2), (-cosT, -sinT, fw / 2),
                                                  (-sinT, cosT, fh / 2), (sinT, -cosT, fh / 2)]
        for (nx, ny, d) in planes {
            var out: [(Double, Double)] = []
            for k in 0..<poly.count {
                let a = poly[k], b = poly[(k + 1) % poly.count]
                let da = nx * a.0 + ny * a.1 - d, db = nx * b.0 + ny * b.1 - d
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

/// Premultiplied float texels, box-averaged by integer factors when the image is shrunk.
struct Texture {
    let width: Int, height: Int
    /// Source texels averaged into one texture texel along x and y.
    let kx: Int, ky: Int
    private let texels: [Float]   // RGBA premultiplied, 0…255

    init(_ image: Bitmap, texelsPerPixelX: Double, texelsPerPixelY: Double) {
        // The largest integer factors that keep at least one texel per pixel.
        let kx = max(1, min(image.width, Int(texelsPerPixelX.isFinite ? texelsPerPixelX : 1)))
        let ky = max(1, min(image.height, Int(texelsPerPixelY.isFinite ? texelsPerPixelY : 1)))
        let w = (image.width + kx - 1) / kx, h = (image.height + ky - 1) / ky
        width = w; height = h
        self.kx = kx; self.ky = ky
        var t = [Float](repeating: 0, count: w * h * 4)
        let premultiply = !image.isPremultiplied
        image.pixels.withUnsafeBufferPointer { src in
            t.withUnsafeMutableBufferPointer { dst in
                var rowSum = [Float](repeating: 0, count: w * 4)
                var rowCount = [Float](repeating: 0, count: w)
                for ty in 0..<h {
                    for q in 0..<(w * 4) { rowSum[q] = 0 }
                    for q in 0..<w { rowCount[q] = 0 }
                    let sy0 = ty * ky, sy1 = min(image.height, sy0 + ky)
                    for sy in sy0..<sy1 {
                        let row = sy * image.width * 4
                        for sx in 0..<image.width {
                            let o = row + sx * 4
                            let a = Float(src[o + 3])
                            let m: Float = premultiply ? a / 255 : 1
                            let q = (sx / kx) * 4
                            rowSum[q] += Float(src[o]) * m
                            rowSum[q + 1] += Float(src[o + 1]) * m
                            rowSum[q + 2] += Float(src[o + 2]) * m
                            rowSum[q + 3] += a
                            rowCount[sx / kx] += 1
                        }
                    }
                    for tx in 0..<w {
                        let inv = 1 / rowCount[tx]
                        for c in 0..<4 { dst[(ty * w + tx) * 4 + c] = rowSum[tx * 4 + c] * inv }
                    }
                }
            }
        }
        texels = t
    }

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
