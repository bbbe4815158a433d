import LNoteBitmap
import LNoteFormat
import LNoteShape

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
        guard let frame = ImageFrame(placement, transform: transform), frame.isVisible,
              let box = frame.pixelBounds(width: transform.width, height: transform.height) else { return }
        _ = storedFrame(frame, box: box, canvasWidth: transform.width, canvasHeight: transform.height)
    }

    /// The frame's resampled pixels from `resamples`, resampled and kept first if they are not
    /// there yet; nil when they are not kept (see `prepare`).
    func storedFrame(_ frame: ImageFrame, box: PixelBox, canvasWidth: Int, canvasHeight: Int) -> ResampleStore.Entry? {
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
