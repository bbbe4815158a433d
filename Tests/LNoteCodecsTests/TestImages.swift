import LNoteBitmap

/// Writes small PNGs byte by byte (stored deflate blocks, CRC-32, Adler-32) so the decoder is
/// tested on colour types and layouts our encoder never produces, without fixture files.
enum TinyPNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xEDB8_8320 : 0) }
        }
        return ~crc
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(crc32(typeBytes + data))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks.
    static func zlibStored(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65535, raw.count - i)
            let last: UInt8 = i + n == raw.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += raw[i..<(i + n)]
            i += n
        } while i < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return out + be32(b << 16 | a)
    }

    static func ihdr(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, interlace: Bool = false) -> [UInt8] {
        chunk("IHDR", be32(UInt32(width)) + be32(UInt32(height)) + [bitDepth, colorType, 0, 0, interlace ? 1 : 0])
    }

    /// A PNG of unfiltered `rows` (packed sample bytes per row, no filter byte).
    static func make(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8,
                     before: [[UInt8]] = [], rows: [[UInt8]]) -> [UInt8] {
        var raw: [UInt8] = []
        for row in rows { raw += [0] + row }  // filter type 0 (none) on every row
        let header = signature + ihdr(width: width, height: height, bitDepth: bitDepth, colorType: colorType)
        return header + before.reduce([], +) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// An Adam7-interlaced PNG of byte-aligned pixels (`bytesPerPixel` per pixel).
    static func makeInterlaced(width: Int, height: Int, bitDepth: UInt8, colorType: UInt8, bytesPerPixel: Int,
                               pixels: [UInt8]) -> [UInt8] {
        let passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        var raw: [UInt8] = []
        for (x0, y0, dx, dy) in passes where x0 < width && y0 < height {
            for y in stride(from: y0, to: height, by: dy) {
                raw.append(0)
                for x in stride(from: x0, to: width, by: dx) {
                    let i = (y * width + x) * bytesPerPixel
                    raw += pixels[i..<(i + bytesPerPixel)]
                }
            }
        }
        return signature + ihdr(width: width, height: height, bitDepth: bitDepth, colorType: colorType, interlace: true)
            + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    /// (type, data) of every chunk, in order.
    static func chunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= png.count {
            let n = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append((type, Array(png[(i + 8)..<(i + 8 + n)])))
            i += 12 + n
        }
        return out
    }
}

enum TestImages {
    /// A smooth colour field with an alpha ramp: every pixel different, nothing repeats.
    static func gradient(width: Int, height: Int, alpha: Bool = false, premultiplied: Bool = false) -> Bitmap {
        var b = Bitmap(width: width, height: height, fill: 255, isPremultiplied: premultiplied)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let a = alpha ? UInt8((x * 255) / max(1, width - 1)) : 255
                var rgb = [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                           UInt8((x + y) * 127 / max(1, width + height - 2) + 64)]
                if premultiplied { rgb = rgb.map { UInt8((Int($0) * Int(a) + 127) / 255) } }
                b.pixels[i] = rgb[0]; b.pixels[i + 1] = rgb[1]; b.pixels[i + 2] = rgb[2]; b.pixels[i + 3] = a
            }
        }
        return b
    }

    /// A small page: cream paper, a ruled line, dark anti-aliased strokes (by distance to segment).
    static func page(width: Int, height: Int) -> Bitmap {
        var b = Bitmap(width: width, height: height, fill: 255, isPremultiplied: true)
        for i in stride(from: 0, to: b.pixels.count, by: 4) {
            b.pixels[i] = 252; b.pixels[i + 1] = 250; b.pixels[i + 2] = 242
        }
        let segments: [(Double, Double, Double, Double)] = [(3, 5, Double(width) - 4, Double(height) - 6),
                                                            (5, Double(height) - 3, Double(width) / 2, 4)]
        for y in 0..<height {
            for x in 0..<width {
                var cover = 0.0
                for (ax, ay, bx, by) in segments {
                    let px = Double(x) + 0.5 - ax, py = Double(y) + 0.5 - ay, dx = bx - ax, dy = by - ay
                    let t = max(0, min(1, (px * dx + py * dy) / (dx * dx + dy * dy)))
                    let d = ((px - t * dx) * (px - t * dx) + (py - t * dy) * (py - t * dy)).squareRoot()
                    cover = max(cover, min(1, max(0, 2.0 + 0.5 - d)))
                }
                let i = (y * width + x) * 4
                for (c, ink) in [25.0, 30, 60].enumerated() {
                    let v = Double(b.pixels[i + c])
                    b.pixels[i + c] = UInt8((v + (ink - v) * cover).rounded())
                }
            }
        }
        return b
    }

    /// PSNR over RGB, in dB.
    static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        var sum = 0.0, n = 0.0
        for i in 0..<a.pixels.count where i % 4 != 3 {
            let d = Double(a.pixels[i]) - Double(b.pixels[i])
            sum += d * d
            n += 1
        }
        return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / n))
    }
}

import Glibc
