// Images against the independent reference (ImageReference.swift), through the real path:
// asset bytes in a package → AssetCache (DCT-scaled JPEG decode with headroom) → Canvas.draw.
//
// Shrinking, for every case: ≥ 99 % of interior pixels within 8/255 of the exact area
// average, none off by more than 24/255, and a mean error of at most 6/255 over the pixels
// on the frame's edges. Cases: shrink ratios 2:1 … 100:1 × rotations 0, 7, 45, 90, 180 and
// −30°, for grey and colour (4:2:0) JPEG, RGB, RGBA and palette PNG, on fine detail (1-px
// checkerboards, dashes and 1-px lines, noise, hard alpha edges); the content cycles with
// ratio and rotation so each format meets each content at several ratios and angles. JPEGs are
// held to these thresholds both decoded whole and decoded as renders decode them, including
// 5.5-MP ones at 210:1 that go through libjpeg's 1/4 and 1/8 scaling.
//
// Enlargement is bilinear (section 6) and checked against the bilinear reference separately.
//
// Near 1:1: the area average of box texels and bilinear legitimately differ between 1:1 and
// about 2:1 (box texels give a sharper picture), and they coincide exactly at 1:1. What is
// tested there: at exactly 1:1 on the pixel grid, the image comes out texel for texel; at 1.5:1
// the area-average thresholds above hold as well (the renderer's filter is the area average
// from just above 1:1, not only from 2:1).

import Foundation
import XCTest
import CZlib
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
@testable import LNoteRaster
@testable import LNoteRender
import LNoteTestSupport

final class ImageAreaAverageTests: XCTestCase {
    enum Format: String, CaseIterable { case greyJPEG, colourJPEG, rgbPNG, rgbaPNG, palettePNG }
    enum Content: String { case checker, dashes, noise, alphaEdges }

    static let ratios: [Double] = [2, 3.3, 5.2, 8, 13, 27, 100]
    static let rotations = [0, 7000, 45000, 90000, 180000, -30000]

    func contents(_ format: Format) -> [Content] {
        switch format {
        case .greyJPEG, .colourJPEG, .rgbPNG: return [.checker, .dashes, .noise]
        case .rgbaPNG, .palettePNG: return [.alphaEdges, .checker, .dashes, .noise]
        }
    }

    func testGreyJPEGShrunk() throws { try checkShrinking(.greyJPEG) }
    func testColourJPEGShrunk() throws { try checkShrinking(.colourJPEG) }
    func testRGBPNGShrunk() throws { try checkShrinking(.rgbPNG) }
    func testRGBAPNGShrunk() throws { try checkShrinking(.rgbaPNG) }
    func testPalettePNGShrunk() throws { try checkShrinking(.palettePNG) }

    /// Every ratio × every rotation for `format`.
    ///
    /// A JPEG is checked twice, against the same thresholds: decoded whole (the filter's
    /// exactness) and decoded the way renders do (`AssetCache` with `ImageDecoder.jpegHeadroom`:
    /// DCT-scaled where the ratio leaves enough samples of the coarsest component per pixel —
    /// here grey at 100:1, at 1/2; the rest whole; `testBigJPEGsDCTScaled` has 1/2, 1/4 and 1/8).
    func checkShrinking(_ format: Format) throws {
        var cases: [Case] = []
        for (r, ratio) in Self.ratios.enumerated() {
            for (k, rotation) in Self.rotations.enumerated() {
                let list = contents(format)
                cases.append(Case(format: format, content: list[(r + k) % list.count], ratio: ratio, rotation: rotation))
            }
        }
        if format == .greyJPEG || format == .colourJPEG {
            try run(cases, assets: AssetCache(jpegHeadroom: .max))
            try run(cases)
        } else {
            try run(cases)
        }
    }

    /// Big JPEGs (5.6 and 6 MP) in small frames, decoded as renders decode them: the DCT-scaled
    /// path (grey at 1/4 and 1/8, colour 4:2:0 at 1/2 and 1/4; the test fails if a decode was
    /// whole), held to the same thresholds as every other case.
    func testBigJPEGsDCTScaled() throws {
        var cases: [Case] = []
        for format in [Format.greyJPEG, .colourJPEG] {
            for (content, rotation) in [(Content.dashes, 0), (.dashes, 7000), (.checker, -30000), (.noise, 90000)] {
                cases.append(Case(format: format, content: content, ratio: 210, rotation: rotation))
            }
            for (content, rotation) in [(Content.dashes, 45000), (.checker, 180000)] {
                cases.append(Case(format: format, content: content, ratio: 280, rotation: rotation))
            }
        }
        try run(cases, expectScaled: true)
    }

