import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteShape
import LNoteVector

/// The file format of an exported page.
public enum ExportFormat: String, Sendable, CaseIterable {
    case png, jpeg
    /// Vector: one PDF file holding every selected page (`PDFDocumentBackend`).
    case pdf
    /// Vector: one SVG file per page (`SVGPageBackend`).
    case svg

    /// The format a file name's extension asks for, if any (`.png`, `.jpg`, `.jpeg`, `.pdf`, `.svg`).
    public init?(pathExtension path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { self = .png }
        else if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") { self = .jpeg }
        else if lower.hasSuffix(".pdf") { self = .pdf }
        else if lower.hasSuffix(".svg") { self = .svg }
        else { return nil }
    }

    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .pdf: "pdf"
        case .svg: "svg"
        }
    }

    /// PDF and SVG: drawn as outlines at no pixel size (the size options do not apply).
    public var isVector: Bool { self == .pdf || self == .svg }

    /// Every extension `init(pathExtension:)` knows, as messages list them: `.png, .jpg, .jpeg, .pdf, .svg`.
    public static let writableExtensions = ".png, .jpg, .jpeg, .pdf, .svg"
}

/// Where exported pages go.
public enum ExportDestination: Sendable, Equatable {
    /// One page (or the one PDF) to this file.
    case file(String)
    /// One page (or the one PDF) to standard output.
    case standardOutput
    /// Pages into this directory as `page-001.png`, … (by page number), or the PDF as `DOC.pdf`.
    case directory(String)

    /// Why an output name cannot take the pages asked for, in words for the user.
    public struct Refusal: Error, Sendable, Equatable {
        public let message: String
    }

    /// The one reading of an output name (`-o`) for every format: nil or empty is the current
    /// directory; `-` is standard output; a name ending in `/` or an existing directory is a
    /// directory. Otherwise a PDF, and any one page, goes to the file; several pages of the
    /// other formats go into a directory of that name, unless the name is an image file's.
    public static func resolve(output: String?, pageCount: Int, format: ExportFormat) throws(Refusal) -> ExportDestination {
        guard let output, !output.isEmpty else { return .directory(".") }
        if output == "-" {
            guard pageCount == 1 || format == .pdf else {
                throw Refusal(message: "standard output takes one page, but \(pageCount) are selected (use --pages)")
            }
            return .standardOutput
        }
        var isDirectory: ObjCBool = false
        if output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue) {
            return .directory(output.hasSuffix("/") && output.count > 1 ? String(output.dropLast()) : output)
        }
        if pageCount == 1 || format == .pdf { return .file(output) }
        if ExportFormat(pathExtension: output) != nil {
            throw Refusal(message: "\(pageCount) pages need a directory, not a file name")
        }
        return .directory(output)
    }
}

/// How exported pages are encoded.
public struct ExportSettings: Sendable {
    public var format: ExportFormat
    public var render: RenderOptions
    /// JPEG quality, 1…100.
    public var jpegQuality: Int
    /// The names of pages exported into a directory.
    public var fileNames: FileNameTemplate

    public static let defaultJPEGQuality = 85

    public init(format: ExportFormat, render: RenderOptions, jpegQuality: Int = defaultJPEGQuality,
                fileNames: FileNameTemplate = .standard) {
        self.format = format
        self.render = render
        self.jpegQuality = jpegQuality
        self.fileNames = fileNames
    }
}

/// One page's outcome in an export.
public struct ExportedPage: Sendable {
    /// 1-based page number.
    public var number: Int
    /// The file written (nil for standard output or on failure).
    public var path: String?
    public var width: Int = 0
    public var height: Int = 0
    public var bytes: Int = 0
    public var diagnostics: [Diagnostic] = []
    public var error: LNoteError?
}

