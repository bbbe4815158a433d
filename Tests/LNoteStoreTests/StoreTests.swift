import Foundation
import LNoteFormat
import LNoteRender
import LNoteStore
import XCTest
import LNoteTestSupport

final class StoreRoundTripTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func testFeatureFixtureRoundTripsToIdenticalPixels() throws {
        let packages = StorePaths.packages(in: StorePaths.features)
        XCTAssertEqual(packages.count, 1)
        try assertRoundTrip(packages, in: dir)
    }

    func testPublicSamplesRoundTripToIdenticalPixels() throws {
        let packages = StorePaths.packages(in: StorePaths.samples)
        guard !packages.isEmpty else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("no samples at \(StorePaths.samples)") }
            throw XCTSkip("the public samples are not at \(StorePaths.samples)")
        }
        XCTAssertGreaterThanOrEqual(packages.count, 4)
        try assertRoundTrip(packages, in: dir)
    }

    func testOnlyTheDatabaseFileRemainsAndItIsAStore() throws {
        let db = dir + "/one.sqlite"
        _ = try Migration.migrate(StorePaths.packages(in: StorePaths.features), to: db)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["one.sqlite"])
        let check = try SQLiteDatabase(path: db, mode: .readOnly)
        XCTAssertEqual(try check.text("PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try check.integer("PRAGMA application_id"), StoreSchema.applicationID)
        // Every stroke BLOB is 16 bytes per sample.
        XCTAssertEqual(try check.integer("SELECT count(*) FROM strokes WHERE length(samples) != 16 * sample_count"), 0)
        XCTAssertGreaterThan(try check.integer("SELECT count(*) FROM strokes"), 0)
        try check.close()
        // Verification opens it too, and leaves no -wal or -shm either.
        let again = try Migration.verify(StorePaths.packages(in: StorePaths.features), database: db)
        XCTAssertTrue(again.verified, "\(again.mismatches)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["one.sqlite"])
    }

    func testJournalsAreReplayedFirst() throws {
        // Snapshot: A, B, C. Journal: replace B, delete A, add D, add with C's id (replaces C in
        // place), a CRC-damaged add, an unknown frame type, then a torn tail.
        let ids = (1...5).map { String(format: "A0000000-0000-4000-8000-%012X", $0) }
        let package = try PackageBuilder.make(in: dir, contents: [content([strokeJSON(id: ids[0]), strokeJSON(id: ids[1]), strokeJSON(id: ids[2])])])
        func element(_ text: String) -> Element { try! ContentParser.parseElement(Array(text.utf8)).get() }
        var frames: [UInt8] = []
        frames += Journal.replaceFrame(element(strokeJSON(id: ids[1], n: 5, x: 2000)))
        frames += Journal.deleteFrame(id: ids[0].lowercased())
        frames += Journal.addFrame(element(strokeJSON(id: ids[3], n: 7)))
        frames += Journal.addFrame(element(strokeJSON(id: ids[2], n: 3, x: 3000)))
        var damaged = Journal.addFrame(element(strokeJSON(id: ids[4])))
        damaged[damaged.count - 2] ^= 0x55
        frames += damaged
        frames += Journal.encodeFrame(type: 7, payload: Array("{}".utf8))
        frames += Array(Journal.addFrame(element(strokeJSON(id: ids[4]))).prefix(20))
        try package.appendJournal(page: 0, frames: frames)

        let loaded = try LNotePackage.open(at: URL(fileURLWithPath: package.path)).loadPage(at: 0)
        XCTAssertEqual(loaded.elements.map(\.id), [ids[1], ids[2], ids[3]])
        let report = try Migration.migrate([package.path], to: dir + "/j.sqlite")
        XCTAssertTrue(report.verified)
        XCTAssertEqual(report.packages.documents[0].pages[0].strokes, 3)
        XCTAssertEqual(report.packages.documents[0].pages[0].samples, 5 + 3 + 7)
        XCTAssertEqual(report.packages.documents[0].pages[0].discardedFrames, 2)
        XCTAssertTrue(report.problems.contains { $0.description.contains("journal-torn-tail") }, "\(report.problems)")
        try assertRoundTrip([package.path], in: dir + "/rt")
    }

    func testUnknownElementsKeysAndToolsAreKept() throws {
        let unknown = #"{"type":"sticker","id":"B0000000-0000-4000-8000-000000000001","shape":{"star":[1,2,3]},"label":"\u00e9t\u00e9"}"#
        let noID = #"{"type":"lasso","points":[1,2,3]}"#
        let stroke = strokeJSON(id: "B0000000-0000-4000-8000-000000000002", extra: #","layer":{"name":"ink","z":2},"smoothing":0.5"#,
                                tool: #""marker""#)
        let nonStringTool = strokeJSON(id: "B0000000-0000-4000-8000-000000000003", tool: "17")
        let text = content([unknown, stroke, noID, nonStringTool], extra: #","selection":["B0000000-0000-4000-8000-000000000002"]"#)
        let package = try PackageBuilder.make(in: dir, contents: [text])
        let db = dir + "/u.sqlite"
        let report = try Migration.migrate([package.path], to: db)
        XCTAssertTrue(report.verified)
        XCTAssertEqual(report.packages.documents[0].pages[0].unknown, 2)
        let check = try SQLiteDatabase(path: db, mode: .readOnly)
        XCTAssertEqual(try check.text("SELECT json FROM other_elements WHERE z = 0"), unknown)
        XCTAssertEqual(try check.text("SELECT tool FROM strokes WHERE z = 1"), "marker")
        XCTAssertEqual(try check.text("SELECT extra FROM strokes WHERE z = 1"), #"{"layer":{"name":"ink","z":2},"smoothing":0.5}"#)
        XCTAssertEqual(try check.integer("SELECT tool IS NULL FROM strokes WHERE z = 3"), 1)
        try check.close()

        let restored = try Restore.restore(database: db, to: dir + "/out")
        XCTAssertEqual(restored.mismatches, [])
        let back = try LNotePackage.open(at: URL(fileURLWithPath: restored.written[0])).loadPage(at: 0)
        XCTAssertEqual(back.elements[0].json, Array(unknown.utf8))
        XCTAssertEqual(back.elements[2].json, Array(noID.utf8))
        XCTAssertEqual(back.elements[1].members.last { $0.key == "tool" }?.stringValue, "marker")
        XCTAssertEqual(back.elements[1].members.map(\.key), ["type", "id", "tool", "color", "points", "layer", "smoothing"])
        XCTAssertEqual(back.unknownContentMembers.map { String(decoding: $0, as: UTF8.self) },
                       [#""selection":["B0000000-0000-4000-8000-000000000002"]"#])
        try assertRoundTrip([package.path], in: dir + "/rt")
    }

    func testInvalidElementsAndFailedPagesAreReportedAndRecorded() throws {
        let bad = ##"{"type":"stroke","id":"C0000000-0000-4000-8000-000000000001","color":"#000000","points":[1,2,3]}"##
        let good = strokeJSON(id: "C0000000-0000-4000-8000-000000000002")
        let package = try PackageBuilder.make(in: dir, contents: [content([bad, good]), content([good])])
        try FileManager.default.removeItem(atPath: package.path + "/pages/\(package.pageIDs[1]).content")
        let db = dir + "/p.sqlite"
        let report = try Migration.migrate([package.path], to: db)
        XCTAssertTrue(report.verified, "a failed page is recorded as failed on both sides")
        XCTAssertTrue(report.hasErrors)
        XCTAssertTrue(report.problems.contains { $0.severity == .warning && $0.description.contains("points-length") }, "\(report.problems)")
        XCTAssertTrue(report.problems.contains { $0.severity == .error && $0.message.contains("page 2 failed") }, "\(report.problems)")
        let pages = report.packages.documents[0].pages
        XCTAssertEqual(pages[0].invalid, 1)
        XCTAssertEqual(pages[0].strokes, 1)
        XCTAssertTrue(pages[1].failed)
        let check = try SQLiteDatabase(path: db, mode: .readOnly)
        XCTAssertEqual(try check.text("SELECT rule FROM problems WHERE severity = 'warning'"), "points-length")
        XCTAssertEqual(try check.integer("SELECT count(*) FROM pages WHERE failure IS NOT NULL"), 1)
        try check.close()
        // Restored: the failed page keeps its entry and fails again (no content), as in the source.
        let restored = try Restore.restore(database: db, to: dir + "/out")
        XCTAssertEqual(restored.mismatches, [])
        let back = try LNotePackage.open(at: URL(fileURLWithPath: restored.written[0]))
        XCTAssertEqual(back.pages.count, 2)
        XCTAssertEqual(try back.loadPage(at: 0).elements.count, 1)
        XCTAssertThrowsError(try back.loadPage(at: 1))
    }

    func testAnAssetSharedByTwoDocumentsIsStoredOnce() throws {
        let bytes = [UInt8]((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        var paths: [String] = []
        for (i, id) in ["8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F11", "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F12"].enumerated() {
            let p = try PackageBuilder.make(in: dir, documentID: id, contents: [content([strokeJSON(id: "D1000000-0000-4000-8000-00000000000\(i)")])])
            try FileManager.default.createDirectory(atPath: p.path + "/assets", withIntermediateDirectories: true)
            try AtomicFile.write(bytes, toPath: p.path + "/assets/AB000000-0000-4000-8000-000000000001.png")
            try AtomicFile.write([1, 2, 3, UInt8(i)], toPath: p.path + "/assets/AB000000-0000-4000-8000-00000000000\(i + 2).jpg")
            paths.append(p.path)
        }
        let db = dir + "/a.sqlite"
        XCTAssertTrue(try Migration.migrate(paths, to: db).verified)
        let check = try SQLiteDatabase(path: db, mode: .readOnly)
        XCTAssertEqual(try check.integer("SELECT count(*) FROM assets"), 3)
        XCTAssertEqual(try check.integer("SELECT count(*) FROM document_assets"), 4)
        XCTAssertEqual(try check.text("SELECT sha256 FROM assets WHERE size = 5000"), SHA256.hex(bytes))
        try check.close()
        let restored = try Restore.restore(database: db, to: dir + "/out")
        XCTAssertEqual(restored.mismatches, [])
        for path in restored.written {
            XCTAssertEqual(try LNotePackage.open(at: URL(fileURLWithPath: path)).readAsset("AB000000-0000-4000-8000-000000000001.png"), bytes)
        }
    }

    func testVerifyFindsEveryKindOfDifference() throws {
        let package = try PackageBuilder.make(in: dir, contents: [content([strokeJSON(id: "D0000000-0000-4000-8000-000000000001")])])
        let db = dir + "/v.sqlite"
        XCTAssertTrue(try Migration.migrate([package.path], to: db).verified)
        // The package changes: a journal adds a stroke.
        let extra = try ContentParser.parseElement(Array(strokeJSON(id: "D0000000-0000-4000-8000-000000000002", n: 4).utf8)).get()
        try package.appendJournal(page: 0, frames: Journal.addFrame(extra))
        var report = try Migration.verify([package.path], database: db)
        XCTAssertFalse(report.verified)
        XCTAssertEqual(report.mismatches, [
            "\(URL(fileURLWithPath: package.path).lastPathComponent): page 1: strokes 2 in the package, 1 in the database",
            "\(URL(fileURLWithPath: package.path).lastPathComponent): page 1: samples 24 in the package, 20 in the database",
        ])
        // The database changes instead: a stroke row goes missing.
        XCTAssertTrue(try Migration.migrate([package.path], to: db).verified)
        let edit = try SQLiteDatabase(path: db, mode: .readWrite)
        try edit.execute("DELETE FROM strokes WHERE z = 1")
        try edit.close()
        report = try Migration.verify([package.path], database: db)
        XCTAssertEqual(report.mismatches.count, 2, "\(report.mismatches)")
        // A package that is not in the database, and one missing from the packages.
        report = try Migration.verify([], database: db)
        XCTAssertEqual(report.mismatches, ["\(URL(fileURLWithPath: package.path).lastPathComponent): in the database, not among the packages"])
    }

    func testTargetsThatMustNotBeReplaced() throws {
        let package = try PackageBuilder.make(in: dir, contents: [content([strokeJSON(id: "E0000000-0000-4000-8000-000000000001")])])
        // A file that is not a store.
        let notes = dir + "/notes.txt"
        try "precious".write(toFile: notes, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Migration.migrate([package.path], to: notes)) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "target-not-a-store")
        }
        XCTAssertEqual(try String(contentsOfFile: notes, encoding: .utf8), "precious")
        // Inside the package.
        XCTAssertThrowsError(try Migration.migrate([package.path], to: package.path + "/pages/x.sqlite")) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "target-inside-package")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: package.path + "/pages"), [package.pageIDs[0] + ".content"])
        // A missing directory.
        XCTAssertThrowsError(try Migration.migrate([package.path], to: dir + "/no/such/dir.sqlite"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10.lnote", "notes.txt"])
        // A restore never replaces a package.
        let db = dir + "/s.sqlite"
        _ = try Migration.migrate([package.path], to: db)
        let report = try Restore.restore(database: db, to: dir)
        XCTAssertTrue(report.hasErrors)
        XCTAssertEqual(report.written, [])
    }

    func testAReaderKeepsItsViewWhileAMigrationReplacesTheDatabase() throws {
        let small = try PackageBuilder.make(in: dir + "/a", contents: [content([strokeJSON(id: "F0000000-0000-4000-8000-000000000001")])])
        let db = dir + "/r.sqlite"
        XCTAssertTrue(try Migration.migrate([small.path], to: db).verified)
        let features = StorePaths.packages(in: StorePaths.features)

        // A reader in a read transaction, querying all along on another thread.
        let reader = try SQLiteDatabase(path: db, mode: .readWrite)
        try reader.execute("BEGIN")
        XCTAssertEqual(try reader.integer("SELECT count(*) FROM strokes"), 1)
        let stop = Flag()
        let seen = Counts()
        let thread = Thread {
            // Its own connection (a connection belongs to one thread), opened before the rename.
            do {
                let own = try SQLiteDatabase(path: db, mode: .readWrite)
                try own.execute("BEGIN")
                while !stop.value {
                    seen.add(try own.integer("SELECT count(*) FROM strokes"))
                }
                try own.execute("COMMIT")
                try own.close()
            } catch {
                seen.fail("\(error)")
            }
        }
        thread.start()
        while seen.reads == 0 && seen.failure == nil { usleep(200) }
        let readsBefore = seen.reads
        let report = try Migration.migrate(features, to: db)
        XCTAssertGreaterThan(seen.reads, readsBefore, "the reader read while the migration ran")
        XCTAssertTrue(report.verified)
        XCTAssertTrue(report.installed)
        stop.value = true
        while !seen.done(thread) { usleep(1000) }
        XCTAssertNil(seen.failure)
        XCTAssertEqual(seen.values, [1], "the reader saw only its own snapshot, never a partial database")
        // The reader still reads the old database, whole, until it lets go.
        XCTAssertEqual(try reader.integer("SELECT count(*) FROM strokes"), 1)
        XCTAssertEqual(try reader.text("PRAGMA quick_check"), "ok")
        try reader.execute("COMMIT")
        try reader.close()
        // A new connection sees the new one, which verifies.
        XCTAssertTrue(try Migration.verify(features, database: db).verified)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["a", "r.sqlite"])
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var v = false
    var value: Bool {
        get { lock.lock(); defer { lock.unlock() }; return v }
        set { lock.lock(); v = newValue; lock.unlock() }
    }
}

final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var set = Set<Int64>()
    private var count = 0
    private(set) var failure: String?
    func add(_ n: Int64) { lock.lock(); set.insert(n); count += 1; lock.unlock() }
    var reads: Int { lock.lock(); defer { lock.unlock() }; return count }
    func fail(_ s: String) { lock.lock(); failure = s; lock.unlock() }
    var values: [Int64] { lock.lock(); defer { lock.unlock() }; return set.sorted() }
    func done(_ t: Thread) -> Bool { t.isFinished }
}

final class SampleBlobTests: XCTestCase {
    func testEveryValidValueFitsLosslesslyIn16Bytes() throws {
        let edges: [Int32] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        var points: [Int32] = []
        for x in edges {
            for (r, p) in [(0, 0), (100_000, 1000), (1, 999), (65_536, 512), (99_999, 1)] as [(Int32, Int32)] {
                points += [x, 0 &- x &- 1, r, p, x]
            }
        }
        let seed = TestSeed()
        var rng = seed.generator
        for _ in 0..<10_000 {
            points += [Int32.random(in: .min ... .max, using: &rng), Int32.random(in: .min ... .max, using: &rng),
                       Int32.random(in: 0...100_000, using: &rng), Int32.random(in: 0...1000, using: &rng),
                       Int32.random(in: .min ... .max, using: &rng)]
        }
        let blob = SampleBlob.encode(points)
        XCTAssertEqual(blob.count, points.count / 5 * 16)
        XCTAssertEqual(try SampleBlob.decode(blob), points, "\(seed)")
        XCTAssertEqual(try SampleBlob.decode([]), [])
        // Little-endian, in the documented places.
        XCTAssertEqual(SampleBlob.encode([1, -2, 100_000, 1000, 0x0102_0304]),
                       [1, 0, 0, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0xA0, 0x86, 0xD1, 0x07, 4, 3, 2, 1])
    }

    func testADamagedBlobIsAnErrorNotAnotherStroke() {
        var blob = SampleBlob.encode([1, 2, 3, 4, 5])
        XCTAssertThrowsError(try SampleBlob.decode(Array(blob.prefix(15))))
        blob[11] |= 0x08  // an unused bit
        XCTAssertThrowsError(try SampleBlob.decode(blob))
        var big = SampleBlob.encode([1, 2, 100_000, 4, 5])
        big[8] &+= 1  // radius 100001
        XCTAssertThrowsError(try SampleBlob.decode(big))
    }

    func testSHA256KnownAnswers() {
        XCTAssertEqual(SHA256.hex([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// The `sha256sum` command (coreutils) agrees on random inputs around the block boundaries
    /// (55, 56, 63, 64 bytes: where the padding takes one block or two) and a larger one.
    func testSHA256AgreesWithSha256sum() throws {
        let tool = try ExternalTool.require("sha256sum", package: "coreutils")
        let dir = try temporaryDirectory(removedAfter: self)
        let seed = TestSeed()
        let files = try randomFiles(lengths: [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 300_007], in: dir, seed: seed)
        let output = try ExternalProcess.output(tool, files.map(\.path))
        XCTAssertEqual(String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init),
                       files.map { "\(SHA256.hex($0.bytes))  \($0.path)" }, "\(seed)")
    }
}

/// The database is input too: a damaged or hostile row is an error naming it, never a path
/// outside the output directory or a different element.
final class HostileStoreTests: XCTestCase {
    var dir = ""
    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    func restoreAfter(_ sql: String) throws -> RestoreReport {
        let package = try PackageBuilder.make(in: dir + "/src", contents: [content([strokeJSON(id: "A1000000-0000-4000-8000-000000000001")])])
        let db = dir + "/h.sqlite"
        _ = try Migration.migrate([package.path], to: db)
        let edit = try SQLiteDatabase(path: db, mode: .readWrite)
        try edit.execute(sql)
        try edit.close()
        return try Restore.restore(database: db, to: dir + "/out")
    }

    func testHostileRowsAreRefused() throws {
        let cases: [(String, String)] = [
            ("UPDATE documents SET package = '../escape.lnote'", "not a plain"),
            ("UPDATE pages SET uuid = '../../etc/passwd'", "invalid id"),
            ("UPDATE strokes SET samples = zeroblob(16 * sample_count - 1), sample_count = sample_count", "multiple of 16"),
            ("UPDATE strokes SET samples = x'00000000000000000000F80700000000' || substr(samples, 17)", "outside the format's range"),
            ("UPDATE strokes SET color = 'red'", "not a valid element"),
            ("UPDATE strokes SET z = 5", "expected 0"),
            ("UPDATE strokes SET extra = '{\"a\":1'", "not a JSON object"),
        ]
        for (sql, expected) in cases {
            try? FileManager.default.removeItem(atPath: dir)
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let report: RestoreReport
            do {
                report = try restoreAfter(sql)
            } catch {
                // The CHECK constraint refuses a BLOB whose length disagrees with sample_count.
                XCTAssertTrue("\(error)".contains("CHECK") || "\(error)".contains(expected), "\(sql): \(error)")
                continue
            }
            XCTAssertTrue(report.hasErrors, sql)
            XCTAssertEqual(report.written, [], sql)
            XCTAssertTrue(report.problems.contains { $0.description.contains(expected) }, "\(sql): \(report.problems)")
            // Nothing was written outside the output directory, and nothing half-written inside it.
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/escape.lnote"))
            XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: dir + "/out")) ?? [], [], sql)
        }
    }

    func testADatabaseThatIsNotAStoreIsRefused() throws {
        let path = dir + "/other.sqlite"
        let other = try SQLiteDatabase(path: path, mode: .create)
        try other.execute("CREATE TABLE t (x)")
        try other.close()
        XCTAssertThrowsError(try Restore.restore(database: path, to: dir + "/out")) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "store")
        }
        XCTAssertThrowsError(try Migration.verify([], database: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/out"))
    }
}
