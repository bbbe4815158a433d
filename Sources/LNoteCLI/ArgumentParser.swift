// A small, table-driven command-line parser.
//
// Each subcommand declares its options and positional arguments as data (`CommandSpec`); one
// parser reads `--opt value`, `--opt=value`, `-o value`, `-ovalue`, `-o=value`, grouped short
// flags (`-qn`), `--` and `-` for every command alike, and the same table produces `--help`. Values are read through the
// typed declarations of Options.swift (`Flag`, `Option`), which validate them, so every error message names the option
// and what is wrong, and a command cannot ask for an option that does not exist.

#if canImport(Glibc)
import Glibc  // libm for Double rounding; Swift does not link it implicitly on Linux
#endif

/// Describes one `--option`.
public struct OptionSpec: Sendable {
    /// Long name without dashes (`output`); the key values are stored under.
    public let name: String
    /// Optional one-letter short name (`o` for `-o`).
    public let short: Character?
    /// Placeholder shown in help (`PATH`); nil for a flag that takes no value.
    public let valueName: String?
    public let help: String
    /// May be given several times; every value is kept in order.
    public let repeatable: Bool

    public static func flag(_ name: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: nil, help: help, repeatable: false)
    }

    public static func value(_ name: String, short: Character? = nil, _ valueName: String, help: String,
                             repeatable: Bool = false) -> OptionSpec {
        OptionSpec(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable)
    }

    var takesValue: Bool { valueName != nil }
}

/// Describes one positional argument (`DOC.lnote`).
public struct PositionalSpec: Sendable {
    public let name: String
    public let help: String
    /// Accepts one or more values (only the last positional may).
    public let variadic: Bool
    public let optional: Bool

    public init(_ name: String, help: String, variadic: Bool = false, optional: Bool = false) {
        self.name = name
        self.help = help
        self.variadic = variadic
        self.optional = optional
    }
}

/// A subcommand's whole interface: what `--help` prints and what the parser accepts.
public struct CommandSpec: Sendable {
    public let name: String
    public let abstract: String
    public let discussion: String?
    public let positionals: [PositionalSpec]
    public let options: [OptionSpec]
    /// Options that were renamed: old name → new name, so the old one gets a clear error.
    public let renamedOptions: [String: String]
    /// Command lines shown under EXAMPLES (without the tool's name), each with what it does.
    public let examples: [Example]
    /// What each exit status means for this command.
    public let exitStatuses: [(status: Int32, meaning: String)]

    public struct Example: Sendable {
        public let arguments: String
        public let explanation: String
        public init(_ arguments: String, _ explanation: String) {
            self.arguments = arguments
            self.explanation = explanation
        }
    }

    /// The statuses every command shares (`ExitStatus`).
    public static let standardExitStatuses: [(status: Int32, meaning: String)] = [
        (ExitStatus.success, "success"),
        (ExitStatus.failure, "some work failed (a page, a document, a file); the rest was done"),
        (ExitStatus.usage, "usage error: the command line was wrong; nothing was done"),
    ]

