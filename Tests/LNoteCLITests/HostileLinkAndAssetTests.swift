// Hostile packages, continued: symbolic links and odd files in assets/ and thumbnails/, image
// assets that lie about their size or are corrupt, journals of junk, and compaction.

import Foundation
import XCTest
import LNoteCodecs
@testable import LNoteCLI
@testable import LNoteFormat
import LNoteTestSupport

final class HostileAssetTests: XCTestCase {
    /// Page 1 shows `assets/<IDs.asset>.png` (image element 1, id I0); `setUp` spoils it. The
    /// page still renders (the image is skipped with `warning`), exit 0 for export.
    @discardableResult
    func assertImageSkipped(_ warning: String, file: StaticString = #filePath, line: UInt = #line,
                            _ setUp: (HostileWorld) throws -> Void) throws -> Outcomes {
        let w = try HostileWorld(self)
        try w.makeValid()
        try setUp(w)
        let started = Date()
        let o = runAll(w, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, file: file, line: line)
        XCTAssertEqual(o.export.status, ExitStatus.success, o.export.all, file: file, line: line)
        assertContains(o.export, "warning: page 1: ", "element 1 (id I0): ", warning, "page 1 -> ", "page 2 -> ",
                       file: file, line: line)
        XCTAssertEqual(exported(w), ["page-001.png", "page-002.png"], file: file, line: line)
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all, file: file, line: line)
        XCTAssertEqual(o.info.status, ExitStatus.success, o.info.all, file: file, line: line)
        // An asset that is there but cannot be decoded fails `check` with the render's reason.
        if let range = warning.range(of: "[image] image skipped: ") {
            XCTAssertEqual(o.check.status, ExitStatus.failure, o.check.all, file: file, line: line)
            assertContains(o.check, "[image] image shows \(IDs.asset).png, which cannot be decoded: ",
                           String(warning[range.upperBound...]), file: file, line: line)
        }
        return o
    }

    let asset = "assets/\(IDs.asset).png"

    func testPNGHeaderClaiming60000x60000() throws {
        try assertImageSkipped("[image] image skipped: PNG: 60000×60000 pixels exceeds the limit of 100000000") { w in
            try w.put(self.asset, HostileImages.pngBomb(width: 60000, height: 60000))
        }
    }

    func testJPEGHeaderClaiming65000x65000() throws {
        try assertImageSkipped("[image] image skipped: JPEG: 65000×65000 pixels exceeds the limit of 100000000") { w in
            // Recognised by signature, whatever the extension says.
            try w.put(self.asset, HostileImages.jpegBomb(width: 65000, height: 65000))
        }
    }

    func testPNGJustOverOneHundredMegapixels() throws {
        try assertImageSkipped("[image] image skipped: PNG: 10001×10000 pixels exceeds the limit of 100000000") { w in
            try w.put(self.asset, HostileImages.pngBomb(width: 10001, height: 10000))
        }
    }

    func testPNGHeaderBeyondLibpngLimits() throws {
        // libpng itself refuses widths over 2^31-1 and its default user limit of 1000000.
        try assertImageSkipped("[image] image skipped: PNG header: ") { w in
            try w.put(self.asset, HostileImages.pngBomb(width: 0x8000_0000, height: 1))
        }
    }

    func testZeroSizedImages() throws {
        try assertImageSkipped("[image] image skipped: PNG header: ") { w in
            try w.put(self.asset, HostileImages.pngBomb(width: 0, height: 10))
        }
        try assertImageSkipped("[image] image skipped: JPEG header: ") { w in
            try w.put(self.asset, HostileImages.jpegBomb(width: 10, height: 0))
        }
    }

    func testCorruptPNG() throws {
        try assertImageSkipped("[image] image skipped: PNG decode: ") { w in
            var png = HostileImages.pngFile(width: 4, height: 3)
            png[png.count - 20] ^= 0xFF  // inside IDAT: the CRC no longer matches
            try w.put(self.asset, png)
        }
        try assertImageSkipped("[image] image skipped: PNG decode: ") { w in
            let png = HostileImages.pngFile(width: 4, height: 3)
            try w.put(self.asset, Array(png.prefix(png.count - 25)))  // truncated inside IDAT
        }
    }

    func testCorruptJPEG() throws {
        try assertImageSkipped("[image] image skipped: JPEG") { w in
            try w.put(self.asset, Array(HostileImages.smallJPEG.prefix(HostileImages.smallJPEG.count / 2)))
        }
        try assertImageSkipped("[image] image skipped: JPEG") { w in
            try w.put(self.asset, [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0xFF, count: 100))
        }
    }

    /// A JPEG with valid headers whose entropy-coded data stops at an early EOI (here: no Huffman
    /// tables, two bytes of data). libjpeg-turbo only warns ("premature end of data segment") and
    /// would pad the image with grey; the shim turns that warning into an error, so the image is
    /// skipped with a warning like any other unreadable asset.
    func testJPEGWithoutImageDataIsSkipped() throws {
        XCTAssertThrowsError(try ImageDecoder.decode(HostileImages.jpegBomb(width: 64, height: 64))) { error in
            XCTAssertTrue("\(error)".contains("premature end of data segment"), "\(error)")
        }
        try assertImageSkipped("[image] image skipped: JPEG decode: image data ends before the image does") { w in
            try w.put(self.asset, HostileImages.jpegBomb(width: 64, height: 64))
        }
    }

    func testAssetThatIsNoImage() throws {
        try assertImageSkipped("[image] image skipped: not a PNG or JPEG file (unknown signature)") { w in
            try w.put(self.asset, Array("GIF89a".utf8))
        }
        try assertImageSkipped("[image] image skipped: not a PNG or JPEG file (unknown signature)") { w in
            try w.put(self.asset, [])
        }
    }

    func testMissingAsset() throws {
        let o = try assertImageSkipped("assets/\(IDs.asset).png: element 1 (id I0): [missing] image skipped: the asset does not exist") { w in
            try w.remove(self.asset)
        }
        XCTAssertEqual(o.check.status, ExitStatus.failure)
        assertContains(o.check, "[missing-asset] image refers to \(IDs.asset).png, which cannot be read: the asset does not exist")
    }

    func testAssetSymlinkToOutside() throws {
        let o = try assertImageSkipped("assets/\(IDs.asset).png: element 1 (id I0): [symlink] image skipped: a symbolic link is never followed") { w in
            try w.link(self.asset, to: w.sibling + "/assets/\(IDs.asset).png")
        }
        XCTAssertEqual(o.check.status, ExitStatus.failure)
        assertContains(o.check, "[missing-asset] image refers to \(IDs.asset).png, which cannot be read: a symbolic link is never followed")
        // A case-variant name that is a link is refused too.
        try assertImageSkipped("[symlink] image skipped: a symbolic link is never followed") { w in
            try w.remove(self.asset)
            try w.link("assets/\(IDs.asset.lowercased()).png", to: "../../sibling/assets/\(IDs.asset).png")
        }
    }

    func testAssetThatIsAFIFOOrDirectory() throws {
        try assertImageSkipped("[not-regular-file] image skipped: not a regular file") { w in try w.fifo(self.asset) }
        try assertImageSkipped("[not-regular-file] image skipped: not a regular file") { w in
            try w.remove(self.asset)
            try FileManager.default.createDirectory(atPath: w.package + "/" + self.asset, withIntermediateDirectories: false)
        }
    }

    func testAssetsDirectorySymlinkToOutside() throws {
        let o = try assertImageSkipped("assets: element 1 (id I0): [symlink] image skipped: assets/ is a symbolic link, which is never followed") { w in
            try FileManager.default.removeItem(atPath: w.package + "/assets")
            try w.link("assets", to: w.sibling + "/assets")
        }
        XCTAssertEqual(o.check.status, ExitStatus.failure)
        assertContains(o.check, "[missing-asset] image refers to \(IDs.asset).png, which cannot be read: assets/ is a symbolic link")
        XCTAssertEqual(o.gc.status, ExitStatus.failure, o.gc.all)
        assertContains(o.gc, "assets: [symlink] assets/ is a symbolic link, which is never followed")
    }

    /// A symbolic-link assets/ that no page uses is still reported by check, and gc refuses.
    func testUnusedAssetsDirectorySymlinkIsReported() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try w.put("pages/\(IDs.p1).content", HostileWorld.content([HostileWorld.stroke("A")]))
        try FileManager.default.removeItem(atPath: w.package + "/assets")
        try w.link("assets", to: w.sibling + "/assets")
        let o = runAll(w)
        XCTAssertEqual(o.check.status, ExitStatus.failure, o.check.all)
        assertContains(o.check, "/assets: [symlink] assets/ is a symbolic link, which is never followed")
        XCTAssertEqual(o.gc.status, ExitStatus.failure, o.gc.all)
    }
}

