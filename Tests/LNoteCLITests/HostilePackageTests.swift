// Hostile packages through the CLI: every subcommand on packages that arrive broken or built
// to attack the renderer. Each test states the outcome (exit status, the error naming the file
// and the rule), and every command run is checked to change nothing outside the package and,
// inside it, only what that command may write (HostileHarness.runAll).

import Foundation
import XCTest
@testable import LNoteCLI
@testable import LNoteFormat
import LNoteRender
import LNoteTestSupport

/// The outcome of every subcommand on one package.
struct Outcomes {
    var info: CLIRun
    var check: CLIRun
    var export: CLIRun
    var gcDryRun: CLIRun
    var thumbnails: CLIRun
    var gc: CLIRun
    var compact: CLIRun
}

/// What a package's commands may change, beyond nothing.
struct Allowances {
    /// Package-relative paths `gc` may delete.
    var gcDeletes: Set<String> = []
    /// Whether `compact` may rewrite content files and remove journals.
    var compactRewrites = false
}

extension XCTestCase {
    /// Runs info, check, export, gc --dry-run, thumbnails, gc and compact on the world's package,
    /// in that order, checking after each that:
    /// - nothing outside the package changed (the sibling directory, link targets);
    /// - info, check, export and gc --dry-run changed nothing at all;
    /// - thumbnails wrote only `thumbnails/<UUID>.jpg`, `manifest.json` and its stat index
    ///   `thumbnails/.lnote-render-index` (regular files);
    /// - gc deleted only what `allow.gcDeletes` lists, and modified nothing;
    /// - compact rewrote only `pages/*.content` and removed only `pages/*.journal`, and only
    ///   when `allow.compactRewrites`;
    /// - no temporary file was left behind.
    func runAll(_ w: HostileWorld, allow: Allowances = Allowances(),
                file: StaticString = #filePath, line: UInt = #line) -> Outcomes {
        let pkg = w.packagePrefix
        func step(_ name: String, _ args: [String], allowed: (String, TreeEntry?, TreeEntry?) -> Bool) -> CLIRun {
            let before = w.snapshot()
            let result = CLIRun(args)
            let after = w.snapshot()
            for (path, (old, new)) in treeChanges(before, after).sorted(by: { $0.key < $1.key }) {
                let inside = path.hasPrefix(pkg)
                let relative = inside ? String(path.dropFirst(pkg.count)) : path
                if !inside || !allowed(relative, old, new) {
                    XCTFail("\(name) changed \(path): \(old.map(String.init(describing:)) ?? "absent") -> \(new.map(String.init(describing:)) ?? "absent")\n\(result.all)",
                            file: file, line: line)
                }
            }
            for path in after.keys where path.contains(".tmp-") && before[path] == nil {
                XCTFail("\(name) left a temporary file \(path)", file: file, line: line)
            }
            return result
        }
        let none: (String, TreeEntry?, TreeEntry?) -> Bool = { _, _, _ in false }
        let info = step("info", ["info", w.package], allowed: none)
        _ = step("info --json", ["info", "--json", w.package], allowed: none)
        let check = step("check", ["check", w.package], allowed: none)
        _ = step("check --json", ["check", "--json", w.package], allowed: none)
        let export = step("export", ["export", w.package, "-o", w.exportDir + "/", "--scale", "0.5"], allowed: none)
        let gcDry = step("gc --dry-run", ["gc", "--dry-run", w.package], allowed: none)
        let thumbnails = step("thumbnails", ["thumbnails", "-j", "2", w.package]) { path, _, new in
            // It removes stale thumbnails and stray temporary files as gc does.
            if new == nil { return allow.gcDeletes.contains(path) && (path.hasPrefix("thumbnails/") || path.contains(".tmp-")) }
            guard case .file? = new else { return path == "thumbnails" && new == .directory }
            if path == "manifest.json" || path == "thumbnails/.lnote-render-index" { return true }  // and its stat index
            let parts = path.split(separator: "/")
            return parts.count == 2 && parts[0] == "thumbnails" && parts[1].hasSuffix(".jpg")
                && LNoteID(String(parts[1].dropLast(4))) != nil
        }
        // The manifest is written only after the cover it names exists (section 3).
        if let bytes = try? FileIO.readRegularFile(atPath: w.package + "/manifest.json", display: "manifest.json"),
           let manifest = try? Manifest.parse(bytes), let cover = manifest.cover {
            XCTAssertEqual(FileIO.kind(atPath: w.package + "/" + cover), .regular, "manifest names a missing cover", file: file, line: line)
        }
        let gc = step("gc", ["gc", w.package]) { path, _, new in new == nil && allow.gcDeletes.contains(path) }
        let compact = step("compact", ["compact", w.package]) { path, _, new in
            guard allow.compactRewrites, path.hasPrefix("pages/") else { return false }
            if path.hasSuffix(".journal") { return new == nil }
            if path.hasSuffix(".content"), case .file? = new { return true }
            return false
        }
        return Outcomes(info: info, check: check, export: export, gcDryRun: gcDry, thumbnails: thumbnails, gc: gc,
                        compact: compact)
    }

