// `migrate`: packages (journals replayed) into one store database, verified, then installed.
//
// The database is built as `.<name>.tmp-<random>` beside the target, in WAL mode, one
// transaction per document; then checkpointed (TRUNCATE) and closed, reopened and counted, and
// only when its counts match the packages' is it fsynced and renamed over the target. A crash at
// any moment leaves the old target or none, never a partial one; a mismatch leaves the old one.

import Foundation
import Glibc
import LNoteFormat

/// Something migration, verification or restore reports: an invalid element, a failed page,
/// a package that cannot be read.
public struct StoreProblem: Sendable, Equatable, CustomStringConvertible {
    public var severity: Diagnostic.Severity
    /// The stable code (README, "Error and warning codes"): the rule of the library error or
    /// diagnostic it comes from, or the store's own.
    public var code: Code
    /// The package (or database) path, with the file inside it where there is one.
    public var path: String
    public var message: String

    public init(_ severity: Diagnostic.Severity, code: Code, path: String, message: String) {
        self.severity = severity
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { "\(severity.rawValue): \(path): [\(code)] \(message)" }

    /// A package's diagnostic: the file inside the package, its code, and the rest of its text.
    init(diagnostic d: Diagnostic, path: String) {
        var place = d.offset.map { "@\($0): " } ?? ""
        if let index = d.elementIndex {
            place += "element \(index)" + (d.elementID.map { " (id \($0))" } ?? " (no id)") + ": "
        } else if let id = d.elementID {
            place += "id \(id): "
        }
        self.init(d.severity, code: d.code, path: Self.join(path, d.file), message: place + d.message)
    }

    /// A library error met while reading or writing the package at `path`: its code, the file
    /// it names, and `what` (`not migrated: `) before its message.
    init(error: LNoteError, path: String, what: String) {
        self.init(.error, code: error.code, path: Self.join(path, error.file), message: what + error.message)
    }

    /// A file inside the package named by its path under the package's; the package itself, or
    /// a file named by an absolute path, as it is.
    static func join(_ package: String, _ file: String) -> String {
        file.isEmpty || file.hasPrefix("/") || file == package ? (file.isEmpty ? package : file) : package + "/" + file
    }
}

/// What `migrate` or `migrate --verify` found.
public struct MigrationReport: Sendable {
    public var target: String
    /// The counts read from the packages.
    public var packages = Census()
    /// The counts read back from the database (the new one after a migration); nil when it
    /// could not be read.
    public var database: Census?
    /// One line per difference; empty when everything matches.
    public var mismatches: [String] = []
    public var problems: [StoreProblem] = []
    /// True when the target was created or replaced.
    public var installed = false
    /// Bytes of the packages' content files, journals and assets read.
    public var sourceBytes = 0
    /// Bytes of the sample BLOBs written.
    public var blobBytes = 0
    public var seconds = 0.0

