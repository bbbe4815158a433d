import XCTest
import LNoteBitmap
@testable import LNoteCodecs

final class PNGTests: XCTestCase {
    // MARK: Round trips

    func testRGBRoundTripInEveryCompressionMode() throws {
        let image = TestImages.page(width: 61, height: 37)
        let modes: [PNGEncodeOptions.Compression] = [
            .fast, .zlibDefault(level: 6), .zlibDefault(level: 1),
            .custom(PNGTuning(level: 2, filters: .only(.paeth), strategy: .rle, memLevel: 9, windowBits: 12, bufferSize: 1000)),
        ]
        for mode in modes {
            let png = try PNGEncoder.encode(image, options: PNGEncodeOptions(compression: mode))
            let ihdr = try XCTUnwrap(TinyPNG.chunks(png).first)
            XCTAssertEqual(ihdr.type, "IHDR")
            XCTAssertEqual(ihdr.data[8], 8, "bit depth")
            XCTAssertEqual(ihdr.data[9], 2, "colour type RGB")
            let decoded = try ImageDecoder.decode(png)
            XCTAssertEqual(decoded.width, 61)
            XCTAssertEqual(decoded.height, 37)
            XCTAssertFalse(decoded.isPremultiplied)
            XCTAssertEqual(decoded.pixels, image.pixels, "\(mode)")
        }
    }

    func testFastModeRoundTripsPhotoAndPaperRows() throws {
        // Top half paper (NONE rows), bottom half gradient (UP rows): both filters in one file.
        var image = TestImages.page(width: 80, height: 40)
        let gradient = TestImages.gradient(width: 80, height: 40)
        image.pixels.replaceSubrange(80 * 4 * 20..<80 * 4 * 40, with: gradient.pixels[80 * 4 * 20..<80 * 4 * 40])
        let png = try PNGEncoder.encode(image)
        XCTAssertEqual(try ImageDecoder.decode(png).pixels, image.pixels)
    }

    func testRGBAFromPremultipliedIsUnpremultiplied() throws {
        let image = TestImages.gradient(width: 50, height: 20, alpha: true, premultiplied: true)
        XCTAssertFalse(image.isOpaque)
        let png = try PNGEncoder.encode(image, options: PNGEncodeOptions(includeAlpha: true))
        XCTAssertEqual(TinyPNG.chunks(png).first?.data[9], 6, "colour type RGBA")
        let decoded = try ImageDecoder.decode(png)
        XCTAssertFalse(decoded.isPremultiplied)
        XCTAssertEqual(decoded.pixels, image.unpremultiplied().pixels)
    }

    func testRGBAFromStraightAlphaIsKeptExactly() throws {
        let image = TestImages.gradient(width: 33, height: 9, alpha: true, premultiplied: false)
        let png = try PNGEncoder.encode(image, options: PNGEncodeOptions(includeAlpha: true, compression: .zlibDefault(level: 6)))
        XCTAssertEqual(try ImageDecoder.decode(png).pixels, image.pixels)
    }

    // MARK: Chunks

    /// pHYs is at least 1 pixel per metre (a tiny resolution does not round to 0) and at most
    /// the 31 bits PNG allows.
    func testPHYsIsClamped() throws {
        func physValue(_ ppi: Double) throws -> [UInt8]? {
            let png = try PNGEncoder.encode(TestImages.page(width: 4, height: 4), options: PNGEncodeOptions(pixelsPerInch: ppi))
            return TinyPNG.chunks(png).first { $0.type == "pHYs" }.map { Array($0.data[0..<4]) }
        }
        XCTAssertEqual(try physValue(0.0036), TinyPNG.be32(1))
        XCTAssertEqual(try physValue(1e300), TinyPNG.be32(UInt32(Int32.max)))
        XCTAssertEqual(try physValue(0), nil, "no resolution, no pHYs")
    }