/// What one export did: every page's outcome, and for a PDF its one file.
public struct ExportRun: Sendable {
    public var pages: [ExportedPage]
    /// The PDF written (nil for standard output, for the formats of one file per page, or when
    /// nothing was written).
    public var documentPath: String?
    /// Bytes written in all.
    public var bytes: Int
    /// What failed the export as a whole (its output could not be prepared or written, or no
    /// page of a PDF could be drawn); the pages it kept from being written carry it too.
    public var error: LNoteError?
}

/// Exports pages: load, render, encode, write, forget. A page's pixels live only while it is
/// being exported, so a 200-page export holds `jobs` pages at a time. A failing page is
/// reported and the others are still written.
public struct PageExporter {
    public let package: LNotePackage
    public let settings: ExportSettings
    private let assets = AssetCache(budgetBytes: PageExporter.assetBudget)

    /// Bytes an export may hold at once: the pages in flight (canvas plus encoder buffers,
    /// taken as 8 bytes per pixel) and the decoded images shared by its workers
    /// (`assetBudget`). `jobs` is lowered for huge pages, never below one.
    public static let inFlightBudget = 2 << 30
    /// The part of `inFlightBudget` kept for decoded images (one `AssetCache` for all workers).
    public static let assetBudget = 512 << 20

    public init(package: LNotePackage, settings: ExportSettings) {
        self.package = package
        self.settings = settings
    }

    /// The file name of page `number` inside an export directory.
    public static func fileName(forPage number: Int, format: ExportFormat) -> String {
        FileNameTemplate.standard.name(page: number, id: "", title: "", format: format)
    }

    /// Why `destination` may not be written: it resolves inside the package (section 6: rendering
    /// only reads it; `-o P.lnote/document.json` would replace a source file with an image, and
    /// `-o P.lnote/pages/` would add files to it). Nil when it is outside.
    public func refusal(of destination: ExportDestination) -> LNoteError? {
        let shown: String, output: String?
        switch destination {
        case .standardOutput:
            return nil
        case .directory(let dir):
            (shown, output) = (dir, FileIO.resolvedPath(dir))
        case .file(let path):
            // The directory is resolved through links; the name is not followed, because the
            // atomic write replaces a link of that name instead of writing through it.
            let (dir, name) = AtomicFile.split(path)
            let parent = dir.isEmpty ? "." : dir
            shown = path
            output = name == "." || name == ".." ? FileIO.resolvedPath(path) : FileIO.resolvedPath(parent).map { $0 + "/" + name }
        }
        guard let output, let packagePath = FileIO.resolvedPath(package.path) else {
            return LNoteError(.io, file: shown, code: .output, message: "cannot resolve the output or the package path")
        }
        guard output == packagePath || output.hasPrefix(packagePath + "/") else { return nil }
        return LNoteError(.unsafePath, file: shown, code: .outputInsidePackage,
                          message: "the output is inside the package \(package.path) (\(output)); export never writes into the package")
    }

    /// Exports the pages at `indices` (0-based) to `destination`: the one path of every format.
    /// The destination is checked (`refusal(of:)`) and prepared (`prepare(_:)`, which creates a
    /// missing output directory) first; then the format's sink takes the pages: PNG and JPEG
    /// files encoded from pixels and SVG files drawn as outlines, one per page and up to `jobs`
    /// at once (each written by itself, so the files do not depend on `jobs`), or one PDF
    /// document, page by page. `progress` is called on the calling thread once per page, in the
    /// order of `indices`, whatever order the pages finish in; pages kept from being written by
    /// a failure of the whole export are not reported to it (`ExportRun.error` says why).
    /// `producer` names the program in a PDF's metadata.
    public func run(pages indices: [Int], to destination: ExportDestination, jobs: Int = 1, producer: String = "lnote-render",
                    progress: (ExportedPage) -> Void = { _ in }) -> ExportRun {
        func failed(_ error: LNoteError) -> ExportRun {
            ExportRun(pages: indices.map { ExportedPage(number: $0 + 1, error: error) }, bytes: 0, error: error)
        }
        if let error = refusal(of: destination) ?? Self.prepare(destination) { return failed(error) }
        guard settings.format == .pdf else {
            let pages = exportPages(indices, to: destination, jobs: jobs, progress: progress)
            return ExportRun(pages: pages, bytes: pages.reduce(0) { $0 + ($1.error == nil ? $1.bytes : 0) }, error: nil)
        }
        let path: String? = switch destination {
        case .standardOutput: nil
        case .file(let p): p
        case .directory(let dir): dir + "/" + Self.pdfName(for: package)
        }
        let output: ByteOutput
        var file: AtomicFileStream? = nil
        if let path {
            do throws(LNoteError) {
                let f = try AtomicFileStream(path: path)
                file = f
                output = f
            } catch {
                return failed(error)
            }
        } else {
            output = StandardOutput()
        }
        return writePDF(pages: indices, to: output, file: file, shown: path ?? "standard output", producer: producer, progress: progress)
    }

