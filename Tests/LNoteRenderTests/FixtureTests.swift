// The committed `features` fixture is complete as it is: the golden tests read it and never run
// lnote-gen. Its digest is recorded next to the goldens, so a regenerated (changed) fixture is
// reported as such instead of as eight puzzling golden mismatches.

import Foundation
import XCTest
import LNoteFormat

final class FixtureTests: XCTestCase {
    static var fixtureDirectory: URL { RepoPaths.fixtures.appendingPathComponent("features") }
    static var digestFile: URL { RepoPaths.goldenImages.appendingPathComponent("features-fixture.digest") }

    func testFeaturesFixtureIsCommittedAndComplete() throws {
        let url = try RepoPaths.package(in: Self.fixtureDirectory)
        let package = try LNotePackage.open(at: url)
        XCTAssertEqual(package.document.title, "Rendering features")
        XCTAssertTrue(package.document.diagnostics.isEmpty, "\(package.document.diagnostics)")
        XCTAssertEqual(package.pages.count, FeatureGoldenTests.pages.count)
        let templates = package.pages.map { $0.entry?.background.template }
        XCTAssertEqual(templates, [.blank, .blank, .blank, .blank, .ruled, .grid, .dots, .ruled])
        for index in package.pages.indices {
            let page = try package.loadPage(at: index)
            XCTAssertFalse(page.elements.isEmpty, "page \(index + 1) has no elements")
            if index == 7 {
                // The journal page: CRC-corrupt, unknown-type and empty frames discarded, torn tail.
                let journal = try XCTUnwrap(page.journal, "page 8 must have its journal")
                XCTAssertEqual(journal.discarded.count, 3)
                XCTAssertNotNil(journal.tornTailOffset)
                XCTAssertEqual(page.diagnostics.count, 4, "\(page.diagnostics)")
            } else {
                XCTAssertNil(page.journal)
                XCTAssertTrue(page.diagnostics.isEmpty, "page \(index + 1): \(page.diagnostics)")
            }
        }
        // The images page's three assets (a JPEG photo, two PNGs) are there and readable.
        let assets = try package.assetFiles()
        XCTAssertEqual(assets.count, 3)
        for asset in assets { XCTAssertFalse(try package.readAsset(asset.name).isEmpty, asset.name) }
        // Small enough to commit.
        XCTAssertLessThan(try Self.files(in: url).reduce(0) { $0 + $1.bytes.count }, 1_000_000)
    }

    /// The fixture's bytes are the ones the goldens were recorded from.
    func testFixtureDigestMatchesTheGoldens() throws {
        let url = try RepoPaths.package(in: Self.fixtureDirectory)
        let digest = try Self.digest(of: url)
        let recorded = (try? String(contentsOf: Self.digestFile, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        if recorded == nil && GoldenEnvironment.isCI && !GoldenEnvironment.isRecording {
            XCTFail("\(Self.digestFile.path) is missing; CI=true never records it")
            return
        }
        if GoldenEnvironment.isRecording || recorded == nil {
            if recorded != digest {
                try (digest + "\n").write(to: Self.digestFile, atomically: true, encoding: .utf8)
            }
            XCTFail("RECORD MODE: fixture digest \(recorded == digest ? "unchanged" : "written") (\(digest)) "
                    + "in \(Self.digestFile.path); a recording run never passes")
            return
        }
        XCTAssertEqual(digest, recorded, """
            the features fixture changed since the goldens were recorded (was it regenerated?). \
            If on purpose, re-record and review every golden: tools/record-goldens
            """)
    }

    static func files(in root: URL) throws -> [(path: String, bytes: [UInt8])] {
        let fm = FileManager.default
        var out: [(String, [UInt8])] = []
        for sub in try fm.subpathsOfDirectory(atPath: root.path).sorted() {
            var isDir: ObjCBool = false
            let full = root.appendingPathComponent(sub).path
            guard fm.fileExists(atPath: full, isDirectory: &isDir), !isDir.boolValue else { continue }
            out.append((sub, [UInt8](try Data(contentsOf: URL(fileURLWithPath: full)))))
        }
        return out
    }

    /// FNV-1a (64-bit) over every file's relative path and bytes, in path order.
    static func digest(of root: URL) throws -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func eat(_ bytes: UnsafeBufferPointer<UInt8>) {
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        }
        for (path, bytes) in try files(in: root) {
            Array(path.utf8 + [0]).withUnsafeBufferPointer(eat)
            bytes.withUnsafeBufferPointer(eat)
            [UInt8(0)].withUnsafeBufferPointer(eat)
        }
        let hex = String(h, radix: 16)
        return "fnv1a64:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
