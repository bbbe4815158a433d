import CRasterKernels
import Glibc
import LNoteBitmap
import LNoteFormat
import LNoteShape
import Synchronization

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// The file has three parts, kept apart on purpose:
///   1. `ImageFrame`: a placement's frame in pixels (through the page's `PageTransform`), centre
///      and rotation;
///   2. the resampling filter (`ImageTexture`, `AxisWeights`, `EdgeIntegrator`): what
///      colour each pixel gets, kept per texture for reuse (`ResampleStore`);
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
///     `EdgeIntegrator` integrates the box texels over it exactly, by Green's theorem along
///     the pixels' edges (shared by neighbouring pixels) on prefix sums of the texel rows.
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
    /// shows it. A frame wholly on the canvas is resampled into the texture's `ResampleStore`
    /// (when it has one) and composited from there; the next draw of the same frame geometry
    /// (size, rotation and position relative to its pixel box, bit for bit) composites it again
    /// without resampling. Both ways give the same pixels: each pixel's resampled colour
    /// (premultiplied, times the pixel's share inside the frame) goes through the same
    /// source-over at the placement's opacity.
    public mutating func draw(image texture: ImageTexture, placement: ImagePlacement, transform: PageTransform) {
        let opacity = Float(min(max(placement.opacity, 0), 1000)) / 1000
        guard opacity > 0, let frame = ImageFrame(placement: placement, transform: transform),
              let box = frame.pixelBounds(width: bitmap.width, height: bitmap.height) else { return }
        let w = bitmap.width
        let stored = texture.storedFrame(frame, box: box, canvasWidth: w, canvasHeight: bitmap.height)
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            let px = buf.baseAddress!
            guard let entry = stored else {
                Canvas.resample(texture, frame: frame, box: box, into: PixelSink(canvas: px, canvasWidth: w, opacity: opacity))
                return
            }
            entry.values.withUnsafeBufferPointer { v in
                for j in 0..<entry.height {
                    let row = px + 4 * ((box.j0 + j) * w + box.i0)
                    for i in 0..<entry.width {
                        let s = v[j * entry.width + i]
                        if s == SIMD4() { continue }   // outside the frame, or transparent texels: no change
                        compositeImagePixel(row + 4 * i, s, opacity)
                    }
                }
            }
        }
    }

    /// The filter: every pixel of `box` under the frame, into `sink`.
    fileprivate static func resample(_ texture: ImageTexture, frame: ImageFrame, box: PixelBox, into sink: PixelSink) {
        texture.withTexels { texels in
            if let quarterTurns = frame.quarterTurns {
                Canvas.drawAxisAligned(texels, frame: frame, quarterTurns: quarterTurns, box: box, sink: sink)
            } else {
                Canvas.drawRotated(texels, frame: frame, box: box, sink: sink)
            }
        }
    }

    // MARK: Resampling, frames turned by a multiple of 90°

    /// Separable: each pixel's footprint is a texel rectangle, the product of one interval per axis.
    private static func drawAxisAligned(_ texels: TexelReader, frame: ImageFrame, quarterTurns q: Int, box: PixelBox,
                                        sink: PixelSink) {
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
        // Swept in texel rows, whatever the turn: the pixels whose footprints run along the
        // image's y axis (screen rows for even q, screen columns for odd q) are the outer loop,
        // and each of their texel rows goes from end to end into all the pixels along the
        // image's x axis at once (`lnote_area_row`, a C kernel in CRasterKernels: per pixel, the
        // partial texels at a span's ends and the whole ones between at one shared weight, as
        // AxisWeights gives them). A pixel's sum is the same, float for float, as taken pixel
        // by pixel over its texel rows in order; odd turns just read it out transposed.
        let (across, along) = xAlongImageX ? (rows, columns) : (columns, rows)
        across.withSpans { acrossSpans, yWeights in
            along.withSpans { alongSpans, xWeights in
                let n = alongSpans.count
                withUnsafeTemporaryAllocation(of: SIMD4<Float>.self, capacity: n) { sums in
                    let out = UnsafeMutableRawPointer(sums.baseAddress!).assumingMemoryBound(to: Float.self)
                    for o in 0..<acrossSpans.count {
                        let ys = acrossSpans[o]
                        if ys.coverage <= 0 { continue }
                        for a in 0..<n { sums[a] = SIMD4() }
                        for b in 0..<ys.count {
                            lnote_area_row(texels.row(ys.first + b), alongSpans.baseAddress, xWeights, Int32(n),
                                           yWeights[ys.offset + b], texels.premultiply ? 1 : 0, out)
                        }
                        for a in 0..<n where alongSpans[a].coverage > 0 {
                            let value = sums[a] * Float(alongSpans[a].coverage * ys.coverage)
                            if xAlongImageX { sink.put(box.i0 + a, box.j0 + o, value) } else { sink.put(box.i0 + o, box.j0 + a, value) }
                        }
                    }
                }
            }
        }
    }

    // MARK: Resampling, other rotations

    private static func drawRotated(_ texels: TexelReader, frame: ImageFrame, box: PixelBox, sink: PixelSink) {
        // Texels per frame pixel along the image's axes.
        let sx = texels.spanX / frame.fw, sy = texels.spanY / frame.fh
        // A step of one pixel along screen x (y) in texel coordinates, and the texel
        // coordinates of canvas point (0, 0).
        let ex = SIMD2(frame.cosT * sx, -frame.sinT * sy), ey = SIMD2(frame.sinT * sx, frame.cosT * sy)
        let l0 = frame.local(0, 0), origin = SIMD2(l0.x * sx, l0.y * sy)
        // The share of each pixel inside the frame: 1 well inside, else the exact square ∩ frame.
        @inline(__always) func coverage(_ i: Int, _ j: Int) -> Double {
            let centre = frame.local(Double(i) + 0.5, Double(j) + 0.5)
            let edge = min(centre.x, frame.fw - centre.x, centre.y, frame.fh - centre.y)
            if edge >= 0.7072 { return 1 }
            if edge <= -0.7072 { return 0 }
            return Canvas.squareInFrame(Double(i) - frame.cx, Double(j) - frame.cy, frame.cosT, frame.sinT, frame.fw, frame.fh)
        }
        if sx <= 1 && sy <= 1 {
            // Enlarged along both axes: bilinear at the pixel centre.
            for j in box.j0...box.j1 {
                for i in box.i0...box.i1 {
                    let c = coverage(i, j)
                    if c <= 0 { continue }
                    let centre = frame.local(Double(i) + 0.5, Double(j) + 0.5)
                    sink.put(i, j, texels.bilinear(centre.x * sx, centre.y * sy) * Float(c))
                }
            }
            return
        }
        // In tiles of n × n pixels, n·max(sx, sy) ≈ 192 texels: a tile's texels (prefix sums
        // of its rows, 16 bytes each) stay in the cache, and its pixels share their edges.
        let n = max(1, min(32, Int(192 / max(sx, sy))))
        EdgeIntegrator.with(texels, ex: ex, ey: ey, tile: n) { integrator in
            for tj in stride(from: box.j0, through: box.j1, by: n) {
                for ti in stride(from: box.i0, through: box.i1, by: n) {
                    let ni = min(n, box.i1 - ti + 1), nj = min(n, box.j1 - tj + 1)
                    integrator.integrate(corner: origin + Double(ti) * ex + Double(tj) * ey, ni: ni, nj: nj)
                    for b in 0..<nj {
                        for a in 0..<ni {
                            let i = ti + a, j = tj + b
                            let c = coverage(i, j)
                            if c <= 0 { continue }
                            // The integral over the footprint ∩ image is the mean × coverage × area.
                            let s = integrator.pixel(a, b) * Float(1 / integrator.area)
                            sink.put(i, j, pointwiseMin(pointwiseMax(s, SIMD4(repeating: 0)), SIMD4(repeating: 255 * Float(c))))
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

    /// Whether the rotated frame's bounding box lies wholly on a `width` × `height` canvas.
    func lies(within width: Int, _ height: Int) -> Bool {
        let hx = abs(cosT) * fw / 2 + abs(sinT) * fh / 2
        let hy = abs(sinT) * fw / 2 + abs(cosT) * fh / 2
        return cx - hx >= 0 && cy - hy >= 0 && cx + hx <= Double(width) && cy + hy <= Double(height)
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

/// Where the filter's pixels go: composited onto the canvas at once, or kept in a buffer
/// (`ResampleStore`). A pixel's value is its premultiplied colour times its share inside the frame.
struct PixelSink {
    let canvas: UnsafeMutablePointer<UInt8>?, canvasWidth: Int, opacity: Float
    let buffer: UnsafeMutablePointer<SIMD4<Float>>?, i0: Int, j0: Int, width: Int

    init(canvas: UnsafeMutablePointer<UInt8>, canvasWidth: Int, opacity: Float) {
        self.canvas = canvas; self.canvasWidth = canvasWidth; self.opacity = opacity
        buffer = nil; i0 = 0; j0 = 0; width = 0
    }

    init(buffer: UnsafeMutablePointer<SIMD4<Float>>, i0: Int, j0: Int, width: Int) {
        canvas = nil; canvasWidth = 0; opacity = 1
        self.buffer = buffer; self.i0 = i0; self.j0 = j0; self.width = width
    }

    @inline(__always) func put(_ i: Int, _ j: Int, _ value: SIMD4<Float>) {
        if let buffer { buffer[(j - j0) * width + (i - i0)] = value; return }
        compositeImagePixel(canvas! + 4 * (j * canvasWidth + i), value, opacity)
    }
}

/// Resampled frames of one texture (`Canvas.draw(image:placement:transform:)`), least recently
/// used dropped first, within `budgetBytes` (16 bytes a pixel). Keyed by what the filter's
/// result depends on: the frame's size and rotation in pixels and its position modulo whole
/// pixels; so the same placement drawn again, on another page or at another integer offset,
/// is composited without resampling. Thread-safe: one texture serves all of an export's workers.
public final class ResampleStore: Sendable {
    public let budgetBytes: Int

    struct Key: Hashable {
        let bits: [UInt64]
        let byteCount: Int

        /// Nil for a frame not wholly on the canvas (its clipped box would not be reusable).
        init?(_ frame: ImageFrame, box: PixelBox, canvasWidth: Int, canvasHeight: Int) {
            guard frame.lies(within: canvasWidth, canvasHeight) else { return nil }
            let ox = box.i0, oy = box.j0
            bits = [frame.fw, frame.fh, frame.cosT, frame.sinT, frame.cx - Double(ox), frame.cy - Double(oy)].map(\.bitPattern)
                + [UInt64(box.i1 - box.i0), UInt64(box.j1 - box.j0)]
            byteCount = (box.i1 - box.i0 + 1) * (box.j1 - box.j0 + 1) * 16
        }
    }

    final class Entry: Sendable {
        let width: Int, height: Int
        let values: [SIMD4<Float>]
        init(width: Int, height: Int, values: [SIMD4<Float>]) { self.width = width; self.height = height; self.values = values }
    }

    private struct State {
        var entries: [Key: (entry: Entry, lastUse: Int)] = [:]
        var clock = 0, held = 0, hits = 0
    }
    private let state = Mutex(State())

    public init(budgetBytes: Int) { self.budgetBytes = max(0, budgetBytes) }

    /// Draws served from the store so far.
    public var hits: Int { state.withLock { $0.hits } }
    /// Bytes of resampled frames kept now.
    public var bytesHeld: Int { state.withLock { $0.held } }

    func entry(for key: Key) -> Entry? {
        state.withLock { s in
            guard let found = s.entries[key] else { return nil }
            s.clock += 1; s.hits += 1
            s.entries[key] = (found.entry, s.clock)
            return found.entry
        }
    }

    /// Keeps `entry` (if it fits) and returns the one kept for `key` (another thread's, when
    /// two resampled the same frame at once: the same pixels).
    func insert(_ entry: Entry, for key: Key) -> Entry {
        let bytes = entry.values.count * 16
        return state.withLock { s in
            if let existing = s.entries[key] { return existing.entry }
            guard bytes <= budgetBytes else { return entry }
            while s.held + bytes > budgetBytes, let oldest = s.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                s.held -= oldest.value.entry.values.count * 16
                s.entries[oldest.key] = nil
            }
            s.clock += 1
            s.entries[key] = (entry, s.clock)
            s.held += bytes
            return entry
        }
    }
}

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

    /// Frames resampled from this texture, kept for reuse (nil: none kept).
    public let resamples: ResampleStore?

    /// `span`: the texels the image fills (default: all of them), each at most the bitmap's size.
    /// `resampleBudget`: bytes of resampled frames kept with it (`ResampleStore`; 0: none).
    /// `knownOpaque`: the caller knows every alpha is 255 (a JPEG decode), so the bitmap is not
    /// scanned for it (48 MB for a 12-MP photo).
    public init(_ bitmap: Bitmap, span: (x: Double, y: Double)? = nil, resampleBudget: Int = 0, knownOpaque: Bool = false) {
        self.bitmap = bitmap
        resamples = resampleBudget > 0 ? ResampleStore(budgetBytes: resampleBudget) : nil
        isOpaque = knownOpaque || bitmap.isOpaque
        let sx = span?.x ?? Double(bitmap.width), sy = span?.y ?? Double(bitmap.height)
        spanX = sx > 0 && sx <= Double(bitmap.width) ? sx : Double(bitmap.width)
        spanY = sy > 0 && sy <= Double(bitmap.height) ? sy : Double(bitmap.height)
    }

    /// Each f × f block of texels averaged into one (over the block's texels that exist), the
    /// span divided by f: about what decoding a JPEG at a scale f times smaller gives (a
    /// DCT-scaled texel is about its block's mean), for the cost of one pass over the texels.
    /// Translucent texels are averaged premultiplied and the result kept premultiplied.
    /// `resampleBudget` as in `init`.
    public func boxReduced(by f: Int, resampleBudget: Int = 0) -> ImageTexture {
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
                                    // Two channels to a word, R + B·2^16 and G + A·2^16 (f ≤ 256 texels a block row, so no half overflows).
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
        return ImageTexture(reduced, span: (spanX / Double(f), spanY / Double(f)), resampleBudget: resampleBudget)
    }

    public var width: Int { bitmap.width }
    public var height: Int { bitmap.height }
    /// Memory held, for cache budgets.
    public var byteCount: Int { bitmap.pixels.count + (resamples?.budgetBytes ?? 0) }

    /// Resamples `placement`'s frame through `transform` (onto a canvas of the transform's
    /// size) into `resamples` ahead of the draw, which then only composites it: what lets a
    /// page's frames be resampled side by side, on several threads, before they are drawn in
    /// z-order. Nothing is done for a frame the draw would not keep (no store, not wholly on
    /// the canvas, over the store's budget): the draw resamples that one itself. Thread-safe.
    public func prepare(placement: ImagePlacement, transform: PageTransform) {
        guard placement.opacity > 0, let frame = ImageFrame(placement: placement, transform: transform),
              let box = frame.pixelBounds(width: transform.width, height: transform.height) else { return }
        _ = storedFrame(frame, box: box, canvasWidth: transform.width, canvasHeight: transform.height)
    }

    /// The frame's resampled pixels from `resamples`, resampled and kept first if they are not
    /// there yet; nil when they are not kept (see `prepare`).
    fileprivate func storedFrame(_ frame: ImageFrame, box: PixelBox, canvasWidth: Int, canvasHeight: Int) -> ResampleStore.Entry? {
        guard let store = resamples, let key = ResampleStore.Key(frame, box: box, canvasWidth: canvasWidth, canvasHeight: canvasHeight),
              key.byteCount <= store.budgetBytes else { return nil }
        if let entry = store.entry(for: key) { return entry }
        let bw = box.i1 - box.i0 + 1, bh = box.j1 - box.j0 + 1
        var values = [SIMD4<Float>](repeating: SIMD4(), count: bw * bh)
        values.withUnsafeMutableBufferPointer { v in
            Canvas.resample(self, frame: frame, box: box, into: PixelSink(buffer: v.baseAddress!, i0: box.i0, j0: box.j0, width: bw))
        }
        return store.insert(ResampleStore.Entry(width: bw, height: bh, values: values), for: key)
    }

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
    /// Texels first ..< first + count, their weights from `offset`, the pixel's share inside
    /// the frame; a C struct, since the upright filter's row kernel reads these.
    typealias Span = lnote_axis_span
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
/// [x, x+1) × [y, y+1), zero outside [0, spanX] × [0, spanY]) over the footprints of a tile of
/// pixels, each a parallelogram in texel coordinates (a rotated frame's pixel).
///
/// Green's theorem: ∬_P f dA = ∮_∂P F dy with F(x, y) = ∫_{−∞}^x f(s, y) ds. Within texel row k,
/// F is the row's prefix sum, linear inside each texel; so along an edge, split where it
/// crosses texel rows and columns, each piece contributes its Δy times F at its midpoint:
/// O(edge length) per edge instead of O(area) per pixel. Neighbouring pixels share their
/// edges (each edge integrated once per tile: pixel = top + right − bottom − left), and the
/// prefix sums are built once per tile, each row only over the columns the tile's footprint
/// touches, from that row's first such column (an offset of F that depends on y alone adds
/// nothing around a closed boundary). Clipping to the image is F's: 0 left of the image,
/// the row's total right of it, nothing above or below.
struct EdgeIntegrator {
    let texels: TexelReader
    let ex: SIMD2<Double>, ey: SIMD2<Double>
    /// ex × ey: a whole pixel's footprint area in texels, signed by orientation.
    let area: Double
    /// Prefix sums of the tile's rows, as integers (opaque texels) or as floats (bit patterns,
    /// premultiplied on the fly): row r (texel row k0 + r) holds P at columns first ... last,
    /// P(first) = 0 (`Row`, a C struct: the edges are integrated in CRasterKernels).
    let prefix: UnsafeMutablePointer<SIMD4<UInt32>>, capacity: Int
    typealias Row = lnote_prefix_row
    let rows: UnsafeMutablePointer<Row>, rowCapacity: Int
    /// Edge integrals of the tile: h[a + b·n] from corner (a, b) to (a + 1, b), b ≤ nj;
    /// v[a + b·(n + 1)] from (a, b) to (a, b + 1), a ≤ ni.
    let h: UnsafeMutablePointer<SIMD4<Float>>, v: UnsafeMutablePointer<SIMD4<Float>>
    let n: Int

    static func with<R>(_ texels: TexelReader, ex: SIMD2<Double>, ey: SIMD2<Double>, tile n: Int,
                        _ body: (EdgeIntegrator) -> R) -> R {
        // A tile's footprint fits in a box of (|ex| + |ey|)·n texels each way, plus the cells its
        // edges start and end in.
        let bw = Int(((abs(ex.x) + abs(ey.x)) * Double(n)).rounded(.up)) + 3
        let bh = Int(((abs(ex.y) + abs(ey.y)) * Double(n)).rounded(.up)) + 3
        let capacity = bh * (bw + 1)
        let prefix = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: capacity)
        let rows = UnsafeMutablePointer<Row>.allocate(capacity: bh)
        let edges = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 2 * (n + 1) * (n + 1))
        defer { prefix.deallocate(); rows.deallocate(); edges.deallocate() }
        let integrator = EdgeIntegrator(texels: texels, ex: ex, ey: ey, area: ex.x * ey.y - ex.y * ey.x,
                                        prefix: prefix, capacity: capacity, rows: rows, rowCapacity: bh,
                                        h: edges, v: edges + (n + 1) * (n + 1), n: n)
        return body(integrator)
    }

    /// The integral over pixel (a, b) of the tile last integrated, signed like `area`.
    @inline(__always) func pixel(_ a: Int, _ b: Int) -> SIMD4<Float> {
        h[a + b * n] + v[a + 1 + b * (n + 1)] - h[a + (b + 1) * n] - v[a + b * (n + 1)]
    }

    /// Integrates every edge of the tile of `ni` × `nj` pixels whose top-left corner lies at
    /// texel coordinates `corner`.
    func integrate(corner q: SIMD2<Double>, ni: Int, nj: Int) {
        // The tile's parallelogram and the texel rows it meets.
        let c0 = q, c1 = q + Double(ni) * ex, c2 = c1 + Double(nj) * ey, c3 = q + Double(nj) * ey
        let ymin = min(c0.y, c1.y, c2.y, c3.y), ymax = max(c0.y, c1.y, c2.y, c3.y)
        let k0 = max(0, floorInt(ymin)), k1 = min(ceilInt(texels.spanY) - 1, ceilInt(ymax) - 1)
        let count = max(0, min(rowCapacity, k1 - k0 + 1))
        var used = 0
        for r in 0..<count {
            let k = k0 + r
            // The parallelogram's x-extent over the strip [k, k + 1].
            let y0 = Double(k), y1 = Double(k + 1)
            var xlo = Double.infinity, xhi = -Double.infinity
            @inline(__always) func extend(_ a: SIMD2<Double>, _ b: SIMD2<Double>) {
                let lo = max(min(a.y, b.y), y0), hi = min(max(a.y, b.y), y1)
                guard lo <= hi, a.y != b.y else { return }
                let s = (b.x - a.x) / (b.y - a.y)
                let xa = a.x + (lo - a.y) * s, xb = a.x + (hi - a.y) * s
                xlo = min(xlo, xa, xb); xhi = max(xhi, xa, xb)
            }
            extend(c0, c1); extend(c1, c2); extend(c2, c3); extend(c3, c0)
            let cl = xlo.isFinite ? min(max(0, floorInt(xlo)), texels.width) : 0
            let cr = xhi.isFinite ? max(cl, min(texels.width, ceilInt(xhi))) : cl
            let m = max(0, min(cr - cl, capacity - used - 1))
            let p = prefix + used
            rows[r] = Row(base: UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self), first_column: cl,
                          first: Double(cl), last: min(texels.spanX, Double(cl + m)), last_column: cl + m - 1)
            // The row's span, summed by a C kernel (CRasterKernels) that also fetches the
            // next row's span: a tile's rows are short runs an image row apart, and reading
            // them is most of a big rotated shrink.
            let start = texels.row(k) + 4 * cl
            let next = r + 1 < count && k + 1 < texels.height ? texels.row(k + 1) + 4 * cl : nil
            let out = UnsafeMutableRawPointer(p)
            if !texels.premultiply {
                lnote_prefix_rgba8(start, Int32(m), out.assumingMemoryBound(to: UInt32.self), next)
            } else {
                // Float sums kept as their bit patterns (read back by the edge kernel).
                lnote_prefix_rgba8_premultiplied(start, Int32(m), out.assumingMemoryBound(to: Float.self), next)
            }
            used += m + 1
        }
        // Every edge of the tile, each split where it crosses texel rows and columns (see the
        // type's comment): a C kernel beside the prefix sums it reads (CRasterKernels), the
        // same arithmetic double for double as the Swift loop it replaced, about 5 % faster at
        // scale 1 (2.4 million pieces on the photo page; a piece costs some 25 ns either way).
        lnote_tile_edges(rows, Int32(count), k0, texels.spanX, texels.spanY, texels.premultiply ? 1 : 0,
                         q.x, q.y, ex.x, ex.y, ey.x, ey.y, Int32(ni), Int32(nj), Int32(n),
                         UnsafeMutableRawPointer(h).assumingMemoryBound(to: Float.self),
                         UnsafeMutableRawPointer(v).assumingMemoryBound(to: Float.self))
    }
}
