import Dispatch
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape

/// A page turned into pixels, with whatever was skipped on the way.
public struct RenderedPage: Sendable {
    public var bitmap: Bitmap
    /// Pixels per point used.
    public var scale: Double
    /// Pixels per inch used (an image file's resolution; `PageTransform.dpi(scale:)`).
    public var pixelsPerInch: Double { PageTransform.dpi(scale: scale) }
    /// Warnings: invalid elements, discarded journal frames, images that could not be drawn.
    public var diagnostics: [Diagnostic]
}

/// The page pipeline: decoded page → background → elements in z-order → a backend.
///
/// `draw` walks a page onto any `PageBackend`; `render` is the raster pipeline (size and work
/// checked first, then drawn onto a `RasterBackend`). Rendering only reads the package.
public enum PageRenderer {
    /// The page's transform at the requested size, or an error when the output would exceed
    /// `options.maxPixels` or the requested size is not a positive finite scale. Checked
    /// before anything is allocated.
    public static func transform(for entry: PageEntry, options: RenderOptions, file: String)
        throws(LNoteError) -> PageTransform
    {
        let scale = options.size.scale(pageWidth: entry.width, pageHeight: entry.height)
        guard scale.isFinite, scale > 0 else {
            throw LNoteError(.invalid, file: file, code: .scale, message: "the requested size gives scale \(scale)")
        }
        // In Double first: a huge scale must give an error, not an integer overflow.
        let w = PageTransform.exactDimension(entry.width, scale: scale)
        let h = PageTransform.exactDimension(entry.height, scale: scale)
        guard w * h <= Double(options.maxPixels) else {
            throw LNoteError(.limit, file: file, code: .maxPixels,
                             message: "the page would be \(Self.integerText(w))×\(Self.integerText(h)) pixels, over the limit of \(options.maxPixels)")
        }
        return PageTransform(pageWidth: entry.width, pageHeight: entry.height, scale: scale)
    }

    /// The pixel size a page will have (see `transform(for:options:file:)`).
    public static func outputSize(for entry: PageEntry, options: RenderOptions, file: String)
        throws(LNoteError) -> (width: Int, height: Int, scale: Double)
    {
        let t = try transform(for: entry, options: options, file: file)
        return (t.width, t.height, t.scale)
    }

    /// The estimated raster work of `page` at `transform`, or an error naming the page, the
    /// estimate and the budget when it is over `options.maxWork`.
    public static func checkWork(_ page: LoadedPage, transform: PageTransform, options: RenderOptions)
        throws(LNoteError) -> RasterWork
    {
        let work = RasterWork.estimate(page.elements, transform: transform)
        guard work.seconds <= options.maxWork else {
            throw LNoteError(.limit, file: page.contentFile, code: .maxWork,
                             message: "rendering this page at \(transform.width)×\(transform.height) is estimated at \(work) of work, over the budget of \(RasterWork.secondsText(options.maxWork)) (raise it with --max-work)")
        }
        return work
    }

    /// Renders a loaded page of `package` to pixels.
    public static func render(_ page: LoadedPage, of package: LNotePackage, options: RenderOptions,
                              assets: AssetCache) throws(LNoteError) -> RenderedPage {
        let t = try transform(for: page.entry, options: options, file: page.contentFile)
        _ = try checkWork(page, transform: t, options: options)
        RasterBackend.prepareImages(page, of: package, assets: assets, transform: t)
        var backend = RasterBackend(package: package, assets: assets)
        let diagnostics = try draw(page, transform: t, layers: options.background.layers, onto: &backend)
        return RenderedPage(bitmap: backend.canvas.bitmap, scale: t.scale, diagnostics: diagnostics)
    }

    /// Draws `page` onto `backend`: background layers, then every element in z-order. Returns
    /// the page's diagnostics plus a warning for each image the backend could not show.
    public static func draw<B: PageBackend>(_ page: LoadedPage, transform: PageTransform, layers: BackgroundLayers,
                                            onto backend: inout B) throws(LNoteError) -> [Diagnostic] {
        try backend.beginPage(page.entry, transform: transform, layers: layers)
        var diagnostics = page.diagnostics
        for (index, element) in page.elements.enumerated() {
            switch element.kind {
            case .stroke(let stroke):
                try backend.drawStroke(stroke)
            case .image(let placement):
                do {
                    try backend.drawImage(placement)
                } catch {
                    diagnostics.append(Diagnostic(severity: .warning, file: error.file, elementIndex: index,
                                                  elementID: element.id, code: error.code,
                                                  message: "image skipped: \(error.message)"))
                }
            case .unknown:
                continue
            }
        }
        try backend.endPage()
        return diagnostics
    }