    func testNearOneToOne() throws {
        // 1.5:1, rotated and not: the area-average thresholds.
        try run([Case(format: .rgbPNG, content: .dashes, ratio: 1.5, rotation: 0),
                 Case(format: .rgbaPNG, content: .alphaEdges, ratio: 1.5, rotation: 7000),
                 Case(format: .colourJPEG, content: .noise, ratio: 1.5, rotation: -30000)])
        // Exactly 1:1 on the pixel grid: texel for texel.
        var pixels = [UInt8]()
        var rng = SeededRNG(seed: 11)
        for _ in 0..<(9 * 7) { pixels += [UInt8(rng.next() & 255), UInt8(rng.next() & 255), UInt8(rng.next() & 255), 255] }
        let image = Bitmap(width: 9, height: 7, pixels: pixels, isPremultiplied: false)
        var canvas = Canvas(width: 12, height: 10)
        canvas.fill(.white)
        canvas.draw(image: image, placement: ImagePlacement(asset: "a", x: 20, y: 10, width: 90, height: 70), scale: 1)
        for y in 0..<7 {
            for x in 0..<9 {
                let o = ((y + 1) * 12 + x + 2) * 4, t = (y * 9 + x) * 4
                XCTAssertEqual(Array(canvas.bitmap.pixels[o..<(o + 3)]), Array(pixels[t..<(t + 3)]), "texel \(x), \(y)")
            }
        }
    }

    func testEnlargedIsBilinear() throws {
        // Bilinear at the pixel centre, interior pixels within one level (rounding), rotated or not.
        var cases: [Case] = []
        for (n, ratio) in [0.5, 0.23].enumerated() {
            for rotation in [0, 90000, 7000, -30000] {
                cases.append(Case(format: n == 0 ? .rgbaPNG : .colourJPEG, content: n == 0 ? .alphaEdges : .noise,
                                  ratio: ratio, rotation: rotation))
            }
        }
        try run(cases, enlarged: true)
    }

    // MARK: running cases

    struct Case: CustomStringConvertible {
        var format: Format, content: Content, ratio: Double, rotation: Int
        var description: String { "\(format.rawValue) \(content.rawValue) \(ratio):1 rotated \(Double(rotation) / 1000)°" }
    }

    /// Frame size in pixels for a case: small enough for the slow reference, large enough for
    /// a few hundred interior pixels; not square, and the image's two axes shrunk by slightly
    /// different ratios.
    func frameSize(_ c: Case) -> (Double, Double) {
        c.ratio >= 250 ? (9.3, 7.7) : c.ratio >= 27 ? (12.3, 9.7) : c.ratio <= 1 ? (23.3, 17.7) : (17.3, 13.7)
    }

