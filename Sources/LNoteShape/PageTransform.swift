// Page units to pixels (lnote-format.md section 6): the one owner of that mapping.
//
// Page coordinates are in 0.1 pt; a scale s is pixels per point, so a file value v lands at
// v · s/10 pixels. Pixel (i, j) covers [i, i+1) × [j, j+1). The output is
// max(1, round(size/10 · s)) pixels along each axis, halves rounding up.

/// Maps page units (0.1 pt) to the pixels of one output image, or of one vertical strip of it.
///
/// Every stage that places something on a page (strokes, backgrounds, images through
/// `ImageFrame`, the work estimate, the vector writers) goes through this value; nothing else
/// divides by 10, rounds an output size or converts between dpi and scale.
/// A strip (`originX` > 0) is the same mapping shifted left, so a canvas wider than the
/// rasterizer's limit can be drawn in parts that agree to the last bit with a narrow one.
public struct PageTransform: Sendable, Equatable {
    /// Pixels per point (1 = 72 dpi).
    public let scale: Double
    /// Pixels per page unit: scale / 10.
    public let pixelsPerUnit: Double
    /// The output image's size in pixels (the whole page, also for a strip).
    public let width: Int, height: Int
    /// The strip's left edge in output pixels, subtracted from every x (0 for the whole image).
    public let originX: Double

    /// The whole page of `pageWidth` × `pageHeight` (0.1 pt) at `scale` pixels per point.
    public init(pageWidth: Int, pageHeight: Int, scale: Double) {
        self.init(scale: scale, width: Self.roundedDimension(pageWidth, scale),
                  height: Self.roundedDimension(pageHeight, scale))
    }

    /// `scale` pixels per point onto an image of `width` × `height` pixels (tests and tools that
    /// draw onto a canvas of their own size).
    public init(scale: Double, width: Int, height: Int, originX: Double = 0) {
        self.scale = scale
        self.pixelsPerUnit = scale / 10
        self.width = width
        self.height = height
        self.originX = originX
    }

    /// The same mapping for the strip of the image starting at pixel column `x0`.
    public func strip(from x0: Int) -> PageTransform {
        PageTransform(scale: scale, width: width, height: height, originX: Double(x0))
    }

    /// A page x coordinate (0.1 pt) in strip pixels.
    @inline(__always) public func x(_ v: Double) -> Double { v * pixelsPerUnit - originX }
    /// A page y coordinate (0.1 pt) in pixels.
    @inline(__always) public func y(_ v: Double) -> Double { v * pixelsPerUnit }
    /// A page length (0.1 pt) in pixels.
    @inline(__always) public func length(_ v: Double) -> Double { v * pixelsPerUnit }

    // MARK: - Output size

    /// An output dimension before clamping, in Double so that a limit check on an absurd scale
    /// gives an error, never an integer overflow: max(1, round(size/10 · s)), halves up.
    public static func exactDimension(_ size: Int, scale: Double) -> Double {
        max(1, (Double(size) / 10 * scale + 0.5).rounded(.down))
    }

    /// An output dimension as an integer, clamped so absurd scales cannot trap (callers check
    /// real sizes against their pixel limit first, with `exactDimension`).
    public static func roundedDimension(_ size: Int, _ scale: Double) -> Int {
        let v = exactDimension(size, scale: scale)
        guard v.isFinite else { return 1 }
        return Int(min(v, Double(Int32.max)))
    }

    // MARK: - Points and inches

    /// Points per inch: 72 dpi is scale 1.
    public static let pointsPerInch: Double = 72

    /// The scale (pixels per point) of `dpi` pixels per inch.
    public static func scale(dpi: Double) -> Double { dpi / pointsPerInch }

    /// The pixels per inch of `scale` pixels per point.
    public static func dpi(scale: Double) -> Double { pointsPerInch * scale }

    /// This mapping's pixels per inch (an image file's resolution).
    public var dpi: Double { Self.dpi(scale: scale) }

    /// A page length (0.1 pt) in points, exactly.
    public static func points(_ size: Int) -> Double { Double(size) / 10 }

    /// A page length (0.1 pt) in whole points, halves up (what a report shows as a vector
    /// page's size).
    public static func wholePoints(_ size: Int) -> Int { (size + 5) / 10 }

    // MARK: - Scale for a size

    /// The scale (pixels per point) that makes a page `pageWidth` (0.1 pt) wide come out
    /// `width` pixels wide: s = W / (pageWidth/10).
    public static func scale(forWidth width: Int, pageWidth: Int) -> Double {
        Double(width) / (Double(pageWidth) / 10)
    }

    /// The scale that makes a page `pageHeight` (0.1 pt) tall come out `height` pixels tall.
    public static func scale(forHeight height: Int, pageHeight: Int) -> Double {
        Double(height) / (Double(pageHeight) / 10)
    }
}
