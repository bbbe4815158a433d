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
    /// shortcut and is always decoded whole.
    ///
    /// Why headroom: a DCT-scaled texel is (about) the mean of a d×d block, and an area average
    /// of such block means is not the area average of the image where a pixel's edge cuts a
    /// block. The error shrinks with the number of blocks per pixel; `jpegHeadroom` is the
    /// measured choice (libvips keeps a factor of two, `vips_thumbnail_find_jpegshrink`).
    /// Measured against the area average of the full decode on 1-px lines and dashes (see
    /// ImageAreaAverageTests): headroom 2 is off by up to 29 levels at 8:1, 4 by up to 20 at
    /// 13:1, 8 by up to 12 (4:2:0 chroma at 100:1); on this machine decoding a 12-MP photo at
    /// 1/2 costs about what 1/4 does (the entropy decoding dominates) and whole about twice
    /// that, so 4 buys accuracy for nothing and 8 would double a photo thumbnail's decode.
    public static func decode(_ data: [UInt8], maxPixels: Int = 100_000_000,
                              targetSize: (width: Int, height: Int)? = nil,
                              headroom: Int = 1) throws(CodecError) -> Bitmap {
        switch format(of: data) {
        case .png: return try decodePNG(data, maxPixels: maxPixels)
        case .jpeg: return try decodeJPEG(data, maxPixels: maxPixels, targetSize: targetSize, headroom: headroom)
        case nil: throw CodecError(.unknownFormat, "not a PNG or JPEG file (unknown signature)")
        }
    }

    /// Decoded texels per frame pixel kept by a DCT-scaled JPEG decode for drawing (see `decode`).
    public static let jpegHeadroom = 4

    /// The largest DCT scale denominator (8, 4, 2, else 1) whose output, ceil(size / d) as
    /// libjpeg computes it, is still at least `headroom` × `target` in both dimensions.
    public static func jpegScaleDenominator(width: Int, height: Int, target: (width: Int, height: Int)?,
                                            headroom: Int = 1) -> Int {
        guard let target else { return 1 }
        let (tw, wide) = target.width.multipliedReportingOverflow(by: max(1, headroom))
        let (th, tall) = target.height.multipliedReportingOverflow(by: max(1, headroom))
        if wide || tall { return 1 }
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

    static func decodeJPEG(_ data: [UInt8], maxPixels: Int, targetSize: (width: Int, height: Int)?,
                           headroom: Int) throws(CodecError) -> Bitmap {
        let header = try jpegHeader(data, scaleDenominator: 1)
        // The limit is on the stored size, even when decoding scaled (libjpeg's buffers follow it).
        _ = try checkedByteCount(width: Int(header.image_width), height: Int(header.image_height),
                                 maxPixels: maxPixels, what: "JPEG")
        let d = jpegScaleDenominator(width: Int(header.image_width), height: Int(header.image_height), target: targetSize,
                                     headroom: headroom)
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
