// The photo-heavy page: a 12-megapixel JPEG photo twice (once upright across the page, once
// smaller and rotated -7 degrees), and a 1600×1200 RGBA PNG rotated 12.5 degrees, on one page.
// A second page holds the same three frames turned 90, 270 and -90 degrees (the quarter turns'
// own filter path; phone photos are often placed turned), timed for its resampling alone.
// Timed at the thumbnail width (320 px) and at scale 1: with a fresh AssetCache per run (decode
// and draw, what a thumbnail or a one-page export pays), with a warm one (decoded images and
// their resampled frames kept: compositing alone), and warm but resampling every frame again
// (`warm_resampling`: the filter's cost without the decode);
// and the 12-MP photo's decode alone at DCT scales 1/1, 1/2, 1/4 and 1/8.

import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRender

/// A deterministic photo-like image: smooth light, a hard horizon, fine texture and a few
/// 1-px details (JPEG-friendly, like a real photo, with detail for the filter to average).
func benchPhoto(width: Int, height: Int, alpha: Bool) -> Bitmap {
    var px = [UInt8](repeating: 255, count: width * height * 4)
    var seed: UInt32 = 0x1234_5678
    for y in 0..<height {
        let fy = Double(y) / Double(height)
        for x in 0..<width {
            let fx = Double(x) / Double(width)
            seed = seed &* 1_664_525 &+ 1_013_904_223
            let noise = Double(seed >> 24) / 255 - 0.5
            let sky = fy < 0.45 + 0.05 * sin(fx * 9)
            var r = sky ? 120 + 100 * fy : 60 + 80 * fx
            var g = sky ? 160 + 60 * fy : 110 + 40 * sin(fx * 40) * sin(fy * 30)
            var b = sky ? 230 - 40 * fx : 50 + 30 * fy
            if (x / 3 + y / 7) % 97 == 0 { r = 250; g = 250; b = 250 }
            r += 18 * noise; g += 18 * noise; b += 18 * noise
            let o = (y * width + x) * 4
            px[o] = UInt8(max(0, min(255, r))); px[o + 1] = UInt8(max(0, min(255, g))); px[o + 2] = UInt8(max(0, min(255, b)))
            if alpha { px[o + 3] = UInt8(max(0, min(255, 255 * (1.4 - 1.6 * abs(fx - 0.5) - 1.2 * abs(fy - 0.5))))) }
        }
    }
    return Bitmap(width: width, height: height, pixels: px, isPremultiplied: false)
}

