// Typed options: each `--option` is declared once, as a value (`Flag`, `Option<Value>`) that
// holds its name, help, range and default, and that is also the key its value is read with, so
// a command can only read options that exist (a misspelt one does not compile). Options that
// several subcommands take are declared once more, as groups (`OptionGroup`): a group lists its
// options' specs for the command's table (`--help`, the man page and completions are generated
// from that table) and is parsed once into typed values.

import Foundation
import LNoteRender

/// An `--option` that takes no value.
struct Flag: Sendable {
    let spec: OptionSpec

    init(_ name: String, short: Character? = nil, help: String) {
        spec = .flag(name, short: short, help: help)
    }
}

/// An `--option` with a value: parsed from the text given, or `whenAbsent` when it is not given.
/// An option without a default has an optional `Value` (absent: nil).
struct Option<Value: Sendable>: Sendable {
    let spec: OptionSpec
    let whenAbsent: Value
    /// The help before its default is said (`Pixels per point, 0.001-1000`), for groups whose
    /// commands state other defaults.
    let summary: String
    let parse: @Sendable (String) throws(UsageError) -> Value

    init(_ name: String, short: Character? = nil, _ valueName: String, summary: String, default shown: String?,
         whenAbsent: Value, parse: @escaping @Sendable (String) throws(UsageError) -> Value) {
        self.summary = summary
        self.spec = .value(name, short: short, valueName, help: Self.help(summary, default: shown))
        self.whenAbsent = whenAbsent
        self.parse = parse
    }

    /// `summary (default 320).` for a value, `summary (default: the number of cores).` for words.
    static func help(_ summary: String, default shown: String?) -> String {
        guard let shown else { return summary + "." }
        // A number (`320`, `-1`, `1e9`) reads "(default 320)"; words and options
        // (`the number of cores`, `--scale 2`) read "(default: --scale 2)".
        let isValue = shown.first?.isNumber == true || (shown.hasPrefix("-") && shown.dropFirst().first?.isNumber == true)
        return summary + (isValue ? " (default \(shown))." : " (default: \(shown)).")
    }

    /// The same option, its help saying another default (a group shared by commands that differ there).
    func spec(default shown: String) -> OptionSpec {
        .value(spec.name, short: spec.short, spec.valueName!, help: Self.help(summary, default: shown))
    }

    var flagName: String { "--" + spec.name }
}

/// How ranges are written in help and in errors: `0.001`, `1000`, `1e9`.
func rangeText(_ v: Double) -> String {
    if v >= 1e6, case let e = log10(v), e == e.rounded() { return "1e\(Int(e))" }
    return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
}

extension Option where Value == Int {
    /// An integer within `range`, `value` when absent (`shown`: how help says it, if not the number).
    static func int(_ name: String, short: Character? = nil, _ valueName: String, _ summary: String, in range: ClosedRange<Int>,
                    note: String? = nil, default value: Int, shown: String? = nil) -> Option<Int> {
        Option(name, short: short, valueName, summary: "\(summary), \(range.lowerBound)-\(range.upperBound)" + (note.map { "; " + $0 } ?? ""),
               default: shown ?? String(value), whenAbsent: value) { text throws(UsageError) in
            try parseInt(text, name: name, in: range)
        }
    }
}

extension Option where Value == Int? {
    /// An integer within `range`, nil when absent; `absent` says in help what happens then.
    static func int(_ name: String, short: Character? = nil, _ valueName: String, _ summary: String, in range: ClosedRange<Int>,
                    note: String? = nil, absent: String) -> Option<Int?> {
        Option(name, short: short, valueName, summary: "\(summary), \(range.lowerBound)-\(range.upperBound)" + (note.map { "; " + $0 } ?? ""),
               default: absent, whenAbsent: nil) { text throws(UsageError) in
            try parseInt(text, name: name, in: range)
        }
    }
}

extension Option where Value == Double {
    static func number(_ name: String, _ valueName: String, _ summary: String, in range: ClosedRange<Double>,
                       default value: Double) -> Option<Double> {
        Option(name, valueName, summary: "\(summary), \(rangeText(range.lowerBound))-\(rangeText(range.upperBound))",
               default: rangeText(value), whenAbsent: value) { text throws(UsageError) in
            try parseDouble(text, name: name, in: range)
        }
    }
}

