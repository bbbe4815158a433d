import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape

/// Decoded images, ready to draw (`ImageTexture`), keyed by package, asset and decode size.
///
/// Each asset is read and decoded once per decode size and shared by every placement and page
/// that shows it, across threads: one cache serves all of an export's or a regeneration's
/// workers. A second worker asking for an image being decoded waits for it instead of decoding
/// it again. JPEGs are decoded at the smallest DCT scale that keeps `jpegHeadroom` samples of their
/// coarsest component per frame pixel (a 4000 px 4:2:0 photo: whole in frames from 32 px
/// wide), and the drawing's area average does the rest.
///
/// Memory: the images held are counted (`bytesHeld`, 4 bytes per texel) and kept within
/// `budgetBytes`, least recently used dropped first; an image larger than the whole budget is
/// drawn but not kept. Callers count `budgetBytes` in their own memory budgets (export does).
public final class AssetCache: @unchecked Sendable {
    /// The decoded-asset size limit of the spec (section 7), checked from the header: the one
    /// asset policy's (`AssetImage`).
    public static let maxAssetPixels = AssetImage.maxPixels

    /// Decoded texels kept per frame pixel when a JPEG is DCT-scaled (`ImageDecoder.decode`).
    public let jpegHeadroom: Int

    /// The most bytes of decoded images kept at once.
    public let budgetBytes: Int

    private let condition = NSCondition()
    /// Decoded images by name key and decode size, within `budgetBytes` (`LRUCache`).
    private var textures: LRUCache<String, ImageTexture>
    private var decoding: Set<String> = []
    private var failures: [String: LNoteError] = [:]
    /// Per asset: its header, and for a JPEG its coarsest component's sample size (`ImageDecoder.jpegChromaScale`).
    private var infos: [String: (info: ImageInfo, chroma: (x: Int, y: Int))] = [:]
    private var decodes = 0

    /// Bytes of the decoded images kept now.
    public var bytesHeld: Int { condition.lock(); defer { condition.unlock() }; return textures.held }
    /// Decodes done so far (one per asset and decode size while it stays cached).
    public var decodeCount: Int { condition.lock(); defer { condition.unlock() }; return decodes }

    /// Whether each decoded image keeps its resampled frames (`ResampleStore`) for the next draw.
    public let keepsResampledFrames: Bool

    /// `jpegHeadroom`: `Int.max` decodes every JPEG whole (what the exactness tests compare with).
    /// `keepsResampledFrames: false` resamples every draw again (the bench's draw-only figure).
    public init(budgetBytes: Int = 512 << 20, jpegHeadroom: Int = ImageDecoder.jpegHeadroom, keepsResampledFrames: Bool = true) {
        self.budgetBytes = budgetBytes
        textures = LRUCache(budget: budgetBytes)
        self.jpegHeadroom = max(1, jpegHeadroom)
        self.keepsResampledFrames = keepsResampledFrames
    }

    /// `image(_:in:transform:)` at `scale` pixels per point (only the frame's size matters).
    func image(_ placement: ImagePlacement, in package: LNotePackage, scale: Double) throws(LNoteError) -> ImageTexture {
        try image(placement, in: package, transform: PageTransform(scale: scale, width: 1, height: 1))
    }

    /// The image to draw for `placement` through `transform`, decoded (or taken from the cache).
    /// `fileBytes`: the asset file's bytes if the caller already read them (`decodeBound`).
    func image(_ placement: ImagePlacement, in package: LNotePackage, transform: PageTransform,
               fileBytes: [UInt8]? = nil) throws(LNoteError) -> ImageTexture {
        // The frame's size in pixels, before rotation: the image is scaled to fill it.
        let target = (width: Self.pixels(transform.length(Double(placement.width))),
                      height: Self.pixels(transform.length(Double(placement.height))))
        let nameKey = Self.nameKey(placement.asset, in: package)
        let file = "assets/\(placement.asset)"
        // The header alone decides the decode size, so a cached image needs no file read.
        let (info, chroma, read) = try header(placement.asset, in: package, nameKey: nameKey)
        let data = read ?? fileBytes
        let denominator = info.format == .jpeg
            ? ImageDecoder.jpegScaleDenominator(width: info.width, height: info.height, target: target,
                                                headroom: jpegHeadroom, chromaScale: chroma) : 1
        let key = nameKey + "@\(denominator)"

        condition.lock()
        while true {
            if let failure = failures[nameKey] { condition.unlock(); throw failure }
            if let hit = textures.value(for: key) {
                condition.unlock()
                return hit
            }
            if !decoding.contains(key) { break }
            condition.wait()
        }
        decoding.insert(key)
        // A finer decode of the same JPEG already held: its blocks averaged instead of a
        // second decode (a page showing one photo large and small decodes it once).
        var finer: (texture: ImageTexture, factor: Int)? = nil
        var d = denominator / 2
        while d >= 1 && finer == nil {
            if let held = textures.peek(nameKey + "@\(d)"), held.isOpaque {
                _ = textures.value(for: nameKey + "@\(d)")   // marked as used
                finer = (held, denominator / d)
            }
            d /= 2
        }
        condition.unlock()

        let texture: ImageTexture
        do throws(LNoteError) {
            if let finer {
                let f = finer.factor, w = finer.texture.width, h = finer.texture.height
                texture = finer.texture.boxReduced(by: f, resampleBudget: resampleBudget(texels: ((w + f - 1) / f) * ((h + f - 1) / f)))
                condition.lock()
                decoding.remove(key)
                remember(texture, key: key)
                condition.broadcast()
                condition.unlock()
                return texture
            }
            let bytes: [UInt8]
            if let data { bytes = data } else { bytes = try package.readAsset(placement.asset) }
            let bitmap = try Self.decode(bytes, jpegScaleDenominator: denominator, file: file)
            // A JPEG decoded at 1/d fills W/d of its ceil(W/d) texels (see ImageTexture.spanX).
            texture = ImageTexture(bitmap, span: (Double(info.width) / Double(denominator), Double(info.height) / Double(denominator)),
                                   resampleBudget: resampleBudget(texels: bitmap.width * bitmap.height),
                                   // libjpeg writes alpha 255, and so does the shim's CMYK conversion.
                                   knownOpaque: info.format == .jpeg)
        } catch {
            condition.lock()
            decoding.remove(key)
            failures[nameKey] = error
            condition.broadcast()
            condition.unlock()
            throw error
        }
        condition.lock()
        decoding.remove(key)
        decodes += 1
        remember(texture, key: key)
        condition.broadcast()
        condition.unlock()
        return texture
    }