    public var hasErrors: Bool { problems.contains { $0.severity == .error } }
    public var verified: Bool { database != nil && mismatches.isEmpty }
}

public enum Migration {
    /// Migrates `packages` (package directories) into the database `target`, replacing it.
    /// - Throws: when the target cannot be written (a path inside a package, a file that is not
    ///   a store, a directory that does not exist) or SQLite fails; the old target is then
    ///   unchanged and no temporary file is left.
    public static func migrate(_ packages: [String], to target: String) throws(LNoteError) -> MigrationReport {
        let started = ContinuousClock.now
        guard !packages.isEmpty else {
            throw LNoteError(.invalid, file: target, code: .noPackages, message: "no package to migrate; the database is unchanged")
        }
        try checkTarget(target, packages: packages)
        let (dir, name) = AtomicFile.split(target)
        let parent = dir.isEmpty ? "." : dir
        removeStaleTemporaries(of: name, in: parent)
        let temp = (dir.isEmpty ? "" : dir + "/") + AtomicFile.temporaryName(for: name)
        var report = MigrationReport(target: target)
        var done = false
        // Removed by an interrupt too (SIGINT, SIGTERM), not only by an error.
        let pending = PendingTemporaries.register { removeDatabaseFiles(temp) }
        defer {
            PendingTemporaries.unregister(pending)
            if !done { removeDatabaseFiles(temp) }
        }

        let db = try SQLiteDatabase(path: temp, mode: .create)
        // synchronous=OFF: nothing of the temporary database needs to survive a crash (it is
        // never installed then); the finished file is fsynced before the rename instead.
        try db.execute("PRAGMA page_size = 8192; PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF;")
        guard try db.text("PRAGMA journal_mode")?.lowercased() == "wal" else {
            throw LNoteError(.io, file: temp, code: .sqlite, message: "the database would not switch to WAL mode")
        }
        try StoreSchema.create(in: db)
        // In a scope of its own: its prepared statements must be finalized before the close.
        do {
            let writer = try StoreWriter(db)
            var names = Set<String>()
            for path in packages {
                guard let source = SourceDocument(path: path, report: &report) else { continue }
                guard names.insert(source.name).inserted else {
                    report.problems.append(StoreProblem(.error, code: .duplicatePackage, path: path, message: "a package named \(source.name) was migrated already; one store holds one package of each name"))
                    continue
                }
                try db.execute("BEGIN IMMEDIATE")
                let census = try source.read(report: &report) { (event) throws(LNoteError) in
                    try writer.write(event)
                }
                try db.execute("COMMIT")
                report.packages.documents.append(census)
            }
            report.packages = Census(documents: report.packages.documents)
            report.blobBytes = writer.blobBytes
        }
        try db.checkpointTruncate()
        try db.close()

        // Read back through a new connection, as any reader will.
        try countDatabase(at: temp, against: &report)
        guard report.mismatches.isEmpty else {
            report.seconds = seconds(since: started)
            return report  // the temporary database is removed; the target is unchanged
        }
        // Not one package could be read: an empty database must not replace one that had them.
        guard !report.packages.documents.isEmpty else {
            report.problems.append(StoreProblem(.error, code: .noPackages, path: target, message: "no package could be read; the database is unchanged"))
            report.seconds = seconds(since: started)
            return report
        }
        try install(temp, over: target)
        done = true
        report.installed = true
        report.seconds = seconds(since: started)
        return report
    }

    /// `migrate --verify`: the counts of `packages` against those of the existing `database`,
    /// which is only read.
    public static func verify(_ packages: [String], database path: String) throws(LNoteError) -> MigrationReport {
        let started = ContinuousClock.now
        var report = MigrationReport(target: path)
        guard FileIO.kind(atPath: path) == .regular else {
            throw LNoteError(.missing, file: path, code: .store, message: "the database does not exist (or is not a regular file)")
        }
        var documents: [DocumentCensus] = []
        var names = Set<String>()
        for package in packages {
            guard let source = SourceDocument(path: package, report: &report) else { continue }
            guard names.insert(source.name).inserted else {
                report.problems.append(StoreProblem(.error, code: .duplicatePackage, path: package, message: "a package named \(source.name) was read already"))
                continue
            }
            documents.append(try source.read(report: &report) { _ throws(LNoteError) in })
        }
        report.packages = Census(documents: documents)
        try countDatabase(at: path, against: &report)
        report.seconds = seconds(since: started)
        return report
    }