final class HostileThumbnailTests: XCTestCase {
    func testThumbnailsDirectorySymlinkToOutside() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try w.link("thumbnails", to: w.sibling + "/thumbnails")
        let o = runAll(w)
        XCTAssertEqual(o.thumbnails.status, ExitStatus.failure, o.thumbnails.all)
        assertContains(o.thumbnails, "thumbnails: [symlink] thumbnails/ is a symbolic link, which is never followed",
                       "0 rendered", "2 failed")
        XCTAssertEqual(o.check.status, ExitStatus.failure, o.check.all)
        assertContains(o.check, "/thumbnails: [symlink] thumbnails/ is a symbolic link, which is never followed")
        XCTAssertEqual(o.gc.status, ExitStatus.failure, o.gc.all)
        assertContains(o.gc, "thumbnails: [symlink] thumbnails/ is a symbolic link")
        XCTAssertEqual(o.export.status, ExitStatus.success)
        XCTAssertEqual(FileIO.kind(atPath: w.package + "/manifest.json"), .missing)
    }

    /// Links where a thumbnail or the manifest goes are replaced by regular files; what they
    /// pointed at is untouched (runAll checks the sibling directory byte for byte).
    func testThumbnailAndManifestSymlinksAreReplacedNotFollowed() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try FileManager.default.createDirectory(atPath: w.package + "/thumbnails", withIntermediateDirectories: false)
        try w.link("thumbnails/\(IDs.p1).jpg", to: w.sibling + "/thumbnails/\(IDs.p1).jpg")
        try w.link("thumbnails/\(IDs.p2).jpg", to: "../../sibling/secret.txt")
        try w.link("manifest.json", to: w.sibling + "/manifest.json")
        let o = runAll(w)
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all)
        assertContains(o.thumbnails, "2 rendered", "manifest written")
        for rel in ["thumbnails/\(IDs.p1).jpg", "thumbnails/\(IDs.p2).jpg", "manifest.json"] {
            XCTAssertEqual(FileIO.kind(atPath: w.package + "/" + rel), .regular, rel)
        }
        XCTAssertEqual(o.gc.status, ExitStatus.success, o.gc.all)
    }

    /// Entries named like temporary files that are links or directories: gc and thumbnails
    /// leave them alone (they are not files an interrupted write left) instead of failing.
    func testTemporaryNamedLinksAndDirectoriesAreLeftAlone() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try FileManager.default.createDirectory(atPath: w.package + "/thumbnails", withIntermediateDirectories: false)
        try w.link("thumbnails/.\(IDs.p1).jpg.tmp-1", to: w.sibling + "/secret.txt")
        try w.link(".manifest.json.tmp-2", to: w.sibling + "/manifest.json")
        try FileManager.default.createDirectory(atPath: w.package + "/thumbnails/.x.jpg.tmp-3", withIntermediateDirectories: false)
        try w.put("thumbnails/.x.jpg.tmp-3/inside", "keep")
        // A real stray temporary file of a derived file goes (once old enough not to be another run's).
        try w.put("thumbnails/.\(IDs.p2).jpg.tmp-4", "partial")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -LNotePackage.derivedTemporaryFileGraceSeconds - 5)],
                                              ofItemAtPath: w.package + "/thumbnails/.\(IDs.p2).jpg.tmp-4")
        let o = runAll(w, allow: Allowances(gcDeletes: ["thumbnails/.\(IDs.p2).jpg.tmp-4"]))
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all)
        XCTAssertEqual(o.gc.status, ExitStatus.success, o.gc.all)
        XCTAssertEqual(FileIO.kind(atPath: w.package + "/thumbnails/.\(IDs.p1).jpg.tmp-1"), .symlink)
        XCTAssertEqual(FileIO.kind(atPath: w.package + "/.manifest.json.tmp-2"), .symlink)
        XCTAssertEqual(FileIO.kind(atPath: w.package + "/thumbnails/.x.jpg.tmp-3/inside"), .regular)
    }
}

