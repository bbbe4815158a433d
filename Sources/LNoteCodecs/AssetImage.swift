import LNoteBitmap
import LNoteFormat

/// The one policy for an asset image (section 7), for every renderer: the raster cache
/// (`AssetCache`), `check`'s verification and the vector backends' embedding (`EmbeddedImage`).
/// An asset is probed from its header, refused over `maxPixels` decoded pixels, and decoded;
/// every failure is an `LNoteError` with code `image` about `assets/<name>`, a codec failure's
/// kind kept (`LNoteError(_:file:code:)`).
public enum AssetImage {
    /// The decoded-asset size limit of the spec (section 7), `AssetLimits.maxPixels`.
    public static var maxPixels: Int { AssetLimits.maxPixels }

    /// The package-relative file of asset `name`, as errors name it.
    public static func file(_ name: String) -> String { "assets/\(name)" }

    /// The asset's format and size, from its header.
    public static func probe(_ bytes: [UInt8], file: String) throws(LNoteError) -> ImageInfo {
        do { return try ImageDecoder.probe(bytes) } catch { throw LNoteError(error, file: file, code: .image) }
    }

    /// Decodes the asset, a JPEG at 1/`jpegScaleDenominator`, refusing it over `maxPixels`.
    public static func decode(_ bytes: [UInt8], jpegScaleDenominator d: Int, file: String) throws(LNoteError) -> Bitmap {
        do { return try ImageDecoder.decode(bytes, maxPixels: maxPixels, jpegScaleDenominator: d) } catch {
            throw LNoteError(error, file: file, code: .image)
        }
    }

    /// Decodes the asset at `targetSize` or somewhat larger (a JPEG DCT-scaled), refusing it over
    /// `maxPixels`.
    public static func decode(_ bytes: [UInt8], targetSize: (width: Int, height: Int)?, file: String) throws(LNoteError) -> Bitmap {
        do { return try ImageDecoder.decode(bytes, maxPixels: maxPixels, targetSize: targetSize) } catch {
            throw LNoteError(error, file: file, code: .image)
        }
    }
}
