import Foundation
import XCTest
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
@testable import LNoteRender
import LNoteTestSupport

/// AssetCache: one decode per asset and decode size, shared by placements, pages, threads and
/// kept within its budget; keyed by package too.
final class AssetCacheTests: XCTestCase {
    /// A package whose assets/ holds `assets` (name → image), opened.
    func package(in dir: String, id: String = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10",
                 assets: [String: Bitmap]) throws -> LNotePackage {
        try LNotePackage.open(at: URL(fileURLWithPath: try made(in: dir, id: id, pages: 2, assets: assets).path))
    }

    func made(in dir: String, id: String = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10", pages: Int,
              assets: [String: Bitmap]) throws -> PackageBuilder {
        let made = try PackageBuilder.make(in: dir, pages: pages, documentID: id)
        for (name, image) in assets {
            let bytes = name.hasSuffix(".jpg") ? try JPEGEncoder.encode(image, quality: 90)
                : try PNGEncoder.encode(image, options: PNGEncodeOptions(includeAlpha: true))
            try made.write("assets/" + name, bytes)
        }
        return made
    }

    /// A one-page package over `assets` whose page shows `frames` in order, then `extra`; and that page.
    func imagePage(in dir: String, assets: [String: Bitmap], frames: [ImagePlacement],
                   extra: [Element] = []) throws -> (LNotePackage, LoadedPage) {
        let made = try made(in: dir, pages: 1, assets: assets)
        try made.writeContent(page: 0, elements: frames.enumerated().map { k, frame in
            Element.image(id: String(format: "B0000000-0000-4000-8000-%012d", k + 1), placement: frame)
        } + extra)
        let p = try LNotePackage.open(at: URL(fileURLWithPath: made.path))
        return (p, try p.loadPage(at: 0))
    }

    /// The page drawn element by element onto a raster backend, with nothing prepared ahead.
    func plainDraw(_ page: LoadedPage, of p: LNotePackage, options: RenderOptions, assets: AssetCache) throws -> [UInt8] {
        var plain = RasterBackend(package: p, assets: assets)
        let t = try PageRenderer.transform(for: page.entry, options: options, file: page.contentFile)
        _ = try PageRenderer.draw(page, transform: t, layers: options.background.layers, onto: &plain)
        return plain.canvas.bitmap.pixels
    }

    func assertSamePixels(_ a: [UInt8], _ b: [UInt8], _ what: String, line: UInt = #line) {
        XCTAssertTrue(a == b, "\(what): \(zip(a, b).filter { $0 != $1 }.count) bytes differ", line: line)
    }

    func solid(_ w: Int, _ h: Int, _ v: UInt8) -> Bitmap {
        Bitmap(width: w, height: h, pixels: [UInt8](repeating: v, count: w * h * 4), isPremultiplied: false)
    }

    let jpg = "D0000000-0000-4000-8000-000000000001.jpg", png = "D0000000-0000-4000-8000-000000000002.png"

    /// Bytes a w × h decoded image holds in the cache: its texels and its resampled frames' budget.
    func held(_ w: Int, _ h: Int) -> Int { w * h * 4 + min(16 << 20, max(256 << 10, w * h * 2)) }