    func testSRGBPHYsAndTextChunks() throws {
        let image = TestImages.page(width: 20, height: 10)
        let options = PNGEncodeOptions(pixelsPerInch: 144,
                                       text: [(keyword: "Software", value: "lnote-render"),
                                              (keyword: "Title", value: "Café € note\u{1}"),
                                              (keyword: " Bad\u{7}  key ", value: "x")])
        let png = try PNGEncoder.encode(image, options: options)
        let chunks = TinyPNG.chunks(png)
        XCTAssertEqual(chunks.first?.type, "IHDR")
        XCTAssertEqual(chunks.last?.type, "IEND")
        let srgb = try XCTUnwrap(chunks.first { $0.type == "sRGB" })
        XCTAssertEqual(srgb.data, [0], "perceptual intent")
        let phys = try XCTUnwrap(chunks.first { $0.type == "pHYs" })
        // 144 / 0.0254 = 5669.29 -> 5669 pixels per metre on both axes, unit 1 (metre).
        XCTAssertEqual(phys.data, TinyPNG.be32(5669) + TinyPNG.be32(5669) + [1])
        let texts = chunks.filter { $0.type == "tEXt" }.map { chunk -> (String, [UInt8]) in
            let nul = chunk.data.firstIndex(of: 0)!
            return (String(decoding: chunk.data[..<nul], as: UTF8.self), Array(chunk.data[(nul + 1)...]))
        }
        XCTAssertEqual(texts.count, 3)
        XCTAssertEqual(texts[0].0, "Software")
        XCTAssertEqual(texts[0].1, Array("lnote-render".utf8))
        XCTAssertEqual(texts[1].0, "Title")
        // é is Latin-1 (0xE9) and kept as one byte; € and U+0001 are not, and become "?".
        XCTAssertEqual(texts[1].1, [0x43, 0x61, 0x66, 0xE9, 0x20, 0x3F, 0x20, 0x6E, 0x6F, 0x74, 0x65, 0x3F])
        XCTAssertEqual(texts[2].0, "Bad_ key", "trimmed, control character replaced, double space collapsed")
        // The ancillary chunks come before the image data.
        let firstIDAT = chunks.firstIndex { $0.type == "IDAT" }!
        XCTAssertLessThan(chunks.firstIndex { $0.type == "pHYs" }!, firstIDAT)
    }

    func testNoOptionalChunksWhenNotAsked() throws {
        let png = try PNGEncoder.encode(TestImages.page(width: 4, height: 4), options: PNGEncodeOptions(sRGB: false))
        XCTAssertEqual(Set(TinyPNG.chunks(png).map(\.type)), ["IHDR", "IDAT", "IEND"])
    }

    func testEmptyKeywordIsRejected() {
        XCTAssertThrowsError(try PNGEncoder.encode(TestImages.page(width: 4, height: 4),
                                                   options: PNGEncodeOptions(text: [(keyword: "   ", value: "v")]))) {
            XCTAssertEqual(($0 as? CodecError)?.kind, .invalidArgument)
        }
    }

    // MARK: Decoding the variants libpng normalises

    func testPaletteAndPaletteWithTRNS() throws {
        let plte = TinyPNG.chunk("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30])
        // 8-bit palette, 4×2
        let rows8: [[UInt8]] = [[0, 1, 2, 3], [3, 2, 1, 0]]
        let png = TinyPNG.make(width: 4, height: 2, bitDepth: 8, colorType: 3, before: [plte], rows: rows8)
        let decoded = try ImageDecoder.decode(png)
        XCTAssertEqual(Array(decoded.pixels[0..<16]), [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 10, 20, 30, 255])
        XCTAssertEqual(Array(decoded.pixels[16..<20]), [10, 20, 30, 255])

        // 2-bit palette with tRNS for the first two entries, 5 pixels wide (sub-byte packing)
        let trns = TinyPNG.chunk("tRNS", [0, 128])
        let packed: [UInt8] = [0b00_01_10_11, 0b00_000000]  // indices 0 1 2 3 0
        let png2 = TinyPNG.make(width: 5, height: 1, bitDepth: 2, colorType: 3, before: [plte, trns], rows: [packed])
        let d2 = try ImageDecoder.decode(png2)
        XCTAssertEqual(d2.pixels, [255, 0, 0, 0, 0, 255, 0, 128, 0, 0, 255, 255, 10, 20, 30, 255, 255, 0, 0, 0])
    }

    func testGreyLowBitGreyAndGreyAlpha() throws {
        let grey = TinyPNG.make(width: 3, height: 1, bitDepth: 8, colorType: 0, rows: [[0, 128, 255]])
        XCTAssertEqual(try ImageDecoder.decode(grey).pixels, [0, 0, 0, 255, 128, 128, 128, 255, 255, 255, 255, 255])

        // 1-bit grey, 10 pixels: 1010110000 -> scaled to 0/255
        let bits = TinyPNG.make(width: 10, height: 1, bitDepth: 1, colorType: 0, rows: [[0b1010_1100, 0b0000_0000]])
        let d = try ImageDecoder.decode(bits)
        XCTAssertEqual(stride(from: 0, to: 40, by: 4).map { d.pixels[$0] }, [255, 0, 255, 0, 255, 255, 0, 0, 0, 0])

        // grey with tRNS on value 128 -> that grey becomes transparent
        let greyTRNS = TinyPNG.make(width: 2, height: 1, bitDepth: 8, colorType: 0,
                                    before: [TinyPNG.chunk("tRNS", [0, 128])], rows: [[128, 7]])
        XCTAssertEqual(try ImageDecoder.decode(greyTRNS).pixels, [128, 128, 128, 0, 7, 7, 7, 255])

        let greyAlpha = TinyPNG.make(width: 2, height: 1, bitDepth: 8, colorType: 4, rows: [[200, 50, 10, 255]])
        XCTAssertEqual(try ImageDecoder.decode(greyAlpha).pixels, [200, 200, 200, 50, 10, 10, 10, 255])
    }

    func testSixteenBitIsScaledWithRounding() throws {
        // RGBA16: 0x8080 -> 0x80, 0xFFFF -> 0xFF, 0x0000 -> 0, 0x7F80 -> 0x7F (65535 -> 255 scale)
        let row: [UInt8] = [0x80, 0x80, 0xFF, 0xFF, 0x00, 0x00, 0x7F, 0x80]
        let png = TinyPNG.make(width: 1, height: 1, bitDepth: 16, colorType: 6, rows: [row])
        XCTAssertEqual(try ImageDecoder.decode(png).pixels, [0x80, 0xFF, 0x00, 0x7F])
        let rgb16 = TinyPNG.make(width: 1, height: 1, bitDepth: 16, colorType: 2, rows: [[0x12, 0x34, 0xAB, 0xCD, 0xFF, 0xFF]])
        let d = try ImageDecoder.decode(rgb16).pixels
        XCTAssertEqual(d, [UInt8((0x1234 * 255 + 32767) / 65535), UInt8((0xABCD * 255 + 32767) / 65535), 255, 255])
    }

    func testInterlacedMatchesNonInterlaced() throws {
        let image = TestImages.gradient(width: 13, height: 11)
        var rgb: [UInt8] = []
        for i in stride(from: 0, to: image.pixels.count, by: 4) { rgb += image.pixels[i..<(i + 3)] }
        let png = TinyPNG.makeInterlaced(width: 13, height: 11, bitDepth: 8, colorType: 2, bytesPerPixel: 3, pixels: rgb)
        XCTAssertEqual(TinyPNG.chunks(png).first?.data[12], 1, "Adam7")
        XCTAssertEqual(try ImageDecoder.decode(png).pixels, image.pixels)
    }

    // MARK: Errors

    func testBadCRCInHeaderAndInImageData() throws {
        let good = try PNGEncoder.encode(TestImages.page(width: 16, height: 16))
        var badIHDR = good
        badIHDR[8 + 8 + 13] ^= 0xFF  // IHDR's CRC
        XCTAssertThrowsError(try ImageDecoder.probe(badIHDR)) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidData) }
        XCTAssertThrowsError(try ImageDecoder.decode(badIHDR))

