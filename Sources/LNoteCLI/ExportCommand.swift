import Foundation
import LNoteFormat
import LNoteRender

/// `lnote-render export DOC.lnote [options]`: pages as PNG or JPEG files, one PDF, or SVG files.
enum ExportCommand {
    static let spec = CommandSpec(
        name: "export", abstract: "Export pages as PNG or JPEG images, one vector PDF, or SVG files.",
        discussion: """
            Size: give at most one of --scale, --dpi, --width, --height (default: --scale 2, i.e. 144 dpi).
            Output: one page goes to the file -o names (or '-' for standard output); several pages go into
            the directory -o names, as page-001.png, page-002.png, ... by page number. Default: the current
            directory.
            PDF (--format pdf or -o NAME.pdf): every selected page in ONE file, each page the canvas size in
            points, written page by page; -o names the file ('-' for standard output; a directory gets
            DOC.pdf). SVG (--format svg or -o NAME.svg): one file per page, like PNG. Both are vector: strokes
            are filled outlines, highlighter multiplies, images are embedded as they are (JPEG bytes
            unchanged). The size options do not apply; the thin-stroke rule is applied at 144 dpi
            (scale 2), so a vector page viewed at 144 dpi matches the default PNG export.
            """,
        positionals: [PositionalSpec("DOC.lnote", help: "The document package.")],
        options: [
            .value("output", short: "o", "PATH", help: "Output file, directory, or '-' for standard output."),
            .value("pages", "LIST", help: "Pages to export, 1-based: 1,3-5,7- (default: all)."),
            .value("format", "png|jpeg|pdf|svg", help: "Output format (default: from the output's extension, else png)."),
            .value("scale", "S", help: "Pixels per point (1 = 72 dpi)."),
            .value("dpi", "D", help: "Dots per inch (72 dpi = scale 1)."),
            .value("width", "W", help: "Output width in pixels (height follows the page)."),
            .value("height", "H", help: "Output height in pixels (width follows the page)."),
            .flag("transparent", help: "No paper colour: a transparent PNG, PDF or SVG (template lines kept)."),
            .flag("no-background", help: "Keep the paper colour, drop template lines and dots."),
            .value("quality", "Q", help: "JPEG quality 1-100 (default 85)."),
            .value("max-pixels", "N", help: "Refuse pages larger than N pixels (default 100000000)."),
            .value("max-work", "S", help: "Refuse pages estimated to take over S seconds of one core to draw (default 10)."),
            .value("jobs", short: "j", "N", help: "Pages exported at once (default: the number of cores; fewer for huge pages)."),
            .flag("quiet", short: "q", help: "Print nothing but errors and warnings."),
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

        guard let package = openPackage(docPath, console: console) else { return ExitStatus.failure }
        let (indices, outOfRange) = selection.resolve(pageCount: package.pages.count)
        if !outOfRange.isEmpty {
            throw UsageError("--pages: page \(outOfRange.map(String.init).joined(separator: ", ")) does not exist (the document has \(package.pages.count) page(s))")
        }
        guard !indices.isEmpty else {
            console.error("error: \(docPath): the document has no pages")
            return ExitStatus.failure
        }
        if settings.format == .pdf {
            return try exportPDF(package, docPath: docPath, indices: indices, settings: settings,
                                 output: args.string("output"), quiet: quiet, console: console)
        }
        let destination = try destination(output: args.string("output"), pageCount: indices.count, format: settings.format)
        let exporter = PageExporter(package: package, settings: settings)
        // Before anything is created or written: an output inside the package is refused.
        if let refusal = exporter.refusal(of: destination) {
            throw UsageError("-o \(args.string("output") ?? "."): \(refusal.message)")
        }
        if case .directory(let dir) = destination {
            do {
                try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            } catch {
                console.error("error: \(dir): cannot create the output directory: \(error.localizedDescription)")
                return ExitStatus.failure
            }
        }
        // When the image goes to standard output, messages go to standard error.
        let toStandardOutput = destination == .standardOutput
        let say = { (line: String) in toStandardOutput ? console.error(line) : console.print(line) }

        var done = 0
        let results = exporter.export(pages: indices, to: destination, jobs: jobs) { page in
            done += 1
            if indices.count > 1 && !quiet { console.progress("exporting page \(page.number) (\(done)/\(indices.count))") }
            if indices.count > 1 && !quiet && done == indices.count { console.endProgress() }
            for d in page.diagnostics { console.error("warning: page \(page.number): \(d)") }
            if let error = page.error {
                console.endProgress()
                console.error("error: \(docPath): page \(page.number): \(error)")
            } else if !quiet {
                let target = page.path ?? "standard output"
                say("page \(page.number) -> \(target) (\(page.width)×\(page.height), \(page.bytes) bytes)")
            }
        }
        return results.contains { $0.error != nil } ? ExitStatus.failure : ExitStatus.success
    }

    /// Reads and cross-checks the size, background and format options.
    static func settings(from args: ParsedArguments) throws(UsageError) -> ExportSettings {
        let sizes = ["scale", "dpi", "width", "height"].filter { args.has($0) }
        if sizes.count > 1 {
            throw UsageError("give at most one of --scale, --dpi, --width, --height (got \(sizes.map { "--\($0)" }.joined(separator: " and ")))")
        }
        var size = OutputSize.scale(2)
        if let s = try args.double("scale", in: 0.001...1000) { size = .scale(s) }
        if let d = try args.double("dpi", in: 0.072...72000) { size = .dpi(d) }
        if let w = try args.int("width", in: 1...1_000_000) { size = .width(w) }
        if let h = try args.int("height", in: 1...1_000_000) { size = .height(h) }

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
        let implied = output.flatMap { ExportFormat(pathExtension: $0) }
        if let explicit, let implied, explicit != implied {
            throw UsageError("--format \(explicit.rawValue) does not match the output file's extension (\(output!))")
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
                              jpegQuality: quality ?? ExportSettings.defaultJPEGQuality)
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