    /// `run`'s pages alone (any format).
    public func export(pages indices: [Int], to destination: ExportDestination, jobs: Int = 1,
                       progress: (ExportedPage) -> Void = { _ in }) -> [ExportedPage] {
        run(pages: indices, to: destination, jobs: jobs, progress: progress).pages
    }

    /// `run` for a PDF, as a tuple.
    public func exportPDF(pages indices: [Int], to destination: ExportDestination, producer: String = "lnote-render",
                          progress: (ExportedPage) -> Void = { _ in }) -> (pages: [ExportedPage], bytes: Int, error: LNoteError?) {
        let done = run(pages: indices, to: destination, producer: producer, progress: progress)
        return (done.pages, done.bytes, done.error)
    }

    /// Exports the pages at `indices` as ONE PDF whose bytes go to `output` in order, as they
    /// are written (page by page, memory as `run`'s); `shown` names it in errors.
    public func exportPDF(pages indices: [Int], to output: ByteOutput, shown: String, producer: String = "lnote-render",
                          progress: (ExportedPage) -> Void = { _ in }) -> (pages: [ExportedPage], bytes: Int, error: LNoteError?) {
        let done = writePDF(pages: indices, to: output, file: nil, shown: shown, producer: producer, progress: progress)
        return (done.pages, done.bytes, done.error)
    }

    /// Makes sure the output can be written before any page is drawn: a file's directory must
    /// exist and be writable; a directory is created (with its parents) when missing. The error
    /// (code `output-directory`) names the path as given.
    public static func prepare(_ destination: ExportDestination) -> LNoteError? {
        func refused(_ file: String, _ message: String) -> LNoteError {
            LNoteError(.io, file: file, code: .outputDirectory, message: message)
        }
        switch destination {
        case .standardOutput:
            return nil
        case .file(let path):
            let (dir, _) = AtomicFile.split(path)
            let parent = dir.isEmpty ? "." : dir
            guard FileIO.kind(atPath: parent) == .directory || FileManager.default.fileExists(atPath: parent + "/.") else {
                return refused(path, "the directory \(parent) does not exist (create it, or name an existing one)")
            }
            guard access(parent, W_OK) == 0 else {
                return refused(path, "cannot write into \(parent): \(String(cString: strerror(errno)))")
            }
            return nil
        case .directory(let dir):
            if let failure = makeDirectories(dir) {
                return refused(dir, "cannot create the output directory: \(failure)")
            }
            guard access(dir, W_OK) == 0 else {
                return refused(dir, "cannot write into the output directory: \(String(cString: strerror(errno)))")
            }
            return nil
        }
    }