extension Option where Value == Double? {
    static func number(_ name: String, _ valueName: String, _ summary: String, in range: ClosedRange<Double>,
                       note: String? = nil, absent: String) -> Option<Double?> {
        Option(name, valueName, summary: "\(summary), \(rangeText(range.lowerBound))-\(rangeText(range.upperBound))" + (note.map { "; " + $0 } ?? ""),
               default: absent, whenAbsent: nil) { text throws(UsageError) in
            try parseDouble(text, name: name, in: range)
        }
    }
}

extension Option where Value == String? {
    /// Any text, nil when absent; `help` says everything, its default included.
    static func text(_ name: String, short: Character? = nil, _ valueName: String, _ summary: String, absent: String) -> Option<String?> {
        Option(name, short: short, valueName, summary: summary, default: absent, whenAbsent: nil) { $0 }
    }

    /// One of `words`, in any case (`PNG` is `png`), nil when absent.
    /// `shown`: the words help and completions offer (`jpg` is accepted, `jpeg` shown).
    static func choice(_ name: String, _ words: [String], shown: [String]? = nil, _ summary: String, absent: String) -> Option<String?> {
        Option(name, (shown ?? words).joined(separator: "|"), summary: summary, default: absent, whenAbsent: nil) { text throws(UsageError) in
            guard let word = words.first(where: { $0 == text.lowercased() }) else {
                throw UsageError("--\(name): '\(text)' is not one of \(words.joined(separator: ", "))")
            }
            return word
        }
    }
}

extension Option {
    /// A value read by `parse` (which names the option in its errors), nil when absent.
    static func custom<T>(_ name: String, short: Character? = nil, _ valueName: String, _ summary: String, absent: String,
                          parse: @escaping @Sendable (String) throws(UsageError) -> T) -> Option<T?> {
        Option<T?>(name, short: short, valueName, summary: summary, default: absent, whenAbsent: nil) { text throws(UsageError) in
            try parse(text)
        }
    }
}

private func parseInt(_ text: String, name: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
    guard let v = Int(text), range.contains(v) else {
        throw UsageError("--\(name): '\(text)' is not an integer from \(range.lowerBound) to \(range.upperBound)")
    }
    return v
}

private func parseDouble(_ text: String, name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
    guard let v = Double(text), v.isFinite, range.contains(v) else {
        throw UsageError("--\(name): '\(text)' is not a number from \(rangeText(range.lowerBound)) to \(rangeText(range.upperBound))")
    }
    return v
}

/// Options that several subcommands take, parsed once into typed values.
protocol OptionGroup: Sendable {
    /// The group's options, as the command's table lists them.
    static var options: [OptionSpec] { get }
    init(_ args: ParsedArguments) throws(UsageError)
}

// MARK: groups

/// `--json` and `--quiet`: how a run reports (`Reporter`).
struct ReportOptions: OptionGroup {
    static let json = Flag("json", help: "Print one JSON object instead of text (errors and warnings included).")
    static let quiet = Flag("quiet", short: "q", help: "Print nothing but errors, warnings and totals.")
    /// `--json` only.
    static let options = [Self.json.spec]
    /// `--json` and `--quiet`.
    static let withQuiet = [Self.quiet.spec, Self.json.spec]

    var json: Bool
    var quiet: Bool

    init(_ args: ParsedArguments) {
        json = args.declares(Self.json.spec) && args.isSet(Self.json)
        quiet = args.declares(Self.quiet.spec) && args.isSet(Self.quiet)
    }
}

/// `--width` and `--quality` of thumbnails: the recipe (`ThumbnailRecipe`), whose defaults and
/// ranges are the library's.
struct ThumbnailRecipeOptions: OptionGroup {
    static let width = Option<Int>.int("width", "W", "Thumbnail width in pixels", in: ThumbnailRecipe.widthRange,
                                       default: ThumbnailRecipe.defaultWidth)
    static let quality = Option<Int>.int("quality", "Q", "Thumbnail JPEG quality", in: ThumbnailRecipe.qualityRange,
                                         default: ThumbnailRecipe.defaultQuality)
    static let options = [Self.width.spec, Self.quality.spec]

