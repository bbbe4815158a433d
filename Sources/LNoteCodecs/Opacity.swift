import LNoteBitmap

extension Bitmap {
    /// Same answer as `isOpaque`, several times faster: ANDs whole pixels together, 64 bits at
    /// a time, and checks the alpha bytes once per block. The encoders ask on every call, and a
    /// byte-by-byte scan of a 2x page (4 M pixels) cost about as much as the JPEG encode itself.
    var allPixelsOpaque: Bool {
        pixels.withUnsafeBytes { raw in
            let alphaMask: UInt64 = 0xFF00_0000_FF00_0000  // RGBA little-endian: alpha is each word's top byte
            let words = raw.count / 8
            var i = 0
            while i < words {
                let end = min(words, i + 2048)
                var acc: UInt64 = ~0
                while i < end {
                    acc &= raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
                    i += 1
                }
                if acc & alphaMask != alphaMask { return false }
            }
            // An odd pixel count leaves one pixel after the last whole word.
            return raw.count % 8 == 0 || raw[raw.count - 1] == 255
        }
    }
}
