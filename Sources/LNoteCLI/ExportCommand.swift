import Foundation
import LNoteFormat
import LNoteRender

/// `lnote-render export DOC.lnote [options]`: pages as PNG or JPEG files, one PDF, or SVG files.
enum ExportCommand {
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
            """,
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: [
            .value("output", short: "o", "PATH", help: "Output file, directory (ending in '/'), or '-' for standard output (default: the current directory)."),
            .value("pages", "LIST", help: "Pages to export, 1-based: 1,3-5,7- (default: all)."),
            .value("format", "png|jpeg|pdf|svg", help: "Output format, any case; jpg = jpeg (default: from the output's extension, else png)."),
            .value("scale", "S", help: "Pixels per point, 0.001-1000; 1 = 72 dpi (default 2)."),
            .value("dpi", "D", help: "Dots per inch, 0.072-72000; 72 dpi = scale 1 (default 144)."),
            .value("width", "W", help: "Output width in pixels, 1-1000000; the height follows the page (default: from --scale)."),
            .value("height", "H", help: "Output height in pixels, 1-1000000; the width follows the page (default: from --scale)."),
            .value("fit", "WxH", help: "The largest size that fits inside W×H pixels (each 1-1000000), aspect kept, e.g. 1200x1200 (default: from --scale)."),
            .value("names", "TEMPLATE", help: "File names of pages in the output directory: {page}, {page:3}, {id}, {title}, {ext} (default page-{page:3}.{ext})."),
            .flag("transparent", help: "No paper colour: a transparent PNG, PDF or SVG (template lines kept)."),
            .flag("no-background", help: "Keep the paper colour, drop template lines and dots."),
            .value("quality", "Q", help: "JPEG quality, 1-100 (default 85)."),
            .value("max-pixels", "N", help: "Refuse pages larger than N pixels, 1-137438953408 (default 100000000)."),
            .value("max-work", "S", help: "Refuse pages estimated to take over S seconds of one core to draw, 0.001-1e9 (default 10)."),
            .value("jobs", short: "j", "N", help: "Pages exported at once, 1-256 (default: the number of cores; fewer for huge pages)."),
            .flag("quiet", short: "q", help: "Print nothing but errors and warnings."),
            .flag("json", help: "Print one JSON object (pages written, errors, warnings) instead of text."),
        ],
        examples: [
            .init("Notes.lnote -o out/", "every page as out/page-001.png, out/page-002.png, ... at 144 dpi"),
            .init("Notes.lnote --pages 1 --width 1200 -o cover.jpg", "page 1, 1200 pixels wide, as a JPEG"),
            .init("Notes.lnote --pages 2-4 --dpi 300 --transparent -o print/", "pages 2 to 4 at 300 dpi without the paper colour"),
            .init("Notes.lnote --pages 3 -o - | convert - page3.webp", "one page to standard output, for another tool"),
        ])

    static let subcommand = Subcommand(spec: spec) { args, console throws(UsageError) in
        try run(args, console: console)
    }

    static func run(_ args: ParsedArguments, console: Console) throws(UsageError) -> Int32 {
        let docPath = args.positionals[0]
        let settings = try settings(from: args)
        let selection = try args.string("pages").map { text throws(UsageError) in try PageSelection(parsing: text) } ?? .all
        let quiet = args.flag("quiet")
        let jobs = try args.int("jobs", in: 1...256) ?? ProcessInfo.processInfo.activeProcessorCount
        let reporter = Reporter(args, console: console)
        if args.string("output") == "-" {
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
        if settings.format == .pdf {
            return try exportPDF(package, docPath: docPath, indices: indices, settings: settings,
                                 output: args.string("output"), quiet: quiet, console: console)
        }
        let destination = try destination(output: args.string("output"), pageCount: indices.count, format: settings.format)
        let exporter = PageExporter(package: package, settings: settings)
        // Before anything is created or written: an output inside the package is refused, so
        // are sizes over --max-pixels, and an output directory that is missing or cannot be made.
        if let refusal = exporter.refusal(of: destination) {
            throw UsageError("-o \(args.string("output") ?? "."): \(refusal.message)")
        }
        if let output = args.string("output"), ExportFormat(pathExtension: output) == nil, let ext = unknownExtension(output) {
            throw UsageError("-o \(output): '.\(ext)' is not an image format lnote-render writes (.png, .jpg, .jpeg); "
                             + "end the name with '/' for a directory")
        }
        let oversized = try oversizedPages(indices, in: package, settings: settings, args: args)
        if let problem = prepare(destination) {
            reporter.report(problem)
            return reporter.finish(ExitStatus.failure)
        }
        // When the image goes to standard output, messages go to standard error.
        reporter.linesToStandardError = destination == .standardOutput

        var done = 0
        let bar = ProgressBar(total: indices.count, unit: "page")
        let showsProgress = indices.count > 1 && !quiet
        if showsProgress { reporter.progress(bar.line(done: 0)) }
        let results = exporter.export(pages: indices, to: destination, jobs: jobs) { page in
            done += 1
            for d in page.diagnostics { reporter.report(Problem(d, package: docPath, page: page.number)) }
            if let error = page.error, error.code == .maxPixels, let message = oversized[page.number] {
                reporter.report(Problem(.error, code: error.code, kind: error.kind, file: docPath, page: page.number,
                                        message: "the page " + message))
            } else if let error = page.error {
                reporter.report(Problem(error, package: docPath, page: page.number))
            } else if !quiet {
                let target = page.path ?? "standard output"
                reporter.line("page \(page.number) -> \(target) (\(page.width)×\(page.height), \(page.bytes) bytes)")
            }
            if showsProgress { reporter.progress(bar.line(done: done)) }
        }
        let failed = results.filter { $0.error != nil }.count
        let status = failed > 0 ? ExitStatus.failure : ExitStatus.success
        return reporter.finish(status, [
            ("document", .string(docPath)), ("format", .string(settings.format.rawValue)),
            ("pages", .array(results.map { page in
                .object([("number", .int(page.number)), ("ok", .bool(page.error == nil)),
                         ("file", page.error == nil ? .string(page.path ?? "-") : .null),
                         ("width", .int(page.width)), ("height", .int(page.height)), ("bytes", .int(page.bytes))])
            })),
            ("written", .int(results.count - failed)), ("failed", .int(failed)),
        ])
    }

    /// Pages (by number) that would pass --max-pixels, with the size they would have. Checked
    /// before anything is rendered; each is then reported with the option that lifts the limit
    /// and the value it needs (the page's content is not at fault). When every selected page is
    /// over the limit the command line itself is refused, before anything is created.
    static func oversizedPages(_ indices: [Int], in package: LNotePackage, settings: ExportSettings,
                               args: ParsedArguments) throws(UsageError) -> [Int: String] {
        var unlimited = settings.render
        unlimited.maxPixels = .max
        let sizeOption = sizeOptions.first { args.has($0) }
        let asked = sizeOption.map { "--\($0) \(args.string($0)!)" } ?? "the default --scale 2"
        var over: [Int: String] = [:]
        var largest = (page: 0, width: 0, height: 0)
        for index in indices {
            guard case .valid(let entry) = package.pages[index],
                  let size = try? PageRenderer.outputSize(for: entry, options: unlimited, file: ""),
                  size.width * size.height > settings.render.maxPixels else { continue }
            over[index + 1] = "would be \(size.width)×\(size.height) pixels at \(asked), over the --max-pixels limit of "
                + "\(settings.render.maxPixels): ask for a smaller size, or pass --max-pixels \(size.width * size.height) or more"
            if size.width * size.height > largest.width * largest.height { largest = (index + 1, size.width, size.height) }
        }
        if over.count == indices.count, let message = over[largest.page] {
            throw UsageError(over.count == 1 ? "page \(largest.page) \(message)"
                                             : "all \(over.count) pages are too large; page \(largest.page) \(message)")
        }
        return over
    }

    /// Makes sure the output can be written before any page is rendered: a file's directory
    /// must exist and be writable; a directory is created (with its parents) when missing.
    static func prepare(_ destination: ExportDestination) -> Problem? {
        switch destination {
        case .standardOutput:
            return nil
        case .file(let path):
            let (dir, _) = AtomicFile.split(path)
            let parent = dir.isEmpty ? "." : dir
            guard FileIO.kind(atPath: parent) == .directory || FileManager.default.fileExists(atPath: parent + "/.") else {
                return Problem(.error, code: .outputDirectory, file: path,
                               message: "the directory \(parent) does not exist (create it, or name an existing one)")
            }
            guard access(parent, W_OK) == 0 else {
                return Problem(.error, code: .outputDirectory, file: path,
                               message: "cannot write into \(parent): \(String(cString: strerror(errno)))")
            }
            return nil
        case .directory(let dir):
            if let failure = makeDirectories(dir) {
                return Problem(.error, code: .outputDirectory, file: dir, message: "cannot create the output directory: \(failure)")
            }
            guard access(dir, W_OK) == 0 else {
                return Problem(.error, code: .outputDirectory, file: dir,
                               message: "cannot write into the output directory: \(String(cString: strerror(errno)))")
            }
            return nil
        }
    }

    /// `mkdir -p`: nil on success, else what failed and why, in the system's words.
    static func makeDirectories(_ path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/") {
            prefix += part
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                let reason = String(cString: strerror(errno))
                return prefix == path ? reason : "\(prefix): \(reason)"
            }
            guard FileManager.default.fileExists(atPath: prefix + "/.") else {
                return prefix == path ? "it exists and is not a directory" : "\(prefix) exists and is not a directory"
            }
            prefix += "/"
        }
        return nil
    }

    /// The options that choose the size; at most one may be given.
    static let sizeOptions = ["scale", "dpi", "width", "height", "fit"]

    /// `--fit WxH` (also `W×H`): both from 1 to 1,000,000.
    static func fit(_ text: String) throws(UsageError) -> OutputSize {
        let parts = text.lowercased().replacingOccurrences(of: "×", with: "x").split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]),
              (1...1_000_000).contains(w), (1...1_000_000).contains(h) else {
            throw UsageError("--fit: '\(text)' is not WxH with both from 1 to 1000000 (e.g. 1200x1200)")
        }
        return .fit(width: w, height: h)
    }

    /// The size `--scale`, `--dpi`, `--width`, `--height` or `--fit` asks for (at most one of
    /// them), else `fallback`. Shared by every command that renders pixels (export, snapshot).
    static func size(from args: ParsedArguments, default fallback: OutputSize) throws(UsageError) -> OutputSize {
        let sizes = sizeOptions.filter { args.has($0) }
        if sizes.count > 1 {
            throw UsageError("give at most one of --scale, --dpi, --width, --height, --fit (got \(sizes.map { "--\($0)" }.joined(separator: " and ")))")
        }
        var size = fallback
        if let s = try args.double("scale", in: 0.001...1000) { size = .scale(s) }
        if let d = try args.double("dpi", in: 0.072...72000) { size = .dpi(d) }
        if let w = try args.int("width", in: 1...1_000_000) { size = .width(w) }
        if let h = try args.int("height", in: 1...1_000_000) { size = .height(h) }
        if let box = args.string("fit") { size = try fit(box) }
        return size
    }

    /// Reads and cross-checks the size, background and format options.
    static func settings(from args: ParsedArguments) throws(UsageError) -> ExportSettings {
        let sizes = sizeOptions.filter { args.has($0) }
        let size = try size(from: args, default: .scale(2))

        let transparent = args.flag("transparent")
        let noTemplate = args.flag("no-background")
        let background: BackgroundMode = switch (transparent, noTemplate) {
        case (false, false): .full
        case (false, true): .paperOnly
        case (true, false): .transparent
        case (true, true): .transparentNoTemplate
        }

        let output = args.string("output")
        let explicit = try args.choice("format", from: ["png", "jpeg", "jpg", "pdf", "svg"])
            .map { $0 == "jpg" ? ExportFormat.jpeg : ExportFormat(rawValue: $0)! }
        var fileNames = FileNameTemplate.standard
        if let text = args.string("names") {
            do { fileNames = try FileNameTemplate(text) } catch { throw UsageError("--names: \(error.message)") }
        }
        // The format follows the output's extension, else the template's (`{page}.jpg`).
        let implied = output.flatMap { ExportFormat(pathExtension: $0) }
            ?? fileNames.literalExtension.flatMap { ExportFormat(pathExtension: "." + $0) }
        if let ext = fileNames.literalExtension, ExportFormat(pathExtension: "." + ext) == nil {
            throw UsageError("--names: '.\(ext)' is not an image format lnote-render writes (.png, .jpg, .jpeg); use {ext}")
        }

        if let explicit, let implied, explicit != implied {
            let source = output.flatMap { ExportFormat(pathExtension: $0) } != nil ? "the output file's extension (\(output!))"
                                                                                   : "the --names extension (\(fileNames.text))"
            throw UsageError("--format \(explicit.rawValue) does not match \(source)")
        }
        let format = explicit ?? implied ?? .png
        if format == .jpeg && transparent {
            throw UsageError("--transparent needs PNG: JPEG has no transparency")
        }
        if format.isVector && !sizes.isEmpty {
            throw UsageError("--\(sizes[0]) applies to PNG and JPEG only: \(format.rawValue) pages are the canvas size in points")
        }
        let quality = try args.int("quality", in: 1...100)
        if quality != nil && format != .jpeg {
            throw UsageError("--quality applies to JPEG output only")
        }
        let maxPixels = try args.int("max-pixels", in: 1...Int(Int32.max) * 64) ?? RenderOptions.defaultMaxPixels
        let maxWork = try args.double("max-work", in: 0.001...1e9) ?? RenderOptions.defaultMaxWork
        return ExportSettings(format: format,
                              render: RenderOptions(size: size, background: background, maxPixels: maxPixels,
                                                    maxWork: maxWork),
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

    /// Where the pages go, from `-o` and how many pages there are.
    static func destination(output: String?, pageCount: Int, format: ExportFormat) throws(UsageError) -> ExportDestination {
        guard let output, !output.isEmpty else { return .directory(".") }
        if output == "-" {
            guard pageCount == 1 else {
                throw UsageError("-o -: standard output takes one page, but \(pageCount) are selected (use --pages)")
            }
            return .standardOutput
        }
        var isDir: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: output, isDirectory: &isDir)
        if output.hasSuffix("/") || (exists && isDir.boolValue) {
            return .directory(output.hasSuffix("/") && output.count > 1 ? String(output.dropLast()) : output)
        }
        if pageCount == 1 { return .file(output) }
        if ExportFormat(pathExtension: output) != nil {
            throw UsageError("-o \(output): \(pageCount) pages need a directory, not a file name")
        }
        return .directory(output)
    }

    /// `--format pdf`: all selected pages into one PDF file (or standard output).
    static func exportPDF(_ package: LNotePackage, docPath: String, indices: [Int], settings: ExportSettings,
                          output: String?, quiet: Bool, console: Console) throws(UsageError) -> Int32 {
        let destination: ExportDestination
        var isDir: ObjCBool = false
        if output == "-" {
            destination = .standardOutput
        } else if let output, !output.isEmpty, !output.hasSuffix("/"),
                  !(FileManager.default.fileExists(atPath: output, isDirectory: &isDir) && isDir.boolValue) {
            destination = .file(output)
        } else {
            destination = .directory(output.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 } ?? ".")
        }
        let exporter = PageExporter(package: package, settings: settings)
        if let refusal = exporter.refusal(of: destination) {
            throw UsageError("-o \(output ?? "."): \(refusal.message)")
        }
        let toStandardOutput = destination == .standardOutput
        var done = 0
        let outcome = exporter.exportPDF(pages: indices, to: destination, producer: "\(LNoteTool.name) \(LNoteTool.version)") { page in
            done += 1
            if indices.count > 1 && !quiet { console.progress("writing page \(page.number) (\(done)/\(indices.count))") }
            if indices.count > 1 && !quiet && done == indices.count { console.endProgress() }
            for d in page.diagnostics { console.error("warning: page \(page.number): \(d)") }
            if let error = page.error {
                console.endProgress()
                console.error("error: \(docPath): page \(page.number): \(error)")
            }
        }
        if let error = outcome.error {
            console.error("error: \(docPath): \(error)")
            return ExitStatus.failure
        }
        let written = outcome.pages.filter { $0.error == nil }.count
        if !quiet {
            let target = toStandardOutput ? "standard output" : outcome.pages.first { $0.path != nil }?.path ?? "?"
            let line = "\(written) page(s) -> \(target) (PDF, \(outcome.bytes) bytes)"
            toStandardOutput ? console.error(line) : console.print(line)
        }
        return outcome.pages.contains { $0.error != nil } ? ExitStatus.failure : ExitStatus.success
    }
}