    var width: Int
    var quality: Int

    init(_ args: ParsedArguments) throws(UsageError) {
        width = try args.value(Self.width)
        quality = try args.value(Self.quality)
    }

    func recipe(rendererVersion: String) -> ThumbnailRecipe {
        ThumbnailRecipe(width: width, quality: quality, rendererVersion: rendererVersion)
    }
}

/// `--max-work` and `--jobs`: how much a page may cost and how many are drawn at once.
struct LimitOptions: OptionGroup {
    static let maxWork = Option<Double>.number("max-work", "S", "Refuse pages estimated to take over S seconds of one core to draw",
                                               in: 0.001...1e9, default: RenderOptions.defaultMaxWork)
    static let jobs = Option<Int>.int("jobs", short: "j", "N", "Pages drawn at once (worker threads)", in: 1...256,
                                      default: ProcessInfo.processInfo.activeProcessorCount, shown: "the number of cores")
    static let options = [Self.maxWork.spec, Self.jobs.spec]

    var maxWork: Double
    var jobs: Int

    init(_ args: ParsedArguments) throws(UsageError) {
        maxWork = try args.value(Self.maxWork)
        jobs = try args.value(Self.jobs)
    }
}

/// `--force` and `--verify` with the limits: a thumbnail run's policy (`ThumbnailPolicy`).
struct ThumbnailPolicyOptions: OptionGroup {
    static let force = Flag("force", help: "Re-render every page.")
    static let verify = Flag("verify", help: "Read and hash every input, trusting no recorded file stamp.")
    static let options = [Self.force.spec, Self.verify.spec] + LimitOptions.options
    /// Limits only (`watch`: neither forced nor verified).
    static let limitsOnly = LimitOptions.options

    var policy: ThumbnailPolicy

    init(_ args: ParsedArguments) throws(UsageError) {
        let limits = try LimitOptions(args)
        policy = ThumbnailPolicy(force: args.declares(Self.force.spec) && args.isSet(Self.force),
                                 verify: args.declares(Self.verify.spec) && args.isSet(Self.verify),
                                 jobs: limits.jobs, maxWork: limits.maxWork)
    }
}

/// `--scale`, `--dpi`, `--width`, `--height`, `--fit`: the size of pages in pixels (export,
/// snapshot); at most one may be given.
struct SizeOptions: OptionGroup {
    static let scale = Option<Double?>.number("scale", "S", "Pixels per point", in: 0.001...1000, note: "1 = 72 dpi", absent: "")
    static let dpi = Option<Double?>.number("dpi", "D", "Dots per inch", in: 0.072...72000, note: "72 dpi = scale 1", absent: "")
    static let width = Option<Int?>.int("width", "W", "Output width in pixels", in: 1...1_000_000, note: "the height follows the page", absent: "")
    static let height = Option<Int?>.int("height", "H", "Output height in pixels", in: 1...1_000_000, note: "the width follows the page", absent: "")
    static let fit = Option<OutputSize>.custom("fit", "WxH", "The largest size that fits inside W×H pixels (each 1-1000000), aspect kept, e.g. 1200x1200",
                                               absent: "") { text throws(UsageError) in try SizeOptions.parseFit(text) }
    /// In the order a run that accepts the pictures repeats them (`snapshot`'s record command).
    static let names = [scale.spec.name, dpi.spec.name, width.spec.name, height.spec.name, fit.spec.name]

    static var options: [OptionSpec] { options(default: "--scale 2") }

    /// The five, their help saying the command's default size (`--scale 2`).
    static func options(default shown: String) -> [OptionSpec] {
        [scale.spec(default: shown), dpi.spec(default: shown), width.spec(default: shown),
         height.spec(default: shown), fit.spec(default: shown)]
    }

    /// The size asked for, nil when none was.
    var size: OutputSize?
    /// The option that asked, and its text as given (`--dpi 300`).
    var given: (option: String, text: String)?

