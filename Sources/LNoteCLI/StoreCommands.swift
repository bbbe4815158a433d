import Foundation
import LNoteFormat
import LNoteRender
import LNoteStore

/// `lnote-render migrate PATH... --to OUT.sqlite [--json] [--verify]`: packages into one
/// level-2 store (README, "Level-2 storage"), verified by counts; `--verify` only compares.
enum MigrateCommand {
    static let to = Option<String?>.text("to", "OUT.sqlite", "The database to write (or, with --verify, to check); required", absent: "none")
    static let verify = Flag("verify", help: "Only compare an existing database with the packages; write nothing.")

    static let spec = CommandSpec(
        name: "migrate", abstract: "Migrate packages into one SQLite database (level-2 storage), verified.",
        discussion: """
            Journals are replayed first. The database is built beside OUT.sqlite under a temporary name, in WAL
            mode, checkpointed and closed, counted again through a new connection, and renamed over OUT.sqlite
            only when its counts (documents, pages, elements per page by kind, samples, assets) match the
            packages': a crash or a mismatch leaves the old OUT.sqlite or none. An existing OUT.sqlite is
            replaced only when it is such a database. Exit 1 on a mismatch or when a package or page failed.
            """,
        positionals: [PositionalSpec("PATH", help: "A .lnote package, or a directory searched for packages.", variadic: true)],
        options: [to.spec, verify.spec] + ReportOptions.options,
        examples: [
            .init("~/Notes --to notes.sqlite", "every package under ~/Notes into one database, verified"),
            .init("~/Notes --to notes.sqlite --verify", "compare the database with the packages again; writes nothing"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        guard let target = try args.value(Self.to), !target.isEmpty else { throw UsageError("--to OUT.sqlite is required") }
        let verifyOnly = args.isSet(Self.verify)
        let reporter = Reporter(args, console: console)
        let mode = ("mode", JSONOutput.string(verifyOnly ? "verify" : "migrate"))
        let packages = packagePaths(args.positionals, reporter: reporter)
        // A mistyped PATH must not give a database without its documents in place of one that
        // had them: nothing is migrated or verified unless every PATH was found.
        guard reporter.errorCount == 0, !packages.isEmpty else {
            reporter.report(Problem(.error, code: .noPackages, file: target,
                                    message: "nothing \(verifyOnly ? "verified" : "migrated"); the database is unchanged"))
            return reporter.finish(ExitStatus.failure, [("database", .string(target)), mode, ("verified", .bool(false)),
                                                       ("installed", .bool(false))])
        }
        // Ctrl-C removes the temporary database (and its -wal, -shm) being built.
        if !verifyOnly { InterruptCleanup.install() }
        let report: MigrationReport
        do throws(LNoteError) {
            report = verifyOnly ? try Migration.verify(packages, database: target)
                                : try Migration.migrate(packages, to: target)
        } catch {
            reporter.report(Problem(error, package: nil))
            return reporter.finish(ExitStatus.failure, [("database", .string(target)), mode, ("verified", .bool(false)),
                                                       ("installed", .bool(false))])
        }
        for problem in report.problems { reporter.report(Problem(problem)) }
        for line in StoreOutput.text(report, verifyOnly: verifyOnly) { reporter.line(line) }
        let ok = report.verified && !report.hasErrors
        return reporter.finish(ok ? ExitStatus.success : ExitStatus.failure, StoreOutput.members(report, verifyOnly: verifyOnly))
    }
}

/// `lnote-render restore DB.sqlite --out DIR`: a store back into packages.
enum RestoreCommand {
    static let out = Option<String?>.text("out", short: "o", "DIR", "The directory to write the packages into (created if missing); required",
                                          absent: "none")

    static let spec = CommandSpec(
        name: "restore", abstract: "Write the packages of a migrated database back into a directory.",
        discussion: """
            Each document becomes DIR/<name>.lnote: document.json, one snapshot per page holding the replayed
            elements, and assets/. Each package is built under a temporary name and moved into place when
            complete; an existing package is never replaced. Derived data (manifest.json, thumbnails/) is not
            written: run 'lnote-render thumbnails DIR' afterwards.
            """,
        positionals: [PositionalSpec("DB.sqlite", help: "A database written by 'migrate'.")],
        options: [out.spec] + ReportOptions.options,
        examples: [
            .init("notes.sqlite --out restored/", "every document back as a package under restored/"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        guard let out = try args.value(Self.out), !out.isEmpty else { throw UsageError("--out DIR is required") }
        let database = args.positionals[0]
        let reporter = Reporter(args, console: console)
        // Ctrl-C removes the package being built under its temporary name.
        InterruptCleanup.install()
        let report: RestoreReport
        do throws(LNoteError) {
            report = try Restore.restore(database: database, to: out)
        } catch {
            reporter.report(Problem(error, package: nil))
            return reporter.finish(ExitStatus.failure, [("database", .string(database)), ("out", .string(out)), ("written", .array([]))])
        }
        for problem in report.problems { reporter.report(Problem(problem)) }
        for path in report.written { reporter.line("restored \(path)") }
        for line in report.mismatches { reporter.line("MISMATCH: \(line)") }
        reporter.line(summary(report, database: database, out: out))
        if !report.written.isEmpty { reporter.line("run '\(LNoteTool.name) thumbnails \(out)' to rebuild their manifests and thumbnails") }
        let failed = report.hasErrors || !report.mismatches.isEmpty
        return reporter.finish(failed ? ExitStatus.failure : ExitStatus.success, [
            ("database", .string(database)), ("out", .string(out)),
            ("written", .array(report.written.map { .string($0) })),
            ("census", StoreOutput.json(report.census)),
            ("mismatches", .array(report.mismatches.map { .string($0) })),
        ])
    }

    /// The last line of a restore: what was restored, what was not, and whether the counts of
    /// what was restored match (said only of packages that were written).
    static func summary(_ report: RestoreReport, database: String, out: String) -> String {
        let refused = report.problems.filter { $0.severity == .error }.count
        var line = "\(database): \(report.written.count) package(s) restored into \(out)"
        if !report.written.isEmpty && report.mismatches.isEmpty { line += "; their counts match the database" }
        if refused > 0 { line += "; \(refused) not restored (see the errors above)" }
        return line
    }
}

/// How the store commands print a report.
enum StoreOutput {
    static func text(_ r: MigrationReport, verifyOnly: Bool) -> [String] {
        var lines: [String] = []
        let mb = Double(r.sourceBytes) / 1e6
        if verifyOnly {
            lines.append("\(r.target): checked against \(r.packages.documents.count) package(s) in \(format(r.seconds)) s")
        } else {
            lines.append("\(r.target): \(r.packages.documents.count) package(s), \(format(mb)) MB read, "
                         + "\(format(Double(r.blobBytes) / 1e6)) MB of samples, in \(format(r.seconds)) s "
                         + "(\(format(r.seconds > 0 ? mb / r.seconds : 0)) MB/s)")
        }
        let left = r.packages.totals
        let right = r.database?.totals
        lines.append(pad("", 20) + pad("packages", 12, right: true) + pad("database", 12, right: true))
        for (i, row) in left.enumerated() {
            let other = right.map { String($0[i].value) } ?? "-"
            let mark = right.map { $0[i].value == row.value ? "" : "  <-- differs" } ?? ""
            lines.append(pad(row.name, 20) + pad(String(row.value), 12, right: true) + pad(other, 12, right: true) + mark)
        }
        for m in r.mismatches { lines.append("MISMATCH: \(m)") }
        if r.verified {
            lines.append(verifyOnly ? "verified: every count matches" : "verified: every count matches; \(r.target) \(r.installed ? "written" : "unchanged")")
        } else {
            lines.append("not verified: \(r.mismatches.count) difference(s)" + (verifyOnly ? "" : "; \(r.target) was not replaced"))
        }
        return lines
    }

    /// A migration's members of the JSON document (between `status` and `errors`).
    static func members(_ r: MigrationReport, verifyOnly: Bool) -> [(String, JSONOutput)] {
        [
            ("database", .string(r.target)), ("mode", .string(verifyOnly ? "verify" : "migrate")),
            ("verified", .bool(r.verified)), ("installed", .bool(r.installed)),
            ("packages", json(r.packages)), ("stored", r.database.map(json) ?? .null),
            ("mismatches", .array(r.mismatches.map { .string($0) })),
            ("seconds", .number(r.seconds)), ("sourceBytes", .int(r.sourceBytes)), ("sampleBytes", .int(r.blobBytes)),
            ("mbPerSecond", .number(r.seconds > 0 ? Double(r.sourceBytes) / 1e6 / r.seconds : 0)),
        ]
    }

    /// A count's name as a JSON key, in the camelCase of every key: `asset bytes` is `assetBytes`.
    static func key(_ name: String) -> String {
        let words = name.split(separator: " ")
        return words.enumerated().map { i, w in i == 0 ? String(w) : w.prefix(1).uppercased() + w.dropFirst() }.joined()
    }

    static func json(_ c: Census) -> JSONOutput {
        .object(c.totals.map { (key($0.name), .int($0.value)) } + [
            ("documentsByPackage", .array(c.documents.map { d in
                .object([
                    ("package", .string(d.package)), ("assets", .int(d.assets)), ("assetBytes", .int(d.assetBytes)),
                    ("pages", .array(d.pages.map { p in
                        .object([("failed", .bool(p.failed)), ("strokes", .int(p.strokes)), ("images", .int(p.images)),
                                 ("unknown", .int(p.unknown)), ("invalid", .int(p.invalid)),
                                 ("discardedFrames", .int(p.discardedFrames)), ("samples", .int(p.samples))])
                    })),
                ])
            })),
        ])
    }

    static func format(_ v: Double) -> String { String(format: "%.2f", v) }

    static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - s.count))
        return right ? fill + s : s + fill
    }
}

extension Problem {
    /// A problem of a migration or restore, as every command reports one.
    init(_ p: StoreProblem) {
        self.init(p.severity == .error ? .error : .warning, code: p.code, file: p.path, message: p.message)
    }
}
