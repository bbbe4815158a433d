import CZlib
import LNoteBitmap
import LNoteCodecs
import LNoteFormat

/// An asset as a vector file embeds it: a JPEG's own bytes (never re-encoded), or a PNG's
/// pixels losslessly as RGB plus, when it has any transparency, an alpha channel.
enum EmbeddedImage {
    /// The JPEG file byte for byte, with what a PDF image dictionary needs from its frame header.
    case jpeg(bytes: [UInt8], width: Int, height: Int, components: Int, adobeInverted: Bool)
    /// Decoded pixels: RGB rows and, unless opaque, alpha rows (straight alpha, 8 bits).
    case pixels(width: Int, height: Int, rgb: [UInt8], alpha: [UInt8]?, png: [UInt8])
    /// A 16-bit grey or RGB PNG without transparency: its image data as stored (the IDAT
    /// chunks' zlib stream of PNG-filtered rows), which a PDF embeds unchanged as a Flate
    /// stream with the PNG predictor, at 16 bits per component.
    case png16(width: Int, height: Int, colors: Int, idat: [UInt8], png: [UInt8])

    /// The PNG file, for a format that embeds image files (SVG).
    var pngFile: [UInt8]? {
        switch self {
        case .jpeg: nil
        case .pixels(_, _, _, _, let png), .png16(_, _, _, _, let png): png
        }
    }

    /// Reads and checks asset `name` of `package`. Errors name the asset file.
    static func load(_ name: String, from package: LNotePackage) throws(LNoteError) -> EmbeddedImage {
        let file = AssetImage.file(name)
        let bytes = try package.readAsset(name)
        let info = try AssetImage.probe(bytes, file: file)
        guard info.width * info.height <= AssetImage.maxPixels else {
            throw LNoteError(.limit, file: file, code: .image,
                             message: "the image is \(info.width)×\(info.height), over the \(AssetLimits.maxPixelsText) limit")
        }
        // Decoding checks the whole file (a truncated JPEG is refused here as in a raster export,
        // not embedded for a viewer to choke on); for a JPEG the pixels are then dropped.
        let bitmap = try AssetImage.decode(bytes, targetSize: info.format == .jpeg ? (1, 1) : nil, file: file)
        switch info.format {
        case .jpeg:
            guard let frame = jpegFrame(bytes) else {
                throw LNoteError(.invalid, file: file, code: .image, message: "no JPEG frame header found")
            }
            return .jpeg(bytes: bytes, width: info.width, height: info.height, components: frame.components,
                         adobeInverted: frame.adobe && frame.components == 4)
        case .png:
            if let deep = png16(bytes) {
                return .png16(width: deep.width, height: deep.height, colors: deep.colors, idat: deep.idat, png: bytes)
            }
            let n = bitmap.width * bitmap.height
            var rgb = [UInt8](repeating: 0, count: 3 * n)
            var alpha: [UInt8]? = bitmap.isOpaque ? nil : [UInt8](repeating: 0, count: n)
            // The decoder's pixels are straight (never premultiplied): copied as they are.
            bitmap.pixels.withUnsafeBufferPointer { p in
                for i in 0..<n {
                    rgb[3 * i] = p[4 * i]; rgb[3 * i + 1] = p[4 * i + 1]; rgb[3 * i + 2] = p[4 * i + 2]
                    alpha?[i] = p[4 * i + 3]
                }
            }
            return .pixels(width: bitmap.width, height: bitmap.height, rgb: rgb, alpha: alpha, png: bytes)
        }
    }

    /// The IHDR size, colour count and concatenated IDAT data of a 16-bit, non-interlaced grey
    /// (colour type 0) or RGB (2) PNG without a tRNS chunk; nil for any other PNG. Called on a
    /// file the decoder has already read in full (chunk CRCs checked).
    static func png16(_ d: [UInt8]) -> (width: Int, height: Int, colors: Int, idat: [UInt8])? {
        func u32(_ i: Int) -> Int { Int(d[i]) << 24 | Int(d[i + 1]) << 16 | Int(d[i + 2]) << 8 | Int(d[i + 3]) }
        guard d.count >= 33, d[12..<16].elementsEqual(Array("IHDR".utf8)) else { return nil }
        let width = u32(16), height = u32(20)
        let depth = d[24], type = d[25], interlace = d[28]
        guard depth == 16, type == 0 || type == 2, interlace == 0 else { return nil }
        var idat: [UInt8] = []
        var i = 8
        while i + 12 <= d.count {
            let length = u32(i)
            let kind = String(decoding: d[(i + 4)..<(i + 8)], as: UTF8.self)
            guard length >= 0, i + 12 + length <= d.count else { return nil }
            if kind == "tRNS" { return nil }
            if kind == "IDAT" { idat += d[(i + 8)..<(i + 8 + length)] }
            if kind == "IEND" { break }
            i += 12 + length
        }
        return idat.isEmpty ? nil : (width, height, type == 2 ? 3 : 1, idat)
    }