    init(_ args: ParsedArguments) throws(UsageError) {
        let asked = [(Self.scale.flagName, args.text(Self.scale)), (Self.dpi.flagName, args.text(Self.dpi)),
                     (Self.width.flagName, args.text(Self.width)), (Self.height.flagName, args.text(Self.height)),
                     (Self.fit.flagName, args.text(Self.fit))].compactMap { pair in pair.1.map { (pair.0, $0) } }
        if asked.count > 1 {
            throw UsageError("give at most one of --scale, --dpi, --width, --height, --fit (got \(asked.map(\.0).joined(separator: " and ")))")
        }
        given = asked.first.map { (option: $0.0, text: $0.1) }
        if let s = try args.value(Self.scale) { size = .scale(s) }
        if let d = try args.value(Self.dpi) { size = .dpi(d) }
        if let w = try args.value(Self.width) { size = .width(w) }
        if let h = try args.value(Self.height) { size = .height(h) }
        if let box = try args.value(Self.fit) { size = box }
    }

    /// `--fit WxH` (also `W×H`): both from 1 to 1,000,000.
    static func parseFit(_ text: String) throws(UsageError) -> OutputSize {
        let parts = text.lowercased().replacingOccurrences(of: "×", with: "x").split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...1_000_000).contains(w), (1...1_000_000).contains(h) else {
            throw UsageError("--fit: '\(text)' is not WxH with both from 1 to 1000000 (e.g. 1200x1200)")
        }
        return .fit(width: w, height: h)
    }
}

/// `--tolerance` and `--max-differing`: when two images match (`diff`, `snapshot`).
struct ComparisonOptions: OptionGroup {
    static let tolerance = Option<Int>.int("tolerance", "N", "Per-channel tolerance", in: 0...255, default: 0)
    static let maxDiffering = Option<PixelAllowance>.custom(
        "max-differing", "N|P%", "Pixels allowed over the tolerance: a count (0 or more) or a percentage, 0%-100%", absent: "0"
    ) { text throws(UsageError) in
        do throws(PixelAllowance.ParseError) { return try PixelAllowance(parsing: text) } catch {
            throw UsageError("--max-differing: \(error.message)")
        }
    }
    static let options = [Self.tolerance.spec, Self.maxDiffering.spec]

    var tolerance: Int
    var maxDiffering: PixelAllowance

    init(_ args: ParsedArguments) throws(UsageError) {
        tolerance = try args.value(Self.tolerance)
        maxDiffering = try args.value(Self.maxDiffering) ?? .pixels(0)
    }
}

/// `--shard`, `--shard-count`, `--shard-count-env`: which share of the documents a run does.
struct ShardOptions: OptionGroup {
    static let shard = Option<String?>.text("shard", "I/N|auto", "Do only shard I of N (1-based), or the shard the job engine says",
                                            absent: "the whole job")
    static let count = Option<Int?>.int("shard-count", "N", "With --shard auto: the number of shards", in: 1...Shard.maxCount,
                                        absent: "the engine's; Kubernetes sets none")
    static let countVariable = Option<String?>.text("shard-count-env", "NAME", "With --shard auto: the variable holding the number of shards",
                                                    absent: "none")
    static let options = [Self.shard.spec, Self.count.spec, Self.countVariable.spec]

    var shard: Shard?

    init(_ args: ParsedArguments) throws(UsageError) {
        let count = try args.value(Self.count)
        let countVariable = try args.value(Self.countVariable)
        guard let text = try args.value(Self.shard) else {
            if count != nil || countVariable != nil { throw UsageError("--shard-count and --shard-count-env go with --shard auto") }
            return
        }
        do throws(ShardError) {
            if text == "auto" {
                shard = try Shard.fromEnvironment(ProcessInfo.processInfo.environment, count: count, countVariable: countVariable)
                return
            }
            if count != nil || countVariable != nil { throw ShardError("--shard-count and --shard-count-env go with --shard auto, not --shard I/N") }
            shard = try Shard.parse(text)
        } catch {
            throw UsageError(error.message)
        }
    }
}

extension String {
    /// `json` as it is typed: `--json`.
    var withDashes: String { "--" + self }
}
