import CCodecShim
import LNoteBitmap

public enum ImageFormat: Sendable, Equatable {
    case png
    case jpeg
}

/// What a file's header says, read without decoding pixels.
public struct ImageInfo: Sendable, Equatable {
    public let format: ImageFormat
    public let width: Int
    public let height: Int
}

public enum ImageDecoder {
    /// The format by signature (never by file extension).
    public static func format(of data: [UInt8]) -> ImageFormat? {
        if data.count >= 8 && data[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return .png
        }
        if data.count >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF { return .jpeg }
        return nil
    }

    /// Format and size from the header (for PNG, the chunks before the first IDAT; for JPEG,
    /// the markers before the first SOS). No pixel memory is allocated.
    public static func probe(_ data: [UInt8]) throws(CodecError) -> ImageInfo {
        switch format(of: data) {
        case .png:
            let (w, h) = try pngHeader(data)
            return ImageInfo(format: .png, width: w, height: h)
        case .jpeg:
            let info = try jpegHeader(data, scaleDenominator: 1)
            return ImageInfo(format: .jpeg, width: Int(info.image_width), height: Int(info.image_height))
        case nil:
            throw CodecError(.unknownFormat, "not a PNG or JPEG file (unknown signature)")
        }
    }

    /// Decodes to straight-alpha RGBA8.
    ///
    /// The header's size is checked against `maxPixels` before any pixel buffer exists, so a
    /// tiny file claiming 100000×100000 costs nothing. For a JPEG that will be drawn at
    /// `targetSize` or smaller, libjpeg's DCT scaling decodes at 1/2, 1/4 or 1/8 — the smallest
    /// size still at least `headroom` × `targetSize` in both dimensions. PNG has no such
    /// shortcut and is always decoded whole. (Drawing chooses its scale with the chroma-aware
    /// `jpegScaleDenominator` and `decode(_:maxPixels:jpegScaleDenominator:)`.)
    public static func decode(_ data: [UInt8], maxPixels: Int = 100_000_000,
                              targetSize: (width: Int, height: Int)? = nil,
                              headroom: Int = 1) throws(CodecError) -> Bitmap {
        switch format(of: data) {
        case .png: return try decodePNG(data, maxPixels: maxPixels)
        case .jpeg:
            return try decodeJPEG(data, maxPixels: maxPixels) { header in
                jpegScaleDenominator(width: Int(header.image_width), height: Int(header.image_height), target: targetSize,
                                     headroom: headroom)
            }
        case nil: throw CodecError(.unknownFormat, "not a PNG or JPEG file (unknown signature)")
        }
    }

    /// Decodes to straight-alpha RGBA8, a JPEG at 1/`jpegScaleDenominator` (1, 2, 4 or 8; libjpeg's
    /// output is ceil(size / d)), a PNG whole.
    public static func decode(_ data: [UInt8], maxPixels: Int = 100_000_000,
                              jpegScaleDenominator d: Int) throws(CodecError) -> Bitmap {
        guard [1, 2, 4, 8].contains(d) else { throw CodecError(.invalidData, "JPEG scale denominator must be 1, 2, 4 or 8") }
        switch format(of: data) {
        case .png: return try decodePNG(data, maxPixels: maxPixels)
        case .jpeg: return try decodeJPEG(data, maxPixels: maxPixels) { _ in d }
        case nil: throw CodecError(.unknownFormat, "not a PNG or JPEG file (unknown signature)")
        }
    }