    func assertContains(_ result: CLIRun, _ fragments: String..., file: StaticString = #filePath, line: UInt = #line) {
        for f in fragments where !result.all.contains(f) {
            XCTFail("output lacks \"\(f)\":\n\(result.all)", file: file, line: line)
        }
    }

    /// The exported page files in the world's export directory.
    func exported(_ w: HostileWorld) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: w.exportDir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }
}

// MARK: - The whole document fails

final class HostileDocumentTests: XCTestCase {
    /// document.json broken in `bytes`: every command fails with `fragment`, exit 1, and
    /// writes nothing anywhere (no thumbnail, no manifest, no export).
    func assertDocumentFails(_ bytes: [UInt8]?, _ fragment: String, setUp: ((HostileWorld) throws -> Void)? = nil,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        if let bytes { try w.put("document.json", bytes) }
        try setUp?(w)
        let started = Date()
        let o = runAll(w, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "a failing document must fail fast", file: file, line: line)
        for (name, r) in [("info", o.info), ("check", o.check), ("export", o.export), ("gc -n", o.gcDryRun),
                          ("thumbnails", o.thumbnails), ("gc", o.gc), ("compact", o.compact)] {
            XCTAssertEqual(r.status, ExitStatus.failure, "\(name): \(r.all)", file: file, line: line)
            assertContains(r, fragment, file: file, line: line)
        }
        XCTAssertEqual(exported(w), [], file: file, line: line)
    }

    func testMissingDocumentJSON() throws {
        try assertDocumentFails(nil, "document.json: [missing] the file does not exist") { try $0.remove("document.json") }
    }

    func testTruncatedDocumentJSON() throws {
        let full = HostileWorld.documentJSON([(IDs.p1, 1000, 800)])
        try assertDocumentFails(Array(full.utf8.prefix(full.utf8.count / 2)), "document.json: [json] invalid JSON at byte")
    }

    func testDocumentOfRandomBytes() throws {
        var g = TestSeed(for: self).generator
        let junk = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &g) }
        try assertDocumentFails([0xFE] + junk, "document.json: [json] invalid JSON at byte 0")
    }

    func testDocumentInvalidUTF8InString() throws {
        try assertDocumentFails(Array("{\"title\":\"a".utf8) + [0xC3, 0x28] + Array("\",\"pages\":[]}".utf8),
                                "document.json: [json] invalid JSON at byte 11: invalid UTF-8")
    }

    func testDocumentNotAnObject() throws {
        try assertDocumentFails(Array("[1,2,3]".utf8), "document.json: [document-object] document.json is an array, not an object")
    }

    func testDocumentFormat2IsRefusedAndNothingChanges() throws {
        try assertDocumentFails(Array(HostileWorld.documentJSON([(IDs.p1, 1000, 800)], format: 2).utf8),
                                "document.json: [format] format 2 was written by a newer app (this version reads format 1); nothing was changed")
    }

    func testDocumentFormatOfWrongType() throws {
        try assertDocumentFails(Array("{\"format\":\"1\",\"pages\":[]}".utf8),
                                "document.json: [format] format must be a positive integer, found a string")
    }

    func testPagesOfWrongType() throws {
        try assertDocumentFails(Array("{\"format\":1,\"pages\":{\"id\":1}}".utf8),
                                "document.json: [pages] pages is an object, not an array")
        try assertDocumentFails(Array("{\"format\":1}".utf8), "document.json: [pages] document.json has no pages array")
    }

    func testHundredThousandOpenBracketsFailFast() throws {
        let deep = Array("{\"pages\":".utf8) + [UInt8](repeating: 0x5B, count: 100_000)
        try assertDocumentFails(deep, "document.json: [json] invalid JSON at byte 73: nesting deeper than 64 levels")
    }

    func testNaNAndInfinityAreNotJSON() throws {
        try assertDocumentFails(Array("{\"format\":NaN,\"pages\":[]}".utf8), "document.json: [json] invalid JSON at byte 10: expected a value")
        try assertDocumentFails(Array("{\"format\":1,\"pages\":[],\"x\":-Infinity}".utf8), "document.json: [json] invalid JSON at byte 28: invalid number")
    }

    func testDocumentJSONSymlinkToOutsideIsRefused() throws {
        try assertDocumentFails(nil, "document.json: [symlink] a symbolic link is never followed") { w in
            try w.link("document.json", to: w.sibling + "/document.json")
        }
        try assertDocumentFails(nil, "document.json: [symlink] a symbolic link is never followed") { w in
            try w.link("document.json", to: "../sibling/document.json")
        }
    }

    func testDocumentJSONThatIsAFIFODoesNotHang() throws {
        try assertDocumentFails(nil, "document.json: [not-regular-file] not a regular file") { w in
            try w.fifo("document.json")
        }
    }

    func testDocumentJSONThatIsADirectory() throws {
        try assertDocumentFails(nil, "document.json: [not-regular-file] not a regular file") { w in
            try w.remove("document.json")
            try FileManager.default.createDirectory(atPath: w.package + "/document.json", withIntermediateDirectories: false)
        }
    }

    func testPackageThatIsASymlinkIsRefused() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let linked = w.root + "/linked.lnote"
        XCTAssertEqual(symlink(w.package, linked), 0)
        let before = w.snapshot()
        for args in [["info", linked], ["check", linked], ["export", linked, "-o", w.exportDir + "/"], ["gc", linked],
                     ["compact", linked], ["thumbnails", linked]] {
            let r = CLIRun(args)
            XCTAssertEqual(r.status, ExitStatus.failure, r.all)
            XCTAssertTrue(r.all.contains("symbolic link"), r.all)
        }
        XCTAssertTrue(treeChanges(before, w.snapshot()).isEmpty)
        XCTAssertEqual(exported(w), [])
    }
}