    /// `mkdir -p`: nil on success, else what failed and why, in the system's words.
    public static func makeDirectories(_ path: String) -> String? {
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

    /// The sink of the formats of one file per page (PNG, JPEG: encoded from pixels; SVG: drawn
    /// by its backend), up to `jobs` pages at once.
    private func exportPages(_ indices: [Int], to destination: ExportDestination, jobs: Int,
                             progress: (ExportedPage) -> Void) -> [ExportedPage] {
        let workers = workerCount(for: indices, jobs: jobs)
        if workers <= 1 {
            return indices.map { index in
                let result = Self.exportPage(index, of: self.package, settings: self.settings, assets: self.assets, to: destination)
                progress(result)
                return result
            }
        }
        // Workers run on a background thread while this one reports pages in order as they
        // become available, so `progress` needs no locking of its own.
        let finished = OrderedResults<ExportedPage>(count: indices.count)
        let (package, settings, assets) = (self.package, self.settings, self.assets)
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            WorkerPool.run(jobs: indices.count, workers: workers, context: { assets }) { j, assets in
                finished.put(j, Self.exportPage(indices[j], of: package, settings: settings, assets: assets, to: destination))
            }
        }
        let results = indices.indices.map { j in
            let result = finished.take(j)
            progress(result)
            return result
        }
        group.wait()
        return results
    }

    /// `jobs`, lowered so that the largest of these pages fits that many times into what
    /// `inFlightBudget` leaves beside the decoded images.
    func workerCount(for indices: [Int], jobs: Int) -> Int {
        guard jobs > 1, indices.count > 1 else { return 1 }
        var largest = 1
        for index in indices {
            guard case .valid(let entry) = package.pages[index],
                  let size = try? PageRenderer.outputSize(for: entry, options: settings.render, file: "") else { continue }
            largest = max(largest, size.width * size.height)
        }
        return max(1, min(jobs, indices.count, (Self.inFlightBudget - Self.assetBudget) / (8 * largest)))
    }

    private static func exportPage(_ index: Int, of package: LNotePackage, settings: ExportSettings, assets: AssetCache,
                                   to destination: ExportDestination) -> ExportedPage {
        var result = ExportedPage(number: index + 1)
        do throws(LNoteError) {
            let page = try package.loadPage(at: index)
            if settings.format == .svg {
                let svg = SVGPageBackend(package: package, pageNumber: index + 1)
                var backend = svg
                result.diagnostics = try PageRenderer.draw(page, transform: VectorGrid.transform(for: page.entry),
                                                           layers: settings.render.background.layers, onto: &backend)
                result.width = PageTransform.wholePoints(page.entry.width)
                result.height = PageTransform.wholePoints(page.entry.height)
                result.bytes = svg.document.count
                try writeFile(svg.document, to: destination, pageNumber: index + 1, id: page.entry.id.canonical,
                              title: package.document.title, settings: settings, result: &result)
                return result
            }
            let rendered = try PageRenderer.render(page, of: package, options: settings.render, assets: assets)
            result.diagnostics = rendered.diagnostics
            result.width = rendered.bitmap.width
            result.height = rendered.bitmap.height
            let encoded = try encode(rendered, pageNumber: index + 1, settings: settings,
                                     title: package.document.title, file: page.contentFile)
            result.bytes = encoded.count
            try Self.writeFile(encoded, to: destination, pageNumber: index + 1, id: page.entry.id.canonical,
                               title: package.document.title, settings: settings, result: &result)
        } catch {
            result.error = error
        }
        return result
    }

    /// Writes one page's file to `destination`, recording the path in `result`.
    private static func writeFile(_ encoded: [UInt8], to destination: ExportDestination, pageNumber: Int, id: String,
                                  title: String, settings: ExportSettings, result: inout ExportedPage) throws(LNoteError) {
        switch destination {
        case .standardOutput:
            try StandardOutput().append(encoded)
        case .file(let path):
            try AtomicFile.write(encoded, toPath: path, display: path)
            result.path = path
        case .directory(let dir):
            let name = settings.fileNames.name(page: pageNumber, id: id, title: title, format: settings.format)
            let path = dir + "/" + name
            try AtomicFile.write(encoded, toPath: path, display: path)
            result.path = path
        }
    }