    public init(name: String, abstract: String, discussion: String? = nil,
                positionals: [PositionalSpec], options: [OptionSpec], renamedOptions: [String: String] = [:],
                examples: [Example] = [], exitStatuses: [(status: Int32, meaning: String)] = standardExitStatuses) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.positionals = positionals
        self.options = options + [.flag("help", short: "h", help: "Show this help and exit.")]
        self.renamedOptions = renamedOptions
        self.examples = examples
        self.exitStatuses = exitStatuses
    }

    /// The text `--help` prints.
    public func helpText(tool: String) -> String {
        var usage = "USAGE: \(tool) \(name)"
        for p in positionals {
            let shown = p.variadic ? "\(p.name)..." : p.name
            usage += p.optional ? " [\(shown)]" : " \(shown)"
        }
        if options.count > 1 { usage += " [options]" }
        var lines = ["OVERVIEW: \(abstract)", "", usage]
        if let discussion { lines += ["", discussion] }
        if !positionals.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for p in positionals { lines.append(Self.row(p.name, p.help)) }
        }
        lines += ["", "OPTIONS:"]
        for o in options {
            var label = o.short.map { "-\($0), " } ?? ""
            label += "--\(o.name)"
            if let v = o.valueName { label += " <\(v)>" }
            lines.append(Self.row(label, o.help))
        }
        if !examples.isEmpty {
            lines += ["", "EXAMPLES:"]
            for e in examples { lines += ["  \(tool) \(name) \(e.arguments)", "      \(e.explanation)"] }
        }
        lines += ["", "EXIT STATUS:"]
        for (status, meaning) in exitStatuses { lines.append("  \(status)  \(meaning)") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func row(_ label: String, _ help: String) -> String {
        let pad = 26
        let left = "  " + label
        return left.count < pad ? left + String(repeating: " ", count: pad - left.count) + help
                                : left + "\n" + String(repeating: " ", count: pad) + help
    }
}

/// A usage mistake: reported with the command's usage line, exit status 2.
public struct UsageError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The result of parsing one command line against a `CommandSpec`.
public struct ParsedArguments: Sendable {
    public let spec: CommandSpec
    /// Positional values in order.
    public let positionals: [String]
    /// Every value given per option name, in order.
    private let values: [String: [String]]
    private let flags: Set<String>

    public var wantsHelp: Bool { flags.contains("help") }

    /// Whether the flag or option named so was given. Private: commands read options through
    /// their typed declarations (`Flag`, `Option`), never by a name in a string.
    fileprivate func given(_ name: String) -> Bool { values[name] != nil || flags.contains(name) }

    /// The last value given for the option named so.
    fileprivate func lastValue(_ name: String) -> String? { values[name]?.last }

    /// Parses `arguments` (without the tool and subcommand names).
    public init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        var flags = Set<String>()
        var i = 0
        var optionsEnded = false

        func unknown(_ token: String, in group: String? = nil) -> UsageError {
            if let renamed = spec.renamedOptions[String(token.dropFirst(2))], token.hasPrefix("--") {
                return UsageError("\(token) of '\(spec.name)' is now --\(renamed)")
            }
            let hint = Self.suggestion(for: token, in: spec.options).map { " (did you mean \($0)?)" } ?? ""
            let within = group.map { " in '\($0)'" } ?? ""
            return UsageError("unknown option '\(token)'\(within) for '\(spec.name)'\(hint)")
        }

        func store(_ option: OptionSpec, value: String?) throws(UsageError) {
            guard option.takesValue, let value else {
                if value != nil { throw UsageError("--\(option.name) is a flag and takes no value") }
                flags.insert(option.name)
                return
            }
            if values[option.name] != nil && !option.repeatable {
                throw UsageError("--\(option.name) was given more than once")
            }
            values[option.name, default: []].append(value)
        }