// MARK: - One page fails, the others render

final class HostilePageTests: XCTestCase {
    /// Page 1 of three is broken by `breakPage`; page 2 and 3 are fine. Expect: info, export,
    /// check and thumbnails exit 1 naming `fragment`; the other pages exported and thumbnailed;
    /// gc deletes nothing (the orphan asset is kept, since the failed page might show it).
    @discardableResult
    func assertFirstPageFails(_ fragment: String, file: StaticString = #filePath,
                              line: UInt = #line, _ breakPage: (HostileWorld) throws -> Void) throws -> Outcomes {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, 1000, 800), (IDs.p2, 1000, 800), (IDs.p3, 800, 1000)])
        try w.put("assets/\(IDs.asset2).jpg", HostileImages.smallJPEG)  // shown by no valid page
        try breakPage(w)
        let started = Date()
        let o = runAll(w, file: file, line: line)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30, file: file, line: line)
        XCTAssertEqual(o.info.status, ExitStatus.failure, o.info.all, file: file, line: line)
        assertContains(o.info, "page 1", "FAILED", fragment, file: file, line: line)
        XCTAssertEqual(o.export.status, ExitStatus.failure, o.export.all, file: file, line: line)
        let located = fragment.hasPrefix("document.json") ? "error: \(w.package)/" : "error: page 1: \(w.package)/"
        assertContains(o.export, located, fragment, "page 2 -> ", "page 3 -> ", file: file, line: line)
        XCTAssertEqual(exported(w), ["page-002.png", "page-003.png"], file: file, line: line)
        XCTAssertEqual(o.check.status, ExitStatus.failure, o.check.all, file: file, line: line)
        for f in checkFragments(fragment) { assertContains(o.check, f, file: file, line: line) }
        XCTAssertEqual(o.thumbnails.status, ExitStatus.failure, o.thumbnails.all, file: file, line: line)
        assertContains(o.thumbnails, fragment, "2 rendered", "1 failed", file: file, line: line)
        let thumbs = Set(FileIO.listDirectory(atPath: w.package + "/thumbnails"))
        XCTAssertTrue(thumbs.isSuperset(of: ["\(IDs.p2).jpg", "\(IDs.p3).jpg"]), "\(thumbs)", file: file, line: line)
        XCTAssertFalse(thumbs.contains("\(IDs.p1).jpg"), file: file, line: line)
        XCTAssertEqual(o.gc.status, ExitStatus.success, o.gc.all, file: file, line: line)
        assertContains(o.gc, "[assets-kept] unreferenced assets kept: page 1", "0 file(s) deleted", file: file, line: line)
        // compact skips an invalid page entry, and fails on a page it cannot load.
        let entryInvalid = fragment.hasPrefix("document.json")
        XCTAssertEqual(o.compact.status, entryInvalid ? ExitStatus.success : ExitStatus.failure, o.compact.all, file: file, line: line)
        return o
    }

    func content(_ w: HostileWorld) -> String { "pages/\(IDs.p1).content" }

    /// `check` prints a failed page as `error: FILE: id ID: [RULE] page N: MESSAGE`.
    func checkFragments(_ fragment: String) -> [String] {
        guard let colon = fragment.range(of: ": ["), let close = fragment.range(of: "] ", range: colon.upperBound..<fragment.endIndex)
        else { return [fragment] }
        let file = fragment[..<colon.lowerBound], rule = fragment[colon.upperBound..<close.lowerBound]
        let message = String(fragment[close.upperBound...])
        return ["/\(file): ", "[\(rule)] " + (message.hasPrefix("page 1: ") ? message : "page 1: " + message)]
    }

    func testPageIDsThatTryToEscape() throws {
        let escapes = ["../../sibling/pages/\(IDs.p1)", "/etc/passwd", "\(IDs.p1)/../../x", "..", "",
                       "C0A80101-0000-4000-8000-00000000A00\u{0}", "C0A80101-0000-4000-8000-0000000\u{0}../x",
                       "C0A80101-0000-4000-8000-00000000A0%2F", "C0A80101\\0000-4000-8000-00000000A001"]
        for id in escapes {
            try assertFirstPageFails("document.json: [page-id] page 1: id ") { w in
                let rest = [IDs.p2, IDs.p3].map { "{\"id\":\"\($0)\",\"width\":1000,\"height\":800}" }
                try w.put("document.json", HostileWorld.documentJSON(
                    rawPages: ["{\"id\":\(HostileWorld.jsonString(id)),\"width\":1000,\"height\":800}"] + rest))
            }
        }
    }

    func testPageEntryOfWrongTypes() throws {
        for (entry, fragment) in [
            ("7", "[page-entry] page 1: the entry is an integer, not an object"),
            ("{\"id\":17,\"width\":1000,\"height\":800}", "[page-id] page 1: id is an integer, not a string"),
            ("{\"width\":1000,\"height\":800}", "[page-id] page 1: the entry has no id"),
            ("{\"id\":\"\(IDs.p1)\",\"width\":\"1000\",\"height\":800}", "[page-size] page 1: width must be an integer from 1 to 200000, found a string"),
            ("{\"id\":\"\(IDs.p1)\",\"width\":1000.0,\"height\":800}", "[page-size] page 1: width must be an integer from 1 to 200000, found a non-integer number"),
        ] {
            try assertFirstPageFails("document.json: \(fragment)") { w in
                let rest = [IDs.p2, IDs.p3].map { "{\"id\":\"\($0)\",\"width\":1000,\"height\":800}" }
                try w.put("document.json", HostileWorld.documentJSON(rawPages: [entry] + rest))
            }
        }
    }

    func testCanvasSizesZeroAndTenToTheNine() throws {
        for (w0, h0, fragment) in [(0, 800, "width must be an integer from 1 to 200000, found 0"),
                                   (1000, 1_000_000_000, "height must be an integer from 1 to 200000, found 1000000000"),
                                   (-5, 800, "width must be an integer from 1 to 200000, found -5"),
                                   (200_001, 800, "width must be an integer from 1 to 200000, found 200001"),
                                   (1000, 9_223_372_036_854_775_807, "height must be an integer from 1 to 200000, found 9223372036854775807")] {
            try assertFirstPageFails("document.json: [page-size] page 1: \(fragment)") { w in
                try w.put("document.json", HostileWorld.documentJSON(
                    rawPages: ["{\"id\":\"\(IDs.p1)\",\"width\":\(w0),\"height\":\(h0)}"]
                        + [IDs.p2, IDs.p3].map { "{\"id\":\"\($0)\",\"width\":1000,\"height\":800}" }))
            }
        }
        // Beyond Int64: not an integer that fits, still a clear page error.
        try assertFirstPageFails("document.json: [page-size] page 1: width must be an integer from 1 to 200000") { w in
            try w.put("document.json", HostileWorld.documentJSON(
                rawPages: ["{\"id\":\"\(IDs.p1)\",\"width\":99999999999999999999999,\"height\":800}"]
                    + [IDs.p2, IDs.p3].map { "{\"id\":\"\($0)\",\"width\":1000,\"height\":800}" }))
        }
    }

    func testDuplicatePageIDFailsTheLaterEntry() throws {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, 1000, 800), (IDs.p2, 1000, 800)])
        try w.put("document.json", HostileWorld.documentJSON([(IDs.p1, 1000, 800), (IDs.p2, 1000, 800),
                                                              (IDs.p1.lowercased(), 500, 500)]))
        let o = runAll(w)
        XCTAssertEqual(o.export.status, ExitStatus.failure)
        assertContains(o.export, "/document.json: [page-duplicate-id] page 3: id \(IDs.p1.lowercased()) is used by an earlier page")
        XCTAssertEqual(exported(w), ["page-001.png", "page-002.png"])
    }

    func testMissingContentFile() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [missing] the page's content file does not exist") { w in
            try w.remove(self.content(w))
        }
    }

    func testTruncatedContentJSON() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [json] invalid JSON at byte") { w in
            let full = HostileWorld.content([HostileWorld.stroke("A"), HostileWorld.stroke("B")])
            try w.put(self.content(w), Array(full.utf8.prefix(60)))
        }
    }

    func testEmptyContentFile() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [json] invalid JSON at byte 0: unexpected end of input") { w in
            try w.put(self.content(w), [])
        }
    }

    func testContentOfRandomBytes() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [json] invalid JSON at byte 0") { w in
            var g = TestSeed(for: self).generator
            try w.put(self.content(w), [0x80] + (0..<2000).map { _ in UInt8.random(in: 0...255, using: &g) })
        }
    }

    func testContentFormat2FailsThePage() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [format] format 2 was written by a newer app") { w in
            try w.put(self.content(w), HostileWorld.content([HostileWorld.stroke("A")], format: 2))
        }
    }

    func testContentOfWrongTypes() throws {
        for (text, fragment) in [("[]", "[content-object] the content is not a JSON object"),
                                 ("{\"elements\":\"x\"}", "[elements] elements is a string, not an array"),
                                 ("{\"format\":1}", "[elements] the content has no elements array"),
                                 ("{\"format\":0,\"elements\":[]}", "[format] format must be a positive integer, found an integer"),
                                 ("{\"format\":1.5,\"elements\":[]}", "[format] format must be a positive integer, found a non-integer number")] {
            try assertFirstPageFails("pages/\(IDs.p1).content: \(fragment)") { w in try w.put(self.content(w), text) }
        }
    }

    func testHundredThousandOpenBracketsInContent() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [json] invalid JSON at byte 94: nesting deeper than 64 levels") { w in
            try w.put(self.content(w), Array("{\"elements\":[{\"type\":\"x\",\"deep\":".utf8) + [UInt8](repeating: 0x5B, count: 100_000))
        }
        // Inside a points array too (the points loop has its own number scanner).
        try assertFirstPageFails("pages/\(IDs.p1).content: [json] invalid JSON at byte 121: nesting deeper than 64 levels") { w in
            try w.put(self.content(w), Array("{\"elements\":[{\"type\":\"stroke\",\"color\":\"#000000\",\"points\":[1,".utf8)
                + [UInt8](repeating: 0x5B, count: 100_000))
        }
    }

    func testContentSymlinkToOutsideIsRefused() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [symlink] a symbolic link is never followed") { w in
            try w.link(self.content(w), to: w.sibling + "/pages/\(IDs.p1).content")
        }
        // Also when only the case-insensitive match is a link.
        try assertFirstPageFails("pages/\(IDs.p1.lowercased()).content: [symlink] a symbolic link is never followed") { w in
            try w.remove(self.content(w))
            try w.link("pages/\(IDs.p1.lowercased()).content", to: "../../sibling/pages/\(IDs.p1).content")
        }
    }

    func testContentThatIsAFIFOOrDirectory() throws {
        try assertFirstPageFails("pages/\(IDs.p1).content: [not-regular-file] not a regular file") { w in
            try w.fifo(self.content(w))
        }
        try assertFirstPageFails("pages/\(IDs.p1).content: [not-regular-file] not a regular file") { w in
            try w.remove(self.content(w))
            try FileManager.default.createDirectory(atPath: w.package + "/" + self.content(w), withIntermediateDirectories: false)
        }
    }

    func testJournalSymlinkToOutsideIsRefused() throws {
        try assertFirstPageFails("pages/\(IDs.p1).journal: [symlink] a symbolic link is never followed") { w in
            try w.link("pages/\(IDs.p1).journal", to: w.sibling + "/pages/\(IDs.p1).journal")
        }
    }

    /// pages/ itself a link: every page fails; nothing is exported, nothing written through it.
    func testPagesDirectorySymlinkToOutside() throws {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, 1000, 800)])
        try FileManager.default.removeItem(atPath: w.package + "/pages")
        try w.link("pages", to: w.sibling + "/pages")
        try w.put("assets/\(IDs.asset2).jpg", HostileImages.smallJPEG)
        let o = runAll(w)
        for r in [o.info, o.export, o.thumbnails, o.compact] {
            XCTAssertEqual(r.status, ExitStatus.failure, r.all)
            assertContains(r, "pages: [symlink] pages/ is a symbolic link, which is never followed")
        }
        XCTAssertEqual(o.check.status, ExitStatus.failure)
        assertContains(o.check, "/pages: ", "[symlink] page 1: pages/ is a symbolic link, which is never followed")
        XCTAssertEqual(o.gc.status, ExitStatus.success, o.gc.all)
        assertContains(o.gc, "[assets-kept] unreferenced assets kept: page 1 could not be read", "0 file(s) deleted")
        XCTAssertEqual(exported(w), [])
    }

    /// pages/ a link while document.json lists no page: no page load trips over the link, so
    /// check's own listing of pages/ must refuse it, not list the files it points at.
    func testPagesDirectorySymlinkIsNotListedByCheck() throws {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [])
        try FileManager.default.removeItem(atPath: w.package + "/pages")
        try w.link("pages", to: w.sibling + "/pages")
        for args in [["check", w.package], ["check", "--json", w.package]] {
            let r = CLIRun(args)
            XCTAssertEqual(r.status, ExitStatus.failure, r.all)
            assertContains(r, "pages/ is a symbolic link, which is never followed")
            // The sibling's pages/<p1>.content and .journal would show as unlisted pages.
            XCTAssertFalse(r.all.contains(IDs.p1), "check listed files outside the package:\n\(r.all)")
        }
        assertContains(CLIRun(["check", w.package]), "/pages: [symlink] pages/ is a symbolic link, which is never followed")
    }
}

