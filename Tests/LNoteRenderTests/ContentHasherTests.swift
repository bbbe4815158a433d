// ContentHasher is XXH3-128 (libxxhash): its known answers, agreement with the `xxhsum -H2`
// command on random inputs of every length class XXH3 treats differently, and the framing of a
// hash of several parts.

import Foundation
import XCTest
import LNoteTestSupport
@testable import LNoteRender

final class ContentHasherTests: XCTestCase {
    /// Written by `xxhsum -H2` 0.8.1 (`printf 'abc' | xxhsum -H2`; the 200- and 1000-byte inputs
    /// are bytes i·7 mod 251).
    func testKnownAnswers() {
        XCTAssertEqual(ContentHasher.hash([]), "99aa06d3014798d86001c324468d497f")
        XCTAssertEqual(ContentHasher.hash(Array("abc".utf8)), "06b05ab6733a618578af5f94892f3950")
        XCTAssertEqual(ContentHasher.hash(Array("lnote-render".utf8)), "ceb9f69cb492856fc01e4af80f348cda")
        XCTAssertEqual(ContentHasher.hash((0..<200).map { UInt8($0 * 7 % 251) }), "5451071ed36ad47079ad90815b45bbd9")
        XCTAssertEqual(ContentHasher.hash((0..<1000).map { UInt8($0 * 7 % 251) }), "5ed35fc6b4f0ef20d1eb8367bf3294e7")
    }

    /// The xxhsum command (Debian's `xxhash`, which `tools/install-deps --test` installs) agrees
    /// on random inputs: empty, 1–3, 4–8, 9–16, 17–128, 129–240 bytes and longer (the stripe and
    /// block loops, with a partial last stripe).
    func testAgreesWithXXHSum() throws {
        let xxhsum = try ExternalTool.require("xxhsum", package: "xxhash")
        let dir = try temporaryDirectory(removedAfter: self)
        let seed = TestSeed()
        let lengths = [0, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1023, 1024, 65_536 + 7, 1 << 20]
        let files = try randomFiles(lengths: lengths, in: dir, seed: seed)
        let output = try ExternalProcess.output(xxhsum, ["-H2"] + files.map(\.path))
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, files.map { "\(ContentHasher.hash($0.bytes))  \($0.path)" }, "\(seed)")
    }

    /// A hash of parts is the XXH3-128 of each part's length (8 bytes, little-endian) and its own
    /// XXH3-128 (canonical bytes), in order: parts never run into each other.
    func testPartsAreFramed() {
        func canonical(_ hex: String) -> [UInt8] {
            let digits = Array(hex.utf8)
            return stride(from: 0, to: 32, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
        }
        func framed(_ parts: [[UInt8]]) -> String {
            var bytes: [UInt8] = []
            for p in parts { bytes += (0..<8).map { UInt8(truncatingIfNeeded: UInt64(p.count) >> (8 * UInt64($0))) } + canonical(ContentHasher.hash(p)) }
            return ContentHasher.hash(bytes)
        }
        var h = ContentHasher()
        h.combine("ab")
        h.combine([0x63])
        XCTAssertEqual(h.finalize(), framed([Array("ab".utf8), [0x63]]))
        var other = ContentHasher()
        other.combine("a")
        other.combine("bc")
        XCTAssertNotEqual(other.finalize(), h.finalize())
        var one = ContentHasher()
        one.combine("abc")
        XCTAssertNotEqual(one.finalize(), h.finalize())
        XCTAssertNotEqual(one.finalize(), ContentHasher.hash(Array("abc".utf8)), "one part is still framed")
        var empty = ContentHasher()
        empty.combine([UInt8]())
        XCTAssertNotEqual(empty.finalize(), ContentHasher().finalize(), "an empty part counts")
        var number = ContentHasher()
        number.combine(-2)
        XCTAssertEqual(number.finalize(), framed([[0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]))
    }
}
