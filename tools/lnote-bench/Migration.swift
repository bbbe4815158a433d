// Level-2 storage (LNoteStore): the design's figure, 100 strokes of 3,400 samples written in one
// transaction in about 0.019 s (a development Mac), and whole migrations of the dense page and
// of the 200-page document (read, replay, write, checkpoint, verify, rename), in MB/s.

import Foundation
import LNoteFormat
import LNoteStore

/// The design's write alone: 100 stroke rows of 3,400 samples (5.44 MB of BLOBs) in one
/// transaction, into a fresh database set up as `migrate` sets up its own (WAL, synchronous
/// OFF until the final fsync). The BLOBs are encoded inside the timed part.
func measureDesignWrite(work: String, runs: Int) throws -> (Timing, bytes: Int) {
    let samples = 3_400, strokes = 100
    var points: [Int32] = []
    points.reserveCapacity(samples * 5)
    for s in 0..<samples { points += [Int32(1000 + s), Int32(2000 + s % 300), 25, Int32(s % 1000), Int32(s * 8)] }
    let path = work + "/design.sqlite"
    var bytes = 0
    let timing = try measure(runs: runs, prepare: {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }) {
        let db = try SQLiteDatabase(path: path, mode: .create)
        try db.execute("PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")
        try StoreSchema.create(in: db)
        try db.execute("INSERT INTO documents (id, package, title) VALUES (1, 'bench.lnote', ''); INSERT INTO pages (id, document, position) VALUES (1, 1, 0);")
        do {
            let insert = try db.prepare("INSERT INTO strokes (page, z, color, sample_count, samples) VALUES (1, ?1, '#000000', ?2, ?3)")
            let start = nowMs()
            try db.execute("BEGIN IMMEDIATE")
            bytes = 0
            for z in 0..<strokes {
                let blob = SampleBlob.encode(points)
                bytes += blob.count
                try insert.bind(1, z)
                try insert.bind(2, samples)
                try insert.bind(3, blob: blob)
                try insert.run()
            }
            try db.execute("COMMIT")
            designCommitMs.append(nowMs() - start)
        }
        try db.checkpointTruncate()
        try db.close()
    }
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    return (timing, bytes)
}

/// The transaction alone (BEGIN to COMMIT) of each run of `measureDesignWrite`.
nonisolated(unsafe) var designCommitMs: [Double] = []

/// A whole `migrate` of one package, as the CLI runs it.
func measureMigration(_ package: String, work: String, runs: Int) throws -> (Timing, MigrationReport) {
    let target = work + "/migrate.sqlite"
    var last: MigrationReport?
    let timing = try measure(runs: runs, prepare: { unlink(target) }) {
        let report = try Migration.migrate([package], to: target)
        guard report.verified, report.installed else { throw BenchError("migration of \(package) did not verify: \(report.mismatches)") }
        keep(report.blobBytes)
        last = report
    }
    unlink(target)
    return (timing, last!)
}

func storeMigration(dense: String, doc200: String, work: String, runs: Int) throws -> [String: Any] {
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    progress("store: the design's 100 x 3,400 samples")
    designCommitMs = []
    let (design, designBytes) = try measureDesignWrite(work: work, runs: runs)
    let commits = designCommitMs.dropFirst().sorted()  // the warm-up's is dropped
    let commitMedian = commits[commits.count / 2]
    var result: [String: Any] = [
        "design_write": ["strokes": 100, "samples_per_stroke": 3_400, "blob_bytes": designBytes,
                         "transaction_ms": rounded(commitMedian), "with_setup_and_checkpoint": design.json,
                         "design_ms": 19.0, "blob_mb_per_s": rounded(Double(designBytes) / 1e6 / (commitMedian / 1e3))],
        "sqlite_version": SQLiteDatabase.libraryVersion,
    ]
    for (key, package, n) in [("dense", dense, runs), ("doc200", doc200, min(runs, 3))] {
        progress("store: migrate \(key)")
        let (t, report) = try measureMigration(package, work: work, runs: n)
        let totals = Dictionary(report.packages.totals.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        result[key] = ["timing": t.json, "source_bytes": report.sourceBytes, "blob_bytes": report.blobBytes,
                       "pages": totals["pages"] ?? 0, "strokes": totals["strokes"] ?? 0, "samples": totals["samples"] ?? 0,
                       "source_mb_per_s": rounded(Double(report.sourceBytes) / 1e6 / (t.median / 1e3)),
                       "blob_mb_per_s": rounded(Double(report.blobBytes) / 1e6 / (t.median / 1e3))]
    }
    return ["store": result]
}
