// The public sample packages in ../shared/samples parse as their document.json says.

import Foundation
import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class SampleTests: XCTestCase {
    func samplePackage(_ name: String) throws -> URL {
        let dir = try samplesDirectory().appendingPathComponent(name)
        let pkg = FileIO.listDirectory(atPath: dir.path).first { $0.hasSuffix(".lnote") }
        return dir.appendingPathComponent(try XCTUnwrap(pkg, "no package in \(dir.path)"))
    }

    /// Element counts after load. elementCount in document.json is informative; pages without a
    /// journal match it, and notes page 1 is 163 by its journal (see testNotesJournal).
    func testEverySampleParsesWithItsElementCounts() throws {
        let expected: [String: [Int]] = [
            "images": [106], "notes": [163, 81], "real-handwriting": [70], "real-notebook": [219, 230, 1108],
        ]
        for (name, counts) in expected {
            let pkg = try LNotePackage.open(at: samplePackage(name))
            XCTAssertTrue(pkg.document.diagnostics.isEmpty, "\(name): \(pkg.document.diagnostics)")
            XCTAssertEqual(pkg.pages.count, counts.count, name)
            for (i, slot) in pkg.pages.enumerated() {
                let entry = try XCTUnwrap(slot.entry, "\(name) page \(i + 1): \(String(describing: slot.error))")
                let page = try pkg.loadPage(entry)
                XCTAssertEqual(page.elements.count, counts[i], "\(name) page \(i + 1)")
                XCTAssertEqual(page.skippedSnapshotElements, 0, "\(name) page \(i + 1)")
                if page.journal == nil {
                    XCTAssertEqual(page.elements.count, entry.elementCount, "\(name) page \(i + 1) vs elementCount")
                    XCTAssertTrue(page.diagnostics.isEmpty, "\(page.diagnostics)")
                }
            }
            // The manifest agrees with document.json.
            XCTAssertEqual(try pkg.readManifest(), Manifest(document: pkg.document), name)
            // Every thumbnail belongs to a page; no stray temporary files.
            XCTAssertEqual(Set(try pkg.thumbnailFiles().compactMap(\.pageID)), Set(pkg.document.validPages.map(\.id)), name)
            XCTAssertEqual(pkg.strayTemporaryFiles(), [], name)
        }
    }

    /// Notes page 1: snapshot 162 strokes; the journal's frames, in order:
    /// add (new) +1, add (new) +1, replace (existing), replace (lower-case id, existing),
    /// replace (missing id: appended) +1, add (existing id: replaced in place), delete -1,
    /// delete -1, delete (a stroke added above) -1, delete (missing: no-op), type 7 (unknown),
    /// add with 7 points values (invalid), add with truncated JSON (invalid), delete with a bad
    /// CRC, add with a bad CRC, add (new) +1, then a frame whose length runs past the end.
    /// 162 + 3 + 1 - 3 = 163.
    func testNotesJournal() throws {
        let pkg = try LNotePackage.open(at: samplePackage("notes"))
        let page = try pkg.loadPage(at: 0)
        let report = try XCTUnwrap(page.journal)
        XCTAssertEqual(page.elements.count, 163)
        XCTAssertEqual(report.applied.map(\.effect), [
            .appended, .appended, .replaced(index: 54), .replaced(index: 81), .appended, .replaced(index: 2),
            .deleted(index: 5), .deleted(index: 5), .deleted(index: 161), .noOp, .appended,
        ])
        XCTAssertEqual(report.discarded.map(\.offset), [28904, 45366, 61828, 61859, 61904])
        XCTAssertEqual(report.discarded.map(\.code.rawValue), ["journal-type", "journal-payload", "journal-payload", "journal-crc", "journal-crc"])
        XCTAssertEqual(report.discarded.filter { $0.reason == .crcMismatch }.count, 2)
        XCTAssertEqual(report.tornTailOffset, 80325)
        XCTAssertEqual(report.byteCount, 90025)
        XCTAssertEqual(page.diagnostics.count, 6) // five discarded frames and the torn tail
        XCTAssertTrue(page.diagnostics.allSatisfy { $0.file == "pages/AA62893A-725A-4C6B-9CA6-FE622701C56D.journal" })
        // The frame with the invalid element names the rule.
        if case .invalidPayload(let p) = report.discarded[1].reason { XCTAssertEqual(p.code.rawValue, "points-length") } else { XCTFail() }
    }

    func testNotesCompactionOnACopyKeepsThePage() throws {
        let copy = try temporaryDirectoryURL(removedAfter: self).appendingPathComponent("notes.lnote")
        try FileManager.default.copyItem(at: samplePackage("notes"), to: copy)
        // The samples are read-only; the copy must be writable.
        _ = try FileManager.default.subpathsOfDirectory(atPath: copy.path).map { sub in
            chmod(copy.appendingPathComponent(sub).path, 0o755)
        }
        chmod(copy.path, 0o755)
        let pkg = try LNotePackage.open(at: copy)
        let before = try pkg.loadPage(at: 0).elements
        XCTAssertTrue(try pkg.compact(XCTUnwrap(pkg.pages[0].entry)).compacted)
        let after = try pkg.loadPage(at: 0)
        XCTAssertEqual(after.elements, before)
        XCTAssertNil(after.journal)
    }

    func testImageAssetsAreReadable() throws {
        let pkg = try LNotePackage.open(at: samplePackage("images"))
        let page = try pkg.loadPage(at: 0)
        var images = 0
        for element in page.elements {
            guard case .image(let placement) = element.kind else { continue }
            images += 1
            let data = try pkg.readAsset(placement.asset)
            let signature = Array(data.prefix(4))
            XCTAssertTrue(signature.starts(with: [0xFF, 0xD8]) || signature == [0x89, 0x50, 0x4E, 0x47], placement.asset)
        }
        XCTAssertEqual(images, 2)
        XCTAssertEqual(try pkg.assetFiles().count, 2)
    }
}