    /// Samples of a JPEG's coarsest component kept per frame pixel by a DCT-scaled decode for
    /// drawing (`jpegScaleDenominator` with the file's `jpegChromaScale`): a 12-MP 4:2:0 photo
    /// is decoded whole in frames from 32 px wide, and scaled only in smaller ones (1/2 up to
    /// 31 px, 1/4 up to 15, 1/8 up to 7); a greyscale one is decoded whole from 63 px.
    ///
    /// Why so much, and why counted in chroma samples. A DCT-scaled texel is a low-pass of its
    /// 8×8 block (at 1/8 exactly the block mean), so where a pixel's edge cuts a block the area
    /// average of the scaled decode misses the full decode's by up to about the block's share
    /// of the pixel; with YCbCr 4:2:0 a chroma block spans 16 image pixels. On top of that, the
    /// full decode's upsampled chroma, clamped to 0…255 next to sharp luma, loses a little on
    /// saturated fine colour detail that no scaled decode reproduces: a bias of 7–8 levels on
    /// 1-px colour dashes at every ratio from 60:1 to 210:1, whatever the scale. Measured against
    /// the exact area average of the full decode on 1-px checkerboards, dashes with 1-px lines
    /// and noise (q95; ImageAreaAverageTests), share of pixels within 8/255 and worst error, at
    /// ratio r and scale 1/d:
    /// - grey: d = 2 at r = 13: 82 %, max 17; r = 20: 100 %, 6.2; d = 4 at r = 27: 97.5 %, 9.3;
    ///   r = 40: 100 %, 5.1; d = 8 at r = 40: 96.6 %, 9.8; r = 100: 100 %, 4.8;
    /// - colour 4:2:0: d = 2 at r = 40: 84 %, max 10.4; r = 100: 99.0 %, 8.9; r = 160: 100 %,
    ///   7.5; d = 4 at r = 100: 82 %, 10; r = 210: 100 %, 7.5; d = 8 at r = 160: 95 %, 8.2.
    /// The old headroom of 4 (libvips keeps 2) missed by up to 29 levels; 16 still fails colour
    /// dashes at 100:1 and 1/2 (98.97 % within 8); 32 is the smallest power of two that passes
    /// every case measured. (On a 12-MP photo 1/8 still costs about half of a whole decode: the
    /// entropy decoding is the same.)
    public static let jpegHeadroom = 32

    /// How many image pixels a JPEG's coarsest component's samples span along x and y (2, 2
    /// for YCbCr 4:2:0; 1, 1 for grey and 4:4:4), from the header.
    public static func jpegChromaScale(_ data: [UInt8]) throws(CodecError) -> (x: Int, y: Int) {
        let info = try jpegHeader(data, scaleDenominator: 1)
        return (max(1, Int(info.chroma_scale_x)), max(1, Int(info.chroma_scale_y)))
    }

    /// The largest DCT scale denominator (8, 4, 2, else 1) whose output, ceil(size / d) as
    /// libjpeg computes it, still holds at least `headroom` samples of the coarsest component
    /// (`chromaScale` output texels each) per target pixel in both dimensions.
    public static func jpegScaleDenominator(width: Int, height: Int, target: (width: Int, height: Int)?,
                                            headroom: Int = 1, chromaScale: (x: Int, y: Int) = (1, 1)) -> Int {
        guard let target else { return 1 }
        let (hx, wideX) = max(1, headroom).multipliedReportingOverflow(by: max(1, chromaScale.x))
        let (hy, wideY) = max(1, headroom).multipliedReportingOverflow(by: max(1, chromaScale.y))
        let (tw, wide) = target.width.multipliedReportingOverflow(by: hx)
        let (th, tall) = target.height.multipliedReportingOverflow(by: hy)
        if wide || tall || wideX || wideY { return 1 }
        for d in [8, 4, 2] where (width + d - 1) / d >= tw && (height + d - 1) / d >= th {
            return d
        }
        return 1
    }

    // MARK: PNG

    static func pngHeader(_ data: [UInt8]) throws(CodecError) -> (Int, Int) {
        var w: UInt32 = 0, h: UInt32 = 0
        try data.withUnsafeBufferPointer { (bytes) throws(CodecError) in
            try shimCall("PNG header") { msg, cap in
                lnc_png_read_header(bytes.baseAddress, bytes.count, &w, &h, msg, cap)
            }
        }
        return (Int(w), Int(h))
    }

