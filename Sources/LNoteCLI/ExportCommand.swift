import Foundation
import LNoteFormat
import LNoteRender

/// `-o`, `--format` and `--names`: where exported pages go and as what.
struct OutputOptions: OptionGroup {
    static let output = Option<String?>.text("output", short: "o", "PATH",
                                             "Output file, directory (ending in '/'), or '-' for standard output", absent: "the current directory")
    static let format = Option<String?>.choice("format", ["png", "jpeg", "jpg", "pdf", "svg"], shown: ["png", "jpeg", "pdf", "svg"], "Output format, any case; jpg = jpeg",
                                               absent: "from the output's extension, else png")
    static let names = Option<FileNameTemplate>.custom(
        "names", "TEMPLATE", "File names of pages in the output directory: {page}, {page:3}, {id}, {title}, {ext}",
        absent: "page-{page:3}.{ext}"
    ) { text throws(UsageError) in
        do throws(FileNameTemplate.Invalid) { return try FileNameTemplate(text) } catch { throw UsageError("--names: \(error.message)") }
    }
    static let options = [Self.output.spec, Self.format.spec, Self.names.spec]

    var output: String?
    /// The format asked for with --format, if any.
    var format: ExportFormat?
    /// The template asked for with --names, if any.
    var names: FileNameTemplate?

    init(_ args: ParsedArguments) throws(UsageError) {
        output = try args.value(Self.output)
        format = try args.value(Self.format).map { $0 == "jpg" ? ExportFormat.jpeg : ExportFormat(rawValue: $0)! }
        names = try args.value(Self.names)
    }
}

/// `--transparent` and `--no-background`: what of the paper is drawn.
struct BackgroundOptions: OptionGroup {
    static let transparent = Flag("transparent", help: "No paper colour: a transparent PNG, PDF or SVG (template lines kept).")
    static let noBackground = Flag("no-background", help: "Keep the paper colour, drop template lines and dots.")
    static let options = [Self.transparent.spec, Self.noBackground.spec]

    var transparent: Bool
    var mode: BackgroundMode

    init(_ args: ParsedArguments) {
        transparent = args.isSet(Self.transparent)
        mode = switch (transparent, args.isSet(Self.noBackground)) {
        case (false, false): .full
        case (false, true): .paperOnly
        case (true, false): .transparent
        case (true, true): .transparentNoTemplate
        }
    }
}

/// `lnote-render export DOC.lnote [options]`: pages as PNG or JPEG files, one PDF, or SVG files.
enum ExportCommand {
    static let pages = Option<PageSelection>.custom("pages", "LIST", "Pages to export, 1-based: 1,3-5,7-", absent: "all") { text throws(UsageError) in
        try PageSelection(parsing: text)
    }
    static let quality = Option<Int?>.int("quality", "Q", "JPEG quality", in: 1...100, absent: "")
    static let maxPixels = Option<Int>.int("max-pixels", "N", "Refuse pages larger than N pixels", in: maxPixelsRange,
                                           default: RenderOptions.defaultMaxPixels)
    static let maxPixelsRange = 1...Int(Int32.max) * 64

    static var options: [OptionSpec] {
        var options: [OptionSpec] = OutputOptions.options
        options.append(pages.spec)
        options += SizeOptions.options(default: "--scale 2")
        options += BackgroundOptions.options
        options.append(quality.spec(default: String(ExportSettings.defaultJPEGQuality)))
        options.append(maxPixels.spec)
        options += LimitOptions.options
        options += ReportOptions.withQuiet
        return options
    }