    /// Opens the database at `path` on its own connection, checks its schema and integrity,
    /// counts it, and records the counts and their mismatches with `report.packages`.
    private static func countDatabase(at path: String, against report: inout MigrationReport) throws(LNoteError) {
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try StoreSchema.check(db)
        try quickCheck(db)
        let database = try Census.of(db)
        try db.close()
        report.database = database
        report.mismatches = Census.mismatches(packages: report.packages, database: database)
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// `PRAGMA quick_check`: the file's structure is sound.
    static func quickCheck(_ db: SQLiteDatabase) throws(LNoteError) {
        let result = try db.text("PRAGMA quick_check") ?? "no result"
        guard result == "ok" else {
            throw LNoteError(.invalid, file: db.path, code: .storeIntegrity, message: "the database is damaged: \(result)")
        }
    }

    /// The target must be a new name or an existing store, and must not lie inside any of the
    /// packages (migration never writes into a package).
    static func checkTarget(_ target: String, packages: [String]) throws(LNoteError) {
        let (dir, name) = AtomicFile.split(target)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw LNoteError(.invalid, file: target, code: .target, message: "--to needs a file name")
        }
        let parent = dir.isEmpty ? "." : dir
        guard FileIO.kind(atPath: parent) == .directory || (FileIO.kind(atPath: parent) == .symlink && FileIO.resolvedPath(parent) != nil) else {
            throw LNoteError(.missing, file: target, code: .target, message: "the directory \(parent) does not exist")
        }
        if let resolved = FileIO.resolvedPath(parent).map({ $0 + "/" + name }) {
            for package in packages {
                guard let p = FileIO.resolvedPath(package) else { continue }
                if resolved == p || resolved.hasPrefix(p + "/") {
                    throw LNoteError(.unsafePath, file: target, code: .targetInsidePackage,
                                     message: "the database would be inside the package \(package); migration never writes into a package")
                }
            }
        }
        switch FileIO.kind(atPath: target) {
        case .missing: return
        case .regular:
            // Only a store is replaced: a mistyped --to must not destroy another file.
            let db = try SQLiteDatabase(path: target, mode: .readWrite)
            do {
                try StoreSchema.check(db)
            } catch {
                throw LNoteError(.invalid, file: target, code: .targetNotAStore,
                                 message: "exists and is not an lnote store (\(error.message)); it is not replaced")
            }
            try db.close()
        case .symlink:
            throw LNoteError(.unsafePath, file: target, code: .target, message: "is a symbolic link, which is never replaced")
        default:
            throw LNoteError(.invalid, file: target, code: .target, message: "exists and is not a regular file")
        }
    }

    /// fsync, then rename over the target, then fsync the directory.
    ///
    /// A `-wal` beside the target that holds frames belongs to the old database: renamed under
    /// it, the new file would be read with the old file's pages. So the old one is checkpointed
    /// first (folding the WAL in), and a WAL that some writer keeps alive makes the migration
    /// refuse. An empty `-wal` (an open reader's) is harmless.
    static func install(_ temp: String, over target: String) throws(LNoteError) {
        for suffix in ["-wal", "-shm", "-journal"] where FileIO.kind(atPath: temp + suffix) != .missing {
            throw LNoteError(.io, file: temp, code: .storeInstall, message: "the finished database still has its \(suffix) file")
        }
        let fd = open(temp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw LNoteError(.io, file: temp, code: .storeInstall, message: "cannot open: \(String(cString: strerror(errno)))") }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else { throw LNoteError(.io, file: temp, code: .storeInstall, message: "fsync failed: \(String(cString: strerror(code)))") }

        if walSize(of: target) > 0 {
            let old = try SQLiteDatabase(path: target, mode: .readWrite)
            try? old.checkpointTruncate()
            try old.close()
            if walSize(of: target) > 0 {
                throw LNoteError(.io, file: target, code: .targetInUse,
                                 message: "its -wal file holds changes another process has not checkpointed; not replaced while it is being written")
            }
        }
        guard rename(temp, target) == 0 else {
            throw LNoteError(.io, file: target, code: .storeInstall, message: "rename failed: \(String(cString: strerror(errno)))")
        }
        let dir = AtomicFile.split(target).dir
        FileIO.syncDirectory(atPath: dir.isEmpty ? "." : dir)
    }

    static func walSize(of database: String) -> Int {
        var st = stat()
        guard lstat(database + "-wal", &st) == 0 else { return 0 }
        return Int(st.st_size)
    }

    /// A temporary database and its companions.
    static func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }

    /// Temporary databases of this target left by a killed migration (`.<name>.tmp-*`, with
    /// their `-wal` and `-shm`), once they are `LNotePackage.sourceTemporaryFileGraceSeconds`
    /// old: a younger one may be another migration's at work.
    static func removeStaleTemporaries(of name: String, in dir: String) {
        let prefix = ".\(name).tmp-"
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for entry in FileIO.listDirectory(atPath: dir) where entry.hasPrefix(prefix) {
            var st = stat()
            let path = dir + "/" + entry
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            if Double(now.tv_sec - st.st_mtim.tv_sec) >= LNotePackage.sourceTemporaryFileGraceSeconds { unlink(path) }
        }
    }
}