    /// The asset's header (and for a JPEG its coarsest component's sample size), kept once
    /// read; with the file's bytes when they had to be read for it (the decode then needs no
    /// second read). A failure is kept too, and thrown again to every later caller.
    private func header(_ asset: String, in package: LNotePackage, nameKey: String)
        throws(LNoteError) -> (info: ImageInfo, chroma: (x: Int, y: Int), data: [UInt8]?) {
        condition.lock()
        if let failure = failures[nameKey] { condition.unlock(); throw failure }
        if let known = infos[nameKey] { condition.unlock(); return (known.info, known.chroma, nil) }
        condition.unlock()
        do throws(LNoteError) {
            let bytes = try package.readAsset(asset)
            let (info, chroma) = try Self.probe(bytes, file: "assets/\(asset)")
            condition.lock(); infos[nameKey] = (info, chroma); condition.unlock()
            return (info, chroma, bytes)
        } catch {
            record(failure: error, for: nameKey)
            throw error
        }
    }

    /// The most bytes `asset` can hold in this cache once decoded for any frame (its texels
    /// decoded whole and its resampled frames' store), from its header, read as `image` reads
    /// it and kept; with the file's bytes when they had to be read for that, to hand to
    /// `image(_:in:transform:fileBytes:)` so that the decode does not read the file again.
    /// Nil when it cannot be read (the draw reports that) or is over the pixel limit.
    func decodeBound(for asset: String, in package: LNotePackage) -> (bytes: Int, fileBytes: [UInt8]?)? {
        guard let (info, _, read) = try? header(asset, in: package, nameKey: Self.nameKey(asset, in: package)) else { return nil }
        let (texels, overflow) = info.width.multipliedReportingOverflow(by: info.height)
        guard !overflow, texels <= Self.maxAssetPixels else { return nil }   // the decode refuses it
        return (texels * 4 + resampleBudget(texels: texels), read)
    }

    /// The key of `asset` in `package`. The package path is part of every key: a copied
    /// document holds assets of the same names.
    private static func nameKey(_ asset: String, in package: LNotePackage) -> String {
        package.path + "\u{0}" + asset.lowercased()
    }

    private func record(failure: LNoteError, for nameKey: String) {
        condition.lock()
        failures[nameKey] = failure
        condition.broadcast()
        condition.unlock()
    }

    /// Keeps `texture` if it fits the budget, dropping the least recently used first. Called
    /// with the lock held.
    private func remember(_ texture: ImageTexture, key: String) {
        textures.insert(texture, cost: texture.byteCount, for: key)
    }

    /// Reads and decodes asset `name` the way a render would, at the smallest size a page can
    /// ask for (a JPEG at 1/8 scale still reads every byte of its entropy-coded data), and
    /// throws what the render would meet: `lnote-render check` reports it before an export
    /// silently lacks the image.
    public static func verifyAsset(_ name: String, in package: LNotePackage) throws(LNoteError) {
        let file = AssetImage.file(name)
        let bytes = try package.readAsset(name)
        _ = try probe(bytes, file: file)
        _ = try decode(bytes, jpegScaleDenominator: 8, file: file)
    }

    private static func probe(_ data: [UInt8], file: String) throws(LNoteError) -> (ImageInfo, (x: Int, y: Int)) {
        let info = try AssetImage.probe(data, file: file)
        guard info.format == .jpeg else { return (info, (1, 1)) }
        do { return (info, try ImageDecoder.jpegChromaScale(data)) } catch { throw LNoteError(error, file: file, code: .image) }
    }

    private static func decode(_ data: [UInt8], jpegScaleDenominator d: Int, file: String) throws(LNoteError) -> Bitmap {
        try AssetImage.decode(data, jpegScaleDenominator: d, file: file)
    }

    /// Bytes of resampled frames kept with a decoded image (`ResampleStore`, counted with it):
    /// half its own size, from 256 KiB to 16 MiB (a 12-MP photo's frames at 1x and in a
    /// thumbnail together take about 8 MiB).
    func resampleBudget(texels: Int) -> Int {
        keepsResampledFrames ? min(16 << 20, max(256 << 10, texels * 2)) : 0
    }

    /// A length in pixels as whole pixels, at least 1, clamped to a sane range.
    private static func pixels(_ length: Double) -> Int {
        Int(min(max(length.rounded(.up), 1), 1_000_000))
    }
}
