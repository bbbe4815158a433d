// Image assets, made from formulas (no files are read): PNG written with zlib, JPEG with the
// project's encoder (LNoteCodecs). Both are deterministic, so assets are byte-identical run to run.

import CZlib
import Foundation
import LNoteBitmap
import LNoteCodecs

/// 8-bit pixels, interleaved, `channels` 3 (RGB) or 4 (RGBA, not premultiplied).
struct Pixels {
    let width: Int
    let height: Int
    let channels: Int
    var data: [UInt8]

    init(width: Int, height: Int, channels: Int, fill: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) {
        self.width = width; self.height = height; self.channels = channels
        data = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = fill(x, y)
                let o = (y * width + x) * channels
                data[o] = r; data[o + 1] = g; data[o + 2] = b
                if channels == 4 { data[o + 3] = a }
            }
        }
    }
}

@inline(__always) func byte(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }

enum PNGWriter {
    static func encode(_ px: Pixels) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        be32(&ihdr, UInt32(px.width)); be32(&ihdr, UInt32(px.height))
        ihdr += [8, px.channels == 4 ? 6 : 2, 0, 0, 0]  // 8-bit, RGBA or RGB, deflate, no filter, no interlace
        chunk(&out, "IHDR", ihdr)
        // Filter type 0 (None) for every row: simple and deterministic.
        let row = px.width * px.channels
        var raw = [UInt8]()
        raw.reserveCapacity((row + 1) * px.height)
        for y in 0..<px.height {
            raw.append(0)
            raw.append(contentsOf: px.data[(y * row)..<((y + 1) * row)])
        }
        var destLen = compressBound(uLong(raw.count))
        var dest = [UInt8](repeating: 0, count: Int(destLen))
        let rc = compress2(&dest, &destLen, raw, uLong(raw.count), 9)
        precondition(rc == Z_OK, "zlib compress2 failed: \(rc)")
        chunk(&out, "IDAT", Array(dest.prefix(Int(destLen))))
        chunk(&out, "IEND", [])
        return out
    }

    private static func be32(_ a: inout [UInt8], _ v: UInt32) {
        a += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    private static func chunk(_ out: inout [UInt8], _ type: String, _ body: [UInt8]) {
        be32(&out, UInt32(body.count))
        let typed = Array(type.utf8) + body
        out += typed
        let crc = typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
        be32(&out, UInt32(truncatingIfNeeded: crc))
    }
}

enum JPEGWriter {
    /// Baseline JPEG of an RGB image, by the project's encoder (`JPEGEncoder`: YCbCr 4:2:0) with
    /// no resolution in its JFIF header, as libjpeg's defaults write it.
    static func encode(_ px: Pixels, quality: Int = 85) -> [UInt8] {
        precondition(px.channels == 3)
        var rgba = [UInt8](repeating: 255, count: px.width * px.height * 4)
        for i in 0..<(px.width * px.height) {
            rgba[4 * i] = px.data[3 * i]; rgba[4 * i + 1] = px.data[3 * i + 1]; rgba[4 * i + 2] = px.data[3 * i + 2]
        }
        do {
            return try JPEGEncoder.encode(Bitmap(width: px.width, height: px.height, pixels: rgba, isPremultiplied: false),
                                          quality: quality, pixelsPerInch: nil)
        } catch {
            fatalError("lnote-gen: \(error)")  // fixed sizes and qualities: a failure is a bug here
        }
    }
}

/// The images the presets place.
enum Artwork {
    /// A photo-like landscape: smooth sky and hill gradients, soft sun, and (optionally) a
    /// region of 1-px checkerboard and fine stripes that alias unless minified by area.
    static func photo(width: Int, height: Int, seed: UInt64, fineDetail: Bool) -> Pixels {
        var rng = Random(seed: seed)
        let sunX = rng.uniform(0.55, 0.8), sunY = rng.uniform(0.18, 0.3)
        let h1 = rng.uniform(0, 6.28), h2 = rng.uniform(0, 6.28)
        let w = Double(width), h = Double(height)
        return Pixels(width: width, height: height, channels: 3) { x, y in
            let u = Double(x) / w, v = Double(y) / h
            // Sky: deep blue to warm haze.
            var r = 70 + 150 * v, g = 120 + 100 * v, b = 210 - 30 * v
            let sd = hypot(u - sunX, (v - sunY) * h / w)
            let glow = exp(-sd * sd * 60)
            r += 120 * glow; g += 100 * glow; b += 40 * glow
            // Two hill layers.
            let hill1 = 0.62 + 0.06 * sin(u * 7 + h1) + 0.03 * sin(u * 19 + h2)
            let hill2 = 0.75 + 0.05 * sin(u * 5 + h2 + 1) + 0.02 * sin(u * 23 + h1)
            if v > hill1 { let d = v - hill1; r = 60 + 40 * d; g = 110 - 60 * d; b = 90 - 20 * d }
            if v > hill2 { let d = v - hill2; r = 40 + 120 * d; g = 95 + 60 * d; b = 45 + 10 * d }
            if fineDetail {
                // A "fence" of 1-px checkerboard in the lower left and fine stripes on the right.
                if u > 0.06 && u < 0.34 && v > 0.8 && v < 0.95 {
                    let on = (x + y) & 1 == 0
                    r = on ? 235 : 25; g = on ? 235 : 25; b = on ? 235 : 25
                } else if u > 0.66 && u < 0.94 && v > 0.82 && v < 0.93 {
                    let on = (x / 2) & 1 == 0
                    r = on ? 230 : 60; g = on ? 210 : 40; b = on ? 160 : 30
                }
            }
            return (byte(r), byte(g), byte(b), 255)
        }
    }

    /// An RGBA badge: a soft-edged coloured disc with a ring and a transparent surround.
    static func badge(size: Int) -> Pixels {
        let c = Double(size) / 2
        return Pixels(width: size, height: size, channels: 4) { x, y in
            let dx = Double(x) + 0.5 - c, dy = Double(y) + 0.5 - c
            let d = hypot(dx, dy) / c
            let alpha = max(0, min(1, (0.95 - d) * 30))
            let ring = d > 0.72 && d < 0.82
            let ang = atan2(dy, dx)
            let r = ring ? 255 : 120 + 100 * cos(ang), g = ring ? 255 : 90 + 80 * sin(ang), b = ring ? 255 : 200 - 60 * d
            // A translucent band across the middle (alpha 50 %).
            let a = abs(dy) < c * 0.12 ? alpha * 0.5 : alpha
            return (byte(r), byte(g), byte(b), byte(a * 255))
        }
    }

    /// A tiny pixel-art asset (nearest texels stay visible when enlarged with bilinear filtering).
    static func pixelArt(width: Int = 40, height: Int = 30) -> Pixels {
        Pixels(width: width, height: height, channels: 4) { x, y in
            let cx = x / 5, cy = y / 5
            let palette: [(UInt8, UInt8, UInt8)] = [(230, 57, 70), (241, 250, 238), (168, 218, 220), (69, 123, 157), (29, 53, 87), (255, 183, 3)]
            let p = palette[(cx * 7 + cy * 3 + (cx * cy) % 4) % palette.count]
            let border = x == 0 || y == 0 || x == width - 1 || y == height - 1
            return border ? (0, 0, 0, 255) : (p.0, p.1, p.2, (x + y) % 9 == 0 ? 128 : 255)
        }
    }
}
