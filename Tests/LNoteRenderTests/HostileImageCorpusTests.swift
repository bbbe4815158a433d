// Runs every file of Tests/Hostile/image/ through the image decoder as the asset cache calls it
// (its pixel limit, and a smaller one; full size and two target sizes), with the fuzz target's
// invariants (tools/fuzz): nothing traps or takes long, a decoded bitmap obeys its limit, and a
// refusal as too large is one the header confirms. Crashers found by fuzzing are added there.

import Foundation
import XCTest
import LNoteTestSupport
import LNoteCodecs
import LNoteRender

final class HostileImageCorpusTests: XCTestCase {
    func files(_ kind: String) throws -> [(String, [UInt8])] { try HostileCorpus.files(kind) }

    func testImageInputs() throws {
        for (name, bytes) in try files("image") {
            for limit in [AssetCache.maxAssetPixels, 1 << 20] {
                for target: (width: Int, height: Int)? in [nil, (1, 1), (300, 200)] {
                    let started = Date()
                    do {
                        let bitmap = try ImageDecoder.decode(bytes, maxPixels: limit, targetSize: target)
                        XCTAssertEqual(bitmap.pixels.count, bitmap.width * bitmap.height * 4, name)
                        XCTAssertLessThanOrEqual(bitmap.width * bitmap.height, limit, name)
                    } catch {
                        if error.kind == .tooLarge, let info = try? ImageDecoder.probe(bytes) {
                            XCTAssertGreaterThan(info.width * info.height, limit, name)
                        }
                    }
                    XCTAssertLessThan(Date().timeIntervalSince(started), 1, name)
                }
            }
            _ = JPEGCodec.readComment(bytes)
        }
        // Over libjpeg's own maximum dimension (65500): refused by its header reader.
        XCTAssertThrowsError(try ImageDecoder.decode(try files("image").first { $0.0 == "jpeg-sof-65535x65535.jpg" }!.1)) { error in
            XCTAssertEqual((error as? CodecError)?.kind, .invalidData)
        }
        for bomb in ["png-ihdr-60000x60000.png", "png-ihdr-10001x10000.png", "jpeg-sof-65000x65000.jpg"] {
            let bytes = try files("image").first { $0.0 == bomb }!.1
            XCTAssertThrowsError(try ImageDecoder.decode(bytes, maxPixels: AssetCache.maxAssetPixels)) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .tooLarge, bomb)
            }
        }
    }
}
