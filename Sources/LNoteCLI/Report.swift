import Foundation
import LNoteFormat

/// One error or warning as the user sees it: a line on standard error, or an object in the
/// `errors` / `warnings` arrays of `--json` output. Every subcommand reports through this one
/// type, so text and JSON always say the same thing.
struct Problem: Sendable, Equatable {
    enum Severity: String, Sendable { case error, warning }

    var severity: Severity
    /// Stable and documented in the README ("Error and warning codes"): the code of a library
    /// error or diagnostic (`.pointsLength`, `.maxPixels`), or one of the CLI's own (`.usage`,
    /// `.outputDirectory`, `.noPackages`).
    var code: Code
    /// The library's coarse error kind (`missing`, `invalidJSON`, …), nil for CLI problems.
    var kind: LNoteError.Kind?
    /// The file as the user can open it: the package path they gave joined with the file inside
    /// it, or the path they gave.
    var file: String?
    /// 1-based page number, when the problem belongs to one page.
    var page: Int?
    /// Index of the element in its content file.
    var element: Int?
    /// The element's (or page's) id as written.
    var id: String?
    /// Byte offset in the file (journal frames).
    var offset: Int?
    var message: String

    init(_ severity: Severity, code: Code, kind: LNoteError.Kind? = nil, file: String?, page: Int? = nil, element: Int? = nil,
         id: String? = nil, offset: Int? = nil, message: String) {
        (self.severity, self.code, self.kind, self.file, self.page) = (severity, code, kind, file, page)
        (self.element, self.id, self.offset, self.message) = (element, id, offset, message)
    }

    /// A library error of the package the user named `packagePath` (nil: a file they named).
    init(_ error: LNoteError, package packagePath: String?, page: Int? = nil, severity: Severity = .error) {
        self.init(severity, code: error.code, kind: error.kind,
                  file: Self.shownPath(error.file, package: packagePath), page: page, message: error.message)
    }

    /// A diagnostic of a page (or of document.json) of the package the user named `packagePath`.
    init(_ d: Diagnostic, package packagePath: String, page: Int? = nil) {
        self.init(d.severity == .error ? .error : .warning, code: d.code, file: Self.shownPath(d.file, package: packagePath),
                  page: page, element: d.elementIndex, id: d.elementID, offset: d.offset, message: d.message)
    }

    static func usage(_ message: String) -> Problem { Problem(.error, code: .usage, file: nil, message: message) }

    /// Library errors name a file inside a package relative to it, and the package itself by
    /// its absolute path; the user sees both in the form they typed: `doc.lnote/pages/X.content`
    /// and `doc.lnote`, never an absolute path they did not give, never the package twice.
    static func shownPath(_ file: String, package packagePath: String?) -> String {
        guard let packagePath else { return file }
        var root = packagePath
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        if file.isEmpty || file == root { return root }
        if file.hasPrefix("/") {
            let absolute = URL(fileURLWithPath: root).standardizedFileURL.path
            if file == absolute { return root }
            if file.hasPrefix(absolute + "/") { return root + file.dropFirst(absolute.count) }
            return file
        }
        return root == "/" ? "/" + file : root + "/" + file
    }

    /// `warning: page 2: doc.lnote/pages/X.content @120: element 3 (id A1): [points-length] …`
    var text: String {
        ProblemLine.text(severity: severity.rawValue, page: page, file: file, offset: offset, element: element, id: id,
                         code: code, message: message)
    }

    /// The page a message names at its start (`page 2's thumbnail …`), for problems whose
    /// source knows no page number of its own.
    static func pageNamed(in message: String) -> Int? {
        guard message.hasPrefix("page ") else { return nil }
        let digits = message.dropFirst(5).prefix { $0.isASCII && $0.isNumber }
        return digits.isEmpty ? nil : Int(digits)
    }

    /// The problem in every command's `errors` / `warnings` (`Reporter.finish`, `event`).
    var json: JSONOutput {
        .object([("severity", .string(severity.rawValue)), ("code", .string(code.rawValue)), ("kind", .optional(kind?.rawValue)),
                 ("file", .optional(file)), ("page", .optional(page ?? Self.pageNamed(in: message))), ("element", .optional(element)),
                 ("id", .optional(id)), ("offset", .optional(offset)), ("message", .string(message))])
    }
}

/// Everything one subcommand run tells its user: lines and problems as text, or, with `--json`,
/// one JSON document on standard output at the end, on success and on failure alike:
///
///     {"command":"export","ok":true,"status":0, …the command's members…, "errors":[…],"warnings":[…]}
///
/// `watch --json` instead writes one such object per event and line (`event`).
final class Reporter: @unchecked Sendable {
    let command: String
    let json: Bool
    let console: Console
    /// Text lines go to standard error (export writes the image itself to standard output).
    var linesToStandardError = false
    private var problems: [Problem] = []
    private let lock = NSLock()

    init(command: String, json: Bool, console: Console) {
        self.command = command
        self.json = json
        self.console = console
    }

    convenience init(_ args: ParsedArguments, console: Console) {
        self.init(command: args.spec.name, json: ReportOptions(args).json, console: console)
    }

    /// Text mode: the problem on standard error at once. JSON: kept for the document.
    func report(_ problem: Problem) {
        lock.lock(); problems.append(problem); lock.unlock()
        if !json { console.error(problem.text) }
    }

    /// A finding that is the command's own output (`check`): a line on standard output in text,
    /// an error or warning of the JSON document.
    func finding(_ problem: Problem) {
        lock.lock(); problems.append(problem); lock.unlock()
        line(problem.text)
    }

    var errorCount: Int { lock.lock(); defer { lock.unlock() }; return problems.filter { $0.severity == .error }.count }

    /// A line of the text report (nothing with `--json`).
    func line(_ text: String) {
        guard !json else { return }
        linesToStandardError ? console.error(text) : console.print(text)
    }

    /// A progress line on a terminal (never with `--json`).
    func progress(_ text: String) {
        guard !json else { return }
        console.progress(text)
    }

    /// Ends the run: with `--json`, prints the document with `members` between the status and the
    /// problems. Returns `status`.
    @discardableResult
    func finish(_ status: Int32, _ members: [(String, JSONOutput)] = []) -> Int32 {
        console.endProgress()
        guard json else { return status }
        lock.lock()
        let (errors, warnings) = (problems.filter { $0.severity == .error }, problems.filter { $0.severity == .warning })
        problems = []
        lock.unlock()
        console.print(JSONOutput.object(
            [("command", .string(command)), ("ok", .bool(status == ExitStatus.success)), ("status", .int(Int(status)))]
            + members + [("errors", .array(errors.map(\.json))), ("warnings", .array(warnings.map(\.json)))]).text)
        return status
    }

    /// `watch --json`: one object per event, on its own line, with the problems gathered since
    /// the last event.
    func event(_ name: String, _ members: [(String, JSONOutput)]) {
        guard json else { return }
        lock.lock()
        let (errors, warnings) = (problems.filter { $0.severity == .error }, problems.filter { $0.severity == .warning })
        problems = []
        lock.unlock()
        console.print(JSONOutput.object([("command", .string(command)), ("event", .string(name))] + members
            + [("errors", .array(errors.map(\.json))), ("warnings", .array(warnings.map(\.json)))]).text)
    }
}
