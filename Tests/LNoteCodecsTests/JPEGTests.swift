import XCTest
import LNoteBitmap
@testable import LNoteCodecs

final class JPEGTests: XCTestCase {
    /// (marker, payload) of every marker segment up to and including the first SOS.
    private func segments(_ jpeg: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let marker = jpeg[i + 1]
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            out.append((marker, Array(jpeg[(i + 4)..<(i + 2 + length)])))
            if marker == 0xDA { break }
            i += 2 + length
        }
        return out
    }

    func testRoundTripQualityAndSize() throws {
        let image = TestImages.gradient(width: 160, height: 96)
        let jpeg = try JPEGEncoder.encode(image, quality: 90, pixelsPerInch: 72)
        XCTAssertEqual(Array(jpeg[0..<3]), [0xFF, 0xD8, 0xFF])
        XCTAssertEqual(Array(jpeg.suffix(2)), [0xFF, 0xD9])
        let decoded = try ImageDecoder.decode(jpeg)
        XCTAssertEqual(decoded.width, 160)
        XCTAssertEqual(decoded.height, 96)
        XCTAssertTrue(decoded.isOpaque)
        XCTAssertGreaterThan(TestImages.psnr(image, decoded), 30)
        XCTAssertEqual(try ImageDecoder.probe(jpeg), ImageInfo(format: .jpeg, width: 160, height: 96))
    }

    /// One grey component (SOF0 with one component, JFIF density as asked), holding each pixel's
    /// value when the pixels are grey; no chroma to lose, so it round-trips closer than colour.
    func testGreyscaleEncodeWritesOneComponent() throws {
        var pixels: [UInt8] = []
        for y in 0..<48 { for x in 0..<64 { let v = UInt8((x * 4 + y * 2) & 255); pixels += [v, v, v, 255] } }
        let image = Bitmap(width: 64, height: 48, pixels: pixels, isPremultiplied: true)
        let jpeg = try JPEGEncoder.encodeGreyscale(image, quality: 95, pixelsPerInch: 150)
        let sof = try XCTUnwrap(segments(jpeg).first { $0.marker == 0xC0 }?.payload)
        XCTAssertEqual(Array(sof[1..<6]), [0, 48, 0, 64, 1], "height 48, width 64, one component")
        let jfif = try XCTUnwrap(segments(jpeg).first { $0.marker == 0xE0 }?.payload)
        XCTAssertEqual(Array(jfif[7..<12]), [1, 0, 150, 0, 150], "dots per inch, 150 × 150")
        let decoded = try ImageDecoder.decode(jpeg)
        XCTAssertEqual(decoded.width, 64)
        XCTAssertGreaterThan(TestImages.psnr(image, decoded), 40)
        XCTAssertThrowsError(try JPEGEncoder.encodeGreyscale(image, quality: 0))
    }

    func testDensityIsRoundedAndClampedToWhatJFIFHolds() throws {
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: 144), 144)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: 263.5), 264)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: 0.36), 1)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: 0), 1)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: 72000), 65535)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: .infinity), 65535)
        XCTAssertEqual(JPEGEncoder.density(pixelsPerInch: .nan), 72)
        // An explicit density outside JFIF's range is still refused.
        XCTAssertThrowsError(try JPEGEncoder.encode(TestImages.gradient(width: 8, height: 8), pixelsPerInch: 0))
    }

    /// Without a resolution the JFIF header says no unit and a 1:1 aspect ratio (libjpeg's
    /// default), and only the header differs from a 72 dpi encode.
    func testNoResolutionWritesJFIFAspectRatioOnly() throws {
        let image = TestImages.gradient(width: 33, height: 17)
        let plain = try JPEGEncoder.encode(image, quality: 80, pixelsPerInch: nil)
        let app0 = try XCTUnwrap(segments(plain).first { $0.marker == 0xE0 })
        XCTAssertEqual(Array(app0.payload[7..<12]), [0, 0, 1, 0, 1], "no unit, 1 × 1")
        let dpi = try JPEGEncoder.encode(image, quality: 80, pixelsPerInch: 72)
        XCTAssertEqual(plain.count, dpi.count)
        XCTAssertEqual(zip(plain, dpi).filter { $0 != $1 }.count, 3, "the unit and the two densities' low bytes")
    }

    func testSubsamplingIs420AndJFIFDensityIsDotsPerInch() throws {
        let jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 33, height: 17), quality: 80, pixelsPerInch: 264)
        let segs = segments(jpeg)
        let app0 = try XCTUnwrap(segs.first { $0.marker == 0xE0 })
        XCTAssertEqual(Array(app0.payload[0..<5]), Array("JFIF\0".utf8))
        XCTAssertEqual(app0.payload[7], 1, "density unit: dots per inch")
        XCTAssertEqual(Array(app0.payload[8..<12]), [0x01, 0x08, 0x01, 0x08], "264 dpi on both axes")
        let sof = try XCTUnwrap(segs.first { $0.marker == 0xC0 }, "baseline SOF0")
        XCTAssertEqual(sof.payload[0], 8, "precision")
        XCTAssertEqual(Int(sof.payload[1]) << 8 | Int(sof.payload[2]), 17)
        XCTAssertEqual(Int(sof.payload[3]) << 8 | Int(sof.payload[4]), 33)
        XCTAssertEqual(sof.payload[5], 3, "components")
        // (id, sampling HV, table) per component: Y 2x2, Cb 1x1, Cr 1x1
        XCTAssertEqual(sof.payload[7], 0x22)
        XCTAssertEqual(sof.payload[10], 0x11)
        XCTAssertEqual(sof.payload[13], 0x11)
        XCTAssertFalse(segs.contains { $0.marker == 0xFE }, "no COM unless asked")
    }

    func testCommentRoundTripWithArbitraryBytes() throws {
        let comment: [UInt8] = [0, 1, 2, 0xFF, 0xD9, 0xFF, 0x00] + Array("fingerprint:1234".utf8) + (0...255).map { UInt8($0) }
        let jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 20, height: 20), quality: 80, pixelsPerInch: 72, comment: comment)
        XCTAssertEqual(segments(jpeg).first { $0.marker == 0xFE }?.payload, comment)
        XCTAssertEqual(JPEGCodec.readComment(jpeg), comment)
        XCTAssertGreaterThan(TestImages.psnr(TestImages.gradient(width: 20, height: 20), try ImageDecoder.decode(jpeg)), 30)

        let none = try JPEGEncoder.encode(TestImages.gradient(width: 8, height: 8))
        XCTAssertNil(JPEGCodec.readComment(none))
        let empty = try JPEGEncoder.encode(TestImages.gradient(width: 8, height: 8), comment: [])
        XCTAssertEqual(JPEGCodec.readComment(empty), [])
        XCTAssertNil(JPEGCodec.readComment([1, 2, 3]))
        XCTAssertNil(JPEGCodec.readComment(try PNGEncoder.encode(TestImages.gradient(width: 2, height: 2))))
        // Works on a file whose scan data is cut off: only the markers are read.
        XCTAssertEqual(JPEGCodec.readComment(Array(jpeg.prefix(jpeg.count - 20))), comment)

        XCTAssertThrowsError(try JPEGEncoder.encode(TestImages.gradient(width: 8, height: 8),
                                                    comment: [UInt8](repeating: 1, count: 65534)))
    }

    func testEncoderWritesColourChannelsWithoutCompositing() throws {
        // Flattening onto paper is a pipeline step (Bitmap.flattened in LNoteRaster): the
        // encoder drops alpha and never blends, so a transparent black pixel stays black.
        var image = Bitmap(width: 16, height: 16, fill: 0, isPremultiplied: true)  // fully transparent
        for i in stride(from: 0, to: 16 * 8 * 4, by: 4) {  // top half: opaque dark blue
            image.pixels[i + 2] = 128; image.pixels[i + 3] = 255
        }
        let decoded = try ImageDecoder.decode(try JPEGEncoder.encode(image, quality: 95))
        let bottom = (12 * 16 + 8) * 4, top = (3 * 16 + 8) * 4
        XCTAssertEqual(Array(decoded.pixels[bottom..<(bottom + 3)]).map { Int($0) }.max()!, 0, accuracy: 3)
        XCTAssertEqual(Int(decoded.pixels[top + 2]), 128, accuracy: 6)
        XCTAssertEqual(Int(decoded.pixels[top]), 0, accuracy: 6)
    }

    // MARK: DCT scaling

    func testScaleDenominatorChoice() {
        let d = { ImageDecoder.jpegScaleDenominator(width: $0, height: $1, target: $2) }
        XCTAssertEqual(d(4000, 3000, nil), 1)
        XCTAssertEqual(d(4000, 3000, (500, 375)), 8)
        XCTAssertEqual(d(4000, 3000, (501, 375)), 4)
        XCTAssertEqual(d(4000, 3000, (1000, 750)), 4)
        XCTAssertEqual(d(4000, 3000, (1001, 10)), 2)
        XCTAssertEqual(d(4000, 3000, (2001, 10)), 1)
        XCTAssertEqual(d(4001, 3001, (501, 376)), 8, "ceil(4001/8) = 501")
        XCTAssertEqual(d(100, 100, (300, 300)), 1, "enlarged: full size")
        // With headroom h the output keeps at least h texels per target pixel.
        let h = { ImageDecoder.jpegScaleDenominator(width: $0, height: $1, target: $2, headroom: $3) }
        XCTAssertEqual(h(4000, 3000, (250, 187), 2), 8)
        XCTAssertEqual(h(4000, 3000, (251, 187), 2), 4)
        XCTAssertEqual(h(4000, 3000, (268, 201), 2), 4, "a 12-MP photo in a 320-px thumbnail")
        XCTAssertEqual(h(4000, 3000, (1001, 10), 2), 1)
        XCTAssertEqual(h(4000, 3000, (Int.max / 2 + 1, 1), 2), 1, "an overflowing target: full size")
    }

    func testDCTScaledDecodeSizes() throws {
        let image = TestImages.gradient(width: 1000, height: 701)
        let jpeg = try JPEGEncoder.encode(image, quality: 85)
        let full = try ImageDecoder.decode(jpeg)
        XCTAssertEqual([full.width, full.height], [1000, 701])
        for (target, expected) in [((100, 80), [125, 88]), ((126, 80), [250, 176]), ((300, 300), [500, 351]),
                                   ((600, 10), [1000, 701])] {
            let scaled = try ImageDecoder.decode(jpeg, targetSize: (width: target.0, height: target.1))
            XCTAssertEqual([scaled.width, scaled.height], expected, "target \(target)")
            XCTAssertGreaterThanOrEqual(scaled.width, target.0)
            XCTAssertGreaterThanOrEqual(scaled.height, target.1)
        }
        // The 1/8 image is close to an 8×8 box average of the full one.
        let eighth = try ImageDecoder.decode(jpeg, targetSize: (width: 125, height: 88))
        let i = (40 * 125 + 60) * 4
        XCTAssertEqual(Int(eighth.pixels[i]), Int(image.pixels[((40 * 8 + 4) * 1000 + 60 * 8 + 4) * 4]), accuracy: 6)
    }

    // MARK: Errors

    func testGarbageEmptyAndUnknownSignature() {
        for data: [UInt8] in [[], [0xFF], Array("GIF89a\u{1}\u{0}".utf8), [UInt8](repeating: 0x41, count: 500)] {
            XCTAssertThrowsError(try ImageDecoder.decode(data)) { XCTAssertEqual(($0 as? CodecError)?.kind, .unknownFormat) }
            XCTAssertThrowsError(try ImageDecoder.probe(data))
        }
        // Right signature, garbage after it.
        var fakeJPEG: [UInt8] = [0xFF, 0xD8, 0xFF]
        var fakePNG = TinyPNG.signature
        var seed: UInt32 = 7
        for _ in 0..<300 {
            seed = seed &* 1_103_515_245 &+ 12345
            fakeJPEG.append(UInt8(truncatingIfNeeded: seed >> 16))
            fakePNG.append(UInt8(truncatingIfNeeded: seed >> 8))
        }
        for data in [fakeJPEG, fakePNG] {
            XCTAssertThrowsError(try ImageDecoder.decode(data)) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidData) }
        }
    }

    func testTruncatedJPEG() throws {
        let jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 200, height: 120), quality: 80)
        for cut in [jpeg.count * 6 / 10, jpeg.count - 3, 200, 3] {
            XCTAssertThrowsError(try ImageDecoder.decode(Array(jpeg[..<cut])), "cut at \(cut)") { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidData, "\(error)")
            }
        }
    }

    func testZeroHeightJPEG() throws {
        var jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 16, height: 16))
        let sof = try XCTUnwrap(sofOffset(jpeg))
        jpeg[sof + 5] = 0; jpeg[sof + 6] = 0  // height
        XCTAssertThrowsError(try ImageDecoder.probe(jpeg)) { XCTAssertEqual(($0 as? CodecError)?.kind, .invalidData) }
        XCTAssertThrowsError(try ImageDecoder.decode(jpeg)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidData)
            XCTAssertTrue("\(error)".lowercased().contains("empty"), "\(error)")
        }
    }

    func testJPEGDecompressionBombIsRefusedBeforeAllocation() throws {
        var jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 16, height: 16))
        let sof = try XCTUnwrap(sofOffset(jpeg))
        jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60  // height 60000
        jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60  // width 60000
        XCTAssertEqual(try ImageDecoder.probe(jpeg), ImageInfo(format: .jpeg, width: 60000, height: 60000))
        XCTAssertThrowsError(try ImageDecoder.decode(jpeg)) { XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge) }
        // Even when it would be decoded at 1/8: the limit is on the stored size.
        XCTAssertThrowsError(try ImageDecoder.decode(jpeg, targetSize: (width: 10, height: 10))) {
            XCTAssertEqual(($0 as? CodecError)?.kind, .tooLarge)
        }
    }

    func testErrorsCarryTheLibraryMessage() throws {
        // Large enough that half the file is entropy-coded data, past the header.
        let jpeg = try JPEGEncoder.encode(TestImages.gradient(width: 400, height: 300))
        XCTAssertThrowsError(try ImageDecoder.decode(Array(jpeg.prefix(jpeg.count / 2)))) { error in
            XCTAssertTrue("\(error)".hasPrefix("JPEG decode: "), "\(error)")
            XCTAssertTrue("\(error)".contains("Premature end"), "\(error)")
        }
    }

    private func sofOffset(_ jpeg: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            if jpeg[i + 1] == 0xC0 { return i }
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        return nil
    }
}

