import Foundation
import LNoteFormat

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
    /// Bumped whenever rendering output changes; part of every thumbnail's fingerprint.
    public static let version = "1.0.0"

    static let subcommands: [Subcommand] = [
        InfoCommand.subcommand, ExportCommand.subcommand, ThumbnailsCommand.subcommand,
        WatchCommand.subcommand, CheckCommand.subcommand, GCCommand.subcommand,
        CompactCommand.subcommand, DiffCommand.subcommand,
        MigrateCommand.subcommand, RestoreCommand.subcommand,
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
        if first == "--help" || first == "-h" || first == "help" {
            console.print(overview)
            return ExitStatus.success
        }
        if first == "--version" {
            console.print("\(name) \(version)")
            return ExitStatus.success
        }
        guard let command = subcommands.first(where: { $0.spec.name == first }) else {
            console.error("error: unknown subcommand '\(first)'\n\n\(overview)")
            return ExitStatus.usage
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            if parsed.wantsHelp {
                console.print(command.spec.helpText(tool: name))
                return ExitStatus.success
            }
            return try command.run(parsed, console)
        } catch {
            console.error("error: \(error.message)")
            console.error("Usage: see '\(name) \(command.spec.name) --help'.")
            return ExitStatus.usage
        }
    }
}

/// Opens a package for a subcommand; on failure prints the error (which names the file and the
/// rule) and returns nil, and the subcommand exits with status 1.
func openPackage(_ path: String, console: Console) -> LNotePackage? {
    do {
        return try LNotePackage.open(at: URL(fileURLWithPath: path))
    } catch {
        console.error("error: \(path): \(error)")
        return nil
    }
}