final class HostileJournalTests: XCTestCase {
    func testJournalOfRandomBytes() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        var g = TestSeed(for: self).generator
        try w.put("pages/\(IDs.p1).journal", (0..<5000).map { _ in UInt8.random(in: 0...255, using: &g) })
        let o = runAll(w, allow: Allowances(compactRewrites: true))
        XCTAssertEqual(o.info.status, ExitStatus.success, o.info.all)
        assertContains(o.info, "journal     0 frame(s) applied")
        XCTAssertEqual(o.export.status, ExitStatus.success, o.export.all)
        assertContains(o.export, "warning: page 1: \(w.package)/pages/\(IDs.p1).journal @")
        XCTAssertEqual(exported(w), ["page-001.png", "page-002.png"])
        XCTAssertEqual(o.compact.status, ExitStatus.success, o.compact.all)
        assertContains(o.compact, "page 1: journal folded in (0 frame(s) applied")
    }

    func testJournalFramesWithHugeLengthsAndJunkTypes() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let good = Journal.encodeFrame(.add, payload: Array(HostileWorld.stroke("J").utf8))
        var journal = Journal.encodeFrame(type: 77, payload: Array("{}".utf8))       // unknown type
        journal += Journal.encodeFrame(type: 1, payload: [])                          // empty payload
        journal += Journal.encodeFrame(.add, payload: [0xFF, 0xFE])                   // not JSON
        journal += Journal.encodeFrame(.add, payload: [UInt8](repeating: 0x5B, count: 100_000))  // too deep
        journal += Journal.encodeFrame(.delete, payload: [0xC3, 0x28])               // not UTF-8
        journal += good
        journal += [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 1] + Array("{\"type\"".utf8)  // 4 GiB claimed: torn
        try w.put("pages/\(IDs.p1).journal", journal)
        let started = Date()
        let o = runAll(w, allow: Allowances(compactRewrites: true))
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertEqual(o.info.status, ExitStatus.success, o.info.all)
        assertContains(o.info, "journal     1 frame(s) applied, 5 discarded, torn tail at byte \(journal.count - 16)",
                       "[journal-type] frame discarded: unknown type 77", "[journal-empty] frame discarded: zero-length payload",
                       "[journal-payload] frame discarded: invalid payload: [json] invalid JSON at byte 0: expected a value",
                       "[journal-payload] frame discarded: invalid payload: [json] invalid JSON at byte 65: nesting deeper than 64 levels",
                       "[journal-payload] frame discarded: invalid payload: [id] the deleted id is not UTF-8 text",
                       "[journal-torn-tail] torn tail: 16 bytes at the end are an incomplete frame; replay stopped there")
        XCTAssertEqual(o.compact.status, ExitStatus.success, o.compact.all)
    }

    /// An element nested 64 levels deep is valid as a journal payload (its own JSON text) but
    /// would be 66 deep inside a snapshot: compaction must refuse, changing nothing, with a
    /// message that says so rather than blaming the content file on disk.
    func testCompactionRefusesASnapshotThatWouldBeTooDeep() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let deep = "{\"type\":\"mystery\",\"id\":\"D\",\"x\":" + String(repeating: "[", count: 63) + String(repeating: "]", count: 63) + "}"
        XCTAssertNoThrow(try JSONValue.parse(Array(deep.utf8)))
        try w.put("pages/\(IDs.p1).journal", Journal.encodeFrame(.add, payload: Array(deep.utf8)))
        let o = runAll(w)  // compaction may change nothing
        assertContains(o.info, "journal     1 frame(s) applied")
        XCTAssertEqual(o.compact.status, ExitStatus.failure, o.compact.all)
        assertContains(o.compact, "pages/\(IDs.p1).journal: [compaction-unreadable] ", "nesting deeper than 64 levels", "not compacted")
    }

    func testCompactionRefusesToDropInvalidSnapshotElements() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        try w.put("pages/\(IDs.p1).content", HostileWorld.content([HostileWorld.stroke("A", points: "1,2,3"), HostileWorld.stroke("B")]))
        try w.put("pages/\(IDs.p1).journal", Journal.encodeFrame(.delete, payload: Array("B".utf8)))
        let o = runAll(w)
        XCTAssertEqual(o.compact.status, ExitStatus.failure)
        assertContains(o.compact, "[compaction-would-drop] 1 invalid element(s) in the snapshot would be lost; not compacted")
    }
}

final class HostileManifestTests: XCTestCase {
    /// manifest.json is a cache but still untrusted: a cover pointing out of the package is
    /// reported, never looked up, and the next thumbnails run replaces the manifest.
    func testManifestCoverOutsideThePackage() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        for cover in ["../sibling/secret.txt", "/etc/passwd", "thumbnails/../../sibling/secret.txt", "thumbnails/\(IDs.p1).jpg/.."] {
            try w.put("manifest.json", "{\"format\":1,\"id\":\"\(IDs.doc)\",\"title\":\"Hostile\",\"pageCount\":2,\"cover\":\(HostileWorld.jsonString(cover))}")
            let r = CLIRun(["check", w.package])
            assertContains(r, "/manifest.json: [manifest-cover] the cover \(cover.debugDescription) is not thumbnails/<UUID>.jpg")
            XCTAssertFalse(r.all.contains("does not exist"), r.all)
        }
        let o = runAll(w)
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all)
        let manifest = try Manifest.parse(FileIO.readRegularFile(atPath: w.package + "/manifest.json", display: "m"))
        XCTAssertEqual(manifest.cover, "thumbnails/\(IDs.p1).jpg")
    }
}
