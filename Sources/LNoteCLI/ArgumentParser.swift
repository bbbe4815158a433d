// A small, table-driven command-line parser.
//
// Each subcommand declares its options and positional arguments as data (`CommandSpec`); one
// parser reads `--opt value`, `--opt=value`, `-o value`, `-o=value`, flags, `--` and `-` for
// every command alike, and the same table produces `--help`. Values are validated where they are
// read (`int`, `double`, `choice`), so every error message names the option and what is wrong.

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

    public init(name: String, abstract: String, discussion: String? = nil,
                positionals: [PositionalSpec], options: [OptionSpec]) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.positionals = positionals
        self.options = options + [.flag("help", short: "h", help: "Show this help and exit.")]
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

    public func flag(_ name: String) -> Bool {
        assert(spec.options.contains { $0.name == name && !$0.takesValue }, "undeclared flag \(name)")
        return flags.contains(name)
    }

    /// The option's value (the last one given), or nil when absent.
    public func string(_ name: String) -> String? {
        assert(spec.options.contains { $0.name == name && $0.takesValue }, "undeclared option \(name)")
        return values[name]?.last
    }

    /// Every value of a repeatable option.
    public func strings(_ name: String) -> [String] { values[name] ?? [] }

    public func has(_ name: String) -> Bool { values[name] != nil || flags.contains(name) }

    /// An integer option within `range`; a clear usage error otherwise.
    public func int(_ name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let v = Int(text), range.contains(v) else {
            throw UsageError("--\(name): '\(text)' is not an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return v
    }

    /// A finite number option within `range`; a clear usage error otherwise.
    public func double(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = string(name) else { return nil }
        guard let v = Double(text), v.isFinite, range.contains(v) else {
            throw UsageError("--\(name): '\(text)' is not a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return v
    }

    /// One of a fixed set of words.
    public func choice(_ name: String, from allowed: [String]) throws(UsageError) -> String? {
        guard let text = string(name) else { return nil }
        guard allowed.contains(text) else {
            throw UsageError("--\(name): '\(text)' is not one of \(allowed.joined(separator: ", "))")
        }
        return text
    }

    private static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// Parses `arguments` (without the tool and subcommand names).
    public init(_ arguments: [String], spec: CommandSpec) throws(UsageError) {
        self.spec = spec
        var positionals: [String] = []
        var values: [String: [String]] = [:]
        var flags = Set<String>()
        var i = 0
        var optionsEnded = false

        func lookup(_ token: String) throws(UsageError) -> OptionSpec {
            let found: OptionSpec?
            if token.hasPrefix("--") {
                let name = String(token.dropFirst(2))
                found = spec.options.first { $0.name == name }
            } else {
                let c = token.dropFirst().first
                found = token.count == 2 ? spec.options.first { $0.short == c } : nil
            }
            guard let option = found else {
                let hint = Self.suggestion(for: token, in: spec.options).map { " (did you mean \($0)?)" } ?? ""
                throw UsageError("unknown option '\(token)' for '\(spec.name)'\(hint)")
            }
            return option
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
            // `--name=value` / `-o=value`
            var token = arg
            var inlineValue: String?
            if let eq = arg.firstIndex(of: "=") {
                token = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            let option = try lookup(token)
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else {
                        throw UsageError("\(token) needs a value <\(option.valueName!)>")
                    }
                    value = arguments[i]
                    i += 1
                }
                if values[option.name] != nil && !option.repeatable {
                    throw UsageError("--\(option.name) was given more than once")
                }
                values[option.name, default: []].append(value)
            } else {
                if inlineValue != nil { throw UsageError("--\(option.name) is a flag and takes no value") }
                flags.insert(option.name)
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
        let name = token.drop { $0 == "-" }
        var best: (String, Int)?
        for o in options {
            let d = editDistance(Array(name), Array(o.name))
            if d <= max(1, o.name.count / 3), best == nil || d < best!.1 { best = ("--\(o.name)", d) }
        }
        return best?.0
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
