import CRasterKernels
import Glibc
import LNoteBitmap
import LNoteFormat
import LNoteShape

/// Placed images (lnote-format.md sections 4 and 6): scaled to fill their frame, rotated about
/// the frame's centre (clockwise on screen: +x turns toward +y), drawn source-over with their
/// opacity; frame edges anti-aliased by exact area coverage.
///
/// Four parts, each in its own file:
///   1. `ImageFrame` (LNoteShape): a placement's frame in pixels through the page's
///      `PageTransform`, centre, rotation and opacity, shared with the vector writers;
///   2. the resampling filter: this file's sweeps over a frame's pixels, reading texels
///      through `TexelReader`, `AxisWeights` and `EdgeIntegrator` (ImageFilter.swift);
///   3. the decoded image it reads, `ImageTexture` (ImageTexture.swift), and its kept
///      resampled frames, `ResampleStore` (ResampleStore.swift);
///   4. the final per-pixel source-over onto the canvas, which is the `Compositor`'s.
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
        guard let frame = ImageFrame(placement, transform: transform), frame.isVisible,
              let box = frame.pixelBounds(width: bitmap.width, height: bitmap.height) else { return }
        let opacity = frame.opacityFloat
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
    static func resample(_ texture: ImageTexture, frame: ImageFrame, box: PixelBox, into sink: PixelSink) {
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

// MARK: - Compositing

/// Source-over of premultiplied colour `s` (0…255) with coverage × opacity `a` onto the RGBA8
/// pixel at `p`: the `Compositor`'s, named here for the filter's loops.
@inline(__always) func compositeImagePixel(_ p: UnsafeMutablePointer<UInt8>, _ s: SIMD4<Float>, _ a: Float) {
    Compositor.sourceOver(p, premultiplied: s, a: a)
}

