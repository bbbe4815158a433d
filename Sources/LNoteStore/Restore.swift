// `restore`: a store back into packages: document.json, one snapshot per page holding the
// replayed elements (no journal), assets/. Derived data (manifest.json, thumbnails/) is left to
// `lnote-render thumbnails`.
//
// The database is input like any package: every id is checked to be a UUID and every name to be
// a plain package or asset name before a path is built from it, and every element is read back
// through the package parser, so a damaged row is an error naming it, never a wrong file.
// Each package is written into `.<name>.tmp-<random>` inside the output directory and renamed
// into place when complete; an existing package is never replaced.

import Glibc
import LNoteFormat

/// What `restore` wrote.
public struct RestoreReport: Sendable {
    /// The packages written, as paths.
    public var written: [String] = []
    public var problems: [StoreProblem] = []
    /// Counts of the packages written, read back from disk.
    public var census = Census()
    /// Differences between those counts and the database's; empty when the packages hold
    /// everything the database does. (A failed page comes back without content, so it counts
    /// as failed on both sides; a page whose entry was invalid is left out and shows here.)
    public var mismatches: [String] = []

    public var hasErrors: Bool { problems.contains { $0.severity == .error } }
}

public enum Restore {
    public static func restore(database path: String, to outputDirectory: String) throws(LNoteError) -> RestoreReport {
        guard FileIO.kind(atPath: path) == .regular else {
            throw LNoteError(.missing, file: path, code: .store, message: "the database does not exist (or is not a regular file)")
        }
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try StoreSchema.check(db)
        var out = outputDirectory
        while out.count > 1 && out.hasSuffix("/") { out.removeLast() }
        switch FileIO.kind(atPath: out) {
        case .directory: break
        case .missing:
            guard mkdir(out, 0o755) == 0 else {
                throw LNoteError(.io, file: out, code: .output, message: "cannot create the directory: \(String(cString: strerror(errno)))")
            }
        case .symlink where FileIO.resolvedPath(out).map({ FileIO.kind(atPath: $0) == .directory }) == true: break
        default: throw LNoteError(.invalid, file: out, code: .output, message: "exists and is not a directory")
        }
        var report = RestoreReport()
        // In a scope of their own: prepared statements must be finalized before the close.
        do {
            let reader = try StoreReader(db)
            var documents: [(Int64, String)] = []
            do {
                let list = try db.prepare("SELECT id, package FROM documents ORDER BY package")
                while try list.step() { documents.append((list.int(0), list.text(1) ?? "")) }
            }
            for (id, name) in documents {
                let target = out + "/" + name
                guard isPlainPackageName(name) else {
                    report.problems.append(StoreProblem(.error, code: .storeRow, path: path, message: "document \(id): package name \(name.debugDescription) is not a plain <name>.lnote; not restored"))
                    continue
                }
                guard FileIO.kind(atPath: target) == .missing else {
                    report.problems.append(StoreProblem(.error, code: .packageExists, path: target, message: "exists; a restore never replaces a package"))
                    continue
                }
                do {
                    try write(document: id, name: name, into: out, reader: reader, report: &report)
                    report.written.append(target)
                } catch {
                    report.problems.append(StoreProblem(error: error, path: target, what: "not restored: "))
                }
            }
        }
        // The written packages, read back from disk like any package, against the database.
        let stored = try Census.of(db)
        try db.close()
        let names = Set(report.written.map { AtomicFile.split($0).name })
        var scratch = MigrationReport(target: path)
        var written: [DocumentCensus] = []
        for package in report.written {
            guard let source = SourceDocument(path: package, report: &scratch) else { continue }
            written.append(try source.read(report: &scratch) { _ throws(LNoteError) in })
        }
        report.census = Census(documents: written)
        report.mismatches = Census.mismatches(packages: report.census,
                                              database: Census(documents: stored.documents.filter { names.contains($0.package) }).restored)
        return report
    }