final class OpacityTests: XCTestCase {
    func testBitmapOpacityCheckFindsAnyTranslucentPixel() {
        for (w, h) in [(1, 1), (3, 1), (1, 5), (7, 3), (64, 64), (3000, 1)] {
            var b = Bitmap(width: w, height: h, fill: 255)
            XCTAssertTrue(b.isOpaque)
            for p in [0, w * h / 2, w * h - 1] {
                var c = b
                c.pixels[p * 4 + 3] = 254
                XCTAssertFalse(c.isOpaque, "\(w)x\(h) pixel \(p)")
            }
            b.pixels[0] = 0  // colour bytes do not matter
            XCTAssertTrue(b.isOpaque)
        }
    }
}

/// JPEG colour spaces our encoder never writes, as tiny files made once with Pillow 13.0.0
/// (16×8, uniform colour, quality 95) and embedded here instead of fixture files.
final class JPEGColourSpaceTests: XCTestCase {
    static let grey90 = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAIBAQEBAQIBAQECAgICAgQDAgICAgUEBAMEBgUGBgYFBgYGBwkIBgcJBwYGCAsICQoKCgoKBggLDAsKDAkKCgr/wAALCAAIABABAREA/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/9oACAEBAAA/APmeiv/Z"
    /// Adobe (inverted) CMYK of RGB (200, 60, 30).
    static let cmyk = "/9j/7gAOQWRvYmUAZAAAAAAA/9sAQwACAQEBAQECAQEBAgICAgIEAwICAgIFBAQDBAYFBgYGBQYGBgcJCAYHCQcGBggLCAkKCgoKCgYICwwLCgwJCgoK/8AAFAgACAAQBEMRAE0RAFkRAEsRAP/EAB8AAAEFAQEBAQEBAAAAAAAAAAABAgMEBQYHCAkKC//EALUQAAIBAwMCBAMFBQQEAAABfQECAwAEEQUSITFBBhNRYQcicRQygZGhCCNCscEVUtHwJDNicoIJChYXGBkaJSYnKCkqNDU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6g4SFhoeIiYqSk5SVlpeYmZqio6Slpqeoqaqys7S1tre4ubrCw8TFxsfIycrS09TV1tfY2drh4uPk5ebn6Onq8fLz9PX29/j5+v/aAA4EQwBNAFkASwAAPwD9IK/O+vx3r9/KKKKK/9k="