// MARK: - Elements: the invalid ones are skipped, the rest renders

final class HostileElementTests: XCTestCase {
    /// Page 1 holds `elements`; expect every fragment among the warnings, exit 0 for info and
    /// export (warnings only), and gc keeping the orphan asset when an element was skipped.
    @discardableResult
    func assertRendersWithWarnings(_ elements: [String], _ fragments: [String], skipped: Bool = true,
                                   file: StaticString = #filePath, line: UInt = #line) throws -> Outcomes {
        let w = try HostileWorld(self)
        try w.makeValid(pages: [(IDs.p1, 1000, 800), (IDs.p2, 1000, 800)])
        try w.put("pages/\(IDs.p1).content", HostileWorld.content(elements))
        try w.put("assets/\(IDs.asset2).jpg", HostileImages.smallJPEG)
        let o = runAll(w, allow: Allowances(gcDeletes: skipped ? [] : ["assets/\(IDs.asset2).jpg", "assets/\(IDs.asset).png"]),
                       file: file, line: line)
        XCTAssertEqual(o.info.status, ExitStatus.success, o.info.all, file: file, line: line)
        XCTAssertEqual(o.export.status, ExitStatus.success, o.export.all, file: file, line: line)
        XCTAssertEqual(exported(w), ["page-001.png", "page-002.png"], file: file, line: line)
        XCTAssertEqual(o.thumbnails.status, ExitStatus.success, o.thumbnails.all, file: file, line: line)
        for f in fragments {
            assertContains(o.info, f, file: file, line: line)
            assertContains(o.export, "warning: page 1: \(w.package)/pages/\(IDs.p1).content: element ", f, file: file, line: line)
            assertContains(o.check, f, file: file, line: line)
        }
        if skipped {
            assertContains(o.gc, "[assets-kept] unreferenced assets kept: page 1 has invalid elements", "0 file(s) deleted", file: file, line: line)
        }
        return o
    }