    /// `expectScaled`: each JPEG must have been DCT-scaled (the case is about that path).
    func run(_ cases: [Case], enlarged: Bool = false, expectScaled: Bool = false, assets: AssetCache = AssetCache(),
             file: StaticString = #filePath, line: UInt = #line) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let made = try PackageBuilder.make(in: dir, pages: 1)
        // Assets first (the package is opened after they exist), one per format, content and ratio.
        var names: [String: String] = [:]
        for c in cases {
            let key = "\(c.format)-\(c.content)-\(c.ratio)"
            guard names[key] == nil else { continue }
            let (fw, fh) = frameSize(c)
            let width = max(1, Int((fw * c.ratio).rounded())), height = max(1, Int((fh * c.ratio * 1.07).rounded()))
            let bytes = try TestAssets.encode(TestAssets.image(c.content, format: c.format, width: width, height: height, seed: UInt64(names.count + 1)),
                                              as: c.format)
            let name = String(format: "C0FFEE00-0000-4000-8000-%012X", names.count + 1) + (c.format.rawValue.hasSuffix("JPEG") ? ".jpg" : ".png")
            try made.write("assets/" + name, bytes)
            names[key] = name
        }
        let package = try LNotePackage.open(at: URL(fileURLWithPath: made.path))
        var failures: [String] = []
        for c in cases {
            let name = names["\(c.format)-\(c.content)-\(c.ratio)"]!
            let (fw, fh) = frameSize(c)
            let placement = ImagePlacement(asset: name, x: 37, y: 52, width: Int32((fw * 10).rounded()),
                                           height: Int32((fh * 10).rounded()), rotation: c.rotation)
            let side = Int((fw * fw + fh * fh).squareRoot().rounded(.up)) + 10
            var canvas = Canvas(width: side, height: side)
            canvas.fill(.white)
            let texture = try assets.image(placement, in: package, scale: 1)
            canvas.draw(image: texture, placement: placement, scale: 1)
            // The reference reads the fully decoded image.
            let full = try ImageDecoder.decode(try package.readAsset(name))
            let decodedWhole = texture.width == full.width && texture.height == full.height
            let frame = ImageReference.Frame(placement, scale: 1)
            // 48 × 48 jittered sub-samples, 128 × 128 beyond 40:1 and 256 × 256 beyond 100:1
            // (where a cell of 48 would hold several texels and the jitter becomes plain random
            // sampling, σ ≈ 2.6 levels on a checkerboard): the reference's own error, measured
            // against the next finer grid on the PNG and whole-decoded cases, stays under about
            // 2 levels.
            let samples = c.ratio > 100 ? 256 : c.ratio > 40 ? 128 : 48
            let texels = ImageReference.Texels(full)
            var stats = ImageErrorStats()
            for j in 0..<side {
                for i in 0..<side {
                    let kind = frame.kind(i, j)
                    if kind == .outside || (enlarged && kind != .interior) { continue }
                    let reference = enlarged
                        ? ImageReference.bilinear(full, frame: frame, opacity: 1, background: (255, 255, 255), pixel: i, j)
                        : ImageReference.areaAverage(texels, frame: frame, opacity: 1, background: (255, 255, 255), pixel: i, j,
                                                     samples: samples)
                    let o = (j * side + i) * 4
                    stats.add(kind, actual: Array(canvas.bitmap.pixels[o..<(o + 3)]), reference: reference, at: (i, j))
                }
            }
            let how = decodedWhole ? "" : " (decoded at \(texture.width)×\(texture.height) of \(full.width)×\(full.height))"
            print("image-reference: \(c)\(how): \(stats)")
            let ok = enlarged
                ? stats.interiorMax <= 1.01 && stats.interior > 100
                : stats.interiorWithin8 >= 0.99 && stats.interiorMax <= 24 && stats.edgeMean <= 6 && stats.interior > 40
            if !ok { failures.append("\(c)\(how): \(stats)") }
            if expectScaled && decodedWhole { failures.append("\(c): decoded whole, not DCT-scaled") }
        }
        XCTAssert(failures.isEmpty, "\(failures.count) of \(cases.count) cases beyond the tolerance:\n" + failures.joined(separator: "\n"),
                  file: file, line: line)
    }
}

/// Test images with fine detail, and their encodings in the five formats.
enum TestAssets {
    /// The palette of palette PNGs: index 0 is fully transparent.
    static let palette: [(UInt8, UInt8, UInt8, UInt8)] = [(0, 0, 0, 0), (20, 20, 20, 255), (250, 250, 250, 255),
                                                          (220, 30, 40, 255), (30, 70, 210, 255), (240, 200, 20, 255)]