    private func decodeBase64(_ s: String) -> [UInt8] {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var value: UInt32 = 0, bits = 0, out: [UInt8] = []
        for c in s.utf8 where c != UInt8(ascii: "=") {
            value = value << 6 | UInt32(table.firstIndex(of: c)!)
            bits += 6
            if bits >= 8 { bits -= 8; out.append(UInt8((value >> UInt32(bits)) & 0xFF)) }
        }
        return out
    }

    func testGreyJPEGIsExpandedToRGBA() throws {
        let b = try ImageDecoder.decode(decodeBase64(Self.grey90))
        XCTAssertEqual([b.width, b.height], [16, 8])
        XCTAssertEqual(Array(b.pixels[(3 * 16 + 3) * 4..<(3 * 16 + 3) * 4 + 4]), [90, 90, 90, 255])
    }

    func testAdobeCMYKJPEGIsConverted() throws {
        let b = try ImageDecoder.decode(decodeBase64(Self.cmyk))
        XCTAssertEqual([b.width, b.height], [16, 8])
        let p = Array(b.pixels[(3 * 16 + 3) * 4..<(3 * 16 + 3) * 4 + 4]).map(Int.init)
        XCTAssertEqual(p[0], 200, accuracy: 3)
        XCTAssertEqual(p[1], 60, accuracy: 3)
        XCTAssertEqual(p[2], 30, accuracy: 3)
        XCTAssertEqual(p[3], 255)
        // DCT scaling works for 4-component files too.
        let s = try ImageDecoder.decode(decodeBase64(Self.cmyk), targetSize: (width: 2, height: 1))
        XCTAssertEqual([s.width, s.height], [2, 1])
    }
}
