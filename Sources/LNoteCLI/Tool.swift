import Foundation
import LNoteFormat
import LNoteRender

/// One subcommand: its interface and what it does.
struct Subcommand: Sendable {
    let spec: CommandSpec
    /// Runs with parsed arguments; returns the exit status. Usage errors thrown from here
    /// (bad option values) exit with status 2, like parse errors.
    let run: @Sendable (ParsedArguments, Console) throws(UsageError) -> Int32
}

/// The `lnote-render` tool: dispatches to subcommands.
public enum LNoteTool {
    public static let name = "lnote-render"
    /// The renderer's version (the library's); part of every thumbnail's fingerprint.
    public static let version = LNoteRenderer.version

    static let subcommands: [Subcommand] = [
        InfoCommand.subcommand, ExportCommand.subcommand, ThumbnailsCommand.subcommand,
        WatchCommand.subcommand, CheckCommand.subcommand, GCCommand.subcommand,
        CompactCommand.subcommand, DiffCommand.subcommand, SnapshotCommand.subcommand,
        MigrateCommand.subcommand, RestoreCommand.subcommand,
        CompletionsCommand.subcommand, ManCommand.subcommand,
    ]

    static var overview: String {
        var lines = [
            "OVERVIEW: Render Lulucat Notes .lnote documents: export pages, keep thumbnails fresh, check packages.",
            "", "USAGE: \(name) <subcommand> [options]", "", "SUBCOMMANDS:",
        ]
        for c in subcommands {
            let pad = String(repeating: " ", count: max(1, 14 - c.spec.name.count))
            lines.append("  \(c.spec.name)\(pad)\(c.spec.abstract)")
        }
        lines += ["", "See '\(name) <subcommand> --help' for a subcommand's options."]
        return lines.joined(separator: "\n")
    }

    /// Runs the tool with `arguments` (without the program name); returns the exit status.
    /// Output that could not be written (a full disk, a closed descriptor) makes it non-zero.
    public static func run(_ arguments: [String], console: Console) -> Int32 {
        let status = dispatch(arguments, console: console)
        guard let failure = console.outputFailure else { return status }
        console.error("error: cannot write to standard output: \(failure)")
        return status == ExitStatus.success ? ExitStatus.failure : status
    }

    private static func dispatch(_ arguments: [String], console: Console) -> Int32 {
        guard let first = arguments.first else {
            console.error(overview)
            return ExitStatus.usage
        }
        if first == "--help" || first == "-h" {
            console.print(overview)
            return ExitStatus.success
        }
        if first == "help" {
            // `help export` is `export --help`.
            guard let name = arguments.dropFirst().first else {
                console.print(overview)
                return ExitStatus.success
            }
            guard let command = subcommands.first(where: { $0.spec.name == name }) else {
                return unknownSubcommand(name, console: console)
            }
            console.print(command.spec.helpText(tool: self.name))
            return ExitStatus.success
        }
        if first == "--version" {
            console.print("\(name) \(version)")
            return ExitStatus.success
        }
        if first.hasPrefix("-") {
            console.error("error: unknown option '\(first)': options go after the subcommand (\(name) <subcommand> [options])\n\n\(overview)")
            return ExitStatus.usage
        }
        guard let command = subcommands.first(where: { $0.spec.name == first }) else {
            return unknownSubcommand(first, console: console)
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.wantsHelp {
                console.print(command.spec.helpText(tool: name))
                return ExitStatus.success
            }
            return try command.run(parsed, console)
        } catch {
            // With --json, a usage error is a JSON document too (the command line may be too
            // broken to parse, so the flag is looked for among the words themselves).
            if command.spec.options.contains(where: { $0.name == ReportOptions.json.spec.name }),
               arguments.dropFirst().prefix(while: { $0 != "--" }).contains(ReportOptions.json.spec.name.withDashes) {
                let reporter = Reporter(command: command.spec.name, json: true, console: console)
                reporter.report(.usage(error.message))
                return reporter.finish(ExitStatus.usage)
            }
            console.error("error: \(error.message)")
            console.error("Usage: see '\(name) \(command.spec.name) --help'.")
            return ExitStatus.usage
        }
    }

    private static func unknownSubcommand(_ word: String, console: Console) -> Int32 {
        let hint = ParsedArguments.closest(to: word, among: subcommands.map(\.spec.name)).map { " (did you mean '\($0)'?)" } ?? ""
        console.error("error: unknown subcommand '\(word)'\(hint)\n\n\(overview)")
        return ExitStatus.usage
    }
}

/// Opens a package for a subcommand; on failure reports the error (naming the file and the
/// rule, with the path as the user gave it) and returns nil, and the subcommand exits with
/// status 1.
func openPackage(_ path: String, reporter: Reporter) -> LNotePackage? {
    do {
        return try LNotePackage.open(at: URL(fileURLWithPath: path))
    } catch {
        reporter.report(Problem(error, package: path))
        return nil
    }
}

/// The packages that `paths` name, for subcommands that take `PATH...`: a package as is (a
/// directory named `*.lnote`, or any directory holding a `document.json`), a directory searched
/// for packages. A path that is neither, or a directory with no package in it, is reported.
func packagePaths(_ paths: [String], reporter: Reporter) -> [String] {
    var found: [String] = []
    for path in paths {
        if FileIO.kind(atPath: path) == .directory && !path.lowercased().hasSuffix(".lnote"),
           FileIO.kind(atPath: path + "/" + DocumentParser.fileName) == .regular {
            found.append(path)
            continue
        }
        let scan = LibraryScan.packages(in: [path])
        for failure in scan.errors {
            let (code, message) = switch FileIO.kind(atPath: failure.path) {
            case .missing: (Code.missing, "no such file or directory")
            case .symlink: (Code.symlink, "a symbolic link, which is never followed")
            default: (Code.notAPackage, "not a .lnote package or a directory holding packages")
            }
            reporter.report(Problem(.error, code: code, file: failure.path, message: message))
        }
        if scan.errors.isEmpty && scan.packages.isEmpty {
            reporter.report(Problem(.error, code: .noPackages, file: path, message: "no .lnote packages in this directory"))
        }
        found += scan.packages
    }
    return found
}
