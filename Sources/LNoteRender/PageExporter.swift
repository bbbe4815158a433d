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
}

/// Where exported pages go.
public enum ExportDestination: Sendable, Equatable {
    /// One page to this file.
    case file(String)
    /// One page to standard output.
    case standardOutput
    /// Several pages into this directory as `page-001.png`, … (by page number).
    case directory(String)
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

    /// Exports the pages at `indices` (0-based) to `destination`, up to `jobs` pages at once,
    /// and calls `progress` on the calling thread once per page, in the order of `indices`,
    /// whatever order the pages finish in. Each page is written by itself, so the files do not
    /// depend on `jobs`. A destination inside the package (`refusal(of:)`) fails every page.
    public func export(pages indices: [Int], to destination: ExportDestination, jobs: Int = 1,
                       progress: (ExportedPage) -> Void = { _ in }) -> [ExportedPage] {
        if let error = refusal(of: destination) {
            return indices.map { index in
                let result = ExportedPage(number: index + 1, error: error)
                progress(result)
                return result
            }
        }
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
                result.width = (page.entry.width + 5) / 10
                result.height = (page.entry.height + 5) / 10
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

    /// Exports the pages at `indices` as ONE PDF to `destination` (a file, or standard output),
    /// page by page: each page is loaded, drawn onto the PDF backend, written and forgotten, so
    /// memory is one page plus the table of assets already embedded. A page that fails is
    /// reported and left out; the file is still written when at least one page made it (the
    /// exit status says a page failed). `progress` is called once per page, in order.
    /// A file is written atomically: nothing appears at the path unless the PDF is complete.
    public func exportPDF(pages indices: [Int], to destination: ExportDestination, producer: String = "lnote-render",
                          progress: (ExportedPage) -> Void = { _ in }) -> (pages: [ExportedPage], bytes: Int, error: LNoteError?) {
        if let error = refusal(of: destination) { return (indices.map { ExportedPage(number: $0 + 1, error: error) }, 0, error) }
        let output: ByteOutput
        var file: AtomicFileStream? = nil
        var shown = "standard output"
        do throws(LNoteError) {
            switch destination {
            case .standardOutput:
                output = StandardOutput()
            case .file(let path):
                let f = try AtomicFileStream(path: path)
                file = f; output = f; shown = path
            case .directory(let dir):
                let path = dir + "/" + Self.pdfName(for: package)
                let f = try AtomicFileStream(path: path)
                file = f; output = f; shown = path
            }
        } catch {
            return (indices.map { ExportedPage(number: $0 + 1, error: error) }, 0, error)
        }
        return writePDF(pages: indices, to: output, file: file, shown: shown, producer: producer, progress: progress)
    }

    /// Exports the pages at `indices` as ONE PDF whose bytes go to `output` in order, as they
    /// are written (page by page, memory as `exportPDF(pages:to:)`); `shown` names it in errors.
    public func exportPDF(pages indices: [Int], to output: ByteOutput, shown: String, producer: String = "lnote-render",
                          progress: (ExportedPage) -> Void = { _ in }) -> (pages: [ExportedPage], bytes: Int, error: LNoteError?) {
        writePDF(pages: indices, to: output, file: nil, shown: shown, producer: producer, progress: progress)
    }

    /// The PDF loop: `output` is `file` when the PDF goes to a file (committed at the end,
    /// abandoned on failure).
    private func writePDF(pages indices: [Int], to output: ByteOutput, file: AtomicFileStream?, shown: String, producer: String,
                          progress: (ExportedPage) -> Void) -> (pages: [ExportedPage], bytes: Int, error: LNoteError?) {
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
                    result.width = (page.entry.width + 5) / 10
                    result.height = (page.entry.height + 5) / 10
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
                return (results, 0, LNoteError(.invalid, file: shown, code: .noPages, message: "no page could be exported; nothing written"))
            }
            try pdf.finish()
            try file?.commit()
            return (results, counter.count, nil)
        } catch {
            file?.abandon()
            for j in results.count..<indices.count { results.append(ExportedPage(number: indices[j] + 1, error: error)) }
            return (results, counter.count, error)
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
        let ppi = 72 * rendered.scale
        // Flattening onto paper is a step of the pipeline, not of an encoder: only a PNG of a
        // transparent export keeps alpha.
        let keepsAlpha = settings.format == .png && settings.render.isTransparent
        let pixels = keepsAlpha ? rendered.bitmap : rendered.bitmap.flattened(onto: .white)
        do {
            switch settings.format {
            case .png:
                let options = PNGEncodeOptions(
                    includeAlpha: keepsAlpha, pixelsPerInch: ppi,
                    text: [("Title", title), ("Page", String(pageNumber)), ("Software", "lnote-render")])
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
