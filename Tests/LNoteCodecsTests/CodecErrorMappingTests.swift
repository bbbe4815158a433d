// The one mapping of a codec failure to the library's error: its kind is kept.

import LNoteBitmap
import LNoteFormat
import XCTest
@testable import LNoteCodecs

final class CodecErrorMappingTests: XCTestCase {
    func testTheKindIsKept() {
        let limit = LNoteError(CodecError(.tooLarge, "PNG decode: PNG image is larger than the pixel limit"), file: "assets/A.png", code: .image)
        XCTAssertEqual(limit, LNoteError(.limit, file: "assets/A.png", code: .image,
                                         message: "PNG decode: PNG image is larger than the pixel limit"))
        for kind: CodecError.Kind in [.unknownFormat, .invalidData, .unsupported, .invalidArgument, .outOfMemory] {
            let e = LNoteError(CodecError(kind, "m"), file: "f", code: .encode)
            XCTAssertEqual(e, LNoteError(.invalid, file: "f", code: .encode, message: "m"), "\(kind)")
        }
    }

    func testADecodeOverTheLimitIsALimitError() throws {
        let png = try PNGEncoder.encode(TestImages.page(width: 20, height: 20))
        do throws(CodecError) {
            _ = try ImageDecoder.decode(png, maxPixels: 399)
            XCTFail("decoded over the limit")
        } catch {
            let e = LNoteError(error, file: "assets/A.png", code: .image)
            XCTAssertEqual(e.kind, .limit)
            XCTAssertEqual(e.message, error.message)
            XCTAssertEqual(e.description, "assets/A.png: [image] \(error.message)")
        }
    }

    /// The one asset policy: a decompression bomb is a `limit` before anything is allocated, a
    /// file that is no image `invalid`, both with code `image` about the asset's file.
    func testTheAssetPolicy() throws {
        XCTAssertEqual(AssetImage.maxPixels, 100_000_000)
        XCTAssertEqual(AssetImage.file("A.png"), "assets/A.png")
        let bomb = TinyPNG.make(width: 60000, height: 60000, bitDepth: 8, colorType: 6, rows: [[0, 0, 0, 0]])
        XCTAssertEqual(try AssetImage.probe(bomb, file: "assets/B.png"), ImageInfo(format: .png, width: 60000, height: 60000))
        do throws(LNoteError) {
            _ = try AssetImage.decode(bomb, jpegScaleDenominator: 1, file: "assets/B.png")
            XCTFail("a bomb was decoded")
        } catch {
            XCTAssertEqual(error.kind, .limit)
            XCTAssertEqual(error.code, .image)
            XCTAssertEqual(error.file, "assets/B.png")
        }
        do throws(LNoteError) {
            _ = try AssetImage.decode(bomb, targetSize: nil, file: "assets/B.png")
            XCTFail("a bomb was decoded")
        } catch {
            XCTAssertEqual(error.kind, .limit)
            XCTAssertEqual(error.code, .image)
        }
        do throws(LNoteError) {
            _ = try AssetImage.probe([1, 2, 3], file: "assets/C.png")
            XCTFail("three bytes were an image")
        } catch {
            XCTAssertEqual(error, LNoteError(.invalid, file: "assets/C.png", code: .image,
                                             message: "not a PNG or JPEG file (unknown signature)"))
        }
    }
}