    func testOneDecodePerAssetAndSizeSharedByPlacementsAndThreads() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try package(in: dir, assets: [jpg: solid(800, 600, 90), png: solid(300, 200, 200)])
        let cache = AssetCache()
        let big = ImagePlacement(asset: jpg, x: 0, y: 0, width: 4000, height: 3000)
        let moved = ImagePlacement(asset: jpg, x: 900, y: 300, width: 4000, height: 3000, rotation: 30000)
        // Eight threads ask for the same two images at once: each is decoded once.
        let png = self.png
        DispatchQueue.concurrentPerform(iterations: 8) { k in
            _ = try? cache.image(k % 2 == 0 ? big : moved, in: p, scale: 0.3)
            _ = try? cache.image(ImagePlacement(asset: png, x: 0, y: 0, width: 1000, height: 700), in: p, scale: 1)
        }
        XCTAssertEqual(cache.decodeCount, 2)
        // A 6.7:1 shrink keeps the (4:2:0) JPEG whole, and so does 50:1 (16 × 12 px); a 1 × 1 px
        // frame still has 50 × 37 chroma samples at 1/8 (ImageDecoder.jpegHeadroom = 32).
        let whole = try cache.image(big, in: p, scale: 0.3)
        XCTAssertEqual(whole.width, 800)
        XCTAssertEqual(try cache.image(ImagePlacement(asset: jpg, x: 0, y: 0, width: 160, height: 120), in: p, scale: 1).width, 800)
        let small = try cache.image(ImagePlacement(asset: jpg, x: 0, y: 0, width: 10, height: 10), in: p, scale: 1)
        XCTAssertEqual(small.width, 100, "derived from the whole decode by 8×8 block means")
        XCTAssertEqual(small.spanX, 100, accuracy: 1e-9)
        XCTAssertEqual(cache.decodeCount, 2, "the coarser one came from the finer decode held")
        XCTAssertEqual(cache.bytesHeld, held(800, 600) + held(300, 200) + held(100, 75))
    }

    func testBudgetDropsLeastRecentlyUsedAndNeverHoldsMore() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let p = try package(in: dir, assets: [jpg: solid(400, 300, 90), png: solid(300, 200, 200)])
        // Room for the PNG (240,000 bytes + 256 KiB of resampled frames) or the JPEG (480,000 +
        // 256 KiB), not both.
        let cache = AssetCache(budgetBytes: held(400, 300) + 10)
        let a = ImagePlacement(asset: jpg, x: 0, y: 0, width: 4000, height: 3000)
        let b = ImagePlacement(asset: png, x: 0, y: 0, width: 3000, height: 2000)
        _ = try cache.image(a, in: p, scale: 1)
        _ = try cache.image(b, in: p, scale: 1)
        XCTAssertLessThanOrEqual(cache.bytesHeld, held(400, 300) + 10)
        XCTAssertEqual(cache.bytesHeld, held(300, 200))
        _ = try cache.image(b, in: p, scale: 1)
        XCTAssertEqual(cache.decodeCount, 2, "the PNG stayed")
        _ = try cache.image(a, in: p, scale: 1)
        XCTAssertEqual(cache.decodeCount, 3, "the JPEG had been dropped")
        // An image larger than the whole budget is drawn but not kept.
        let tiny = AssetCache(budgetBytes: 1000)
        _ = try tiny.image(a, in: p, scale: 1)
        _ = try tiny.image(a, in: p, scale: 1)
        XCTAssertEqual(tiny.bytesHeld, 0)
        XCTAssertEqual(tiny.decodeCount, 2)
    }

    func testSameAssetNameInTwoPackagesIsTwoImages() throws {
        // A copied document keeps its assets' names: the cache must not hand one package's
        // picture to the other.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = try package(in: dir + "/1", assets: [png: solid(4, 4, 10)])
        let two = try package(in: dir + "/2", assets: [png: solid(4, 4, 240)])
        let cache = AssetCache()
        let place = ImagePlacement(asset: png, x: 0, y: 0, width: 40, height: 40)
        XCTAssertEqual(try cache.image(place, in: one, scale: 1).bitmap.pixels[0], 10)
        XCTAssertEqual(try cache.image(place, in: two, scale: 1).bitmap.pixels[0], 240)
    }

    func testAFrameIsResampledOnceAndDrawnAgainFromTheStore() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pixels = [UInt8](repeating: 255, count: 300 * 200 * 4)
        for k in 0..<(300 * 200) { pixels[4 * k] = UInt8(k % 251); pixels[4 * k + 1] = UInt8((k / 300) % 256); pixels[4 * k + 3] = UInt8(k % 7 == 0 ? 0 : 200) }
        let p = try package(in: dir, assets: [png: Bitmap(width: 300, height: 200, pixels: pixels, isPremultiplied: false)])
        let cache = AssetCache()
        func render(_ placement: ImagePlacement, store: Bool) throws -> [UInt8] {
            let texture = try cache.image(placement, in: p, scale: 1)
            var canvas = Canvas(width: 90, height: 80)
            canvas.fill(.white)
            canvas.draw(image: store ? texture : ImageTexture(texture.bitmap), placement: placement, scale: 1)
            return canvas.bitmap.pixels
        }
        for rotation in [0, 90000, 12500] {
            let placement = ImagePlacement(asset: png, x: 103, y: 150, width: 611, height: 407, rotation: rotation, opacity: 800)
            let store = try XCTUnwrap(try cache.image(placement, in: p, scale: 1).resamples)
            let hits = store.hits
            let first = try render(placement, store: true), again = try render(placement, store: true)
            XCTAssertEqual(store.hits, hits + 1, "the second draw came from the store")
            XCTAssertEqual(first, again)
            XCTAssertEqual(first, try render(placement, store: false), "resampled straight onto the canvas: the same pixels")
            // A frame partly off the canvas is drawn directly, not kept.
            let off = ImagePlacement(asset: png, x: 500, y: 150, width: 611, height: 407, rotation: rotation)
            XCTAssertEqual(try render(off, store: true), try render(off, store: false))
            XCTAssertEqual(store.hits, hits + 1)
        }
        let store = try XCTUnwrap(try cache.image(ImagePlacement(asset: png, x: 0, y: 0, width: 10, height: 10), in: p, scale: 1).resamples)
        XCTAssertGreaterThan(store.bytesHeld, 0)
        XCTAssertLessThanOrEqual(store.bytesHeld, store.budgetBytes)
    }

    func testAPagesImagesPreparedSideBySideDrawTheSamePixels() throws {
        // render() decodes and resamples a page's images on several threads before drawing
        // them in z-order (RasterBackend.prepareImages); the pixels must be those of a plain
        // draw, frame by frame, and the draw must have composited the prepared frames.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Big enough that the thumbnail's frames fit their stores (half the image's own bytes).
        var photo = [UInt8](repeating: 255, count: 1600 * 1200 * 4)
        for k in 0..<(1600 * 1200) { photo[4 * k] = UInt8(k % 253); photo[4 * k + 1] = UInt8((k / 1600) % 256); photo[4 * k + 2] = UInt8((k * 7) % 255) }
        var overlay = [UInt8](repeating: 0, count: 600 * 400 * 4)
        for k in 0..<(600 * 400) { overlay[4 * k] = UInt8(k % 251); overlay[4 * k + 2] = 90; overlay[4 * k + 3] = UInt8((k / 600) % 256) }
        let frames = [ImagePlacement(asset: jpg, x: 500, y: 400, width: 6000, height: 4500),
                      ImagePlacement(asset: jpg, x: 900, y: 5600, width: 3000, height: 2250, rotation: -7000, opacity: 700),
                      ImagePlacement(asset: png, x: 4000, y: 6500, width: 3300, height: 2200, rotation: 90000),
                      ImagePlacement(asset: png, x: 2500, y: 9000, width: 2000, height: 1333, rotation: 12500),
                      ImagePlacement(asset: png, x: 7000, y: 200, width: 3000, height: 2000)]   // partly off the page
        let (p, page) = try imagePage(in: dir, assets: [jpg: Bitmap(width: 1600, height: 1200, pixels: photo, isPremultiplied: false),
                                                        png: Bitmap(width: 600, height: 400, pixels: overlay, isPremultiplied: false)],
                                      frames: frames, extra: [PackageBuilder.stroke(index: 0)])
        for size in [OutputSize.width(320), .scale(1)] {
            let cache = AssetCache()
            let rendered = try PageRenderer.render(page, of: p, options: RenderOptions(size: size), assets: cache)
            if case .width = size {
                // At scale 1 the frames are bigger than the stores keep; in the thumbnail the four
                // wholly shown ones were prepared and then composited from their stores.
                let photoStore = try XCTUnwrap(try cache.image(frames[0], in: p, scale: rendered.scale).resamples)
                let overlayStore = try XCTUnwrap(try cache.image(frames[2], in: p, scale: rendered.scale).resamples)
                XCTAssertEqual(photoStore.hits + overlayStore.hits, 4)
            }
            assertSamePixels(rendered.bitmap.pixels, try plainDraw(page, of: p, options: RenderOptions(size: size),
                                                                   assets: AssetCache(keepsResampledFrames: false)), "\(size)")
        }
    }

    func testAPhotoShownLargeAndTinyIsPreparedAsTheDrawWouldDecodeIt() throws {
        // A tiny frame of a photo drawn large earlier on the page is box-averaged from the
        // large decode in a plain draw; prepared on threads it must be too, whatever the
        // scheduling (a DCT-scaled decode of its own would give other texels).
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var photo = [UInt8](repeating: 255, count: 1600 * 1200 * 4)
        for k in 0..<(1600 * 1200) { photo[4 * k] = UInt8((k % 1600) % 2 * 255); photo[4 * k + 1] = UInt8((k / 1600) % 256); photo[4 * k + 2] = UInt8((k * 13) % 255) }
        let large = ImagePlacement(asset: jpg, x: 500, y: 400, width: 6000, height: 4500)
        let tiny = ImagePlacement(asset: jpg, x: 7000, y: 9000, width: 100, height: 75)   // 10 px at scale 1: a 1/2 decode's size
        let (p, page) = try imagePage(in: dir, assets: [jpg: Bitmap(width: 1600, height: 1200, pixels: photo, isPremultiplied: false),
                                                        png: solid(300, 200, 120)],
                                      frames: [large, ImagePlacement(asset: png, x: 3000, y: 6000, width: 3000, height: 2000, rotation: 12500), tiny])
        let options = RenderOptions(size: .scale(1))
        let plain = try plainDraw(page, of: p, options: options, assets: AssetCache())
        for run in 0..<12 {
            let cache = AssetCache()
            let rendered = try PageRenderer.render(page, of: p, options: options, assets: cache)
            assertSamePixels(rendered.bitmap.pixels, plain, "run \(run)")
            XCTAssertEqual(cache.decodeCount, 2, "run \(run): the photo decoded once, whole; its 1/2 texture averaged from it")
        }
    }

    func testExportCountsTheImageCacheInItsBudget() {
        XCTAssertLessThan(PageExporter.assetBudget, PageExporter.inFlightBudget)
    }
}