    func testPointsOfTheWrongLength() throws {
        try assertRendersWithWarnings([HostileWorld.stroke("A", points: "1,2,3,4,5,6,7"), HostileWorld.stroke("B")],
                                      ["element 0 (id A): [points-length] points has 7 values, not a multiple of 5"])
        try assertRendersWithWarnings([HostileWorld.stroke("A", points: "1,2,3")],
                                      ["[points-length] points has 3 values, not a multiple of 5"])
    }

    func testNegativeRadiusAndPressureOutOfRange() throws {
        try assertRendersWithWarnings([
            HostileWorld.stroke("R", points: "0,0,-1,500,0"),
            HostileWorld.stroke("P", points: "0,0,1,500,0, 5,5,1,1001,1"),
            HostileWorld.stroke("Q", points: "0,0,1,-1,0"),
            HostileWorld.stroke("BIG", points: "0,0,100001,0,0"),
            HostileWorld.stroke("OK", points: "0,0,100000,1000,0"),
        ], ["element 0 (id R): [radius-range] sample 0 has radius -1, outside 0...100000",
            "element 1 (id P): [pressure-range] sample 1 has pressure 1001, outside 0...1000",
            "element 2 (id Q): [pressure-range] sample 0 has pressure -1, outside 0...1000",
            "element 3 (id BIG): [radius-range] sample 0 has radius 100001, outside 0...100000"])
    }

