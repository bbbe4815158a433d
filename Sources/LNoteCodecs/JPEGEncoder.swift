import CCodecShim
import LNoteBitmap

public enum JPEGEncoder {
    /// The JFIF density (dots per inch) for a resolution: rounded, then clamped to what JFIF
    /// can hold (1-65535). The resolution follows the output scale, which may be tiny (a 100 px
    /// thumbnail of a 200000-wide page: 0.36 dpi) or huge (`--dpi 72000`); the image is still
    /// valid, so it gets the nearest density JFIF can say instead of a failed encode.
    public static func density(pixelsPerInch ppi: Double) -> Int {
        guard !ppi.isNaN else { return 72 }
        return Int(min(max(ppi.rounded(), 1), 65535))
    }

    /// Encodes `bitmap` as a baseline YCbCr 4:2:0 JPEG with a JFIF header giving
    /// `pixelsPerInch` (1-65535) on both axes (nil: no physical size, the JFIF header's aspect
    /// ratio 1:1 with no unit, libjpeg's default), and, when `comment` is given, one COM marker
    /// holding exactly those bytes (at most 65,533).
    ///
    /// JPEG has no alpha: the alpha channel is not written. Encoders never composite; a
    /// transparent canvas is flattened onto its paper first, as an explicit step of the
    /// pipeline (`Bitmap.flattened(onto:)` in LNoteRaster). The pixels are passed to
    /// libjpeg-turbo as RGBX without any copy.
    public static func encode(_ bitmap: Bitmap, quality: Int = 80, pixelsPerInch: Int? = 72,
                              comment: [UInt8]? = nil) throws(CodecError) -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw CodecError(.invalidArgument, "JPEG encode: quality \(quality) is not 1-100")
        }
        if let pixelsPerInch, !(1...65535).contains(pixelsPerInch) {
            throw CodecError(.invalidArgument, "JPEG encode: \(pixelsPerInch) pixels per inch does not fit JFIF")
        }
        if let comment, comment.count > 65533 {
            throw CodecError(.invalidArgument, "JPEG encode: comment of \(comment.count) bytes exceeds 65533")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var outSize = 0
        try bitmap.pixels.withUnsafeBufferPointer { (pixels) throws(CodecError) in
            let commentBytes = comment ?? []
            try commentBytes.withUnsafeBufferPointer { (c) throws(CodecError) in
                // An empty comment still gets a (zero-length) COM marker: pass a non-NULL pointer.
                var empty: UInt8 = 0
                try withUnsafePointer(to: &empty) { (emptyPointer) throws(CodecError) in
                    let commentPointer: UnsafePointer<UInt8>? = comment == nil ? nil : (c.baseAddress ?? emptyPointer)
                    try shimCall("JPEG encode") { msg, cap in
                        lnc_jpeg_encode(pixels.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height),
                                        bitmap.bytesPerRow, Int32(quality), Int32(pixelsPerInch ?? 0),
                                        commentPointer, commentBytes.count, &out, &outSize, msg, cap)
                    }
                }
            }
        }
        return takeShimBuffer(out, outSize)
    }

    /// Encodes `bitmap` as a baseline one-component (greyscale) JPEG of each pixel's luma (a
    /// grey pixel's value exactly), with a JFIF header giving `pixelsPerInch`. As `encode`, the
    /// alpha channel is not written.
    public static func encodeGreyscale(_ bitmap: Bitmap, quality: Int = 80, pixelsPerInch: Int = 72) throws(CodecError) -> [UInt8] {
        guard (1...100).contains(quality) else {
            throw CodecError(.invalidArgument, "JPEG encode: quality \(quality) is not 1-100")
        }
        guard (1...65535).contains(pixelsPerInch) else {
            throw CodecError(.invalidArgument, "JPEG encode: \(pixelsPerInch) pixels per inch does not fit JFIF")
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var outSize = 0
        try bitmap.pixels.withUnsafeBufferPointer { (pixels) throws(CodecError) in
            try shimCall("JPEG encode") { msg, cap in
                lnc_jpeg_encode_gray(pixels.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                                     Int32(quality), Int32(pixelsPerInch), &out, &outSize, msg, cap)
            }
        }
        return takeShimBuffer(out, outSize)
    }
}
