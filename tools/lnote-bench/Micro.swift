// Single-threaded micro measurements on the dense page: decode, raster, PNG encode.

import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape

/// The three raster sizes the peers are timed at.
enum RasterScale: String, CaseIterable {
    case thumb, x1 = "1x", x2 = "2x"

    /// Pixels per point for a page `pageWidth` (0.1 pt) wide: thumb is 320 px wide.
    func scale(pageWidth: Int) -> Double {
        switch self {
        case .thumb: return PageTransform.scale(forWidth: 320, pageWidth: pageWidth)
        case .x1: return 1
        case .x2: return 2
        }
    }
}

/// Content bytes already in memory → `ContentParser.parse`.
func measureDecode(_ source: PageSource, runs: Int) throws -> Timing {
    try measure(runs: runs) {
        let content = try ContentParser.parse(source.content, file: source.contentFile)
        keep(content.elements.count)
    }
}

/// Canvas creation + background colour fill + every stroke drawn, at `scale`; no template,
/// no images, no encode: the work the peers are timed on.
func rasterStrokes(_ page: LoadedPage, scale: Double) -> Bitmap {
    let transform = PageTransform(pageWidth: page.entry.width, pageHeight: page.entry.height, scale: scale)
    var canvas = Canvas(width: transform.width, height: transform.height)
    canvas.fill(page.entry.background.color)
    for element in page.elements {
        if case .stroke(let stroke) = element.kind { canvas.draw(stroke, transform: transform) }
    }
    return canvas.bitmap
}

func measureRaster(_ page: LoadedPage, at rasterScale: RasterScale, runs: Int) throws -> Timing {
    let scale = rasterScale.scale(pageWidth: page.entry.width)
    return try measure(runs: runs) { keep(rasterStrokes(page, scale: scale)) }
}

/// Folds a pixel of `bitmap` into the checksum, so that drawing it cannot be optimized away.
func keep(_ bitmap: Bitmap) { keep(Int(bitmap.pixels[bitmap.pixels.count / 2])) }

/// One PNG encode of `bitmap`, timed, and the size of the file it gives.
func measurePNG(_ bitmap: Bitmap, compression: PNGEncodeOptions.Compression, runs: Int) throws -> (Timing, bytes: Int) {
    let options = PNGEncodeOptions(compression: compression)
    let bytes = try PNGEncoder.encode(bitmap, options: options).count
    let timing = try measure(runs: runs) { keep(try PNGEncoder.encode(bitmap, options: options).count) }
    return (timing, bytes)
}