    func testNonIntegersAndOutOfRangeCoordinates() throws {
        try assertRendersWithWarnings([
            HostileWorld.stroke("F", points: "12.0,0,1,1,0"),
            HostileWorld.stroke("E", points: "1e3,0,1,1,0"),
            HostileWorld.stroke("X", points: "2147483648,0,1,1,0"),
            HostileWorld.stroke("Y", points: "0,-2147483649,1,1,0"),
            HostileWorld.stroke("H", points: "0,99999999999999999999999999,1,1,0"),
            HostileWorld.stroke("S", points: "0,\"0\",1,1,0"),
        ], ["element 0 (id F): [points-integer] points value 0 is 12.0, not a JSON integer",
            "element 1 (id E): [points-integer] points value 0 is 1e3, not a JSON integer",
            "element 2 (id X): [coordinate-range] points value 0 (x of sample 0) is 2147483648, outside the 32-bit range",
            "element 3 (id Y): [coordinate-range] points value 1 (y of sample 0) is -2147483649, outside the 32-bit range",
            "element 4 (id H): [coordinate-range]",
            "element 5 (id S): [points-integer] points value 1 is a string, not an integer"])
    }

    func testWrongTypesInElements() throws {
        try assertRendersWithWarnings([
            "7", "null", "[]",
            "{\"type\":\"stroke\",\"id\":\"C\",\"color\":5,\"points\":[]}",
            "{\"type\":\"stroke\",\"id\":\"D\",\"points\":[]}",
            "{\"type\":\"stroke\",\"id\":\"G\",\"color\":\"#12345\",\"points\":[]}",
            "{\"type\":\"stroke\",\"id\":\"P\",\"color\":\"#123456\",\"points\":{}}",
            "{\"type\":\"stroke\",\"id\":\"N\",\"color\":\"#123456\"}",
            "{\"type\":5}", "{\"id\":[1]}",
            "{\"type\":\"image\",\"id\":\"I\",\"asset\":\"\(IDs.asset).png\",\"frame\":[1,2,3]}",
            "{\"type\":\"image\",\"id\":\"J\",\"asset\":\"\(IDs.asset).png\",\"frame\":[1,2,0,3]}",
            "{\"type\":\"image\",\"id\":\"K\",\"asset\":\"\(IDs.asset).png\",\"frame\":[1,2,3,4],\"opacity\":1001}",
            "{\"type\":\"image\",\"id\":\"L\",\"asset\":\"\(IDs.asset).png\",\"frame\":[1,2,3,4],\"rotation\":1.5}",
            "{\"type\":\"image\",\"id\":\"M\",\"asset\":\"\(IDs.asset).png\",\"frame\":[1,2,3,4294967296]}",
        ], ["element 0 (no id): [element-object] the element is an integer, not an object",
            "element 1 (no id): [element-object] the element is null, not an object",
            "element 2 (no id): [element-object] the element is an array, not an object",
            "element 3 (id C): [color] color is an integer, not a string",
            "element 4 (id D): [color] a stroke needs a color",
            "element 5 (id G): [color] color \"#12345\" is not #RRGGBB or #RRGGBBAA",
            "element 6 (id P): [points] points is an object, not an array",
            "element 7 (id N): [points] a stroke needs a points array",
            "element 8 (no id): [type] type is an integer, not a string",
            "element 9 (no id): [id] id is an array, not a string",
            "element 10 (id I): [frame] frame is not an array of 4 integers",
            "element 11 (id J): [frame] frame width and height must be > 0 (found 0 x 3)",
            "element 12 (id K): [opacity] opacity must be an integer from 0 to 1000, found 1001",
            "element 13 (id L): [rotation] rotation must be an integer (thousandths of a degree), found a non-integer number",
            "element 14 (id M): [frame] frame values must be integers in the 32-bit range, found an integer"])
    }

