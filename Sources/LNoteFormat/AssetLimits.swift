/// The asset limit of section 7: what a decoded image may be at most, checked from its header
/// before decoding (beyond it the image is skipped). Every reader of assets, raster and
/// vector, refuses by this one number.
public enum AssetLimits {
    /// Texels of a decoded asset, at most: 100 megapixels.
    public static let maxPixels = 100_000_000

    /// The limit as a message says it: "100-megapixel".
    public static var maxPixelsText: String { "\(maxPixels / 1_000_000)-megapixel" }
}
