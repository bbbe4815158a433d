// The package reader and writer: lookup, path safety, symbolic links, atomic writes, compaction.

import Foundation
import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class PackageTests: XCTestCase {
    let fm = FileManager.default

    func stroke(_ id: String, x: Int32 = 1) -> Element {
        Element.stroke(id: id, color: Color(r: 0, g: 0, b: 0), points: [x, 2, 3, 4, 5])
    }

    /// A package with page1 (A, B + journal: add C, delete A) and page2 (one stroke), one asset.
    func makeStandardPackage() throws -> URL {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        return try PackageBuilder.make(in: dir.path, files: [
            "document.json": bytes(documentJSON(pages: [pageEntryJSON(IDs.p1), pageEntryJSON(IDs.p2)])),
            "pages/\(IDs.p1).content": ContentWriter.snapshot([stroke("A"), stroke("B")]),
            "pages/\(IDs.p1).journal": Journal.addFrame(stroke("C")) + Journal.deleteFrame(id: "a"),
            "pages/\(IDs.p2).content": ContentWriter.snapshot([stroke("X")]),
            "assets/\(IDs.asset).jpg": [0xFF, 0xD8, 0xFF, 0xE0],
        ]).url
    }

    func error(_ body: () throws -> Void) -> LNoteError? {
        do { try body(); return nil } catch { return error as? LNoteError }
    }

    func testOpenAndLoadPagesWithJournal() throws {
        let pkg = try LNotePackage.open(at: makeStandardPackage())
        XCTAssertEqual(pkg.pages.count, 2)
        let p1 = try pkg.loadPage(at: 0)
        XCTAssertEqual(p1.elements.map(\.id), ["B", "C"])
        XCTAssertEqual(p1.contentFile, "pages/\(IDs.p1).content")
        XCTAssertEqual(p1.journalFile, "pages/\(IDs.p1).journal")
        XCTAssertEqual(p1.journal?.appliedCount, 2)
        let p2 = try pkg.loadPage(at: 1)
        XCTAssertEqual(p2.elements.map(\.id), ["X"])
        XCTAssertNil(p2.journal)
    }

    func testTrailingSlashAndMissingPackage() throws {
        let url = try makeStandardPackage()
        XCTAssertNoThrow(try LNotePackage.open(at: URL(fileURLWithPath: url.path + "/")))
        XCTAssertEqual(error { _ = try LNotePackage.open(at: url.appendingPathComponent("nope")) }?.kind, .missing)
        try fm.removeItem(at: url.appendingPathComponent("document.json"))
        let e = error { _ = try LNotePackage.open(at: url) }
        XCTAssertEqual(e?.kind, .missing)
        XCTAssertEqual(e?.file, "document.json")
    }

    func testContentLookupExactThenCaseInsensitive() throws {
        let url = try makeStandardPackage()
        let pages = url.appendingPathComponent("pages")
        try fm.moveItem(at: pages.appendingPathComponent("\(IDs.p2).content"),
                        to: pages.appendingPathComponent("\(IDs.p2.lowercased()).content"))
        let pkg = try LNotePackage.open(at: url)
        let p2 = try pkg.loadPage(at: 1)
        XCTAssertEqual(p2.contentFile, "pages/\(IDs.p2.lowercased()).content")
        // Exact name wins over a case variant.
        try Data(ContentWriter.snapshot([])).write(to: pages.appendingPathComponent("\(IDs.p2).content"))
        XCTAssertEqual(try pkg.loadPage(at: 1).elements.count, 0)
    }

    func testMissingContentFailsOnlyThatPage() throws {
        let url = try makeStandardPackage()
        try fm.removeItem(at: url.appendingPathComponent("pages/\(IDs.p2).content"))
        let pkg = try LNotePackage.open(at: url)
        XCTAssertNoThrow(try pkg.loadPage(at: 0))
        let e = error { _ = try pkg.loadPage(at: 1) }
        XCTAssertEqual(e?.kind, .missing)
        XCTAssertEqual(e?.file, "pages/\(IDs.p2).content")
    }

    func testNonUUIDPageIdsNeverBecomePaths() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        // A file the traversal would reach if the id were used as a path.
        try Data(ContentWriter.snapshot([])).write(to: dir.appendingPathComponent("x.content"))
        let url = try PackageBuilder.make(in: dir.path, files: [
            "document.json": bytes(documentJSON(pages: [pageEntryJSON("../../x"), pageEntryJSON("/etc/passwd"),
                                                        pageEntryJSON("\\u0000\(IDs.p1.dropFirst())")])),
        ]).url
        let pkg = try LNotePackage.open(at: url)
        for i in 0..<3 {
            XCTAssertEqual(error { _ = try pkg.loadPage(at: i) }?.code.rawValue, "page-id")
        }
    }

    func testSymlinksInsideThePackageAreRefused() throws {
        let url = try makeStandardPackage()
        let outside = url.deletingLastPathComponent().appendingPathComponent("outside")
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        let secret = outside.appendingPathComponent("secret.content")
        try Data(ContentWriter.snapshot([stroke("SECRET")])).write(to: secret)

        // Content file that is a link.
        let content = url.appendingPathComponent("pages/\(IDs.p2).content")
        try fm.removeItem(at: content)
        try fm.createSymbolicLink(at: content, withDestinationURL: secret)
        var pkg = try LNotePackage.open(at: url)
        XCTAssertEqual(error { _ = try pkg.loadPage(at: 1) }?.kind, .unsafePath)
        // Also through the case-insensitive fallback.
        try fm.moveItem(at: content, to: url.appendingPathComponent("pages/\(IDs.p2.lowercased()).content"))
        XCTAssertEqual(error { _ = try pkg.loadPage(at: 1) }?.kind, .unsafePath)

        // Journal that is a link.
        let journal = url.appendingPathComponent("pages/\(IDs.p1).journal")
        try fm.removeItem(at: journal)
        try fm.createSymbolicLink(at: journal, withDestinationURL: secret)
        XCTAssertEqual(error { _ = try pkg.loadPage(at: 0) }?.kind, .unsafePath)
        try fm.removeItem(at: journal)

        // Asset that is a link, and assets/ that is a link.
        let asset = url.appendingPathComponent("assets/\(IDs.asset).png")
        try fm.createSymbolicLink(at: asset, withDestinationURL: secret)
        XCTAssertEqual(error { _ = try pkg.readAsset("\(IDs.asset).png") }?.kind, .unsafePath)
        XCTAssertEqual(try pkg.assetFiles().map(\.name), ["\(IDs.asset).jpg"])

        // document.json that is a link.
        let doc = url.appendingPathComponent("document.json")
        let realDoc = outside.appendingPathComponent("document.json")
        try fm.moveItem(at: doc, to: realDoc)
        try fm.createSymbolicLink(at: doc, withDestinationURL: realDoc)
        XCTAssertEqual(error { _ = try LNotePackage.open(at: url) }?.kind, .unsafePath)
        try fm.removeItem(at: doc)
        try fm.moveItem(at: realDoc, to: doc)
        pkg = try LNotePackage.open(at: url)

        // pages/ and assets/ that are links.
        let assets = url.appendingPathComponent("assets")
        try fm.removeItem(at: assets)
        try fm.createSymbolicLink(at: assets, withDestinationURL: outside)
        XCTAssertEqual(error { _ = try pkg.readAsset("\(IDs.asset).jpg") }?.kind, .unsafePath)
        XCTAssertEqual(error { _ = try pkg.assetFiles() }?.kind, .unsafePath)
        let pages = url.appendingPathComponent("pages")
        try fm.moveItem(at: pages, to: outside.appendingPathComponent("pages"))
        try fm.createSymbolicLink(at: pages, withDestinationURL: outside.appendingPathComponent("pages"))
        XCTAssertEqual(error { _ = try pkg.loadPage(at: 0) }?.kind, .unsafePath)

        // The package itself as a link.
        let link = url.deletingLastPathComponent().appendingPathComponent("link.lnote")
        try fm.createSymbolicLink(at: link, withDestinationURL: url)
        XCTAssertEqual(error { _ = try LNotePackage.open(at: link) }?.kind, .unsafePath)
    }

    func testAssetNamesAreCheckedBeforeAnyPathIsBuilt() throws {
        let url = try makeStandardPackage()
        let pkg = try LNotePackage.open(at: url)
        XCTAssertEqual(try pkg.readAsset("\(IDs.asset).jpg"), [0xFF, 0xD8, 0xFF, 0xE0])
        XCTAssertEqual(try pkg.resolveAsset("\(IDs.asset.lowercased()).JPG"), "assets/\(IDs.asset).jpg")
        for bad in ["../../etc/passwd", "/etc/passwd", "x.jpg", "\(IDs.asset).jpg\u{0}", "\u{0}\(IDs.asset).jpg",
                    "../\(IDs.asset).jpg", "assets/\(IDs.asset).jpg", "\(IDs.asset).gif", ".", "..", ""] {
            XCTAssertEqual(error { _ = try pkg.readAsset(bad) }?.kind, .unsafePath, bad)
        }
        // A directory with a valid asset name is not read.
        let other = "22222222-2222-4333-8444-555555555555.png"
        try fm.createDirectory(at: url.appendingPathComponent("assets/\(other)"), withIntermediateDirectories: false)
        XCTAssertEqual(error { _ = try pkg.readAsset(other) }?.kind, .unsafePath)
        XCTAssertEqual(error { _ = try pkg.readAsset("33333333-2222-4333-8444-555555555555.png") }?.kind, .missing)
        // Listing leaves out directories and other names.
        try Data([1]).write(to: url.appendingPathComponent("assets/notes.txt"))
        XCTAssertEqual(try pkg.assetFiles().map(\.name), ["\(IDs.asset).jpg"])
    }

    func testThumbnailsAndManifest() throws {
        let url = try makeStandardPackage()
        let pkg = try LNotePackage.open(at: url)
        try fm.removeItem(at: url.appendingPathComponent("thumbnails"))
        XCTAssertEqual(try pkg.thumbnailFiles(), [])
        try pkg.writeThumbnail([1, 2, 3], for: LNoteID(IDs.p1.lowercased())!)
        try Data([9]).write(to: url.appendingPathComponent("thumbnails/stray.png"))
        let thumbs = try pkg.thumbnailFiles()
        XCTAssertEqual(thumbs.map(\.name), ["\(IDs.p1).jpg", "stray.png"])
        XCTAssertEqual(thumbs.map(\.pageID), [LNoteID(IDs.p1), nil])
        XCTAssertEqual(error { _ = try pkg.readManifest() }?.kind, .missing)
        let m = Manifest(document: pkg.document)
        try pkg.writeManifest(m)
        XCTAssertEqual(try pkg.readManifest(), m)
        XCTAssertEqual(m.cover, "thumbnails/\(IDs.p1).jpg")
        XCTAssertTrue(pkg.strayTemporaryFiles().isEmpty)
    }

    /// A package directory swapped for a symbolic link after the package was checked (the window
    /// between lstat and the write) is refused at write and delete time, and nothing appears at
    /// the link's target; outside packages (export directories) a linked directory is fine.
    func testPackageWritesRefuseADirectorySwappedForALink() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let outside = dir.appendingPathComponent("outside").path
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let linked = dir.appendingPathComponent("thumbnails").path
        try fm.createSymbolicLink(atPath: linked, withDestinationPath: outside)
        XCTAssertEqual(error { try AtomicFile.write(bytes("x"), relative: "thumbnails/page.jpg", under: dir.path) }?.kind,
                       .unsafePath)
        XCTAssertEqual(FileIO.listDirectory(atPath: outside), [])
        try AtomicFile.write(bytes("victim"), toPath: outside + "/page.jpg")
        XCTAssertEqual(error { try FileIO.removeFile(relative: "thumbnails/page.jpg", under: dir.path, display: "thumbnails/page.jpg") }?.kind,
                       .unsafePath)
        XCTAssertEqual(try FileIO.readRegularFile(atPath: outside + "/page.jpg", display: "o"), bytes("victim"))
        // Not inside a package: the link is followed, as for an export directory.
        try AtomicFile.write(bytes("export"), toPath: linked + "/export.png")
        XCTAssertEqual(try FileIO.readRegularFile(atPath: outside + "/export.png", display: "o"), bytes("export"))
        // Deleting through a real directory works and refuses what is not a regular file.
        try FileIO.removeFile(relative: "page.jpg", under: outside, display: "page.jpg")
        XCTAssertEqual(FileIO.listDirectory(atPath: outside), ["export.png"])
        XCTAssertEqual(error { try FileIO.removeFile(relative: "page.jpg", under: outside, display: "page.jpg") }?.kind, .missing)
        // A package swapped for a link is refused for a write into one of its directories too.
        let linkedPackage = dir.appendingPathComponent("linked.lnote").path
        try fm.createSymbolicLink(atPath: linkedPackage, withDestinationPath: dir.path)
        XCTAssertEqual(error { try AtomicFile.write(bytes("x"), relative: "outside/new.jpg", under: linkedPackage) }?.kind,
                       .unsafePath)
        XCTAssertFalse(fm.fileExists(atPath: outside + "/new.jpg"))
    }

    /// Package reads open every directory below the package with O_NOFOLLOW through its
    /// parent's descriptor: a directory swapped for a link after the checks (or the package
    /// itself) is refused, so no bytes from outside the package are read.
    func testPackageReadsRefuseADirectorySwappedForALink() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let package = dir.appendingPathComponent("doc.lnote").path
        let outside = dir.appendingPathComponent("outside").path
        try fm.createDirectory(atPath: package, withIntermediateDirectories: true)
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try AtomicFile.write(bytes("secret"), toPath: outside + "/a.jpg")
        func read(_ relative: String, under root: String = package) throws(LNoteError) -> [UInt8] {
            try FileIO.readRegularFile(relative: relative, under: root, display: relative)
        }
        try fm.createSymbolicLink(atPath: package + "/assets", withDestinationPath: outside)
        XCTAssertEqual(error { _ = try read("assets/a.jpg") }?.code.rawValue, "symlink")
        XCTAssertEqual(error { _ = try read("assets/a.jpg") }?.kind, .unsafePath)
        // Listing goes through the same walk: the link's target is never listed.
        XCTAssertEqual(error { _ = try FileIO.entries(of: "assets", under: package, display: "assets") }?.kind, .unsafePath)
        XCTAssertEqual(error { _ = try FileIO.entries(of: "pages", under: package, display: "pages") }?.kind, .missing)
        // A real directory reads; a link as the last component, a file where a directory
        // should be and a missing file are refused as such.
        try fm.removeItem(atPath: package + "/assets")
        try fm.createDirectory(atPath: package + "/assets", withIntermediateDirectories: false)
        try AtomicFile.write(bytes("mine"), toPath: package + "/assets/a.jpg")
        XCTAssertEqual(try read("assets/a.jpg"), bytes("mine"))
        try fm.createSymbolicLink(atPath: package + "/assets/b.jpg", withDestinationPath: outside + "/a.jpg")
        XCTAssertEqual(try FileIO.entries(of: "assets", under: package, display: "assets"),
                       [.init(name: "a.jpg", kind: .regular), .init(name: "b.jpg", kind: .symlink)])
        XCTAssertEqual(error { _ = try read("assets/b.jpg") }?.kind, .unsafePath)
        XCTAssertEqual(error { _ = try read("assets/a.jpg/x") }?.kind, .unsafePath)
        XCTAssertEqual(error { _ = try read("assets/c.jpg") }?.kind, .missing)
        // The package itself swapped for a link.
        let linkedPackage = dir.appendingPathComponent("linked.lnote").path
        try fm.createSymbolicLink(atPath: linkedPackage, withDestinationPath: package)
        XCTAssertEqual(error { _ = try read("assets/a.jpg", under: linkedPackage) }?.kind, .unsafePath)
    }

    func testAtomicWriteLeavesNoTemporaryFileAndOldFileSurvivesAFailure() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let target = dir.appendingPathComponent("file.json").path
        try AtomicFile.write(bytes("old"), toPath: target)
        XCTAssertEqual(FileIO.listDirectory(atPath: dir.path), ["file.json"])
        try AtomicFile.write(bytes("new"), toPath: target)
        XCTAssertEqual(try FileIO.readRegularFile(atPath: target, display: "f"), bytes("new"))
        XCTAssertEqual(FileIO.listDirectory(atPath: dir.path), ["file.json"])
        for stage in [AtomicFile.Stage.afterTempWrite, .beforeRename] {
            XCTAssertThrowsError(try AtomicFile.write(bytes("broken"), toPath: target, display: nil, failAt: stage))
            XCTAssertEqual(try FileIO.readRegularFile(atPath: target, display: "f"), bytes("new"))
            XCTAssertEqual(FileIO.listDirectory(atPath: dir.path), ["file.json"])
        }
        // A write into a missing directory fails cleanly.
        XCTAssertThrowsError(try AtomicFile.write(bytes("x"), toPath: dir.appendingPathComponent("no/such").path))
        // Writing over a symbolic link replaces the link, never the file it points to.
        let victim = dir.appendingPathComponent("victim").path
        try AtomicFile.write(bytes("keep"), toPath: victim)
        let link = dir.appendingPathComponent("link").path
        try fm.createSymbolicLink(atPath: link, withDestinationPath: victim)
        try AtomicFile.write(bytes("replaced"), toPath: link)
        XCTAssertEqual(try FileIO.readRegularFile(atPath: victim, display: "v"), bytes("keep"))
        XCTAssertEqual(FileIO.kind(atPath: link), .regular)
    }

    /// A replaced file keeps its permission bits, but never setuid, setgid or sticky.
    func testAtomicWriteKeepsPermissionsWithoutSpecialBits() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let target = dir.appendingPathComponent("tool").path
        try AtomicFile.write(bytes("old"), toPath: target)
        func mode() -> mode_t {
            var st = stat()
            return lstat(target, &st) == 0 ? st.st_mode & 0o7777 : 0
        }
        XCTAssertEqual(chmod(target, 0o600), 0)
        try AtomicFile.write(bytes("new"), toPath: target)
        XCTAssertEqual(mode(), 0o600, "permissions kept")
        XCTAssertEqual(chmod(target, 0o7755), 0)
        try XCTSkipUnless(mode() & 0o6000 != 0, "this file system does not keep setuid/setgid bits")
        try AtomicFile.write(bytes("newer"), toPath: target)
        XCTAssertEqual(mode(), 0o755, "setuid, setgid and sticky dropped")
        XCTAssertEqual(try FileIO.readRegularFile(atPath: target, display: "t"), bytes("newer"))
    }

    func testTemporaryFileNames() throws {
        let name = AtomicFile.temporaryName(for: "manifest.json")
        XCTAssertTrue(name.hasPrefix(".manifest.json.tmp-"))
        XCTAssertTrue(AtomicFile.isTemporaryFileName(name))
        for yes in [".a.tmp-", ".document.json.tmp-1234", ".X.content.tmp-zz.tmp-"] { XCTAssertTrue(AtomicFile.isTemporaryFileName(yes), yes) }
        for no in ["manifest.json", ".tmp-123", "..tmp-1", "a.tmp-1", ".hidden", ".a.tmp"] { XCTAssertFalse(AtomicFile.isTemporaryFileName(no), no) }
        let url = try makeStandardPackage()
        try Data([1]).write(to: url.appendingPathComponent(".manifest.json.tmp-abc"))
        try Data([1]).write(to: url.appendingPathComponent("pages/.\(IDs.p1).content.tmp-1"))
        try Data([1]).write(to: url.appendingPathComponent("thumbnails/.\(IDs.p1).jpg.tmp-2"))
        let pkg = try LNotePackage.open(at: url)
        XCTAssertEqual(pkg.strayTemporaryFiles(), [".manifest.json.tmp-abc", "pages/.\(IDs.p1).content.tmp-1",
                                                   "thumbnails/.\(IDs.p1).jpg.tmp-2"])
        try pkg.deleteFile(relativePath: "pages/.\(IDs.p1).content.tmp-1")
        XCTAssertEqual(pkg.strayTemporaryFiles().count, 2)
    }

    /// A temporary file of a derived file may be another regeneration's write in progress: it is
    /// removable only once `derivedTemporaryFileGraceSeconds` old (a source file's only once
    /// `sourceTemporaryFileGraceSeconds` old), judged at the `now` given.
    func testYoungTemporaryFilesOfDerivedFilesAreKeptAndOldOnesRemovable() throws {
        let url = try makeStandardPackage()
        let thumbnail = "thumbnails/.\(IDs.p1).jpg.tmp-run2", index = "thumbnails/..lnote-render-index.tmp-run2"
        let manifest = ".manifest.json.tmp-run2", source = "pages/.\(IDs.p1).content.tmp-app"
        let written = Date(timeIntervalSince1970: 1_700_000_000)
        for file in [thumbnail, index, manifest, source] {
            try Data([1]).write(to: url.appendingPathComponent(file))
            try fm.setAttributes([.modificationDate: written], ofItemAtPath: url.appendingPathComponent(file).path)
        }
        let pkg = try LNotePackage.open(at: url)
        let derived = LNotePackage.derivedTemporaryFileGraceSeconds, sourceGrace = LNotePackage.sourceTemporaryFileGraceSeconds
        XCTAssertEqual(derived, 60)
        XCTAssertLessThan(derived, sourceGrace)
        let at = { (seconds: Double) in Set(pkg.removableTemporaryFiles(now: written.timeIntervalSince1970 + seconds)) }
        XCTAssertEqual(at(0), [], "just written: another run's write in progress")
        XCTAssertEqual(at(derived - 1), [])
        XCTAssertEqual(at(derived + 1), [thumbnail, index, manifest], "old enough: left by a killed run")
        XCTAssertEqual(at(sourceGrace - 1), [thumbnail, index, manifest])
        XCTAssertEqual(at(sourceGrace + 1), [thumbnail, index, manifest, source])
        XCTAssertEqual(pkg.removable([thumbnail, source], now: written.timeIntervalSince1970 + derived + 1), [thumbnail])
    }

    func testWriteAndDeletePathsAreRestricted() throws {
        let pkg = try LNotePackage.open(at: makeStandardPackage())
        for bad in ["../x", "/etc/x", "pages/../x", "pages/a/b", "other/x", "pages/", "pages/..", "a\u{0}b", ""] {
            XCTAssertEqual(error { try pkg.writeFile([1], relativePath: bad) }?.kind, .unsafePath, bad)
            XCTAssertEqual(error { try pkg.deleteFile(relativePath: bad) }?.kind, .unsafePath, bad)
        }
        XCTAssertNoThrow(try pkg.writeFile([1], relativePath: "thumbnails/x.jpg"))
        XCTAssertNoThrow(try pkg.deleteFile(relativePath: "thumbnails/x.jpg"))
    }

    func testCompaction() throws {
        let url = try makeStandardPackage()
        let pkg = try LNotePackage.open(at: url)
        let entry = try XCTUnwrap(pkg.pages[0].entry)
        let before = try pkg.loadPage(entry).elements
        let result = try pkg.compact(entry)
        XCTAssertTrue(result.compacted)
        XCTAssertEqual(result.elementCount, 2)
        XCTAssertEqual(FileIO.kind(atPath: url.appendingPathComponent("pages/\(IDs.p1).journal").path), .missing)
        XCTAssertFalse(result.journalLeftInPlace)
        let after = try pkg.loadPage(entry)
        XCTAssertEqual(after.elements, before)
        XCTAssertNil(after.journal)
        XCTAssertEqual(pkg.strayTemporaryFiles(), [])
        // Nothing to do the second time.
        XCTAssertFalse(try pkg.compact(entry).compacted)
    }

    func testCompactionKeepsUnknownTopLevelKeysOfTheContentFile() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let content = "pages/\(IDs.p1).content"
        let url = try PackageBuilder.make(in: dir.path, files: [
            "document.json": bytes(documentJSON(pages: [pageEntryJSON(IDs.p1)])),
            content: bytes(#"{"format":1,"elements":[],"x":{"y":[1,2]}}"#),
            "pages/\(IDs.p1).journal": Journal.addFrame(stroke("A")),
        ]).url
        let pkg = try LNotePackage.open(at: url)
        let entry = try XCTUnwrap(pkg.pages[0].entry)
        XCTAssertTrue(try pkg.compact(entry).compacted)
        let written = try String(contentsOf: url.appendingPathComponent(content), encoding: .utf8)
        XCTAssertTrue(written.contains(#""x":{"y":[1,2]}"#), written)
        let page = try pkg.loadPage(entry)
        XCTAssertEqual(page.elements.map(\.id), ["A"])
        XCTAssertEqual(page.unknownContentMembers.map { String(decoding: $0, as: UTF8.self) }, [#""x":{"y":[1,2]}"#])
    }

    func testCompactionDeletesOnlyOldTemporaryFilesOfTheSnapshot() throws {
        let url = try makeStandardPackage()
        let pages = url.appendingPathComponent("pages")
        let old = ".\(IDs.p1).content.tmp-old", fresh = ".\(IDs.p1).content.tmp-fresh"
        try Data([1]).write(to: pages.appendingPathComponent(old))
        try Data([2]).write(to: pages.appendingPathComponent(fresh))
        let grace = LNotePackage.sourceTemporaryFileGraceSeconds
        XCTAssertEqual(grace, 600)
        try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -grace - 5)],
                             ofItemAtPath: pages.appendingPathComponent(old).path)
        try fm.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -grace + 60)],
                             ofItemAtPath: pages.appendingPathComponent(fresh).path)
        let pkg = try LNotePackage.open(at: url)
        XCTAssertEqual(try XCTUnwrap(pkg.age(ofFile: "pages/\(old)")), grace + 5, accuracy: 30)
        XCTAssertTrue(try pkg.compact(XCTUnwrap(pkg.pages[0].entry)).compacted)
        // The fresh one may be the app's save in progress: kept, as gc would keep it.
        XCTAssertEqual(pkg.strayTemporaryFiles(), ["pages/\(fresh)"])
    }

    func testCompactionKeepsAJournalThatChangedAfterItWasRead() throws {
        let url = try makeStandardPackage()
        let pkg = try LNotePackage.open(at: url)
        let entry = try XCTUnwrap(pkg.pages[0].entry)
        let journal = url.appendingPathComponent("pages/\(IDs.p1).journal").path
        // The app appends a frame after compaction read the journal, just before its removal.
        var result = try pkg.compact(entry, dropInvalidElements: false) {
            try! JournalWriter.append(Journal.addFrame(self.stroke("D")), toPath: journal)
        }
        XCTAssertTrue(result.compacted)
        XCTAssertTrue(result.journalLeftInPlace)
        XCTAssertEqual(FileIO.kind(atPath: journal), .regular)
        // Nothing is lost: the old frames replay over the new snapshot as no-ops, the new one applies.
        XCTAssertEqual(try pkg.loadPage(entry).elements.map(\.id), ["B", "C", "D"])
        result = try pkg.compact(entry)
        XCTAssertFalse(result.journalLeftInPlace)
        XCTAssertEqual(FileIO.kind(atPath: journal), .missing)
        XCTAssertEqual(try pkg.loadPage(entry).elements.map(\.id), ["B", "C", "D"])

        // A journal replaced by another file of the same size is not the one read either.
        try JournalWriter.append(Journal.deleteFrame(id: "B"), toPath: journal)
        result = try pkg.compact(entry, dropInvalidElements: false) {
            try! AtomicFile.write(Journal.deleteFrame(id: "C"), toPath: journal)
        }
        XCTAssertTrue(result.journalLeftInPlace)
        XCTAssertEqual(try pkg.loadPage(entry).elements.map(\.id), ["D"])
    }

    func testInterruptedCompactionGivesTheSameResult() throws {
        let url = try makeStandardPackage()
        let pkg = try LNotePackage.open(at: url)
        let entry = try XCTUnwrap(pkg.pages[0].entry)
        let before = try pkg.loadPage(entry).elements
        // Simulate a crash after the snapshot was written but before the journal was removed.
        try AtomicFile.write(ContentWriter.snapshot(before), toPath: url.appendingPathComponent("pages/\(IDs.p1).content").path)
        let reloaded = try pkg.loadPage(entry)
        XCTAssertNotNil(reloaded.journal)
        XCTAssertEqual(reloaded.elements, before)
        // Compacting again finishes the job with the same elements.
        XCTAssertTrue(try pkg.compact(entry).compacted)
        XCTAssertEqual(try pkg.loadPage(entry).elements, before)
    }

    func testCompactionRefusesWhatWouldNotBeIdempotentOrWouldDropElements() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let content = "pages/\(IDs.p1).content"
        let url = try PackageBuilder.make(in: dir.path, files: [
            "document.json": bytes(documentJSON(pages: [pageEntryJSON(IDs.p1)])),
            // Two elements share id D: a delete removes the first now, the second on a re-run.
            content: ContentWriter.snapshot([stroke("D", x: 1), stroke("E"), stroke("D", x: 2)]),
            "pages/\(IDs.p1).journal": Journal.deleteFrame(id: "D"),
        ]).url
        let pkg = try LNotePackage.open(at: url)
        let entry = try XCTUnwrap(pkg.pages[0].entry)
        XCTAssertEqual(error { _ = try pkg.compact(entry) }?.code.rawValue, "compaction-not-idempotent")
        XCTAssertEqual(try pkg.loadPage(entry).elements.count, 2) // untouched

        try Data(bytes(contentJSON([strokeJSON("A"), strokeJSON("BAD", color: "x")]))).write(to: url.appendingPathComponent(content))
        XCTAssertEqual(error { _ = try pkg.compact(entry) }?.code.rawValue, "compaction-would-drop")
        XCTAssertTrue(try pkg.compact(entry, dropInvalidElements: true).compacted)
        XCTAssertEqual(try pkg.loadPage(entry).elements.map(\.id), ["A"])
    }

    func testNewerFormatPackageIsRefusedAndUnchanged() throws {
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let doc = bytes(documentJSON(pages: [pageEntryJSON(IDs.p1)], format: 2))
        let url = try PackageBuilder.make(in: dir.path, files: ["document.json": doc]).url
        XCTAssertEqual(error { _ = try LNotePackage.open(at: url) }?.kind, .newerFormat)
        XCTAssertEqual(try Data(contentsOf: url.appendingPathComponent("document.json")), Data(doc))
    }
}
