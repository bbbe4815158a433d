import Glibc
import LNoteBitmap
import LNoteFormat
import LNoteShape

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// The file has three parts, kept apart on purpose:
///   1. `ImageFrame`: a placement's frame in pixels (through the page's `PageTransform`), centre
///      and rotation;
///   2. the resampling filter (`ImageTexture`, `AxisWeights`, `FootprintIntegrator`): what
///      colour each pixel gets;
///   3. the final per-pixel source-over onto the canvas, which is the `Compositor`'s.
///
/// The filter. Where the image is shrunk (more texels than pixels along an axis), a pixel is the
/// exact area average of the image over the part of the pixel inside the frame, with each texel
/// a box (a constant square): the integral of the box-reconstructed image over the pixel's
/// footprint in texel space, divided by its area. Nothing is prefiltered: two box filters in a
/// row (a texture at a few texels per pixel, then an average of those) are not a box filter,
/// and on 1-px stripes or dashes they miss the exact average by 20 levels and more at ratios
/// where a pixel edge cuts a prefiltered texel in two. Reading the decoded texels themselves
/// costs one read per texel under the frame (those on pixel edges twice); for big JPEGs the
/// DCT-scaled decode (AssetCache, `ImageDecoder.jpegHeadroom`) bounds how many there are.
/// An area average is a box filter: periodic detail close to the pixel size beats against the
/// pixel grid (stripes of 4 texels at 4.4 texels per pixel come out as a visible pattern).
/// That is the exact average, not an error of it; the earlier, blurrier filter hid it.
///   - Frames turned by a multiple of 90° (nearly all photos): the footprint is a rectangle, so
///     the average is separable: per pixel column and row, the texels it covers with their
///     covered lengths (`AxisWeights`).
///   - Other rotations: the footprint is a parallelogram (clipped to the image at frame edges);
///     `FootprintIntegrator` integrates the box texels over it exactly, row by row.
/// Where the image is enlarged along both axes it is plain bilinear at the pixel centre
/// (premultiplied, texel centres at +0.5, edges clamped). An unrotated frame enlarged along one
/// axis and shrunk along the other is bilinear along the first and the area average along the
/// second; a rotated one takes the area average (box texels) along both — the only case where
/// "bilinear when enlarged" is read as box, noted here because it is one.
///
/// Near 1:1 the two readings meet: the area average of box texels over a pixel exactly one texel
/// wide is linear interpolation between the two texels it straddles, i.e. bilinear. So the
/// switch at 1:1 is continuous.
extension Canvas {
    /// Draws `image` (straight or premultiplied RGBA8) for `placement` at `scale` pixels per point.
    public mutating func draw(image: Bitmap, placement: ImagePlacement, scale: Double) {
        draw(image: ImageTexture(image), placement: placement, scale: scale)
    }

    /// `draw(image:placement:transform:)` at `scale` pixels per point onto this canvas.
    public mutating func draw(image texture: ImageTexture, placement: ImagePlacement, scale: Double) {
        draw(image: texture, placement: placement, transform: PageTransform(scale: scale, width: width, height: height))
    }