    /// Straight RGBA8 content. Grey formats get grey content; palette PNGs only palette colours.
    static func image(_ content: ImageAreaAverageTests.Content, format: ImageAreaAverageTests.Format,
                      width: Int, height: Int, seed: UInt64) -> Bitmap {
        let grey = format == .greyJPEG
        let paletted = format == .palettePNG
        let alpha = format == .rgbaPNG || format == .palettePNG
        var rng = SeededRNG(seed: seed)
        var px = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                var c: (UInt8, UInt8, UInt8, UInt8)
                switch content {
                case .checker:
                    // 1-px checkerboard; colour formats alternate two colours.
                    let on = (x + y) % 2 == 0
                    c = grey ? (on ? (0, 0, 0, 255) : (255, 255, 255, 255))
                        : paletted ? palette[on ? 3 : 4] : (on ? (220, 30, 40, 255) : (30, 70, 210, 255))
                case .dashes:
                    // Dashes 5 on / 3 off in every fourth row, and 1-px lines every seventh column.
                    let ink = (y % 4 == 1 && x % 8 < 5) || x % 7 == 3
                    c = ink ? (paletted ? palette[1] : grey ? (0, 0, 0, 255) : (20, 20, 90, 255))
                        : (paletted ? palette[2] : (250, 250, 250, 255))
                case .noise:
                    let r = rng.next()
                    if paletted { c = palette[Int(r % UInt64(palette.count))] }
                    else {
                        let v = UInt8(r & 255)
                        c = grey ? (v, v, v, 255) : (v, UInt8((r >> 8) & 255), UInt8((r >> 16) & 255), alpha ? UInt8((r >> 24) & 255) : 255)
                    }
                case .alphaEdges:
                    // Opaque 5×5 squares on an 8-texel grid and 1-px opaque columns every sixth
                    // texel, on full transparency: hard alpha edges everywhere.
                    let square = x % 8 < 5 && y % 8 < 5, line = x % 6 == 0
                    c = paletted ? palette[square ? 3 + (x / 8 + y / 8) % 3 : line ? 1 : 0]
                        : square ? (UInt8(40 + (x / 8 * 37) % 200), 120, UInt8(200 - (y / 8 * 23) % 150), 255)
                        : line ? (10, 10, 10, 255) : (200, 100, 50, 0)
                }
                if !alpha { c.3 = 255 }
                let o = (y * width + x) * 4
                px[o] = c.0; px[o + 1] = c.1; px[o + 2] = c.2; px[o + 3] = c.3
            }
        }
        return Bitmap(width: width, height: height, pixels: px, isPremultiplied: false)
    }

    static func encode(_ image: Bitmap, as format: ImageAreaAverageTests.Format) throws -> [UInt8] {
        switch format {
        case .greyJPEG: return try JPEGEncoder.encodeGreyscale(image, quality: 95)   // grey content: luma = value
        case .colourJPEG: return try JPEGEncoder.encode(image, quality: 95)   // YCbCr 4:2:0
        case .rgbPNG: return try PNGEncoder.encode(image, options: PNGEncodeOptions(includeAlpha: false))
        case .rgbaPNG: return try PNGEncoder.encode(image, options: PNGEncodeOptions(includeAlpha: true))
        case .palettePNG: return palettePNG(image)
        }
    }

    /// An 8-bit palette PNG (colour type 3) with a tRNS chunk, of an image whose colours are
    /// all in `palette`.
    static func palettePNG(_ image: Bitmap) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 255), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + data
            let crc = typed.withUnsafeBufferPointer { CZlib.crc32(0, $0.baseAddress, uInt($0.count)) }
            return be32(data.count) + typed + be32(Int(crc))
        }
        // RGBA as one UInt32 → palette index; every transparent pixel is index 0.
        var indexOf: [UInt32: UInt8] = [:]
        for (k, c) in palette.enumerated() where c.3 != 0 {
            indexOf[UInt32(c.0) | UInt32(c.1) << 8 | UInt32(c.2) << 16 | UInt32(c.3) << 24] = UInt8(k)
        }
        var raw = [UInt8](repeating: 0, count: (image.width + 1) * image.height)
        image.pixels.withUnsafeBytes { p in
            let words = p.bindMemory(to: UInt32.self)
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let word = UInt32(littleEndian: words[y * image.width + x])
                    raw[y * (image.width + 1) + 1 + x] = word >> 24 == 0 ? 0 : indexOf[word]!
                }
            }
        }
        var compressedSize = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(compressedSize))
        let status = compressed.withUnsafeMutableBufferPointer { out in
            raw.withUnsafeBufferPointer { compress2(out.baseAddress, &compressedSize, $0.baseAddress, uLong(raw.count), 6) }
        }
        precondition(status == Z_OK)
        let header: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        return header + chunk("IHDR", be32(image.width) + be32(image.height) + [8, 3, 0, 0, 0])
            + chunk("PLTE", palette.flatMap { [$0.0, $0.1, $0.2] }) + chunk("tRNS", palette.map { $0.3 })
            + chunk("IDAT", Array(compressed[0..<Int(compressedSize)])) + chunk("IEND", [])
    }
}