    static func isPlainPackageName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.utf8.contains(0)
            && name.lowercased().hasSuffix(".lnote") && name.utf8.count <= 255
    }

    private static func write(document id: Int64, name: String, into out: String, reader: StoreReader,
                              report: inout RestoreReport) throws(LNoteError) {
        let temp = out + "/" + AtomicFile.temporaryName(for: name)
        guard mkdir(temp, 0o755) == 0 else {
            throw LNoteError(.io, file: temp, code: .write, message: "cannot create: \(String(cString: strerror(errno)))")
        }
        var done = false
        // Removed by an interrupt too (SIGINT, SIGTERM), not only by an error.
        let pending = PendingTemporaries.register { PendingTemporaries.removeTree(temp) }
        defer {
            PendingTemporaries.unregister(pending)
            if !done { PendingTemporaries.removeTree(temp) }
        }
        for dir in [LNotePackage.pagesDirectory, LNotePackage.assetsDirectory] {
            guard mkdir(temp + "/" + dir, 0o755) == 0 else {
                throw LNoteError(.io, file: temp + "/" + dir, code: .write, message: "cannot create: \(String(cString: strerror(errno)))")
            }
        }
        let document = try reader.document(id)
        var pageEntries: [(entry: PageEntry, elementCount: Int?)] = []
        for page in document.pages {
            guard let entry = page.entry else {
                report.problems.append(StoreProblem(.warning, code: .pageEntry, path: out + "/" + name,
                                                    message: "page \(page.position + 1) had an invalid entry in document.json (\(page.failure ?? "")); it is left out"))
                continue
            }
            if let failure = page.failure {
                // The entry is kept and the content file is not written: the page fails as it did.
                report.problems.append(StoreProblem(.warning, code: .pageWithoutContent, path: out + "/" + name,
                                                    message: "page \(page.position + 1) could not be read when migrated (\(failure)); restored without content"))
                pageEntries.append((entry, nil))
                continue
            }
            let elements = try reader.elements(ofPage: page.row, file: "pages/\(entry.id.canonical).content")
            let snapshot = ContentWriter.snapshot(elements, unknownMembers: page.contentExtra.map { [$0] } ?? [])
            try AtomicFile.write(snapshot, toPath: "\(temp)/pages/\(entry.id.canonical).content")
            pageEntries.append((entry, elements.count))
        }
        try reader.forEachAsset(ofDocument: id) { (assetName, bytes) throws(LNoteError) in
            guard AssetName.isValid(assetName) else {
                throw LNoteError(.invalid, file: "assets/", code: .asset, message: "asset name \(assetName.debugDescription) is not <UUID>.jpg or <UUID>.png")
            }
            try AtomicFile.write(bytes, toPath: "\(temp)/assets/\(assetName)")
        }
        try AtomicFile.write(documentJSON(document, pages: pageEntries), toPath: "\(temp)/\(DocumentParser.fileName)")
        FileIO.syncDirectory(atPath: temp)
        // Checked to be missing above; rename(2) would replace at most an empty directory
        // created since (a non-empty one makes it fail), so nothing is ever lost.
        guard rename(temp, out + "/" + name) == 0 else {
            throw LNoteError(.io, file: out + "/" + name, code: .write, message: "cannot move the package into place: \(String(cString: strerror(errno)))")
        }
        done = true
        FileIO.syncDirectory(atPath: out)
    }

    /// document.json for the restored pages; `elementCount` is the count written.
    static func documentJSON(_ d: StoredDocument, pages: [(entry: PageEntry, elementCount: Int?)]) -> [UInt8] {
        var w = JSONWriter()
        w.raw("{\"format\":1")
        if let uuid = d.uuid { w.raw(",\"id\":"); w.string(uuid) }
        w.raw(",\"title\":"); w.string(d.title)
        if let t = d.createdAt { w.raw(",\"createdAt\":"); w.string(t) }
        if let t = d.modifiedAt { w.raw(",\"modifiedAt\":"); w.string(t) }
        w.raw(",\"pages\":[")
        for (i, (e, count)) in pages.enumerated() {
            w.raw(i == 0 ? "\n" : ",\n")
            w.raw("{\"id\":"); w.string(e.id.original)
            w.raw(",\"width\":\(e.width),\"height\":\(e.height)")
            if let t = e.createdAt { w.raw(",\"createdAt\":"); w.string(t) }
            if let t = e.modifiedAt { w.raw(",\"modifiedAt\":"); w.string(t) }
            if let count { w.raw(",\"elementCount\":\(count)") }
            let bg = e.background
            w.raw(",\"background\":{\"color\":"); w.string(bg.color.hexString)
            w.raw(",\"template\":"); w.string(bg.template.rawValue)
            w.raw(",\"spacing\":\(bg.spacing),\"lineColor\":"); w.string(bg.lineColor.hexString)
            w.raw("}}")
        }
        w.raw("\n]}\n")
        return w.bytes
    }

}