        /// The next argument as the value of `option`, or a usage error when there is none.
        func nextValue(for option: OptionSpec, token: String) throws(UsageError) -> String {
            guard i < arguments.count else { throw UsageError("\(token) needs a value <\(option.valueName!)>") }
            i += 1
            return arguments[i - 1]
        }

        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") || Self.isNegativeNumber(arg) {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            if arg.hasPrefix("--") {
                // `--name value` / `--name=value`
                var token = arg
                var inlineValue: String?
                if let eq = arg.firstIndex(of: "=") {
                    token = String(arg[..<eq])
                    inlineValue = String(arg[arg.index(after: eq)...])
                }
                guard let option = spec.options.first(where: { $0.name == token.dropFirst(2) }) else { throw unknown(token) }
                var value = inlineValue
                if option.takesValue && value == nil { value = try nextValue(for: option, token: token) }
                try store(option, value: value)
                continue
            }
            // Short options, POSIX style: grouped flags (`-qn`), an attached value (`-oout.png`,
            // `-j2`), a value after `=` (`-o=out.png`), or the value in the next argument. The
            // first letter that takes a value takes the rest of the argument.
            var rest = Substring(arg.dropFirst())
            while let c = rest.first {
                rest = rest.dropFirst()
                let token = "-\(c)"
                guard let option = spec.options.first(where: { $0.short == c }) else {
                    throw arg.count == 2 ? unknown(arg) : unknown(token, in: arg)
                }
                if !option.takesValue {
                    if rest.first == "=" { throw UsageError("\(token) (--\(option.name)) is a flag and takes no value") }
                    try store(option, value: nil)
                    continue
                }
                if rest.first == "=" { rest = rest.dropFirst() }
                let value = rest.isEmpty ? try nextValue(for: option, token: token) : String(rest)
                try store(option, value: value)
                break
            }
        }
        self.positionals = positionals
        self.values = values
        self.flags = flags
        if flags.contains("help") { return }

        // Positional count check.
        let required = spec.positionals.filter { !$0.optional }.count
        let variadic = spec.positionals.last?.variadic ?? false
        if positionals.count < required {
            let missing = spec.positionals[positionals.count].name
            throw UsageError("missing argument \(missing)")
        }
        if !variadic && positionals.count > spec.positionals.count {
            throw UsageError("unexpected argument '\(positionals[spec.positionals.count])'")
        }
    }

    private static func isNegativeNumber(_ s: String) -> Bool {
        s.count > 1 && s.hasPrefix("-") && Double(s) != nil
    }

    /// The declared option closest to a mistyped one, if any is close.
    private static func suggestion(for token: String, in options: [OptionSpec]) -> String? {
        closest(to: String(token.drop { $0 == "-" }), among: options.map(\.name)).map { "--\($0)" }
    }

    /// The word of `candidates` closest to a mistyped one, if any is close: within an edit
    /// distance of a third of its length, or an adjacent swap (`exprot`), which counts as one.
    static func closest(to typed: String, among candidates: [String]) -> String? {
        var best: (String, Int)?
        for c in candidates {
            let d = min(editDistance(Array(typed), Array(c)), isOneSwap(Array(typed), Array(c)) ? 1 : .max)
            if d <= max(1, c.count / 3), best == nil || d < best!.1 { best = (c, d) }
        }
        return best?.0
    }

    private static func isOneSwap(_ a: [Character], _ b: [Character]) -> Bool {
        guard a.count == b.count else { return false }
        let diff = a.indices.filter { a[$0] != b[$0] }
        return diff.count == 2 && diff[1] == diff[0] + 1 && a[diff[0]] == b[diff[1]] && a[diff[1]] == b[diff[0]]
    }

    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var row = Array(0...b.count)
        for i in 1...max(1, a.count) where !a.isEmpty {
            var prev = row[0]
            row[0] = i
            for j in 1...max(1, b.count) where !b.isEmpty {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return a.isEmpty ? b.count : row[b.count]
    }
}

extension ParsedArguments {
    /// The option's value: parsed from the last text given, else its `whenAbsent`.
    func value<V>(_ option: Option<V>) throws(UsageError) -> V {
        guard let text = text(option) else { return option.whenAbsent }
        return try option.parse(text)
    }

    func isSet(_ flag: Flag) -> Bool {
        precondition(declares(flag.spec), "--\(flag.spec.name) is not an option of \(spec.name)")
        return given(flag.spec.name)
    }

    /// Whether the option was given at all.
    func isGiven<V>(_ option: Option<V>) -> Bool { text(option) != nil }

    /// The option's text as given (the last one), nil when absent.
    func text<V>(_ option: Option<V>) -> String? {
        precondition(declares(option.spec), "--\(option.spec.name) is not an option of \(spec.name)")
        return lastValue(option.spec.name)
    }

    /// Whether this command's table has the option (a group shared by commands that differ).
    func declares(_ option: OptionSpec) -> Bool {
        spec.options.contains { $0.name == option.name && $0.takesValue == option.takesValue }
    }
}