    /// Draws a prepared image into `placement`'s frame mapped through `transform`: the texture
    /// is built once per decoded asset (AssetCache) and shared by every placement and page that
    /// shows it.
    public mutating func draw(image texture: ImageTexture, placement: ImagePlacement, transform: PageTransform) {
        let opacity = Float(min(max(placement.opacity, 0), 1000)) / 1000
        guard opacity > 0, let frame = ImageFrame(placement: placement, transform: transform),
              let box = frame.pixelBounds(width: bitmap.width, height: bitmap.height) else { return }
        let w = bitmap.width
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            let px = buf.baseAddress!
            texture.withTexels { texels in
                if let quarterTurns = frame.quarterTurns {
                    Canvas.drawAxisAligned(texels, frame: frame, quarterTurns: quarterTurns, box: box, opacity: opacity,
                                           canvas: px, canvasWidth: w)
                } else {
                    Canvas.drawRotated(texels, frame: frame, box: box, opacity: opacity, canvas: px, canvasWidth: w)
                }
            }
        }
    }

    // MARK: Resampling, frames turned by a multiple of 90°

    /// Separable: each pixel's footprint is a texel rectangle, the product of one interval per axis.
    private static func drawAxisAligned(_ texels: TexelReader, frame: ImageFrame, quarterTurns q: Int, box: PixelBox,
                                        opacity: Float, canvas px: UnsafeMutablePointer<UInt8>, canvasWidth w: Int) {
        // Screen x runs along the image's x axis when q is even (flipped for q = 2), along its y
        // axis when q is odd (flipped for q = 1); screen y likewise (flipped for q = 2, 3).
        let xAlongImageX = q % 2 == 0
        let xFlipped = q == 1 || q == 2, yFlipped = q == 2 || q == 3
        let (xExtent, xTexels, xSpan) = xAlongImageX ? (frame.fw, texels.width, texels.spanX) : (frame.fh, texels.height, texels.spanY)
        let (yExtent, yTexels, ySpan) = xAlongImageX ? (frame.fh, texels.height, texels.spanY) : (frame.fw, texels.width, texels.spanX)
        let columns = AxisWeights(pixels: box.i0...box.i1, centre: frame.cx, extent: xExtent, texels: xTexels, span: xSpan,
                                  flipped: xFlipped)
        let rows = AxisWeights(pixels: box.j0...box.j1, centre: frame.cy, extent: yExtent, texels: yTexels, span: ySpan,
                               flipped: yFlipped)
        // The weights along the image's x axis are the inner loop: texel rows are contiguous.
        columns.withSpans { colSpans, colWeights in
            rows.withSpans { rowSpans, rowWeights in
                let (xWeights, yWeights) = xAlongImageX ? (colWeights, rowWeights) : (rowWeights, colWeights)
                for j in box.j0...box.j1 {
                    let rs = rowSpans[j - box.j0]
                    if rs.coverage <= 0 { continue }
                    for i in box.i0...box.i1 {
                        let cs = colSpans[i - box.i0]
                        if cs.coverage <= 0 { continue }
                        let (xs, ys) = xAlongImageX ? (cs, rs) : (rs, cs)
                        var acc = SIMD4<Float>()
                        for b in 0..<ys.count {
                            let row = texels.row(ys.first + b)
                            var line: SIMD4<Float>
                            if xs.count >= 3 {
                                // Partial texels at both ends; those between share one weight
                                // (AxisWeights: the same length over the same total).
                                let last = xs.first + xs.count - 1
                                line = xWeights[xs.offset] * texels.texel(row, xs.first)
                                    + xWeights[xs.offset + 1] * texels.sum(row, xs.first + 1, last)
                                    + xWeights[xs.offset + xs.count - 1] * texels.texel(row, last)
                            } else {
                                line = SIMD4<Float>()
                                for a in 0..<xs.count { line += xWeights[xs.offset + a] * texels.texel(row, xs.first + a) }
                            }
                            acc += yWeights[ys.offset + b] * line
                        }
                        compositeImagePixel(px + 4 * (j * w + i), acc, Float(cs.coverage * rs.coverage) * opacity)
                    }
                }
            }
        }
    }

    // MARK: Resampling, other rotations

    private static func drawRotated(_ texels: TexelReader, frame: ImageFrame, box: PixelBox, opacity: Float,
                                    canvas px: UnsafeMutablePointer<UInt8>, canvasWidth w: Int) {
        // Texels per frame pixel along the image's axes.
        let sx = texels.spanX / frame.fw, sy = texels.spanY / frame.fh
        let bilinear = sx <= 1 && sy <= 1
        // A step of one pixel along screen x (y) in texel coordinates.
        let ex = SIMD2(frame.cosT * sx, -frame.sinT * sy), ey = SIMD2(frame.sinT * sx, frame.cosT * sy)
        FootprintIntegrator.withScratch(texels) { integrator in
            withUnsafeTemporaryAllocation(of: SIMD2<Double>.self, capacity: 16) { buffer in
                let poly = buffer.baseAddress!
                // In tiles of 16 × 16 pixels: a rotated frame's pixel row runs diagonally through
                // the texels, so row by row each pixel would read its texel rows from far apart
                // (a 12-MP photo's rows are 8-16 KB); a tile's texels stay in the cache.
                for tj in stride(from: box.j0, through: box.j1, by: 16) {
                    for ti in stride(from: box.i0, through: box.i1, by: 16) {
                        for j in tj...min(box.j1, tj + 15) {
                            for i in ti...min(box.i1, ti + 15) {
                                // Frame-local (u, v) in pixels of the pixel's corner and centre.
                                let corner = frame.local(Double(i), Double(j))
                                let centre = frame.local(Double(i) + 0.5, Double(j) + 0.5)
                                let edge = min(centre.x, frame.fw - centre.x, centre.y, frame.fh - centre.y)
                                let c: Double
                                if edge >= 0.7072 { c = 1 }
                                else if edge <= -0.7072 { continue }
                                else {
                                    c = Canvas.squareInFrame(Double(i) - frame.cx, Double(j) - frame.cy, frame.cosT, frame.sinT, frame.fw, frame.fh)
                                    if c <= 0 { continue }
                                }
                                let s: SIMD4<Float>
                                if bilinear {
                                    s = texels.bilinear(centre.x * sx, centre.y * sy)
                                } else {
                                    // The pixel square in texel coordinates, clipped to the image at the edges.
                                    let p0 = SIMD2(corner.x * sx, corner.y * sy)
                                    poly[0] = p0; poly[1] = p0 + ex; poly[2] = p0 + ex + ey; poly[3] = p0 + ey
                                    var count = 4
                                    if c < 1 {
                                        count = FootprintIntegrator.clip(poly, count: 4, spare: poly + 8,
                                                                         width: texels.spanX, height: texels.spanY)
                                        if count < 3 { continue }
                                    }
                                    guard let mean = integrator.mean(poly, count: count) else { continue }
                                    s = mean
                                }
                                compositeImagePixel(px + 4 * (j * w + i), s, Float(c) * opacity)
                            }
                        }
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

// MARK: - 1. Page → pixel mapping of a placement

/// A placement's frame in canvas pixels: its rectangle, centre and rotation. The one place
/// where page units (0.1 pt) meet pixels for images.
struct ImageFrame {
    /// Frame origin and size in pixels, before rotation; centre.
    let fx: Double, fy: Double, fw: Double, fh: Double
    let cx: Double, cy: Double
    let cosT: Double, sinT: Double
    /// 0…3 when the rotation is an exact multiple of 90° (cos and sin then exactly 0 or ±1), else nil.
    let quarterTurns: Int?

    init?(placement: ImagePlacement, transform t: PageTransform) {
        guard t.scale > 0, t.scale.isFinite, placement.width > 0, placement.height > 0 else { return nil }
        fx = t.x(Double(placement.x)); fy = t.y(Double(placement.y))
        fw = t.length(Double(placement.width)); fh = t.length(Double(placement.height))
        // Only reachable through the API with an absurd scale: nothing sensible to draw.
        guard fx.isFinite, fy.isFinite, fw.isFinite, fh.isFinite, fw > 0, fh > 0 else { return nil }
        cx = fx + fw / 2; cy = fy + fh / 2
        if placement.rotation % 90_000 == 0 {
            let q = ((placement.rotation / 90_000) % 4 + 4) % 4
            quarterTurns = q
            cosT = [1, 0, -1, 0][q]; sinT = [0, 1, 0, -1][q]
        } else {
            quarterTurns = nil
            let theta = Double(placement.rotation) / 1000 * Double.pi / 180
            cosT = cos(theta); sinT = sin(theta)
        }
    }

    /// Frame-local (u, v) in pixels of canvas point (x, y): u along the image's x axis, from
    /// the frame's unrotated top-left corner.
    @inline(__always) func local(_ x: Double, _ y: Double) -> SIMD2<Double> {
        let qx = x - cx, qy = y - cy
        return SIMD2(qx * cosT + qy * sinT + fw / 2, -qx * sinT + qy * cosT + fh / 2)
    }

    /// The pixels under the rotated frame's bounding box, clipped to a `width` × `height` canvas.
    func pixelBounds(width: Int, height: Int) -> PixelBox? {
        let hx = abs(cosT) * fw / 2 + abs(sinT) * fh / 2
        let hy = abs(sinT) * fw / 2 + abs(cosT) * fh / 2
        let i0 = max(0, Int(max(cx - hx, -1).rounded(.down)))
        let i1 = min(width - 1, Int(min(cx + hx, Double(width)).rounded(.up)))
        let j0 = max(0, Int(max(cy - hy, -1).rounded(.down)))
        let j1 = min(height - 1, Int(min(cy + hy, Double(height)).rounded(.up)))
        guard i0 <= i1, j0 <= j1 else { return nil }
        return PixelBox(i0: i0, i1: i1, j0: j0, j1: j1)
    }
}

struct PixelBox { let i0: Int, i1: Int, j0: Int, j1: Int }

// MARK: - 3. Compositing

/// Source-over of premultiplied colour `s` (0…255) with coverage × opacity `a` onto the RGBA8
/// pixel at `p`: the `Compositor`'s, named here for the filter's loops.
@inline(__always) func compositeImagePixel(_ p: UnsafeMutablePointer<UInt8>, _ s: SIMD4<Float>, _ a: Float) {
    Compositor.sourceOver(p, premultiplied: s, a: a)
}

// MARK: - 2. The filter

/// A decoded image ready to draw: its RGBA8 texels as decoded (4 bytes each, no float copy),
/// and whether they need premultiplying on read. Immutable and shared: one per decoded asset.
public struct ImageTexture: Sendable {
    public let bitmap: Bitmap
    /// Every alpha is 255 (JPEGs, opaque PNGs): texels are read without premultiplying.
    public let isOpaque: Bool
    /// How many texels the frame spans along x and y: the bitmap's size, except for a JPEG
    /// decoded at 1/d, whose last column and row of texels stand for d-texel blocks the image
    /// only partly fills (ceil(W/d) texels for W/d of image). Mapping the frame onto all
    /// ceil(W/d) would stretch the picture by up to d − 1 source pixels, which moves 1-px
    /// detail across pixel edges by several levels at high ratios.
    public let spanX: Double, spanY: Double

    /// `span`: the texels the image fills (default: all of them), each at most the bitmap's size.
    public init(_ bitmap: Bitmap, span: (x: Double, y: Double)? = nil) {
        self.bitmap = bitmap
        isOpaque = bitmap.isOpaque
        let sx = span?.x ?? Double(bitmap.width), sy = span?.y ?? Double(bitmap.height)
        spanX = sx > 0 && sx <= Double(bitmap.width) ? sx : Double(bitmap.width)
        spanY = sy > 0 && sy <= Double(bitmap.height) ? sy : Double(bitmap.height)
    }

    /// Each f × f block of texels averaged into one (over the block's texels that exist), the
    /// span divided by f: about what decoding a JPEG at a scale f times smaller gives (a
    /// DCT-scaled texel is about its block's mean), for the cost of one pass over the texels.
    /// Translucent texels are averaged premultiplied and the result kept premultiplied.
    public func boxReduced(by f: Int) -> ImageTexture {
        guard f >= 2 else { return self }
        precondition(f <= 256, "block rows of more than 256 texels would overflow the packed sums")
        let w = bitmap.width, h = bitmap.height
        let nw = (w + f - 1) / f, nh = (h + f - 1) / f
        var out = [UInt8](repeating: 0, count: nw * nh * 4)
        let premultiply = !isOpaque && !bitmap.isPremultiplied
        bitmap.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var sums = [UInt32](repeating: 0, count: nw * 4)
                sums.withUnsafeMutableBufferPointer { acc in
                    for by in 0..<nh {
                        for k in 0..<(nw * 4) { acc[k] = 0 }
                        let y0 = by * f, y1 = min(h, y0 + f)
                        for y in y0..<y1 {
                            let row = UnsafeRawPointer(src.baseAddress! + y * w * 4)
                            for bx in 0..<nw {
                                let x0 = bx * f, x1 = min(w, x0 + f)
                                let t = bx * 4
                                if premultiply {
                                    for x in x0..<x1 {
                                        let o = y * w * 4 + x * 4, a = UInt32(src[o + 3])
                                        acc[t] += (UInt32(src[o]) * a + 127) / 255; acc[t + 1] += (UInt32(src[o + 1]) * a + 127) / 255
                                        acc[t + 2] += (UInt32(src[o + 2]) * a + 127) / 255; acc[t + 3] += a
                                    }
                                } else {
                                    // Two channels to a word, as in TexelReader.sum (f ≤ 256 texels a block row).
                                    var rb: UInt32 = 0, ga: UInt32 = 0
                                    for x in x0..<x1 {
                                        let word = row.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                                        rb &+= word & 0x00FF_00FF; ga &+= (word >> 8) & 0x00FF_00FF
                                    }
                                    acc[t] += rb & 0xFFFF; acc[t + 1] += ga & 0xFFFF; acc[t + 2] += rb >> 16; acc[t + 3] += ga >> 16
                                }
                            }
                        }
                        for bx in 0..<nw {
                            let n = UInt32((min(w, bx * f + f) - bx * f) * (y1 - y0))
                            for c in 0..<4 { dst[(by * nw + bx) * 4 + c] = UInt8((acc[bx * 4 + c] + n / 2) / n) }
                        }
                    }
                }
            }
        }
        let reduced = Bitmap(width: nw, height: nh, pixels: out, isPremultiplied: bitmap.isPremultiplied || premultiply)
        return ImageTexture(reduced, span: (spanX / Double(f), spanY / Double(f)))
    }

    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }
    /// Memory held, for cache budgets.
    public var byteCount: Int { bitmap.pixels.count }

    func withTexels<R>(_ body: (TexelReader) -> R) -> R {
        bitmap.pixels.withUnsafeBufferPointer { buf in
            body(TexelReader(base: buf.baseAddress!, width: bitmap.width, height: bitmap.height, spanX: spanX, spanY: spanY,
                             premultiply: !isOpaque && !bitmap.isPremultiplied))
        }
    }
}

/// Premultiplied float reads (0…255) of RGBA8 texels.
struct TexelReader {
    let base: UnsafePointer<UInt8>
    let width: Int, height: Int
    /// The texels the frame spans (`ImageTexture.spanX`).
    let spanX: Double, spanY: Double
    let premultiply: Bool

    @inline(__always) func row(_ y: Int) -> UnsafePointer<UInt8> { base + 4 * width * y }

    @inline(__always) func texel(_ row: UnsafePointer<UInt8>, _ x: Int) -> SIMD4<Float> {
        // Bytes to floats without four int→float conversions: 2^23 + b has b in its low
        // mantissa bits, so the float with bits 0x4B00_0000 | b, minus 2^23, is exactly b.
        let w = UnsafeRawPointer(row + 4 * x).loadUnaligned(as: UInt32.self)
        let bits = SIMD4<UInt32>(w, w >> 8, w >> 16, w >> 24) & 0xFF | 0x4B00_0000
        let v = unsafeBitCast(bits, to: SIMD4<Float>.self) - 8_388_608
        guard premultiply else { return v }
        let m = v[3] * (1 / 255)
        return SIMD4(v[0] * m, v[1] * m, v[2] * m, v[3])
    }

    /// Sum of texels x0..<x1 of a row, each weight 1.
    ///
    /// Texels that need no premultiplying are summed as integers, two channels to a 32-bit
    /// word (R + B·2^16 and G + A·2^16), in blocks of 256 so that no 16-bit half overflows
    /// (256 · 255 < 2^16): five integer operations a texel instead of a float conversion of
    /// four lanes. This is where most texels of a big shrink are read.
    @inline(__always) func sum(_ row: UnsafePointer<UInt8>, _ x0: Int, _ x1: Int) -> SIMD4<Float> {
        var acc = SIMD4<Float>()
        var x = x0
        if premultiply {
            while x < x1 { acc += texel(row, x); x += 1 }
            return acc
        }
        let words = UnsafeRawPointer(row)
        while x < x1 {
            let end = min(x1, x + 256)
            var rb: UInt32 = 0, ga: UInt32 = 0
            while x < end {
                let w = words.loadUnaligned(fromByteOffset: 4 * x, as: UInt32.self)
                rb &+= w & 0x00FF_00FF
                ga &+= (w >> 8) & 0x00FF_00FF
                x += 1
            }
            acc += SIMD4(Float(rb & 0xFFFF), Float(ga & 0xFFFF), Float(rb >> 16), Float(ga >> 16))
        }
        return acc
    }

    /// Bilinear at texel coordinates (texel centres at +0.5, edges clamped).
    func bilinear(_ x: Double, _ y: Double) -> SIMD4<Float> {
        let sx = min(max(x - 0.5, 0), Double(width - 1)), sy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(sx), y0 = Int(sy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
        let r0 = row(y0), r1 = row(y1)
        let top = texel(r0, x0) + (texel(r0, x1) - texel(r0, x0)) * fx
        let bottom = texel(r1, x0) + (texel(r1, x1) - texel(r1, x0)) * fx
        return top + (bottom - top) * fy
    }
}

/// For each pixel along one screen axis: the texels its footprint covers along the matching
/// image axis, with normalised weights, and the share of the pixel inside the frame.
///
/// Shrunk axis (more texels than pixels): the exact box average over the covered interval —
/// each texel weighted by the length of it inside, partial texels at both ends included.
/// Enlarged axis: linear interpolation at the pixel centre (texel centres at +0.5, clamped).
struct AxisWeights {
    struct Span { var first: Int, count: Int, offset: Int, coverage: Double }
    private var spans: [Span] = []
    private var weights: [Float] = []

    /// `pixels` along the axis; the frame spans `extent` pixels centred on `centre`, and `span`
    /// texels of the `texels` there are (see `ImageTexture.spanX`); `flipped` when the image
    /// axis runs against the screen axis.
    init(pixels: ClosedRange<Int>, centre: Double, extent: Double, texels n: Int, span: Double, flipped: Bool) {
        let k = span / extent   // texels per pixel
        let shrunk = k > 1
        spans.reserveCapacity(pixels.count)
        for p in pixels {
            // The pixel [p, p + 1] in frame-local coordinates, from the frame's start along the image axis.
            let a0 = flipped ? centre - Double(p + 1) + extent / 2 : Double(p) - centre + extent / 2
            let a = max(0, a0), b = min(extent, a0 + 1)
            let coverage = min(1, max(0, b - a))
            let offset = weights.count
            guard coverage > 0 else { spans.append(Span(first: 0, count: 0, offset: offset, coverage: 0)); continue }
            if shrunk {
                let lo = a * k, hi = b * k
                let s0 = min(n - 1, Int(lo.rounded(.down))), s1 = max(s0 + 1, min(n, Int(hi.rounded(.up))))
                let length = hi - lo
                for s in s0..<s1 {
                    let inside = length > 0 ? max(0, min(hi, Double(s + 1)) - max(lo, Double(s))) / length : 1
                    weights.append(Float(inside))
                }
                spans.append(Span(first: s0, count: s1 - s0, offset: offset, coverage: coverage))
            } else {
                let t = min(max((a0 + 0.5) * k - 0.5, 0), Double(n - 1))
                let s0 = Int(t), f = t - Double(s0)
                if s0 + 1 < n && f > 0 {
                    weights += [Float(1 - f), Float(f)]
                    spans.append(Span(first: s0, count: 2, offset: offset, coverage: coverage))
                } else {
                    weights.append(1)
                    spans.append(Span(first: s0, count: 1, offset: offset, coverage: coverage))
                }
            }
        }
        weights.append(0)   // never empty, so its buffer always has a base address
    }

    func withSpans<R>(_ body: (UnsafeBufferPointer<Span>, UnsafePointer<Float>) -> R) -> R {
        spans.withUnsafeBufferPointer { s in weights.withUnsafeBufferPointer { w in body(s, w.baseAddress!) } }
    }
}

/// ⌊x⌋ and ⌈x⌉ as Int without a libm call (Int(x) truncates toward zero); |x| < 2^62.
@inline(__always) func floorInt(_ x: Double) -> Int { let i = Int(x); return Double(i) > x ? i - 1 : i }
@inline(__always) func ceilInt(_ x: Double) -> Int { let i = Int(x); return Double(i) < x ? i + 1 : i }

/// The exact integral of the box-reconstructed image (texel (x, y) constant on
/// [x, x+1) × [y, y+1)) over a convex polygon in texel coordinates.
///
/// Green's theorem: the area of polygon P left of the line x = t is ∮∂P min(x, t) dy, a sum over
/// the edges, each in closed form. Restricting every edge to the texel row's strip
/// [k, k+1] in y gives the same for P ∩ strip (the strip's own edges are horizontal, dy = 0).
/// So the weight of texel (c, k) is G_k(c+1) − G_k(c), with G_k(t) = Σ_edges ∫ min(x, t) dy over
/// the part of the edge in the strip. G_k is linear in t outside the edges' x-ranges, so it is
/// evaluated only at the integers inside those ranges and at their ends; every texel between
/// gets the same weight (the strip's covered height) and is summed without a weight each.
struct FootprintIntegrator {
    let texels: TexelReader
    /// Scratch for one strip: up to 8 edge pieces and their merged column ranges. Owned by
    /// the caller (one per draw), so the per-pixel loop allocates nothing and keeps its sums
    /// in registers.
    let pieces: UnsafeMutablePointer<Piece>
    let starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>
    let edgeLo: UnsafeMutablePointer<Double>, edgeHi: UnsafeMutablePointer<Double>, edgeSlope: UnsafeMutablePointer<Double>

    /// An edge's part inside one strip: x from x0 to x1 while y changes by dy (signed).
    struct Piece { var x0: Double, x1: Double, lo: Double, hi: Double, dy: Double, inverseWidth: Double }

    /// Scratch for `FootprintIntegrator`, valid inside `body` only.
    static func withScratch<R>(_ texels: TexelReader, _ body: (FootprintIntegrator) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Piece.self, capacity: 8) { pieces in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: 16) { ranges in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 24) { edges in
                    let e = edges.baseAddress!
                    return body(FootprintIntegrator(texels: texels, pieces: pieces.baseAddress!, starts: ranges.baseAddress!,
                                                    ends: ranges.baseAddress! + 8, edgeLo: e, edgeHi: e + 8, edgeSlope: e + 16))
                }
            }
        }
    }

    /// ∫ min(x, t) dy along a piece: x is linear along it, so uniform over [lo, hi].
    @inline(__always) private static func ramp(_ p: Piece, _ t: Double) -> Double {
        if t >= p.hi { return p.dy * (p.x0 + p.x1) / 2 }
        if t <= p.lo { return p.dy * t }
        let f = (t - p.lo) * p.inverseWidth   // the share of the piece left of t
        return p.dy * (f * (p.lo + t) / 2 + (1 - f) * t)
    }

    /// G(t) of the strip: Σ over its `m` pieces.
    @inline(__always) private func g(_ t: Double, _ m: Int) -> Double {
        var s = 0.0
        for q in 0..<m { s += FootprintIntegrator.ramp(pieces[q], t) }
        return s
    }

    /// The mean premultiplied colour over `poly` (convex, `count` ≤ 8 vertices), or nil when
    /// its area is zero.
    func mean(_ poly: UnsafeMutablePointer<SIMD2<Double>>, count n: Int) -> SIMD4<Float>? {
        var ymin = poly[0].y, ymax = poly[0].y, signedArea = 0.0
        for k in 0..<n {
            let a = poly[k], b = poly[k + 1 == n ? 0 : k + 1]
            ymin = min(ymin, a.y); ymax = max(ymax, a.y)
            signedArea += (a.x - poly[0].x) * (b.y - a.y)   // ∮ x dy, relative to vertex 0
        }
        guard signedArea != 0, signedArea.isFinite else { return nil }
        let sign = signedArea > 0 ? 1.0 : -1.0
        let k0 = max(0, floorInt(ymin)), k1 = min(texels.height - 1, ceilInt(ymax) - 1)
        guard k0 <= k1 else { return nil }
        // Per edge, once: its y-range and dx/dy (each strip below only clips it).
        for e in 0..<n {
            let a = poly[e], b = poly[e + 1 == n ? 0 : e + 1]
            edgeLo[e] = min(a.y, b.y); edgeHi[e] = max(a.y, b.y)
            edgeSlope[e] = b.y != a.y ? (b.x - a.x) / (b.y - a.y) : 0
        }
        var total = SIMD4<Float>(), weightSum = 0.0
        for k in k0...k1 {
            let y0 = Double(k), y1 = Double(k + 1)
            var m = 0
            var xlo = Double.infinity, xhi = -Double.infinity
            for e in 0..<n {
                let lo = max(edgeLo[e], y0), hi = min(edgeHi[e], y1)
                guard hi > lo else { continue }
                // The edge's x at the strip's clipped y-range, in the edge's direction.
                let a = poly[e], down = a.y == edgeLo[e] && a.y != edgeHi[e]
                let ya = down ? lo : hi, yb = down ? hi : lo
                let slope = edgeSlope[e]
                let x0 = a.x + (ya - a.y) * slope, x1 = a.x + (yb - a.y) * slope
                let plo = min(x0, x1), phi = max(x0, x1)
                let piece = Piece(x0: x0, x1: x1, lo: plo, hi: phi, dy: (yb - ya) * sign,
                                  inverseWidth: phi > plo ? 1 / (phi - plo) : 0)
                pieces[m] = piece; m += 1
                xlo = min(xlo, piece.lo); xhi = max(xhi, piece.hi)
            }
            guard m > 0 else { continue }
            // Columns touched: c0 ..< c1. G bends only inside a piece's x-range, so the columns
            // meeting some piece's [floor(lo), ceil(hi)) are weighted one by one and the runs
            // between them share one weight. The ranges, merged, in order (m ≤ 8).
            let c0 = max(0, floorInt(xlo)), c1 = min(texels.width, ceilInt(xhi))
            guard c0 < c1 else { continue }
            var ranges = 0
            for q in 0..<m {
                var a = max(c0, floorInt(pieces[q].lo)), b = min(c1, max(a + 1, ceilInt(pieces[q].hi)))
                var r = 0
                while r < ranges && ends[r] < a { r += 1 }
                if r < ranges && starts[r] <= b {
                    a = min(a, starts[r]); b = max(b, ends[r])
                    starts[r] = a; ends[r] = b
                    // Absorb the later ranges the grown one now reaches.
                    while r + 1 < ranges && starts[r + 1] <= ends[r] {
                        ends[r] = max(ends[r], ends[r + 1])
                        var z = r + 1
                        while z + 1 < ranges { starts[z] = starts[z + 1]; ends[z] = ends[z + 1]; z += 1 }
                        ranges -= 1
                    }
                } else {
                    var z = ranges
                    while z > r { starts[z] = starts[z - 1]; ends[z] = ends[z - 1]; z -= 1 }
                    starts[r] = a; ends[r] = b
                    ranges += 1
                }
            }
            let row = texels.row(k)
            var c = c0
            var gc = g(Double(c), m)
            for r in 0...ranges {
                let a = r < ranges ? starts[r] : c1, b = r < ranges ? ends[r] : c1
                if a > c {
                    // c ..< a lies in no piece's range: equal weights.
                    let ga = g(Double(a), m)
                    let w = (ga - gc) / Double(a - c)
                    if w != 0 { total += Float(w) * texels.sum(row, c, a); weightSum += w * Double(a - c) }
                    gc = ga; c = a
                }
                while c < b {
                    let gn = g(Double(c + 1), m)
                    let w = gn - gc
                    if w != 0 { total += Float(w) * texels.texel(row, c); weightSum += w }
                    gc = gn; c += 1
                }
            }
        }
        guard weightSum > 0 else { return nil }
        return total * Float(1 / weightSum)
    }

    /// Clips `poly` (convex) to [0, width] × [0, height]; the result (≤ 8 vertices) is written
    /// back into `poly`, `spare` (8 slots) is scratch. Returns the vertex count.
    static func clip(_ poly: UnsafeMutablePointer<SIMD2<Double>>, count: Int, spare: UnsafeMutablePointer<SIMD2<Double>>,
                     width: Double, height: Double) -> Int {
        var src = poly, dst = spare, n = count
        // Planes as (axis, sign, bound): keep sign·p[axis] ≤ sign·bound.
        for (axis, sign, bound) in [(0, -1.0, 0.0), (0, 1.0, width), (1, -1.0, 0.0), (1, 1.0, height)] {
            var kept = 0
            for k in 0..<n {
                let a = src[k], b = src[k + 1 == n ? 0 : k + 1]
                let da = sign * (a[axis] - bound), db = sign * (b[axis] - bound)
                if da <= 0 { dst[kept] = a; kept += 1 }
                if (da <= 0) != (db <= 0) {
                    let t = da / (da - db)
                    var p = a + (b - a) * t
                    p[axis] = bound
                    dst[kept] = p; kept += 1
                }
            }
            swap(&src, &dst)
            n = kept
            if n < 3 { return 0 }
        }
        if src != poly { for k in 0..<n { poly[k] = src[k] } }
        return n
    }
}