    /// The component count of the first SOF marker, and whether an Adobe APP14 marker is present
    /// (Adobe writes CMYK JPEGs inverted). Nil when no frame header is found.
    static func jpegFrame(_ d: [UInt8]) -> (components: Int, adobe: Bool)? {
        var i = 2
        var adobe = false
        while i + 4 <= d.count {
            guard d[i] == 0xFF else { i += 1; continue }
            let marker = d[i + 1]
            if marker == 0xFF { i += 1; continue }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            if marker == 0xEE, i + 9 <= d.count, d[(i + 4)..<(i + 9)].elementsEqual(Array("Adobe".utf8)) { adobe = true }
            if (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC {
                guard i + 10 <= d.count else { return nil }
                return (Int(d[i + 9]), adobe)
            }
            if marker == 0xDA { return nil }
            i += 2 + length
        }
        return nil
    }
}

/// EXIF orientation, which spec §4 says to ignore: PDF viewers do (a `DCTDecode` stream has no
/// orientation), but browsers apply it when they draw an SVG `<image>` (CSS `image-orientation`
/// defaults to `from-image`), so an SVG would show the photo turned.
enum JPEGOrientation {
    /// `jpeg` with every EXIF Orientation entry of IFD0 set to 1 (as stored), the bytes otherwise
    /// unchanged (same length, other metadata kept); `jpeg` itself when it has none.
    static func upright(_ jpeg: [UInt8]) -> [UInt8] {
        var d = jpeg
        var i = 2
        guard d.count > 4, d[0] == 0xFF, d[1] == 0xD8 else { return jpeg }
        while i + 4 <= d.count, d[i] == 0xFF {
            let marker = d[i + 1]
            if marker == 0xDA || marker == 0xD9 { break }          // image data: no more metadata
            if marker == 0xFF { i += 1; continue }
            let length = Int(d[i + 2]) << 8 | Int(d[i + 3])
            guard length >= 2, i + 2 + length <= d.count else { break }
            if marker == 0xE1, length >= 16, d[(i + 4)..<(i + 10)].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                resetOrientation(&d, tiff: i + 10, end: i + 2 + length)
            }
            i += 2 + length
        }
        return d
    }

    /// Sets the Orientation entries (tag 0x0112, type SHORT) of the IFD0 of the TIFF structure
    /// at `tiff`..<`end` to 1.
    private static func resetOrientation(_ d: inout [UInt8], tiff: Int, end: Int) {
        guard tiff + 8 <= end else { return }
        let big: Bool
        switch (d[tiff], d[tiff + 1]) {
        case (0x4D, 0x4D): big = true
        case (0x49, 0x49): big = false
        default: return
        }
        func u16(_ at: Int) -> Int { big ? Int(d[at]) << 8 | Int(d[at + 1]) : Int(d[at + 1]) << 8 | Int(d[at]) }
        func u32(_ at: Int) -> Int { big ? u16(at) << 16 | u16(at + 2) : u16(at + 2) << 16 | u16(at) }
        guard u16(tiff + 2) == 42 else { return }
        let ifd = tiff + u32(tiff + 4)
        guard ifd >= tiff + 8, ifd + 2 <= end else { return }
        let count = u16(ifd)
        for k in 0..<count {
            let e = ifd + 2 + 12 * k
            guard e + 12 <= end else { return }
            if u16(e) == 0x0112 && u16(e + 2) == 3 && u32(e + 4) == 1 {
                if big { d[e + 8] = 0; d[e + 9] = 1 } else { d[e + 8] = 1; d[e + 9] = 0 }
            }
        }
    }
}

/// Flate (zlib) compression of a whole buffer.
public enum Flate {
    /// The PDF's content-stream level. Level 1: on the bench's dense page (release, shared
    /// 2-core machine) level 6 made the PDF 20 % smaller but took 3.0 s against 0.9 s end to
    /// end; the time target (2× the PNG export) weighs more than that size.
    public static let level: Int32 = 1

    static func compress(_ input: [UInt8], level: Int32 = Flate.level) -> [UInt8] {
        var size = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(size))
        let rc = out.withUnsafeMutableBufferPointer { o in
            input.withUnsafeBufferPointer { i in
                compress2(o.baseAddress, &size, i.baseAddress, uLong(input.count), level)
            }
        }
        precondition(rc == Z_OK, "compress2 cannot fail with a buffer of compressBound's size")
        out.removeSubrange(Int(size)...)
        return out
    }
}