    static func decodePNG(_ data: [UInt8], maxPixels: Int) throws(CodecError) -> Bitmap {
        let (w, h) = try pngHeader(data)
        let byteCount = try checkedByteCount(width: w, height: h, maxPixels: maxPixels, what: "PNG")
        let pixels = try decodeInto(byteCount) { (out) throws(CodecError) in
            try data.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                try shimCall("PNG decode") { msg, cap in
                    lnc_png_decode(bytes.baseAddress, bytes.count, UInt64(maxPixels), out.baseAddress, out.count,
                                   UInt32(w), UInt32(h), msg, cap)
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: pixels, isPremultiplied: false)
    }

    // MARK: JPEG

    static func jpegHeader(_ data: [UInt8], scaleDenominator: Int) throws(CodecError) -> lnc_jpeg_info {
        var info = lnc_jpeg_info()
        try data.withUnsafeBufferPointer { (bytes) throws(CodecError) in
            try shimCall("JPEG header") { msg, cap in
                lnc_jpeg_read_header(bytes.baseAddress, bytes.count, Int32(scaleDenominator), &info, msg, cap)
            }
        }
        return info
    }

    /// `denominator` picks the DCT scale from the header.
    static func decodeJPEG(_ data: [UInt8], maxPixels: Int, denominator: (lnc_jpeg_info) -> Int) throws(CodecError) -> Bitmap {
        let header = try jpegHeader(data, scaleDenominator: 1)
        // The limit is on the stored size, even when decoding scaled (libjpeg's buffers follow it).
        _ = try checkedByteCount(width: Int(header.image_width), height: Int(header.image_height),
                                 maxPixels: maxPixels, what: "JPEG")
        let d = denominator(header)
        let info = d == 1 ? header : try jpegHeader(data, scaleDenominator: d)
        let w = Int(info.output_width), h = Int(info.output_height)
        let pixels = try decodeInto(w * h * 4) { (out) throws(CodecError) in
            try data.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                try shimCall("JPEG decode") { msg, cap in
                    lnc_jpeg_decode(bytes.baseAddress, bytes.count, Int32(d), UInt64(maxPixels), out.baseAddress,
                                    out.count, UInt32(w), UInt32(h), msg, cap)
                }
            }
        }
        return Bitmap(width: w, height: h, pixels: pixels, isPremultiplied: false)
    }

    // MARK: Shared

    static func checkedByteCount(width: Int, height: Int, maxPixels: Int, what: String) throws(CodecError) -> Int {
        guard width > 0, height > 0 else {
            throw CodecError(.invalidData, "\(what): image has zero width or height")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw CodecError(.tooLarge, "\(what): \(width)×\(height) pixels exceeds the limit of \(maxPixels)")
        }
        return pixels * 4
    }

    /// Allocates `count` bytes uninitialised (the decoder writes every one) and runs `fill`.
    static func decodeInto(_ count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) throws(CodecError) -> Void) throws(CodecError) -> [UInt8] {
        var failure: CodecError? = nil
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do throws(CodecError) {
                try fill(buffer)
                initialized = count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return pixels
    }
}

public enum JPEGCodec {
    /// The bytes of the first COM marker before the first scan, or nil when there is none or
    /// the data is not a readable JPEG header. Only markers are parsed; no pixel is decoded.
    public static func readComment(_ data: [UInt8]) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size = 0
        do {
            try data.withUnsafeBufferPointer { (bytes) throws(CodecError) in
                try shimCall("JPEG comment") { msg, cap in
                    lnc_jpeg_read_comment(bytes.baseAddress, bytes.count, &out, &size, msg, cap)
                }
            }
        } catch {
            return nil
        }
        guard out != nil else { return nil }
        return takeShimBuffer(out, size)
    }
}
