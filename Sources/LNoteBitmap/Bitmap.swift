/// An 8-bit RGBA image in memory: the one pixel type shared by the rasterizer (which fills it)
/// and the codecs (which encode and decode it).
///
/// Pixels are stored row-major, tightly packed (`width * 4` bytes per row), channels in
/// R, G, B, A order, sRGB-encoded. `isPremultiplied` says whether colour channels are already
/// multiplied by alpha: the rasterizer's canvas is premultiplied (for an opaque canvas that is
/// the same as straight alpha), decoders produce straight alpha.
public struct Bitmap: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]
    public var isPremultiplied: Bool

    /// A bitmap of `width` × `height` pixels, every byte set to `fill`.
    public init(width: Int, height: Int, fill: UInt8 = 0, isPremultiplied: Bool = true) {
        precondition(width > 0 && height > 0, "a bitmap has at least one pixel")
        self.width = width
        self.height = height
        self.pixels = [UInt8](repeating: fill, count: width * height * 4)
        self.isPremultiplied = isPremultiplied
    }

    /// Wraps existing RGBA8 pixels; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8], isPremultiplied: Bool) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 4,
                     "pixel count does not match the bitmap's size")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.isPremultiplied = isPremultiplied
    }

    public var bytesPerRow: Int { width * 4 }

    /// True when every pixel's alpha is 255 (then premultiplied and straight are the same).
    /// ANDs whole pixels together 64 bits at a time and checks the alpha bytes once per block:
    /// encoders ask on every call, and a byte-by-byte scan of a 2x page cost as much as a JPEG
    /// encode.
    public var isOpaque: Bool {
        pixels.withUnsafeBytes { raw in
            let alphaMask: UInt64 = 0xFF00_0000_FF00_0000  // RGBA little-endian: alpha is each word's top byte
            let words = raw.count / 8
            var i = 0
            while i < words {
                let end = min(words, i + 2048)
                var acc: UInt64 = ~0
                while i < end {
                    acc &= raw.loadUnaligned(fromByteOffset: i &* 8, as: UInt64.self)
                    i &+= 1
                }
                if acc & alphaMask != alphaMask { return false }
            }
            // An odd pixel count leaves one pixel after the last whole word.
            return raw.count % 8 == 0 || raw[raw.count - 1] == 255
        }
    }

    /// The same image with straight (non-premultiplied) alpha. Rounds to nearest.
    ///
    /// The per-pixel arithmetic is wrapping (`&*`, `&+`) and narrowed by truncation: every value
    /// is bounded (a channel at most 255, so at most 255 × 255 + 127 before the division, and
    /// the clamp keeps the result ≤ 255), so no check could fire. Release builds are no longer
    /// `-Ounchecked` (the library is a versioned dependency), and this says so explicitly.
    public func unpremultiplied() -> Bitmap {
        guard isPremultiplied else { return self }
        var out = self
        out.isPremultiplied = false
        out.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = Int(p[i &+ 3])
                if a != 0 && a != 255 {
                    for c in 0..<3 {
                        p[i &+ c] = UInt8(truncatingIfNeeded: min(255, (Int(p[i &+ c]) &* 255 &+ a &>> 1) / a))
                    }
                } else if a == 0 {
                    p[i] = 0; p[i &+ 1] = 0; p[i &+ 2] = 0
                }
                i &+= 4
            }
        }
        return out
    }

    /// The same image with premultiplied alpha. Rounds to nearest. Wrapping arithmetic, as in
    /// `unpremultiplied()`: at most 255 × 254 + 127 before the division, ≤ 254 after.
    public func premultiplied() -> Bitmap {
        guard !isPremultiplied else { return self }
        var out = self
        out.isPremultiplied = true
        out.pixels.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let a = Int(p[i &+ 3])
                if a != 255 {
                    for c in 0..<3 {
                        p[i &+ c] = UInt8(truncatingIfNeeded: (Int(p[i &+ c]) &* a &+ 127) / 255)
                    }
                }
                i &+= 4
            }
        }
        return out
    }
}