    func testAssetNamesThatTryToEscape() throws {
        let names = ["../../sibling/assets/\(IDs.asset).png", "/tmp/\(IDs.asset).png", "../\(IDs.asset).png",
                     "\(IDs.asset).png/..", "\(IDs.asset).png\u{0}", "\u{0}\(IDs.asset).png", "\(IDs.asset).gif",
                     "\(IDs.asset)", "assets/\(IDs.asset).png", "\(IDs.asset.dropLast())/.png", ""]
        try assertRendersWithWarnings(names.enumerated().map { HostileWorld.image("I\($0.offset)", asset: $0.element) },
                                      names.indices.map { "element \($0) (id I\($0)): [asset] asset \"" }
                                        + ["is not <UUID>.jpg or <UUID>.png"])
    }

    func testUnknownTypesAndToolsAreKept() throws {
        let o = try assertRendersWithWarnings([
            "{\"type\":\"lasso\",\"id\":\"L\",\"asset\":\"\(IDs.asset2).jpg\",\"points\":\"whatever\",\"nested\":[[{}]]}",
            HostileWorld.stroke("T", tool: "crayon"),
            "{\"type\":\"stroke\",\"id\":\"U\",\"color\":\"#000000\",\"points\":[1,1,1,1,1]}",
        ], [], skipped: false)
        assertContains(o.info, "elements    3: 2 stroke(s) (3 samples), 0 image(s), 1 unknown")
        // An unknown element may name an asset: gc keeps that one (its id is in the element's
        // JSON) and deletes only the asset no element names.
        assertContains(o.gc, "/assets/\(IDs.asset).png", "deleted ", "1 file(s) deleted")
    }