/// Writes the photo page's package under `work` (once) and returns it opened.
func photoPackage(work: String) throws -> LNotePackage {
    let path = work + "/photos/5F1C2A90-7B3E-4C55-9E21-0D6A4B8C3F70.lnote"
    let pageID = "5F1C2A90-0000-4000-8000-000000000001", turnedID = "5F1C2A90-0000-4000-8000-000000000002"
    let photo = "A1B2C3D4-0000-4000-8000-0000000000A1.jpg", overlay = "A1B2C3D4-0000-4000-8000-0000000000B2.png"
    // Written again when missing or from before the quarter-turn page.
    if (try? LNotePackage.open(at: URL(fileURLWithPath: path)).pages.count) != 2 {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path + "/pages", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/assets", withIntermediateDirectories: true)
        try Data(try JPEGEncoder.encode(benchPhoto(width: 4000, height: 3000, alpha: false), quality: 85))
            .write(to: URL(fileURLWithPath: path + "/assets/" + photo))
        try Data(try PNGEncoder.encode(benchPhoto(width: 1600, height: 1200, alpha: true), options: PNGEncodeOptions(includeAlpha: true)))
            .write(to: URL(fileURLWithPath: path + "/assets/" + overlay))
        let elements = [
            Element.image(id: "E0000000-0000-4000-8000-000000000001",
                                placement: ImagePlacement(asset: photo, x: 670, y: 600, width: 7000, height: 5250)),
            Element.image(id: "E0000000-0000-4000-8000-000000000002",
                                placement: ImagePlacement(asset: photo, x: 900, y: 6300, width: 3600, height: 2700, rotation: -7000)),
            Element.image(id: "E0000000-0000-4000-8000-000000000003",
                                placement: ImagePlacement(asset: overlay, x: 4300, y: 7000, width: 3200, height: 2400, rotation: 12500)),
        ]
        try Data(ContentWriter.snapshot(elements)).write(to: URL(fileURLWithPath: path + "/pages/\(pageID).content"))
        let turned = [
            Element.image(id: "E0000000-0000-4000-8000-000000000011",
                          placement: ImagePlacement(asset: photo, x: 670, y: 600, width: 7000, height: 5250, rotation: 90000)),
            Element.image(id: "E0000000-0000-4000-8000-000000000012",
                          placement: ImagePlacement(asset: photo, x: 900, y: 6300, width: 3600, height: 2700, rotation: 270000)),
            Element.image(id: "E0000000-0000-4000-8000-000000000013",
                          placement: ImagePlacement(asset: overlay, x: 4300, y: 7000, width: 3200, height: 2400, rotation: -90000)),
        ]
        try Data(ContentWriter.snapshot(turned)).write(to: URL(fileURLWithPath: path + "/pages/\(turnedID).content"))
        let page = { (id: String) in ##"{"id":"\##(id)","width":8340,"height":11940,"elementCount":3,"background":{"color":"#FFFFFF","template":"blank"}}"## }
        let json = ##"{"format":1,"id":"5F1C2A90-7B3E-4C55-9E21-0D6A4B8C3F70","title":"Photos","modifiedAt":"2026-12-01T10:00:00Z","pages":["## + page(pageID) + "," + page(turnedID) + "]}"
        try Data(json.utf8).write(to: URL(fileURLWithPath: path + "/document.json"))
    }
    return try LNotePackage.open(at: URL(fileURLWithPath: path))
}

/// Render times of the photo page (raster only, no encode), cold and warm cache.
func photoPage(work: String, runs: Int) throws -> [String: Any] {
    progress("photo page")
    let package = try photoPackage(work: work)
    let page = try package.loadPage(at: 0)
    var out: [String: Any] = [:]
    for (tag, size) in [("thumb", OutputSize.width(320)), ("1x", OutputSize.scale(1))] {
        let options = RenderOptions(size: size)
        let cold = try measure(runs: runs) {
            keep(try PageRenderer.render(page, of: package, options: options, assets: AssetCache()).bitmap)
        }
        let warmCache = AssetCache()
        let warm = try measure(runs: runs) {
            keep(try PageRenderer.render(page, of: package, options: options, assets: warmCache).bitmap)
        }
        // Warm, but each frame resampled again (no ResampleStore): the draw alone.
        let drawCache = AssetCache(keepsResampledFrames: false)
        let draw = try measure(runs: runs) {
            keep(try PageRenderer.render(page, of: package, options: options, assets: drawCache).bitmap)
        }
        out[tag] = ["cold_ms": rounded(cold.median), "warm_ms": rounded(warm.median), "warm_resampling_ms": rounded(draw.median),
                    "cold": cold.json, "warm": warm.json, "warm_resampling": draw.json]
    }
    // The quarter-turn page: its frames resampled on every draw, decodes warm.
    let turned = try package.loadPage(at: 1)
    var quarter: [String: Any] = [:]
    for (tag, size) in [("thumb", OutputSize.width(320)), ("1x", OutputSize.scale(1))] {
        let drawCache = AssetCache(keepsResampledFrames: false)
        let draw = try measure(runs: runs) {
            keep(try PageRenderer.render(turned, of: package, options: RenderOptions(size: size), assets: drawCache).bitmap)
        }
        quarter[tag] = ["warm_resampling_ms": rounded(draw.median), "warm_resampling": draw.json]
    }
    out["quarter_turns"] = quarter
    // The 12-MP photo's decode alone at each DCT scale: what the JPEG headroom costs.
    let jpeg = try package.readAsset("A1B2C3D4-0000-4000-8000-0000000000A1.jpg")
    var decode: [String: Any] = [:]
    for d in [1, 2, 4, 8] {
        let target = (width: 4000 / d, height: 3000 / d)
        decode["1/\(d)"] = try measure(runs: runs) { keep(try ImageDecoder.decode(jpeg, targetSize: target)) }.json
    }
    out["decode_12mp"] = decode
    return ["photo_page": out]
}
