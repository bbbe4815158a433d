import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster

/// A page turned into pixels, with whatever was skipped on the way.
public struct RenderedPage: Sendable {
    public var bitmap: Bitmap
    /// Pixels per point used.
    public var scale: Double
    /// Warnings: invalid elements, discarded journal frames, images that could not be drawn.
    public var diagnostics: [Diagnostic]
}

/// The page-to-image pipeline: decoded page → background → elements in z-order → pixels.
///
/// Rendering only reads the package. Images are decoded through `AssetCache`, so a document
/// whose pages share a photo decodes it once per size.
public enum PageRenderer {
    /// The pixel size a page will have, or an error when it exceeds `options.maxPixels` or the
    /// requested size is not a positive finite scale. Checked before anything is allocated.
    public static func outputSize(for entry: PageEntry, options: RenderOptions, file: String)
        throws(LNoteError) -> (width: Int, height: Int, scale: Double)
    {
        let scale = options.size.scale(pageWidth: entry.width, pageHeight: entry.height)
        guard scale.isFinite, scale > 0 else {
            throw LNoteError(.invalid, file: file, rule: "scale", message: "the requested size gives scale \(scale)")
        }
        // In Double first: a huge scale must give an error, not an integer overflow.
        let w = max(1, (Double(entry.width) / 10 * scale).rounded(.toNearestOrAwayFromZero))
        let h = max(1, (Double(entry.height) / 10 * scale).rounded(.toNearestOrAwayFromZero))
        guard w * h <= Double(options.maxPixels) else {
            throw LNoteError(.limit, file: file, rule: "max-pixels",
                             message: "the page would be \(Self.integerText(w))×\(Self.integerText(h)) pixels, over the limit of \(options.maxPixels)")
        }
        let size = RasterGeometry.pixelSize(pageWidth: entry.width, pageHeight: entry.height, scale: scale)
        return (size.width, size.height, scale)
    }

    /// Renders a loaded page of `package`.
    public static func render(_ page: LoadedPage, of package: LNotePackage, options: RenderOptions,
                              assets: AssetCache) throws(LNoteError) -> RenderedPage {
        let entry = page.entry
        let size = try outputSize(for: entry, options: options, file: page.contentFile)
        var canvas = Canvas(width: size.width, height: size.height)
        switch (options.isTransparent, options.drawsTemplate) {
        case (false, true):
            // Paper and template in one pass, rounded once per pixel.
            canvas.drawBackground(entry.background, pageWidth: entry.width, pageHeight: entry.height, scale: size.scale)
        case (false, false):
            canvas.fill(entry.background.color)
        case (true, true):
            canvas.drawTemplate(entry.background, pageWidth: entry.width, pageHeight: entry.height, scale: size.scale)
        case (true, false):
            break
        }
        var diagnostics = page.diagnostics
        for (index, element) in page.elements.enumerated() {
            switch element.kind {
            case .stroke(let stroke):
                canvas.draw(stroke, scale: size.scale)
            case .image(let placement):
                do {
                    let image = try assets.image(placement, in: package, scale: size.scale)
                    canvas.draw(image: image, placement: placement, scale: size.scale)
                } catch {
                    diagnostics.append(Diagnostic(severity: .warning, file: error.file, elementIndex: index,
                                                  elementID: element.id, rule: error.rule,
                                                  message: "image skipped: \(error.message)"))
                }
            case .unknown:
                continue
            }
        }
        return RenderedPage(bitmap: canvas.bitmap, scale: size.scale, diagnostics: diagnostics)
    }

    private static func integerText(_ v: Double) -> String {
        v < 1e18 ? String(Int(v)) : String(v)
    }
}
