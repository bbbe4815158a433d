import Foundation
import LNoteFormat

/// `lnote-render info PATH... [--json]`: what documents hold and what is wrong with them.
enum InfoCommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show a document's title, pages, element counts, journals and problems.",
        positionals: [PositionalSpec("PATH", help: "Packages, or directories holding packages.", variadic: true)],
        options: ReportOptions.options,
        examples: [.init("Notes.lnote", "title, pages, element counts, journals and problems"),
                   .init("~/Notes --json", "the same for every package under ~/Notes, as JSON")])

    static let subcommand = Subcommand(spec: spec) { args, console in
        let reporter = Reporter(args, console: console)
        var failed = false
        var documents: [JSONOutput] = []
        let paths = packagePaths(args.positionals, reporter: reporter)
        for (i, path) in paths.enumerated() {
            if i > 0 { reporter.line("") }
            guard let document = run(path: path, reporter: reporter) else { failed = true; continue }
            documents.append(document.json)
            failed = failed || document.failed
        }
        failed = failed || reporter.errorCount > 0
        return reporter.finish(failed ? ExitStatus.failure : ExitStatus.success, [("documents", .array(documents))])
    }

    /// One document's summary: its JSON object, and whether a page failed.
    struct DocumentSummary {
        var json: JSONOutput
        var failed: Bool
    }

    /// What one page holds after journal replay.
    struct PageSummary {
        var number: Int
        var id: String?
        var entry: PageEntry?
        var strokes = 0, images = 0, unknown = 0, samples = 0
        var journal: JournalReport?
        var diagnostics: [Diagnostic] = []
        var error: LNoteError?

        init(number: Int, slot: PageSlot, package: LNotePackage) {
            self.number = number
            switch slot {
            case .valid(let entry):
                self.entry = entry
                self.id = entry.id.original
                do {
                    let page = try package.loadPage(entry)
                    for element in page.elements {
                        switch element.kind {
                        case .stroke(let s): strokes += 1; samples += s.sampleCount
                        case .image: images += 1
                        case .unknown: unknown += 1
                        }
                    }
                    journal = page.journal
                    diagnostics = page.diagnostics
                } catch {
                    self.error = error
                }
            case .invalid(_, let rawID, let error):
                self.id = rawID
                self.error = error
            }
        }

        var elements: Int { strokes + images + unknown }

        var journalText: String {
            guard let j = journal else { return "none" }
            var s = "\(j.appliedCount) frame(s) applied"
            if j.discardedCount > 0 { s += ", \(j.discardedCount) discarded" }
            if let torn = j.tornTailOffset { s += ", torn tail at byte \(torn)" }
            return s
        }

        var json: JSONOutput {
            var members: [(String, JSONOutput)] = [("number", .int(number)), ("id", .optional(id))]
            if let e = entry {
                members += [("width", .int(e.width)), ("height", .int(e.height)),
                            ("background", .string(e.background.template.rawValue)),
                            ("elementCountListed", .optional(e.elementCount))]
            }
            if let error {
                members.append(("error", error.json))
            } else {
                members += [("elements", .int(elements)), ("strokes", .int(strokes)), ("images", .int(images)),
                            ("unknown", .int(unknown)), ("samples", .int(samples))]
                members.append(("journal", journal.map { j in
                    .object([("applied", .int(j.appliedCount)), ("discarded", .int(j.discardedCount)),
                             ("tornTailOffset", .optional(j.tornTailOffset)), ("bytes", .int(j.byteCount))])
                } ?? .null))
            }
            members.append(("problems", .array(diagnostics.map(\.json))))
            return .object(members)
        }
    }

    /// Prints one document's text report; nil when the package cannot be opened (reported).
    static func run(path: String, reporter: Reporter) -> DocumentSummary? {
        guard let package = openPackage(path, reporter: reporter) else { return nil }
        let doc = package.document
        let pages = doc.pages.enumerated().map { PageSummary(number: $0.offset + 1, slot: $0.element, package: package) }
        for p in pages { if let error = p.error { reporter.report(Problem(error, package: path, page: p.number)) } }
        let json = JSONOutput.object([
            ("path", .string(path)), ("id", .optional(doc.id?.original)), ("title", .string(doc.title)),
            ("format", .int(doc.format)), ("createdAt", .optional(doc.createdAt)), ("modifiedAt", .optional(doc.modifiedAt)),
            ("pageCount", .int(doc.pages.count)), ("pages", .array(pages.map(\.json))),
            ("problems", .array(doc.diagnostics.map(\.json))),
        ])
        let summary = DocumentSummary(json: json, failed: pages.contains { $0.error != nil })
        guard !reporter.json else { return summary }
        let say = reporter.line
        say("\(doc.title.isEmpty ? "(untitled)" : doc.title)")
        say("  path      \(path)")
        say("  id        \(doc.id?.original ?? "(missing)")")
        say("  modified  \(doc.modifiedAt ?? "(unknown)")")
        say("  pages     \(doc.pages.count)")
        for p in pages {
            say("")
            say("page \(p.number)  \(p.id ?? "(no id)")")
            if let e = p.entry {
                say("  size        \(points(e.width)) × \(points(e.height)) pt, \(e.background.template.rawValue) background")
            }
            if let error = p.error {
                say("  FAILED      \(error)")
                continue
            }
            say("  elements    \(p.elements): \(p.strokes) stroke(s) (\(p.samples) samples), \(p.images) image(s), \(p.unknown) unknown")
            say("  journal     \(p.journalText)")
            if let listed = p.entry?.elementCount, listed != p.elements {
                say("  note        document.json lists \(listed) element(s)")
            }
            for d in p.diagnostics { say("  \(d)") }
        }
        if !doc.diagnostics.isEmpty {
            say("")
            for d in doc.diagnostics { say("\(d)") }
        }
        return summary
    }

    /// 8340 (0.1 pt) → "834", 8345 → "834.5".
    static func points(_ tenths: Int) -> String {
        tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(abs(tenths % 10))"
    }
}