    static let spec = CommandSpec(
        name: "export", abstract: "Export pages as PNG or JPEG images, one vector PDF, or SVG files.",
        discussion: """
            Size: give at most one of --scale, --dpi, --width, --height, --fit (default: --scale 2, i.e. 144 dpi).
            Output: one page goes to the file -o names (or '-' for standard output); several pages go into
            the directory -o names, as page-001.png, page-002.png, ... by page number, or as --names says.
            Default: the current directory.
            PDF (--format pdf or -o NAME.pdf): every selected page in ONE file, each page the canvas size in
            points, written page by page; -o names the file ('-' for standard output; a directory gets
            DOC.pdf). SVG (--format svg or -o NAME.svg): one file per page, like PNG. Both are vector: strokes
            are filled outlines, highlighter multiplies, images are embedded as they are (JPEG bytes
            unchanged). The size options do not apply; the thin-stroke rule is applied at 144 dpi
            (scale 2), so a vector page viewed at 144 dpi matches the default PNG export.
            --jobs is lowered for huge pages, so that the pages in flight fit in memory.
            """,
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: options,
        examples: [
            .init("Notes.lnote -o out/", "every page as out/page-001.png, out/page-002.png, ... at 144 dpi"),
            .init("Notes.lnote --pages 1 --width 1200 -o cover.jpg", "page 1, 1200 pixels wide, as a JPEG"),
            .init("Notes.lnote --pages 2-4 --dpi 300 --transparent -o print/", "pages 2 to 4 at 300 dpi without the paper colour"),
            .init("Notes.lnote --pages 3 -o - | convert - page3.webp", "one page to standard output, for another tool"),
            .init("Notes.lnote -o Notes.pdf", "every page into one vector PDF"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        try run(args, console: console)
    }

    static func run(_ args: ParsedArguments, console: Console) throws(UsageError) -> Int32 {
        let docPath = args.positionals[0]
        let output = try OutputOptions(args)
        let size = try SizeOptions(args)
        let limits = try LimitOptions(args)
        let report = ReportOptions(args)
        let settings = try settings(from: args, output: output, size: size, limits: limits)
        let selection = try args.value(Self.pages) ?? .all
        let reporter = Reporter(command: spec.name, json: report.json, console: console)
        if output.output == "-" {
            if reporter.json { throw UsageError("-o - and --json both want standard output: write the image to a file") }
            if console.outputIsTerminal {
                throw UsageError("-o -: standard output is a terminal; redirect it to a file or a pipe (-o - > page.png)")
            }
        }

        guard let package = openPackage(docPath, reporter: reporter) else { return reporter.finish(ExitStatus.failure) }
        let (indices, outOfRange) = selection.resolve(pageCount: package.pages.count)
        if !outOfRange.isEmpty {
            throw UsageError("--pages: page \(outOfRange.map(String.init).joined(separator: ", ")) does not exist (the document has \(package.pages.count) page(s))")
        }
        guard !indices.isEmpty else {
            reporter.report(Problem(.error, code: .noPages, file: docPath, message: "the document has no pages"))
            return reporter.finish(ExitStatus.failure)
        }
        let shownOutput = output.output ?? "."
        let destination: ExportDestination
        do throws(ExportDestination.Refusal) {
            destination = try ExportDestination.resolve(output: output.output, pageCount: indices.count, format: settings.format)
        } catch {
            throw UsageError("-o \(shownOutput): \(error.message)")
        }
        if let names = output.names {
            guard case .directory = destination, settings.format != .pdf else {
                throw UsageError("--names names the files of pages in an output directory, but "
                                 + (settings.format == .pdf ? "a PDF is one file" : "-o \(shownOutput) names the file itself")
                                 + ": drop --names, or give -o a directory")
            }
            if let refusal = names.refusal(pageCount: indices.count) { throw UsageError("--names: \(refusal.message)") }
        }
        let exporter = PageExporter(package: package, settings: settings)
        // Before anything is created or written: an output inside the package is refused, so
        // are a name of a format lnote-render does not write and sizes over --max-pixels.
        if let refusal = exporter.refusal(of: destination) {
            throw UsageError("-o \(shownOutput): \(refusal.message)")
        }
        if let given = output.output, ExportFormat(pathExtension: given) == nil, let ext = unknownExtension(given) {
            throw UsageError("-o \(given): '.\(ext)' is not a format lnote-render writes (\(ExportFormat.writableExtensions)); "
                             + "end the name with '/' for a directory")
        }
        let oversized = try oversizedPages(indices, in: package, settings: settings, size: size)
        // When the image goes to standard output, messages go to standard error.
        reporter.linesToStandardError = destination == .standardOutput
        if destination != .standardOutput { InterruptCleanup.install() }

        var done = 0
        let bar = ProgressBar(total: indices.count, unit: "page")
        let showsProgress = indices.count > 1 && !report.quiet
        if showsProgress { reporter.progress(bar.line(done: 0)) }
        let run = exporter.run(pages: indices, to: destination, jobs: limits.jobs, producer: "\(LNoteTool.name) \(LNoteTool.version)") { page in
            done += 1
            for d in page.diagnostics { reporter.report(Problem(d, package: docPath, page: page.number)) }
            if let error = page.error, error.code == .maxPixels, let message = oversized[page.number] {
                reporter.report(Problem(.error, code: error.code, kind: error.kind, file: docPath, page: page.number,
                                        message: "the page " + message))
            } else if let error = page.error {
                reporter.report(Problem(error, package: docPath, page: page.number))
            } else if !report.quiet && settings.format != .pdf {
                let target = page.path ?? "standard output"
                reporter.line("page \(page.number) -> \(target) (\(page.width)×\(page.height), \(page.bytes) bytes)")
            }
            if showsProgress { reporter.progress(bar.line(done: done)) }
        }
        // The export's own failure names its output (as given), not a file of the package.
        if let error = run.error { reporter.report(Problem(error, package: nil)) }
        let written = run.error == nil ? run.pages.filter { $0.error == nil }.count : 0
        let failed = run.pages.count - written
        if settings.format == .pdf && run.error == nil && !report.quiet {
            reporter.line("\(written) page(s) -> \(run.documentPath ?? "standard output") (PDF, \(run.bytes) bytes)")
        }
        let status = failed > 0 || run.error != nil ? ExitStatus.failure : ExitStatus.success
        return reporter.finish(status, [
            ("document", .string(docPath)), ("format", .string(settings.format.rawValue)),
            ("file", .optional(run.documentPath)),
            ("pages", .array(run.pages.map { page in
                .object([("number", .int(page.number)), ("ok", .bool(page.error == nil && run.error == nil)),
                         ("file", page.error == nil && run.error == nil ? .string(page.path ?? "-") : .null),
                         ("width", .int(page.width)), ("height", .int(page.height)), ("bytes", .int(page.bytes))])
            })),
            ("written", .int(written)), ("failed", .int(failed)), ("bytes", .int(run.bytes)),
        ])
    }

    /// Pages (by number) that would pass --max-pixels, with the size they would have. Checked
    /// before anything is rendered; each is then reported with the option that lifts the limit
    /// and the value it needs (the page's content is not at fault). When every selected page is
    /// over the limit the command line itself is refused, before anything is created.
    static func oversizedPages(_ indices: [Int], in package: LNotePackage, settings: ExportSettings,
                               size: SizeOptions) throws(UsageError) -> [Int: String] {
        guard !settings.format.isVector else { return [:] }
        var unlimited = settings.render
        unlimited.maxPixels = .max
        let asked = size.given.map { "\($0.option) \($0.text)" } ?? "the default --scale 2"
        var over: [Int: String] = [:]
        var largest = (page: 0, width: 0, height: 0)
        for index in indices {
            guard case .valid(let entry) = package.pages[index],
                  let size = try? PageRenderer.outputSize(for: entry, options: unlimited, file: ""),
                  size.width * size.height > settings.render.maxPixels else { continue }
            let pixels = size.width * size.height
            // The advice names a value the option accepts, or says that none would do.
            let advice = pixels <= maxPixelsRange.upperBound
                ? "ask for a smaller size, or pass --max-pixels \(pixels) or more"
                : "ask for a smaller size (no --max-pixels lifts the limit that far: its largest value is \(maxPixelsRange.upperBound))"
            over[index + 1] = "would be \(size.width)×\(size.height) pixels at \(asked), over the --max-pixels limit of "
                + "\(settings.render.maxPixels): " + advice
            if pixels > largest.width * largest.height { largest = (index + 1, size.width, size.height) }
        }
        if over.count == indices.count, let message = over[largest.page] {
            throw UsageError(over.count == 1 ? "page \(largest.page) \(message)"
                                             : "all \(over.count) pages are too large; page \(largest.page) \(message)")
        }
        return over
    }

    /// Reads and cross-checks the size, background and format options.
    static func settings(from args: ParsedArguments, output: OutputOptions, size: SizeOptions,
                         limits: LimitOptions) throws(UsageError) -> ExportSettings {
        let background = BackgroundOptions(args)
        let fileNames = output.names ?? FileNameTemplate.standard
        // The format follows the output's extension, else the template's (`{page}.jpg`).
        let implied = output.output.flatMap { ExportFormat(pathExtension: $0) }
            ?? fileNames.literalExtension.flatMap { ExportFormat(pathExtension: "." + $0) }
        if let ext = fileNames.literalExtension, ExportFormat(pathExtension: "." + ext) == nil {
            throw UsageError("--names: '.\(ext)' is not an image format lnote-render writes (\(ExportFormat.writableExtensions)); use {ext}")
        }
        if let explicit = output.format, let implied, explicit != implied {
            let source = output.output.flatMap { ExportFormat(pathExtension: $0) } != nil ? "the output file's extension (\(output.output!))"
                                                                                           : "the --names extension (\(fileNames.text))"
            throw UsageError("--format \(explicit.rawValue) does not match \(source)")
        }
        let format = output.format ?? implied ?? .png
        if format == .jpeg && background.transparent {
            throw UsageError("--transparent needs PNG: JPEG has no transparency")
        }
        if format.isVector, let given = size.given {
            throw UsageError("\(given.option) applies to PNG and JPEG only: \(format.rawValue) pages are the canvas size in points")
        }
        let quality = try args.value(Self.quality)
        if quality != nil && format != .jpeg {
            throw UsageError("--quality applies to JPEG output only")
        }
        return ExportSettings(format: format,
                              render: RenderOptions(size: size.size ?? .scale(2), background: background.mode,
                                                    maxPixels: try args.value(Self.maxPixels), maxWork: limits.maxWork),
                              jpegQuality: quality ?? ExportSettings.defaultJPEGQuality, fileNames: fileNames)
    }

    /// The extension of an output name that asks for a file of another format (`out.webp`):
    /// nil for a name without one, a directory that exists, or a name ending in `/`.
    static func unknownExtension(_ output: String) -> String? {
        guard output != "-", !output.hasSuffix("/"), !FileManager.default.fileExists(atPath: output + "/.") else { return nil }
        let name = output.split(separator: "/").last.map(String.init) ?? output
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }
}
