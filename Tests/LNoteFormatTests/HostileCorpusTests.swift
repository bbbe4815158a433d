// Runs every file of Tests/Hostile/ (but image/, run by LNoteRenderTests' HostileImageCorpusTests) through its parser with the fuzz targets' invariants
// (tools/fuzz/*.swift): nothing traps, and what is accepted obeys the rules the renderer and
// compaction rely on. Crashers found by fuzzing are added there as regression inputs.

import Foundation
import XCTest
import LNoteTestSupport
@testable import LNoteFormat

final class HostileCorpusTests: XCTestCase {
    func files(_ kind: String) throws -> [(String, [UInt8])] { try HostileCorpus.files(kind) }

    func testContentInputs() throws {
        for (name, bytes) in try files("content") {
            guard let page = try? ContentParser.parse(bytes, file: "pages/x.content", elementLimit: 4096) else { continue }
            for element in page.elements {
                if case .stroke(let s) = element.kind {
                    XCTAssertEqual(s.points.count % 5, 0, name)
                    for i in stride(from: 0, to: s.points.count, by: 5) {
                        XCTAssertTrue(ContentLimits.radiusRange.contains(s.points[i + 2]), name)
                        XCTAssertTrue(ContentLimits.pressureRange.contains(s.points[i + 3]), name)
                    }
                }
                guard case .success(let again) = ContentParser.parseElement(element.json) else {
                    XCTFail("\(name): an accepted element's JSON does not parse on its own"); continue
                }
                XCTAssertEqual(again.kind, element.kind, name)
            }
            let reparsed = try ContentParser.parse(ContentWriter.snapshot(page.elements), file: "p", elementLimit: 4096)
            XCTAssertEqual(reparsed.elements, page.elements, name)
        }
        // What the inputs are about, spot-checked.
        let parsed = Dictionary(uniqueKeysWithValues: try files("content").map { ($0.0, try? ContentParser.parse($0.1, file: "p")) })
        XCTAssertNotNil(parsed["depth-64-in-element.json"]!)
        XCTAssertNil(parsed["depth-65-in-element.json"]!)
        for invalid in ["points-leading-zero.json", "points-lone-minus.json", "points-dot-no-digit.json", "points-trailing-comma.json",
                        "lone-surrogate-id.json", "bom-in-the-middle.json", "overlong-utf8.json", "unterminated-escape.json",
                        "control-char-in-string.json", "nul-byte.json", "format-huge.json"] {
            XCTAssertNil(parsed[invalid]!, invalid)
        }
        XCTAssertEqual(parsed["points-huge-exponent.json"]!!.diagnostics.map(\.code.rawValue), ["points-integer"])
        XCTAssertEqual(parsed["points-int64-edges.json"]!!.diagnostics.map(\.code.rawValue), ["coordinate-range"])
        XCTAssertEqual(parsed["duplicate-elements-and-points.json"]!!.elements.count, 1)
        XCTAssertEqual(parsed["surrogate-pair-id.json"]!!.elements.first?.id, "\u{1F600}\u{0}")
    }

    static let snapshot: [Element] = try! ContentParser.parse(Array("""
        {"elements":[{"type":"stroke","id":"A","color":"#000000","points":[0,0,10,500,0]},{"type":"mystery","id":"a"}]}
        """.utf8), file: "p").elements

    func testJournalInputs() throws {
        for (name, file) in try files("journal") {
            guard let mode = file.first else { continue }
            var journal = Array(file.dropFirst())
            if mode & 1 == 1 { recomputeCRCs(&journal) }
            var elements = Self.snapshot
            do {
                let report = try Journal.replay(journal, onto: &elements, file: "pages/x.journal", elementLimit: 64)
                if let t = report.tornTailOffset { XCTAssertTrue(t >= 0 && t < journal.count, name) }
                var again = Self.snapshot
                XCTAssertEqual(try Journal.replay(journal, onto: &again, file: "p", elementLimit: 64), report, name)
                XCTAssertEqual(again, elements, name)
            } catch {
                XCTAssertEqual(error.code.rawValue, "element-limit", name)
            }
        }
    }

    func recomputeCRCs(_ j: inout [UInt8]) {
        var offset = 0
        while j.count - offset >= Journal.headerSize {
            let length = Int(j[offset]) | Int(j[offset + 1]) << 8 | Int(j[offset + 2]) << 16 | Int(j[offset + 3]) << 24
            guard length <= j.count - offset - Journal.headerSize else { return }
            let crc = j.withUnsafeBufferPointer {
                Journal.crc(type: $0[offset + 8], payload: UnsafeBufferPointer(rebasing: $0[(offset + 9)..<(offset + 9 + length)]))
            }
            for k in 0..<4 { j[offset + 4 + k] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(k))) }
            offset += Journal.headerSize + length
        }
    }

    func testDocumentInputs() throws {
        for (name, bytes) in try files("document") {
            if let doc = try? DocumentParser.parse(bytes) {
                var seen = Set<LNoteID>()
                for case .valid(let e) in doc.pages {
                    XCTAssertTrue(DocumentParser.sizeRange.contains(Int64(e.width)) && DocumentParser.sizeRange.contains(Int64(e.height)), name)
                    XCTAssertTrue(seen.insert(e.id).inserted, name)
                    XCTAssertFalse(e.id.canonical.contains("/") || e.id.canonical.contains("."), name)
                }
                let manifest = Manifest(document: doc)
                XCTAssertEqual(try Manifest.parse(manifest.jsonBytes()), manifest, name)
            }
            if let m = try? Manifest.parse(bytes) { XCTAssertEqual(try Manifest.parse(m.jsonBytes()), m, name) }
            _ = ContentParser.parseElement(bytes)
        }
        let escaping = try DocumentParser.parse(try files("document").first { $0.0 == "ids-escaping.json" }!.1)
        XCTAssertEqual(escaping.pages.map { $0.error?.code.rawValue ?? "valid" },
                       ["page-id", "page-id", "page-id", "valid", "page-duplicate-id"])
        XCTAssertNil(escaping.id)
    }
}