    /// The sink of a PDF: every page into one document, page by page (each page is loaded,
    /// drawn onto the PDF backend, written and forgotten, so memory is one page plus the table
    /// of assets already embedded). A page that fails is reported and left out; the file is
    /// still written when at least one page made it. `output` is `file` when the PDF goes to a
    /// file, which is committed at the end and abandoned on failure: nothing appears at the
    /// path unless the PDF is complete.
    private func writePDF(pages indices: [Int], to output: ByteOutput, file: AtomicFileStream?, shown: String, producer: String,
                          progress: (ExportedPage) -> Void) -> ExportRun {
        let counter = CountingOutput(output)
        var results: [ExportedPage] = []
        do throws(LNoteError) {
            let doc = package.document
            let pdf = try PDFDocumentBackend(output: counter, package: package,
                                             info: PDFInfo(title: doc.title, producer: producer,
                                                           createdAt: doc.createdAt, modifiedAt: doc.modifiedAt))
            for index in indices {
                var result = ExportedPage(number: index + 1)
                let before = counter.count
                do throws(LNoteError) {
                    let page = try package.loadPage(at: index)
                    var backend = pdf
                    result.diagnostics = try PageRenderer.draw(page, transform: VectorGrid.transform(for: page.entry),
                                                               layers: settings.render.background.layers, onto: &backend)
                    result.width = PageTransform.wholePoints(page.entry.width)
                    result.height = PageTransform.wholePoints(page.entry.height)
                    result.path = file == nil ? nil : shown
                } catch {
                    // A write error ends the file; a page that fails to load is left out.
                    if error.code == .write { throw error }
                    result.error = error
                }
                result.bytes = counter.count - before
                results.append(result)
                progress(result)
            }
            guard pdf.pageCount > 0 else {
                file?.abandon()
                return ExportRun(pages: results, bytes: 0,
                                 error: LNoteError(.invalid, file: shown, code: .noPages, message: "no page could be exported; nothing written"))
            }
            try pdf.finish()
            try file?.commit()
            return ExportRun(pages: results, documentPath: file == nil ? nil : shown, bytes: counter.count, error: nil)
        } catch {
            file?.abandon()
            for j in results.count..<indices.count { results.append(ExportedPage(number: indices[j] + 1, error: error)) }
            return ExportRun(pages: results, bytes: counter.count, error: error)
        }
    }

    /// The PDF's name in an output directory: the package's name with `.pdf`.
    public static func pdfName(for package: LNotePackage) -> String {
        var base = String(package.path.split(separator: "/").last ?? "document")
        if base.lowercased().hasSuffix(".lnote") { base.removeLast(6) }
        return (base.isEmpty ? "document" : base) + ".pdf"
    }

    /// Encodes a rendered page with the export metadata: resolution, title and page number.
    static func encode(_ rendered: RenderedPage, pageNumber: Int, settings: ExportSettings, title: String,
                       file: String) throws(LNoteError) -> [UInt8] {
        guard !settings.format.isVector else {
            throw LNoteError(.invalid, file: file, code: .encode, message: "\(settings.format.rawValue) is drawn by a vector backend, not encoded from pixels")
        }
        let ppi = rendered.pixelsPerInch
        // Flattening onto paper is a step of the pipeline, not of an encoder: only a PNG of a
        // transparent export keeps alpha.
        let keepsAlpha = settings.format == .png && settings.render.isTransparent
        let pixels = keepsAlpha ? rendered.bitmap : rendered.bitmap.flattened(onto: .white)
        do {
            switch settings.format {
            case .png:
                let options = PNGEncodeOptions(
                    includeAlpha: keepsAlpha, pixelsPerInch: ppi,
                    // Registered keywords only: ImageMagick reads a `Page` chunk as its page geometry.
                    text: [("Title", title), ("Description", "page \(pageNumber)"), ("Software", "lnote-render")])
                return try PNGEncoder.encode(pixels, options: options)
            case .jpeg:
                return try JPEGEncoder.encode(pixels, quality: settings.jpegQuality,
                                              pixelsPerInch: JPEGEncoder.density(pixelsPerInch: ppi))
            case .pdf, .svg:
                preconditionFailure("vector formats are refused above")
            }
        } catch {
            throw LNoteError(error, file: file, code: .encode)
        }
    }
}