    private static func integerText(_ v: Double) -> String {
        v < 1e18 ? String(Int(v)) : String(v)
    }
}

/// The raster backend: a premultiplied canvas, with images decoded through the document's
/// `AssetCache`. After `endPage`, `canvas.bitmap` holds the page.
public struct RasterBackend: PageBackend {
    public private(set) var canvas = Canvas(width: 1, height: 1)
    private var transform = PageTransform(scale: 1, width: 1, height: 1)
    private let package: LNotePackage
    private let assets: AssetCache

    public init(package: LNotePackage, assets: AssetCache) {
        self.package = package
        self.assets = assets
    }

    public mutating func beginPage(_ page: PageEntry, transform t: PageTransform, layers: BackgroundLayers) {
        transform = t
        canvas = Canvas(width: t.width, height: t.height)
        switch (layers.paper, layers.template) {
        case (true, true):
            // Paper and template in one pass, rounded once per pixel.
            canvas.drawBackground(page.background, pageWidth: page.width, pageHeight: page.height, transform: t)
        case (true, false):
            canvas.fill(page.background.color)
        case (false, true):
            canvas.drawTemplate(page.background, pageWidth: page.width, pageHeight: page.height, transform: t)
        case (false, false):
            break
        }
    }

    public mutating func drawStroke(_ stroke: Stroke) {
        canvas.draw(stroke, transform: transform)
    }

    /// Decodes a page's images and resamples their frames side by side before the page is
    /// drawn (`DispatchQueue.concurrentPerform`; inside an export's worker pool it gets what
    /// cores the workers leave). First one asset to a thread, that asset's frames asked of
    /// the cache in z-order, so each asset meets the cache exactly as the draw would (a small
    /// frame of a photo drawn large first is box-averaged from the large decode, as in the
    /// draw); then one frame to a thread. The draw finds each texture in `assets` and each
    /// kept frame in its `ResampleStore`, and only composites them in z-order: the same pixels.
    ///
    /// Memory: only assets whose decode fits the cache's budget together are prepared (bounded
    /// from their headers, `AssetCache.decodeBound`), so what this holds at once stays
    /// within `assets.budgetBytes` and nothing it decodes is evicted before the draw uses it,
    /// unless other workers sharing the cache need the room. The rest are left to the draw, as
    /// are pages with fewer than two such assets (nothing to overlap) and every failure: the
    /// draw meets it again from the cache and reports it as a warning.
    public static func prepareImages(_ page: LoadedPage, of package: LNotePackage, assets: AssetCache, transform: PageTransform) {
        var groups: [[ImagePlacement]] = [], groupOf: [String: Int] = [:]
        for element in page.elements {
            guard case .image(let placement) = element.kind, placement.opacity > 0 else { continue }
            let key = placement.asset.lowercased()
            if let g = groupOf[key] { groups[g].append(placement) } else { groupOf[key] = groups.count; groups.append([placement]) }
        }
        guard groups.count >= 2 else { return }
        // The file bytes read for a header go on to that asset's decode.
        var chosen: [(frames: [ImagePlacement], fileBytes: [UInt8]?)] = [], total = 0
        for group in groups {
            guard let bound = assets.decodeBound(for: group[0].asset, in: package), bound.bytes <= assets.budgetBytes - total else { continue }
            chosen.append((group, bound.fileBytes))
            total += bound.bytes
        }
        guard chosen.count >= 2 else { return }
        // 1. Each asset decoded on its own thread, its frames' textures asked for in z-order.
        let jobs = chosen, frames = chosen.flatMap(\.frames)
        let starts = jobs.indices.map { g in jobs[..<g].reduce(0) { $0 + $1.frames.count } }
        let textures = ResultSlots<ImageTexture?>(count: frames.count, initial: nil)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { g in
            for (k, placement) in jobs[g].frames.enumerated() {
                guard let texture = try? assets.image(placement, in: package, transform: transform,
                                                      fileBytes: k == 0 ? jobs[g].fileBytes : nil) else { return }
                textures[starts[g] + k] = texture
            }
        }
        // 2. Every frame resampled on its own thread (frames of one asset too).
        DispatchQueue.concurrentPerform(iterations: frames.count) { k in
            textures[k]?.prepare(placement: frames[k], transform: transform)
        }
    }

    public mutating func drawImage(_ placement: ImagePlacement) throws(LNoteError) {
        let texture = try assets.image(placement, in: package, transform: transform)
        canvas.draw(image: texture, placement: placement, transform: transform)
    }

    public mutating func endPage() {}
}
