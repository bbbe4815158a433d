import Foundation
import LNoteFormat
import LNoteRender
import LNoteStore

/// `lnote-render migrate PATH... --to OUT.sqlite [--json] [--verify]`: packages into one
/// level-2 store (README, "Level-2 storage"), verified by counts; `--verify` only compares.
enum MigrateCommand {
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
        options: [
            .value("to", "OUT.sqlite", help: "The database to write (or, with --verify, to check); required, no default."),
            .flag("verify", help: "Only compare an existing database with the packages; write nothing."),
            .flag("json", help: "Print one JSON object instead of text."),
        ],
        examples: [
            .init("~/Notes --to notes.sqlite", "every package under ~/Notes into one database, verified"),
            .init("~/Notes --to notes.sqlite --verify", "compare the database with the packages again; writes nothing"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        guard let target = args.string("to"), !target.isEmpty else { throw UsageError("--to OUT.sqlite is required") }
        let verifyOnly = args.flag("verify")
        let json = args.flag("json")
        let scan = LibraryScan.packages(in: args.positionals)
        // A mistyped PATH must not give a database without its documents in place of one that
        // had them: nothing is migrated or verified unless every PATH was found.
        guard scan.errors.isEmpty, !scan.packages.isEmpty else {
            for failure in scan.errors { console.error("error: \(failure.message)") }
            if scan.errors.isEmpty { console.error("error: no .lnote package found in \(args.positionals.joined(separator: " "))") }
            console.error("error: \(target): nothing \(verifyOnly ? "verified" : "migrated"); the database is unchanged")
            if json {
                let messages = scan.errors.isEmpty ? ["no .lnote package found"] : scan.errors.map(\.message)
                console.print(JSONOutput.object([("database", .string(target)), ("verified", .bool(false)), ("installed", .bool(false)),
                                                 ("errors", .array(messages.map { .string($0) }))]).text)
            }
            return ExitStatus.failure
        }
        let report: MigrationReport
        do throws(LNoteError) {
            report = verifyOnly ? try Migration.verify(scan.packages, database: target)
                                : try Migration.migrate(scan.packages, to: target)
        } catch {
            if json {
                console.print(JSONOutput.object([("database", .string(target)), ("error", error.json)]).text)
            }
            console.error("error: \(error)")
            return ExitStatus.failure
        }
        if json {
            console.print(StoreOutput.json(report, verifyOnly: verifyOnly).text)
        } else {
            for problem in report.problems { console.error(problem.description) }
            for line in StoreOutput.text(report, verifyOnly: verifyOnly) { console.print(line) }
        }
        return report.verified && !report.hasErrors ? ExitStatus.success : ExitStatus.failure
    }
}

/// `lnote-render restore DB.sqlite --out DIR`: a store back into packages.
enum RestoreCommand {
    static let spec = CommandSpec(
        name: "restore", abstract: "Write the packages of a migrated database back into a directory.",
        discussion: """
            Each document becomes DIR/<name>.lnote: document.json, one snapshot per page holding the replayed
            elements, and assets/. Each package is built under a temporary name and moved into place when
            complete; an existing package is never replaced. Derived data (manifest.json, thumbnails/) is not
            written: run 'lnote-render thumbnails DIR' afterwards.
            """,
        positionals: [PositionalSpec("DB.sqlite", help: "A database written by 'migrate'.")],
        options: [
            .value("out", short: "o", "DIR", help: "The directory to write the packages into (created if missing); required, no default."),
            .flag("json", help: "Print one JSON object instead of text."),
        ],
        examples: [
            .init("notes.sqlite --out restored/", "every document back as a package under restored/"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        guard let out = args.string("out"), !out.isEmpty else { throw UsageError("--out DIR is required") }
        let database = args.positionals[0]
        let report: RestoreReport
        do throws(LNoteError) {
            report = try Restore.restore(database: database, to: out)
        } catch {
            if args.flag("json") {
                console.print(JSONOutput.object([("database", .string(database)), ("error", error.json)]).text)
            }
            console.error("error: \(error)")
            return ExitStatus.failure
        }
        if args.flag("json") {
            console.print(JSONOutput.object([
                ("database", .string(database)), ("out", .string(out)),
                ("written", .array(report.written.map { .string($0) })),
                ("census", StoreOutput.json(report.census)),
                ("mismatches", .array(report.mismatches.map { .string($0) })),
                ("problems", .array(report.problems.map(\.json))),
            ]).text)
        } else {
            for problem in report.problems { console.error(problem.description) }
            for path in report.written { console.print("restored \(path)") }
            for line in report.mismatches { console.print("MISMATCH: \(line)") }
            console.print("\(database): \(report.written.count) package(s) restored into \(out)"
                          + (report.mismatches.isEmpty ? "; their counts match the database" : ""))
            if !report.written.isEmpty { console.print("run '\(LNoteTool.name) thumbnails \(out)' to rebuild their manifests and thumbnails") }
        }
        return report.hasErrors || !report.mismatches.isEmpty ? ExitStatus.failure : ExitStatus.success
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

    static func json(_ r: MigrationReport, verifyOnly: Bool) -> JSONOutput {
        .object([
            ("database", .string(r.target)), ("mode", .string(verifyOnly ? "verify" : "migrate")),
            ("verified", .bool(r.verified)), ("installed", .bool(r.installed)),
            ("packages", json(r.packages)), ("stored", r.database.map(json) ?? .null),
            ("mismatches", .array(r.mismatches.map { .string($0) })),
            ("problems", .array(r.problems.map(\.json))),
            ("seconds", .number(r.seconds)), ("sourceBytes", .int(r.sourceBytes)), ("sampleBytes", .int(r.blobBytes)),
            ("mbPerSecond", .number(r.seconds > 0 ? Double(r.sourceBytes) / 1e6 / r.seconds : 0)),
        ])
    }

    static func json(_ c: Census) -> JSONOutput {
        .object(c.totals.map { ($0.name.replacingOccurrences(of: " ", with: "_"), .int($0.value)) } + [
            ("documents_by_package", .array(c.documents.map { d in
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

extension StoreProblem {
    var json: JSONOutput {
        .object([("severity", .string(severity.rawValue)), ("path", .string(path)), ("message", .string(message))])
    }
}
