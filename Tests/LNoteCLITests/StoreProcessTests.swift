import Foundation
import LNoteFormat
import LNoteTestSupport
import XCTest

/// `migrate` and `restore` run as the real binary: killed at random moments, and read while a
/// migration replaces the database.
extension ProcessTests {
    func testSIGKILLDuringMigrationLeavesNoDatabaseOrOneThatVerifies() throws {
        let library = try generateLibrary()
        let inputs = [library, Repo.root + "/Tests/Fixtures/features"]
        let target = dir + "/out.sqlite"
        // How long one full run takes here, to spread the kills over it (and a little past it).
        let start = Date()
        let (first, firstOut) = try runToEnd("lnote-render", ["migrate"] + inputs + ["--to", target])
        XCTAssertEqual(first, 0, firstOut)
        let full = max(0.05, Date().timeIntervalSince(start))
        let seed = TestSeed(for: self)
        var rng = seed.generator
        var present = 0, absent = 0
        for round in 0..<24 {
            // Half the rounds build a first database, half replace one.
            if round % 2 == 0 { try? FileManager.default.removeItem(atPath: target) }
            try killMidway(["migrate"] + inputs + ["--to", target], after: Double.random(in: 0...(full * 1.1), using: &rng))
            // What must never be left is a -wal holding frames beside the target: renamed under it,
            // a new database would be read with the old one's pages. A kill while `checkTarget` has
            // the old store open, to check that it is one, can leave SQLite's *empty* -wal (and
            // -shm) beside it; those hold no pages, and install checkpoints or refuses a -wal that
            // has any. (Seen once in about ten runs of this test.)
            let wal = (try? FileManager.default.attributesOfItem(atPath: target + "-wal")[.size] as? Int) ?? 0
            XCTAssertEqual(wal, 0, "round \(round): a -wal with \(wal) bytes of frames beside the target")
            guard FileIO.kind(atPath: target) != .missing else { absent += 1; continue }
            present += 1
            let (status, out) = try runToEnd("lnote-render", ["migrate"] + inputs + ["--to", target, "--verify"])
            XCTAssertEqual(status, 0, "round \(round): the database left by a kill does not verify:\n\(out)")
        }
        print("migration kills: target present \(present), absent \(absent) of 24")

        // A killed run leaves its temporary database; the next run removes it once it is older
        // than the grace (it might be another migration's at work). Age them past it.
        let strays = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".out.sqlite.tmp-") }
        let then = Date().addingTimeInterval(-(LNotePackage.sourceTemporaryFileGraceSeconds + 60))
        for name in strays { try FileManager.default.setAttributes([.modificationDate: then], ofItemAtPath: dir + "/" + name) }
        let (status, out) = try runToEnd("lnote-render", ["migrate"] + inputs + ["--to", target])
        XCTAssertEqual(status, 0, out)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["library", "out.sqlite"])
    }

    /// Ctrl-C during a migration removes the temporary database (and its -wal and -shm), during
    /// a restore the package it is building; the process ends by the signal, as export's does.
    func testInterruptedMigrateAndRestoreLeaveNoTemporaryFiles() throws {
        let (status, out) = try runToEnd("lnote-gen", ["doc200", "--out", dir + "/gen", "--pages", "200"])
        XCTAssertEqual(status, 0, out)
        let target = dir + "/out.sqlite"
        var left = try interruptedWhileWriting(["migrate", dir + "/gen", "--to", target], temporariesIn: dir)
        XCTAssertEqual(left, [], "an interrupted migration left its temporary database")
        XCTAssertEqual(FileIO.kind(atPath: target), .missing, "nothing was installed")
        // Over an existing database: the old one stays, whole.
        let (migrated, migration) = try runToEnd("lnote-render", ["migrate", dir + "/gen", "--to", target])
        XCTAssertEqual(migrated, 0, migration)
        left = try interruptedWhileWriting(["migrate", dir + "/gen", "--to", target], temporariesIn: dir)
        XCTAssertEqual(left, [], "an interrupted migration left its temporary database")
        let (verified, verification) = try runToEnd("lnote-render", ["migrate", dir + "/gen", "--to", target, "--verify"])
        XCTAssertEqual(verified, 0, verification)

        let restored = dir + "/restored"
        left = try interruptedWhileWriting(["restore", target, "--out", restored], temporariesIn: restored)
        XCTAssertEqual(left, [], "an interrupted restore left the package it was building")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: restored), [], "the one package was not complete")
    }

    func testReadersDuringMigrationsAlwaysSeeAWholeDatabase() throws {
        let library = try generateLibrary()
        let target = dir + "/live.sqlite"
        XCTAssertEqual(try runToEnd("lnote-render", ["migrate", library, "--to", target]).0, 0)
        // Three migrations over the database in a row, while readers (verification runs, each
        // its own process and connection) open and read it again and again.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        let tool = try builtProduct("lnote-render")
        writer.arguments = ["-c", "for i in 1 2 3; do '\(tool)' migrate '\(library)' --to '\(target)' >/dev/null 2>&1 || exit 1; done"]
        try writer.run()
        var reads = 0
        while writer.isRunning || reads < 3 {
            let (status, out) = try runToEnd("lnote-render", ["migrate", library, "--to", target, "--verify"])
            XCTAssertEqual(status, 0, "read \(reads): \(out)")
            reads += 1
        }
        writer.waitUntilExit()
        XCTAssertEqual(writer.terminationStatus, 0, "a migration failed while being read")
        // Readers of the old file and of the new one share the names of the -wal and -shm
        // files; when their closes overlap, an empty -wal and a -shm can stay behind (README).
        // Readers never write, so such a -wal is empty, and the next connection's close removes both.
        var st = stat()
        if lstat(target + "-wal", &st) == 0 { XCTAssertEqual(st.st_size, 0, "a reader's -wal holds frames") }
        XCTAssertEqual(try runToEnd("lnote-render", ["migrate", library, "--to", target, "--verify"]).0, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["library", "live.sqlite"])

        // And restore gives packages that check clean once their thumbnails are built.
        let restored = dir + "/restored"
        let (status, out) = try runToEnd("lnote-render", ["restore", target, "--out", restored])
        XCTAssertEqual(status, 0, out)
        XCTAssertEqual(try runToEnd("lnote-render", ["thumbnails", restored, "--quiet"]).0, 0)
        for path in try packages(in: restored) {
            let (checkStatus, report) = try runToEnd("lnote-render", ["check", path])
            XCTAssertEqual(checkStatus, 0, report)
        }
    }
}