    /// A missing or unknown tool is drawn exactly as a pen; an unknown element draws nothing.
    func testUnknownToolDrawsAsPenAndUnknownTypeDrawsNothing() throws {
        func render(_ elements: [String]) throws -> [UInt8] {
            let w = try HostileWorld(self)
            try w.makeValid(pages: [(IDs.p1, 1000, 800)])
            try w.put("pages/\(IDs.p1).content", HostileWorld.content(elements))
            let package = try LNotePackage.open(at: URL(fileURLWithPath: w.package))
            return try PageRenderer.render(package.loadPage(at: 0), of: package, options: RenderOptions(size: .scale(1)),
                                           assets: AssetCache()).bitmap.pixels
        }
        let pen = try render([HostileWorld.stroke("A", tool: "pen", color: "#20408080")])
        XCTAssertEqual(try render([HostileWorld.stroke("A", tool: "crayon", color: "#20408080")]), pen)
        XCTAssertEqual(try render(["{\"type\":\"stroke\",\"id\":\"A\",\"tool\":7,\"color\":\"#20408080\",\"points\":[100,100,20,500,0, 600,500,30,700,16]}"]), pen)
        XCTAssertEqual(try render(["{\"type\":\"stroke\",\"id\":\"A\",\"color\":\"#20408080\",\"points\":[100,100,20,500,0, 600,500,30,700,16]}"]), pen)
        XCTAssertNotEqual(try render([HostileWorld.stroke("A", tool: "pencil", color: "#20408080")]), pen)
        XCTAssertEqual(try render([]), try render(["{\"type\":\"lasso\",\"id\":\"L\",\"points\":[100,100,20,500,0],\"color\":\"#000000\"}"]))
    }

    func testCoordinatesAtThe32BitExtremesRender() throws {
        let min = Int32.min, max = Int32.max
        try assertRendersWithWarnings([
            HostileWorld.stroke("A", points: "\(min),\(min),100000,1000,0, \(max),\(max),100000,1000,1"),
            HostileWorld.stroke("B", points: "\(min),400,0,0,0, \(max),400,100000,1000,1", tool: "pencil"),
            HostileWorld.stroke("C", points: "\(max),\(min),1,0,0, \(min),\(max),100000,1000,1, 500,400,3,500,2", tool: "highlighter"),
            HostileWorld.stroke("D", points: "\(max),\(max),100000,1000,0"),
            HostileWorld.image("I", asset: "\(IDs.asset).png", frame: "\(min),\(min),\(max),\(max)"),
        ], [], skipped: false)
    }
}

// MARK: - Text from the document reaching the terminal

final class HostileTextTests: XCTestCase {
    /// Titles, ids and asset names with escape sequences (set the window title, clear the
    /// screen, 8-bit CSI) are printed with their control characters made visible.
    func testControlCharactersNeverReachTheTerminal() throws {
        let w = try HostileWorld(self)
        try w.makeValid()
        let evil = "\u{1B}]0;owned\u{07}\u{1B}[2J\u{9B}31m\r\u{7F}"
        var doc = HostileWorld.documentJSON([(IDs.p1, 1000, 800), (IDs.p2, 1000, 800)])
        doc = doc.replacingOccurrences(of: "\"title\":\"Hostile\"", with: "\"title\":\(HostileWorld.jsonString("Evil" + evil))")
        doc = doc.replacingOccurrences(of: "\"pages\":[", with: "\"pages\":[{\"id\":\(HostileWorld.jsonString(evil)),\"width\":1,\"height\":1},")
        try w.put("document.json", doc)
        try w.put("pages/\(IDs.p1).content", HostileWorld.content([HostileWorld.image("I" + evil, asset: evil + ".png"),
                                                                     HostileWorld.stroke(evil, points: "1,2,3")]))
        let o = runAll(w)
        for (name, r) in [("info", o.info), ("check", o.check), ("export", o.export), ("thumbnails", o.thumbnails),
                          ("gc", o.gc), ("compact", o.compact), ("info --json", CLIRun(["info", "--json", w.package])),
                          ("check --json", CLIRun(["check", "--json", w.package]))] {
            let bad = r.all.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value) }
            XCTAssertTrue(bad.isEmpty, "\(name) printed control characters \(bad.map { $0.value })")
        }
        assertContains(o.info, "Evil\\u001b]0;owned\\u0007\\u001b[2J\\u009b31m\\u000d\\u007f")
        assertContains(o.export, "[page-id] page 1: id \"\\u001b]0;owned")
        // --json stays valid JSON and keeps the title (escapes decoded).
        let json = try JSONValue.parse(Array(CLIRun(["info", "--json", w.package]).out.utf8))
        guard case .array(let documents)? = json["documents"] else { return XCTFail("no documents array") }
        XCTAssertEqual(documents.first?["title"]?.stringValue, "Evil" + evil)
    }
}