        var badIDAT = good
        let idatStart = try XCTUnwrap(findType(good, "IDAT"))
        let length = Int(good[idatStart - 8]) << 24 | Int(good[idatStart - 7]) << 16 | Int(good[idatStart - 6]) << 8 | Int(good[idatStart - 5])
        badIDAT[idatStart + length] ^= 0x55  // first CRC byte of IDAT
        XCTAssertThrowsError(try ImageDecoder.decode(badIDAT)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidData)
            XCTAssertTrue("\(error)".contains("CRC"), "\(error)")
        }
    }

    func testTruncatedPNG() throws {
        let good = try PNGEncoder.encode(TestImages.gradient(width: 40, height: 40))
        for cut in [good.count / 2, 40, 12] {
            XCTAssertThrowsError(try ImageDecoder.decode(Array(good[..<cut])), "cut at \(cut)")
        }
    }

    func testDecompressionBombIsRefusedBeforeAllocation() throws {
        // 60000×60000 RGBA would be 14.4 GB; the file is ~60 bytes.
        let bomb = TinyPNG.make(width: 60000, height: 60000, bitDepth: 8, colorType: 6, rows: [[0, 0, 0, 0]])
        XCTAssertLessThan(bomb.count, 100)
        XCTAssertEqual(try ImageDecoder.probe(bomb), ImageInfo(format: .png, width: 60000, height: 60000))
        XCTAssertThrowsError(try ImageDecoder.decode(bomb)) { XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge) }
        // A custom limit applies as well.
        let small = try PNGEncoder.encode(TestImages.page(width: 20, height: 20))
        XCTAssertThrowsError(try ImageDecoder.decode(small, maxPixels: 399)) { XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge) }
        XCTAssertNoThrow(try ImageDecoder.decode(small, maxPixels: 400))
    }

    func testProbeReadsSizeFromHeader() throws {
        let png = try PNGEncoder.encode(TestImages.page(width: 23, height: 7))
        XCTAssertEqual(try ImageDecoder.probe(png), ImageInfo(format: .png, width: 23, height: 7))
    }

    /// Offset of the data of the first chunk of `type`.
    private func findType(_ png: [UInt8], _ type: String) -> Int? {
        let t = Array(type.utf8)
        var i = 8
        while i + 8 <= png.count {
            let n = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            if Array(png[(i + 4)..<(i + 8)]) == t { return i + 8 }
            i += 12 + n
        }
        return nil
    }
}
