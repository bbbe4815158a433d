import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
@testable import LNoteRender
import XCTest
import LNoteTestSupport

final class ThumbnailRegeneratorTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory(name)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: dir)
    }

    func regenerator(width: Int = 64, quality: Int = 80, jobs: Int = 2, force: Bool = false, verify: Bool = false) -> ThumbnailRegenerator {
        ThumbnailRegenerator(settings: ThumbnailSettings(width: width, quality: quality, force: force, jobs: jobs, verify: verify),
                             rendererVersion: "test-1")
    }

    /// Waits past the time-stamp granularity the stat index allows for (`FileStamp`), so that
    /// stamps of files written so far count as settled.
    func settle() { usleep(120_000) }

    /// Makes a temporary file of ours look left by a killed run: older than the clean-up's grace
    /// (a younger one may be another run's write in progress).
    func backdate(_ path: String) throws {
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -LNotePackage.derivedTemporaryFileGraceSeconds - 5)],
                                              ofItemAtPath: path)
    }

    /// Regenerates until the stat index vouches for every page: the first run renders, the
    /// second (after the files settled) reads, hashes and records their stamps.
    func regenerateUntilTrusted(_ pkg: PackageBuilder, pages: Int = 3) throws {
        _ = regenerator().regenerate(paths: [dir])
        settle()
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].trustedByStat, 0)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, pages, "\(report.failures)")
        XCTAssertEqual(report.rendered, 0)
    }

    /// Writes `bytes` into the existing file in place (same inode), then puts its modification
    /// time back: only the size, inode and mtime a careless stat check looks at stay the same.
    func overwriteInPlaceKeepingModificationTime(_ path: String, _ bytes: [UInt8]) throws {
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(Int(st.st_size), bytes.count, "the edit must keep the size")
        let fd = open(path, O_WRONLY | O_TRUNC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, bytes.count)
        close(fd)
        var times = [st.st_atim, st.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
        var after = stat()
        stat(path, &after)
        XCTAssertEqual(after.st_ino, st.st_ino)
        XCTAssertEqual(after.st_size, st.st_size)
        XCTAssertEqual(after.st_mtim.tv_sec, st.st_mtim.tv_sec)
        XCTAssertEqual(after.st_mtim.tv_nsec, st.st_mtim.tv_nsec)
    }

    func testFirstRunRendersEveryPageWritesTheManifestAfterTheCover() throws {
        let pkg = try PackageBuilder.make(in: dir)
        let report = regenerator().regenerate(paths: [pkg.path])
        XCTAssertEqual(report.count, 1)
        XCTAssertEqual(report[0].rendered, 3)
        XCTAssertEqual(report[0].failed, 0)
        XCTAssertEqual(report[0].manifest, .written)
        for page in 0..<3 {
            let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: pkg.thumbnailPath(page)))
            let image = try ImageDecoder.decode([UInt8](jpeg))
            XCTAssertEqual(image.width, 64)
            XCTAssertEqual(image.height, 92)  // 64 / 834 pt × 1194 pt = 91.6
        }
        let manifest = try Manifest.parse([UInt8](FileManager.default.contents(atPath: pkg.path + "/manifest.json")!))
        XCTAssertEqual(manifest.pageCount, 3)
        XCTAssertEqual(manifest.cover, "thumbnails/\(pkg.pageIDs[0]).jpg")
        XCTAssertEqual(manifest.title, "Test notes")
    }

    func testSecondRunWithNothingChangedRendersAndWritesNothing() throws {
        let pkg = try PackageBuilder.make(in: dir)
        _ = regenerator().regenerate(paths: [dir])
        let before = (0..<3).map { PackageBuilder.modificationStamp(pkg.thumbnailPath($0)) }
            + [PackageBuilder.modificationStamp(pkg.path + "/manifest.json")]
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].rendered, 0)
        XCTAssertEqual(report[0].upToDate, 3)
        XCTAssertEqual(report[0].manifest, .unchanged)
        let after = (0..<3).map { PackageBuilder.modificationStamp(pkg.thumbnailPath($0)) }
            + [PackageBuilder.modificationStamp(pkg.path + "/manifest.json")]
        XCTAssertEqual(before, after, "an up-to-date run rewrote a file")
    }

    func testOnlyTheChangedPageIsRenderedAgain() throws {
        let pkg = try PackageBuilder.make(in: dir)
        _ = regenerator().regenerate(paths: [dir])
        // Content of page 2 changes; a journal appears on page 3.
        try pkg.writeContent(page: 1, elements: [PackageBuilder.stroke(index: 1), PackageBuilder.stroke(index: 5)])
        try pkg.appendJournal(page: 2, frames: Journal.addFrame(PackageBuilder.stroke(index: 7)))
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].rendered, 2)
        XCTAssertEqual(report[0].upToDate, 1)
        // Appending again to the journal is a change too (modification time alone is not trusted).
        try pkg.appendJournal(page: 2, frames: Journal.deleteFrame(id: PackageBuilder.stroke(index: 7).id!))
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1)
    }

    func testSameSizeSameTimeContentChangeIsStillNoticed() throws {
        let pkg = try PackageBuilder.make(in: dir)
        _ = regenerator().regenerate(paths: [dir])
        // Rewrite page 1 with a different colour of the same length and restore the old mtime.
        var st = stat()
        stat(pkg.contentPath(0), &st)
        try pkg.writeContent(page: 0, elements: [PackageBuilder.stroke(index: 0, color: Color(r: 0xAA, g: 0, b: 0))])
        var times = [st.st_atim, st.st_mtim]
        utimensat(AT_FDCWD, pkg.contentPath(0), &times, 0)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1)
    }

    func testDocumentEntrySettingsAndRendererVersionAreInputs() throws {
        let pkg = try PackageBuilder.make(in: dir)
        _ = regenerator().regenerate(paths: [dir])
        try pkg.writeDocument(background: ##"{"color":"#FFFFFF","template":"grid"}"##)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 3, "background change")
        XCTAssertEqual(regenerator(quality: 60).regenerate(paths: [dir])[0].rendered, 3, "quality change")
        let other = ThumbnailRegenerator(settings: ThumbnailSettings(width: 64, quality: 60, jobs: 1), rendererVersion: "test-2")
        XCTAssertEqual(other.regenerate(paths: [dir])[0].rendered, 3, "renderer version change")
        XCTAssertEqual(other.regenerate(paths: [dir])[0].rendered, 0)
        XCTAssertEqual(regenerator(quality: 60, force: true).regenerate(paths: [dir])[0].rendered, 3, "--force")
    }

    func testAnAssetChangeRerendersOnlyThePagesShowingIt() throws {
        let pkg = try PackageBuilder.make(in: dir)
        let assetName = "D1A6F4C3-1111-4222-8333-444455556666.png"
        try FileManager.default.createDirectory(atPath: pkg.path + "/assets", withIntermediateDirectories: true)
        func writeAsset(_ grey: UInt8) throws {
            let png = try PNGEncoder.encode(Bitmap(width: 8, height: 8, fill: grey))
            try AtomicFile.write(png, toPath: pkg.path + "/assets/" + assetName)
        }
        try writeAsset(80)
        let image = Element.image(id: "B0000000-0000-4000-8000-000000000001",
                                  placement: ImagePlacement(asset: assetName, x: 500, y: 500, width: 3000, height: 3000))
        try pkg.writeContent(page: 1, elements: [image])
        _ = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 0)
        try writeAsset(200)
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].rendered, 1)
        XCTAssertEqual(report[0].upToDate, 2)
    }

    /// About 80 bytes of fingerprint per asset used to overflow the 65,533-byte JPEG comment from
    /// 819 distinct assets on: such a page never got a thumbnail, and as page 1 no manifest.
    func testAPageShowingAThousandAssetsGetsABoundedFingerprintThatStillSeesEachAsset() throws {
        let pkg = try PackageBuilder.make(in: dir, pages: 1)
        try FileManager.default.createDirectory(atPath: pkg.path + "/assets", withIntermediateDirectories: true)
        func assetName(_ i: Int) -> String { String(format: "A55E7000-0000-4000-8000-%012d.png", i) }
        func writeAsset(_ i: Int, grey: UInt8) throws {
            let png = try PNGEncoder.encode(Bitmap(width: 1, height: 1, fill: grey))
            try Data(png).write(to: URL(fileURLWithPath: pkg.path + "/assets/" + assetName(i)))
        }
        var elements: [Element] = []
        for i in 0..<1000 {
            try writeAsset(i, grey: UInt8(i % 256))
            let frame = ImagePlacement(asset: assetName(i), x: Int32(i % 40) * 200, y: Int32(i / 40) * 200, width: 150, height: 150)
            elements.append(Element.image(id: String(format: "B0000000-0000-4000-8000-%012d", i), placement: frame))
        }
        try pkg.writeContent(page: 0, elements: elements)
        var report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].rendered, 1, "\(report[0].failures)")
        XCTAssertEqual(report[0].failed, 0)
        XCTAssertEqual(report[0].manifest, .written)
        let jpeg = try XCTUnwrap(FileManager.default.contents(atPath: pkg.thumbnailPath(0)))
        let comment = try XCTUnwrap(JPEGCodec.readComment([UInt8](jpeg)))
        XCTAssertLessThan(comment.count, 200)
        guard case .digest(let count, _)? = Fingerprint(text: String(decoding: comment, as: UTF8.self))?.assets else {
            return XCTFail("no asset digest in \(String(decoding: comment, as: UTF8.self))")
        }
        XCTAssertEqual(count, 1000)
        // Up to date when nothing changed; stale when any one asset changes.
        report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].upToDate, 1)
        try writeAsset(517, grey: 3)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].upToDate, 1)
    }

    func testDeletedPagesLoseTheirThumbnailsAndStrayTemporaryFilesGo() throws {
        let pkg = try PackageBuilder.make(in: dir)
        _ = regenerator().regenerate(paths: [dir])
        try pkg.writeDocument(pageIDs: Array(pkg.pageIDs.prefix(2)))
        let strayThumb = pkg.path + "/thumbnails/.\(pkg.pageIDs[0]).jpg.tmp-crash"
        XCTAssertTrue(FileManager.default.createFile(atPath: strayThumb, contents: Data([1, 2, 3])))
        try backdate(strayThumb)
        // Another run's thumbnail write in progress: young, so left to it.
        let otherRunsThumb = pkg.path + "/thumbnails/.\(pkg.pageIDs[1]).jpg.tmp-other-run"
        XCTAssertTrue(FileManager.default.createFile(atPath: otherRunsThumb, contents: Data([1, 2, 3])))
        let freshSourceTemp = pkg.path + "/pages/.\(pkg.pageIDs[0]).content.tmp-app-writing"
        XCTAssertTrue(FileManager.default.createFile(atPath: freshSourceTemp, contents: Data([1])))
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].removed, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pkg.thumbnailPath(2)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: strayThumb))
        XCTAssertTrue(FileManager.default.fileExists(atPath: otherRunsThumb), "a young thumbnail temp file may be another run's write")
        XCTAssertTrue(FileManager.default.fileExists(atPath: freshSourceTemp), "a fresh source temp file may be a live write")
        let manifest = try Manifest.parse([UInt8](FileManager.default.contents(atPath: pkg.path + "/manifest.json")!))
        XCTAssertEqual(manifest.pageCount, 2)
    }

    func testABrokenPageIsReportedAndTheOthersComplete() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try AtomicFile.write(Array("{\"format\":1,\"elements\":[".utf8), toPath: pkg.contentPath(1))
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].rendered, 2)
        XCTAssertEqual(report[0].failed, 1)
        XCTAssertTrue(report[0].failures[0].description.contains("pages/\(pkg.pageIDs[1]).content"), "\(report[0].failures[0])")
        XCTAssertEqual(report[0].failures[0].page, 2, "the failure names its page")
        XCTAssertEqual(report[0].failures[0].pageID, pkg.pageIDs[1])
        XCTAssertFalse(report[0].succeeded)
    }

    func testTheManifestWaitsForItsCover() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try FileManager.default.removeItem(atPath: pkg.contentPath(0))
        let report = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(report[0].manifest, .skippedNoCover)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pkg.path + "/manifest.json"))
    }

    func testABrokenDocumentDoesNotStopTheLibrary() throws {
        _ = try PackageBuilder.make(in: dir)
        let broken = dir + "/00000000-0000-4000-8000-000000000000.lnote"
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: broken + "/document.json", contents: Data("{".utf8)))
        let reports = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(reports.count, 2)
        XCTAssertEqual(reports.filter { $0.succeeded }.count, 1)
        XCTAssertTrue(reports.contains { $0.failures.first?.description.contains("document.json") == true })
    }

    func testOutputIsIdenticalWhateverTheThreadCount() throws {
        let pkg = try PackageBuilder.make(in: dir, pages: 6)
        _ = regenerator(jobs: 1).regenerate(paths: [dir])
        let one = pkg.snapshotFiles()
        _ = regenerator(jobs: 4, force: true).regenerate(paths: [dir])
        XCTAssertEqual(one, pkg.snapshotFiles())
    }

    // MARK: the stat index

    func testANoOpRunTrustsSettledStampsAndWritesNothing() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        let index = try XCTUnwrap(StatIndex.load(try LNotePackage.open(at: URL(fileURLWithPath: pkg.path))))
        XCTAssertEqual(index.pages.count, 3)
        // Its text reads back as itself; anything torn or altered reads as no index at all.
        let text = Array(index.text.utf8)
        XCTAssertEqual(StatIndex(bytes: text), index)
        XCTAssertNil(StatIndex(bytes: Array(text.dropLast())))
        XCTAssertNil(StatIndex(bytes: Array(text.prefix(text.count / 2))))
        XCTAssertNil(StatIndex(bytes: Array(index.text.replacingOccurrences(of: "lnote-render-stat-index 3", with: "lnote-render-stat-index 4").utf8)))
        // Versions 1 and 2 hold hashes of the hash before XXH3-128: not read, whole or without
        // the document line (version 1).
        XCTAssertNil(StatIndex(bytes: Array(index.text.replacingOccurrences(of: "lnote-render-stat-index 3", with: "lnote-render-stat-index 2").utf8)))
        let version1 = index.text.replacingOccurrences(of: "lnote-render-stat-index 3", with: "lnote-render-stat-index 1")
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("document ") }.joined(separator: "\n")
        XCTAssertNil(StatIndex(bytes: Array(version1.utf8)))
        XCTAssertEqual(index.documentRecord?.title, "Test notes")
        XCTAssertEqual(index.documentRecord?.pageSlots, 3)
        XCTAssertNil(StatIndex(bytes: Array(index.text.replacingOccurrences(of: ":", with: ";").utf8)))
        let before = PackageBuilder.modificationStamp(pkg.path + "/" + StatIndex.relativePath)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, 3)
        XCTAssertEqual(report.upToDate, 3)
        XCTAssertEqual(report.manifest, .unchanged)
        XCTAssertEqual(PackageBuilder.modificationStamp(pkg.path + "/" + StatIndex.relativePath), before, "an unchanged index was rewritten")
    }

    func testAnEditThatKeepsSizeAndModificationTimeIsFound() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        let edited = ContentWriter.snapshot([PackageBuilder.stroke(index: 1, color: Color(r: 0xAA, g: 0x1A, b: 0x8A))])
        try overwriteInPlaceKeepingModificationTime(pkg.contentPath(1), edited)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.rendered, 1)
        XCTAssertEqual(report.trustedByStat, 2)
    }

    func testACopiedInPackageWithOldModificationTimesIsFound() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        let files = FileManager.default
        func mtime(_ path: String) -> timespec { var st = stat(); stat(path, &st); return st.st_mtim }
        let contentTimes = (0..<3).map { mtime(pkg.contentPath($0)) }
        let documentTime = mtime(pkg.path + "/document.json")
        // The same document edited elsewhere (each page's stroke in another colour of the same
        // length), with its old thumbnails and stat index, copied in over it as `cp -a` or
        // `rsync -a` would: files replaced, modification times kept.
        let other = try temporaryDirectory(name + "-other")
        defer { try? files.removeItem(atPath: other) }
        let v2 = try PackageBuilder.make(in: other)
        for page in 0..<3 { try v2.writeContent(page: page, elements: [PackageBuilder.stroke(index: page, color: Color(r: 0x20, g: 0x90, b: 0x30))]) }
        try files.copyItem(atPath: pkg.path + "/thumbnails", toPath: v2.path + "/thumbnails")
        try files.removeItem(atPath: pkg.path)
        try files.copyItem(atPath: v2.path, toPath: pkg.path)
        for page in 0..<3 {
            XCTAssertEqual(files.contents(atPath: pkg.contentPath(page))?.count, files.contents(atPath: v2.contentPath(page))?.count)
            var times = [contentTimes[page], contentTimes[page]]
            XCTAssertEqual(utimensat(AT_FDCWD, pkg.contentPath(page), &times, 0), 0)
        }
        var times = [documentTime, documentTime]
        utimensat(AT_FDCWD, pkg.path + "/document.json", &times, 0)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.rendered, 3, "\(report.failures)")
        XCTAssertEqual(report.trustedByStat, 0)
    }

    func testAStampTakenWithinTheGranularityOfAChangeIsNotRecorded() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        // Edited just before a run: the run reads and hashes it, and records no stamp for it,
        // since a second edit within the same clock tick would leave the stamp as it is.
        try pkg.writeContent(page: 2, elements: [PackageBuilder.stroke(index: 2), PackageBuilder.stroke(index: 4)])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, 2)
        let index = try XCTUnwrap(StatIndex.load(try LNotePackage.open(at: URL(fileURLWithPath: pkg.path))))
        XCTAssertNil(index.pages[pkg.pageIDs[2]])
        settle()
        _ = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].trustedByStat, 3)

        let granularity: Int64 = 50_000_000
        let stamp = FileStamp(device: 1, inode: 2, mode: 0o100644, size: 3, mtimeNs: 10_000_000_001, ctimeNs: 10_000_000_001)
        XCTAssertFalse(stamp.isSettled(at: stamp.ctimeNs))
        XCTAssertFalse(stamp.isSettled(at: stamp.ctimeNs + granularity))
        XCTAssertTrue(stamp.isSettled(at: stamp.ctimeNs + granularity + 1))
        XCTAssertFalse(stamp.isSettled(at: stamp.ctimeNs - 1), "a time in the future is never settled")
        let wholeSeconds = FileStamp(device: 1, inode: 2, mode: 0o100644, size: 3, mtimeNs: 10_000_000_000, ctimeNs: 10_000_000_000)
        XCTAssertFalse(wholeSeconds.isSettled(at: 11_900_000_000), "a file system of whole seconds needs two")
        XCTAssertTrue(wholeSeconds.isSettled(at: 12_000_000_001))
        XCTAssertEqual(FileStamp(Substring(stamp.description)), stamp)
    }

    func testAJournalThatAppearsOrGrowsAndAnAssetThatChangesAreFound() throws {
        let pkg = try PackageBuilder.make(in: dir)
        let assetName = "D1A6F4C3-1111-4222-8333-444455556666.png"
        try FileManager.default.createDirectory(atPath: pkg.path + "/assets", withIntermediateDirectories: true)
        func writeAsset(_ grey: UInt8) throws {
            try AtomicFile.write(try PNGEncoder.encode(Bitmap(width: 8, height: 8, fill: grey)), toPath: pkg.path + "/assets/" + assetName)
        }
        try writeAsset(80)
        let image = Element.image(id: "B0000000-0000-4000-8000-000000000001",
                                  placement: ImagePlacement(asset: assetName, x: 500, y: 500, width: 3000, height: 3000))
        try pkg.writeContent(page: 0, elements: [PackageBuilder.stroke(index: 0), image])
        try regenerateUntilTrusted(pkg)
        try pkg.appendJournal(page: 1, frames: Journal.addFrame(PackageBuilder.stroke(index: 7)))
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1, "a journal that appeared")
        settle()
        _ = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].trustedByStat, 3)
        try pkg.appendJournal(page: 1, frames: Journal.deleteFrame(id: PackageBuilder.stroke(index: 7).id!))
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1, "a journal that grew")
        settle()
        _ = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].trustedByStat, 3)
        try writeAsset(200)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.rendered, 1, "an asset that changed")
        XCTAssertEqual(report.trustedByStat, 2)
    }

    func testVerifyHashesEveryInputAndAnUnreadableIndexIsIgnored() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        var report = regenerator(verify: true).regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, 0)
        XCTAssertEqual(report.upToDate, 3)
        try AtomicFile.write(Array("lnote-render-stat-index 1\npages-dir garbage\n".utf8), toPath: pkg.path + "/" + StatIndex.relativePath)
        report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, 0)
        XCTAssertEqual(report.upToDate, 3)
        XCTAssertTrue(report.succeeded)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].trustedByStat, 3, "the index was rebuilt")
        // gc and check leave the index alone: it is not a thumbnail of any page.
        XCTAssertTrue(try GarbageCollector.plan(try LNotePackage.open(at: URL(fileURLWithPath: pkg.path))).all.isEmpty)
    }

    func testUnderATrustedIndexTheManifestAndStrayTemporaryFilesAreStillLookedAfter() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        settle()
        _ = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].manifest, .unchanged)
        // A manifest edited in place, same size and mtime: rewritten.
        let manifestPath = pkg.path + "/manifest.json"
        let manifest = try XCTUnwrap(FileManager.default.contents(atPath: manifestPath))
        let edited = Array(String(decoding: manifest, as: UTF8.self).replacingOccurrences(of: "Test notes", with: "Best notes").utf8)
        try overwriteInPlaceKeepingModificationTime(manifestPath, edited)
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].manifest, .written)
        XCTAssertEqual(try Manifest.parse([UInt8](FileManager.default.contents(atPath: manifestPath)!)).title, "Test notes")
        settle()
        _ = regenerator().regenerate(paths: [dir])
        // An old temporary file left in pages/ (an interrupted save an hour ago), and one of ours.
        let stale = pkg.path + "/pages/.\(pkg.pageIDs[0]).content.tmp-crashed"
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data([1])))
        let old = timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)
        var times = [old, old]
        utimensat(AT_FDCWD, stale, &times, 0)
        let ours = pkg.path + "/thumbnails/.\(pkg.pageIDs[1]).jpg.tmp-crashed"
        XCTAssertTrue(FileManager.default.createFile(atPath: ours, contents: Data([1])))
        try backdate(ours)
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.removed, 2)
        XCTAssertEqual(report.trustedByStat, 3)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertFalse(FileManager.default.fileExists(atPath: ours))
    }

    // MARK: the trusted path

    func testTheTrustedPathVouchesForAnUnchangedDocumentWithoutParsingIt() throws {
        let pkg = try PackageBuilder.make(in: dir)
        try regenerateUntilTrusted(pkg)
        settle()
        _ = regenerator().regenerate(paths: [dir])  // the manifest's agreement recorded too
        let trusted = try XCTUnwrap(regenerator().trustedDocuments([pkg.path])[0], "the trusted path vouches for it")
        XCTAssertEqual(trusted.upToDate, 3)
        XCTAssertEqual(trusted.trustedByStat, 3)
        XCTAssertEqual(trusted.title, "Test notes")
        XCTAssertEqual(trusted.manifest, .unchanged)
        XCTAssertEqual(trusted.path, pkg.path)
        let document = pkg.path + "/document.json"
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: document))
        XCTAssertNil(regenerator(width: 65).trustedDocuments([pkg.path])[0], "other settings: other entry keys")
        XCTAssertEqual(regenerator(verify: true).regenerate(paths: [dir])[0].trustedByStat, 0, "--verify trusts nothing")
        XCTAssertTrue(FileManager.default.createFile(atPath: document, contents: bytes))
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "document.json rewritten")
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.trustedByStat, 3, "its pages are still trusted by their stamps")
        XCTAssertEqual(report.rendered, 0)
    }

    func testTheTrustedPathLeavesAnythingNotAsRecordedToTheFullRun() throws {
        let pkg = try PackageBuilder.make(in: dir)
        func trustAgain() throws {
            settle()
            _ = regenerator().regenerate(paths: [dir])
            settle()
            _ = regenerator().regenerate(paths: [dir])
            XCTAssertNotNil(regenerator().trustedDocuments([pkg.path])[0], "trusted again")
        }
        try regenerateUntilTrusted(pkg)
        try trustAgain()
        let files = FileManager.default
        // A thumbnail of no page (an orphan the clean-up removes).
        let orphan = pkg.path + "/thumbnails/D0A80101-0000-4000-8000-0000000000FF.jpg"
        try files.copyItem(atPath: pkg.thumbnailPath(0), toPath: orphan)
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "an orphan thumbnail")
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].removed, 1)
        XCTAssertFalse(files.fileExists(atPath: orphan))
        try trustAgain()
        // A temporary file of ours, left by a killed run.
        let stray = pkg.path + "/thumbnails/.\(pkg.pageIDs[1]).jpg.tmp-killed"
        XCTAssertTrue(files.createFile(atPath: stray, contents: Data([1])))
        try backdate(stray)
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "a temporary file in thumbnails/")
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].removed, 1)
        try trustAgain()
        // A journal that appears, a thumbnail replaced, a manifest rewritten.
        try pkg.appendJournal(page: 2, frames: Journal.addFrame(PackageBuilder.stroke(index: 5)))
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "a journal appeared")
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 1)
        try trustAgain()
        let thumbnail = try XCTUnwrap(files.contents(atPath: pkg.thumbnailPath(1)))
        XCTAssertTrue(files.createFile(atPath: pkg.thumbnailPath(1), contents: thumbnail))
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "a thumbnail rewritten")
        try trustAgain()
        let manifest = try XCTUnwrap(files.contents(atPath: pkg.path + "/manifest.json"))
        XCTAssertTrue(files.createFile(atPath: pkg.path + "/manifest.json", contents: manifest))
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "the manifest rewritten")
        try trustAgain()
        // A page added to document.json: parsed again, the new page rendered.
        try pkg.writeDocument(pageIDs: Array(pkg.pageIDs.prefix(2)))
        XCTAssertNil(regenerator().trustedDocuments([pkg.path])[0], "document.json changed")
        let report = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(report.removed, 1, "the dropped page's thumbnail")
        XCTAssertEqual(report.trustedByStat, 2)
    }

    func testALibraryIsCheckedAlikeOnOneThreadAndOnThePool() throws {
        var packages: [String] = []
        for k in 0..<6 {
            let sub = dir + "/lib\(k)"
            try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
            packages.append(try PackageBuilder.make(in: sub, pages: 1 + k % 3).path)
        }
        settle()
        let first = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(first.reduce(0) { $0 + $1.rendered }, 12)
        settle()
        // Rendered from settled sources: recorded at once, so the next run hashes nothing.
        let second = regenerator().regenerate(paths: [dir])
        XCTAssertEqual(second.reduce(0) { $0 + $1.trustedByStat }, 12, "\(second.map(\.failures))")
        settle()
        _ = regenerator().regenerate(paths: [dir])
        try FileManager.default.removeItem(atPath: packages[4] + "/thumbnails/" + StatIndex.fileName)
        let names = packages + ["/", dir + "/missing.lnote"]
        let serial = regenerator(jobs: 1).trustedDocuments(names, parallelMinimum: 1)
        let pooled = regenerator(jobs: 3).trustedDocuments(names, parallelMinimum: 1)
        XCTAssertEqual(serial.map { $0 != nil }, [true, true, true, true, false, true, false, false])
        XCTAssertEqual(serial.map { $0?.upToDate }, pooled.map { $0?.upToDate })
        XCTAssertEqual(serial.map { $0?.path }, pooled.map { $0?.path })
    }

    func testAFreshlyRenderedPageIsRecordedWithTheStampsItWasRenderedFrom() throws {
        let pkg = try PackageBuilder.make(in: dir)
        settle()
        XCTAssertEqual(regenerator().regenerate(paths: [dir])[0].rendered, 3)
        let index = try XCTUnwrap(StatIndex.load(try LNotePackage.open(at: URL(fileURLWithPath: pkg.path))))
        XCTAssertEqual(index.pages.count, 3)
        for (k, id) in pkg.pageIDs.enumerated() {
            var st = stat()
            XCTAssertEqual(lstat(pkg.thumbnailPath(k), &st), 0)
            XCTAssertEqual(index.pages[id]?.thumbnail, FileStamp(st), "the thumbnail as written")
            XCTAssertEqual(lstat(pkg.contentPath(k), &st), 0)
            XCTAssertEqual(index.pages[id]?.content, FileStamp(st))
        }
        let next = regenerator().regenerate(paths: [dir])[0]
        XCTAssertEqual(next.trustedByStat, 3, "not hashed again")
        XCTAssertEqual(next.rendered, 0)
    }

    func testFingerprintTextRoundTrips() {
        let f = Fingerprint(inputs: "abc123", assets: [.init(name: "x.png", hash: "missing"), .init(name: "y.jpg", hash: "00ff")])
        XCTAssertEqual(Fingerprint(text: f.text), f)
        var withSettings = f
        withSettings.settings = "w200 q80"
        XCTAssertEqual(Fingerprint(text: withSettings.text), withSettings)
        XCTAssertEqual(withSettings.text.split(separator: "\n")[2], "settings w200 q80")
        XCTAssertNil(Fingerprint(text: "something else"))
        // Past a few KB of asset lines, one digest line stands for them all, in order.
        let many = (0..<60).map { Fingerprint.Asset(name: String(format: "A55E7000-0000-4000-8000-%012d.png", $0), hash: ContentHasher.hash([UInt8($0)])) }
        let digest = Fingerprint(inputs: "abc123", assets: many)
        XCTAssertEqual(Fingerprint(text: digest.text), digest)
        XCTAssertEqual(digest.text.split(separator: "\n").count, 3)
        XCTAssertNotEqual(Fingerprint(inputs: "abc123", assets: many.dropLast() + [.init(name: many[59].name, hash: ContentHasher.hash([0]))]), digest)
        XCTAssertNotEqual(Fingerprint(inputs: "abc123", assets: Array(many.reversed())), digest)
        XCTAssertEqual(Fingerprint(inputs: "abc123", assets: Array(many.prefix(50))).text.split(separator: "\n").count, 52)
        XCTAssertNotEqual(ContentHasher.hash([1, 2, 3]), ContentHasher.hash([1, 2, 3, 0]))
        XCTAssertEqual(ContentHasher.hash(Array("same".utf8)), ContentHasher.hash(Array("same".utf8)))
    }
}

/// The stat index is package data: its numbers are refused, never trapped on, when they do not fit.
final class StatIndexNumberTests: XCTestCase {
    private func integer(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { StatIndex.integer($0, 0..<bytes.count) }
    }

    func testIntegersInRangeAreReadAndOverflowingOnesRefused() {
        XCTAssertEqual(integer("0"), 0)
        XCTAssertEqual(integer("-42"), -42)
        XCTAssertEqual(integer("9223372036854775807"), Int64.max)
        XCTAssertNil(integer("9223372036854775808"))
        XCTAssertNil(integer("9999999999999999999"))
        XCTAssertNil(integer("-"))
        XCTAssertNil(integer("12a"))
        XCTAssertNil(integer(""))
    }
}
