// Page units to pixels (lnote-format.md section 6).
//
// Page coordinates are in 0.1 pt; a scale s is pixels per point, so a file value v lands at
// v · s / 10 pixels. Pixel (i, j) covers [i, i+1) × [j, j+1).

public enum RasterGeometry {
    /// Output size for a page of `pageWidth` × `pageHeight` (0.1 pt) at `scale` pixels per point:
    /// max(1, round(size/10 · s)) with halves rounding up.
    public static func pixelSize(pageWidth: Int, pageHeight: Int, scale: Double) -> (width: Int, height: Int) {
        (roundedDimension(pageWidth, scale), roundedDimension(pageHeight, scale))
    }

    /// The scale (pixels per point) that makes a page `pageWidth` (0.1 pt) wide come out
    /// `width` pixels wide: s = W / (pageWidth/10).
    public static func scale(forWidth width: Int, pageWidth: Int) -> Double {
        Double(width) / (Double(pageWidth) / 10)
    }

    static func roundedDimension(_ size: Int, _ scale: Double) -> Int {
        let v = (Double(size) / 10 * scale + 0.5).rounded(.down)
        // Clamp before converting so absurd scales cannot trap; callers bound real sizes.
        guard v.isFinite else { return 1 }
        return max(1, Int(min(v, Double(Int32.max))))
    }
}
