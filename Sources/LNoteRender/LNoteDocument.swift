// The library's front door: what an app needs to render, check and maintain `.lnote` packages
// without knowing the pipeline behind it. Everything here delegates to the types that own each
// job (LNotePackage, PageRenderer, PageExporter, ThumbnailRegenerator, PackageChecker).

import Foundation
import LNoteBitmap
import LNoteFormat
import LNoteVector

/// The renderer's identity, shared by the library and the `lnote-render` tool.
public enum LNoteRenderer {
    /// The one version of this repository: the library's, the tool's (`--version`), the tag a
    /// release is made as, and what the README's examples depend on (`from:`) — a test holds the
    /// README to it. Bumped whenever rendering output changes, at least in its last part: it is
    /// part of every thumbnail's fingerprint, so thumbnails made through the library and through
    /// the tool are interchangeable.
    public static let version = "0.2.0"
}

/// A Lulucat Notes document package (`*.lnote`), opened for reading.
///
/// Opening reads and validates `document.json`; pages are read when they are rendered, so an
/// open document is cheap to keep. Rendering never writes into the package.
///
/// ```swift
/// let document = try LNoteDocument(path: "Notes.lnote")
/// let png = try document.png(page: 1, size: .width(1200))
/// ```
public struct LNoteDocument: Sendable {
    /// The package as read from disk: its document, page entries and file access.
    public let package: LNotePackage

    /// Opens the package at `path`.
    ///
    /// - Throws: ``LNoteError`` when the package is missing, is not a directory or is a symbolic
    ///   link, or when its `document.json` is missing, not valid JSON, or of a newer format.
    ///   The error names the file and the rule that failed.
    public init(path: String) throws(LNoteError) {
        package = try LNotePackage.open(at: URL(fileURLWithPath: path))
    }

    /// The document's title (empty when it has none).
    public var title: String { package.document.title }

    /// The number of pages `document.json` lists, valid or not.
    public var pageCount: Int { package.pages.count }

    /// Renders page `number` (1-based) to pixels.
    ///
    /// - Parameters:
    ///   - number: The page, from 1 to ``pageCount``.
    ///   - size: How big: `.scale(2)` is 144 dpi, `.width(1200)` a fixed width, and so on.
    ///   - background: Paper and template (`.full`), paper only, or transparent.
    ///   - maxPixels: Pages larger than this many pixels are refused before anything is allocated.
    /// - Returns: The RGBA pixels (premultiplied), the scale used, and the warnings about
    ///   elements that were skipped (invalid elements, images that could not be drawn).
    /// - Throws: ``LNoteError`` when the page does not exist, cannot be read or parsed, or would
    ///   be larger than `maxPixels`.
    public func render(page number: Int, size: OutputSize = .scale(2), background: BackgroundMode = .full,
                       maxPixels: Int = RenderOptions.defaultMaxPixels) throws(LNoteError) -> RenderedPage {
        let page = try package.loadPage(at: try index(of: number))
        let options = RenderOptions(size: size, background: background, maxPixels: maxPixels)
        return try PageRenderer.render(page, of: package, options: options, assets: AssetCache())
    }

    /// Renders page `number` (1-based) as a PNG file's bytes, with the export metadata (sRGB,
    /// resolution, title and page number). A transparent `background` gives a PNG with alpha.
    ///
    /// - Throws: ``LNoteError``, as ``render(page:size:background:maxPixels:)`` does.
    public func png(page number: Int, size: OutputSize = .scale(2), background: BackgroundMode = .full) throws(LNoteError) -> [UInt8] {
        try encode(page: number, settings: ExportSettings(format: .png, render: RenderOptions(size: size, background: background)))
    }

    /// Renders page `number` (1-based) as a JPEG file's bytes (4:2:0, JFIF density set).
    ///
    /// - Parameter quality: JPEG quality, 1 to 100.
    /// - Throws: ``LNoteError``, as ``render(page:size:background:maxPixels:)`` does; a
    ///   transparent background is refused (JPEG has no alpha).
    public func jpeg(page number: Int, size: OutputSize = .scale(2), background: BackgroundMode = .full,
                     quality: Int = ExportSettings.defaultJPEGQuality) throws(LNoteError) -> [UInt8] {
        let render = RenderOptions(size: size, background: background)
        guard !render.isTransparent else {
            throw LNoteError(.invalid, file: package.path, code: .format, message: "JPEG has no transparency; use png(page:)")
        }
        return try encode(page: number, settings: ExportSettings(format: .jpeg, render: render, jpegQuality: quality))
    }

    /// Writes pages as ONE vector PDF (what `lnote-render export --format pdf` writes): each
    /// page its canvas size in points, strokes as filled outlines, JPEGs embedded as they are,
    /// page labels with each page's number in the document and one bookmark per page.
    ///
    /// Pages are drawn and written one at a time, so memory is one page plus the table of
    /// images already embedded, however many pages there are.
    ///
    /// ```swift
    /// let summary = try document.pdf(pages: [5, 6, 7], to: .file("notes.pdf"))
    /// ```
    ///
    /// - Parameters:
    ///   - numbers: The pages (1-based) in the order they go into the file; nil: every page.
    ///   - destination: A file (written atomically) or a byte sink.
    ///   - background: Paper and template (`.full`), paper only, or transparent (no paper).
    /// - Returns: What was written: bytes, the pages in the file, and the pages left out with
    ///   why (a page that cannot be read is left out, as the tool does, and the file is still
    ///   written when any page could be drawn).
    /// - Throws: ``LNoteError`` when a page number does not exist (nothing is written), when no
    ///   page could be drawn, or when writing fails (a file is then not created; a sink has
    ///   received the bytes handed to it so far).
    public func pdf(pages numbers: [Int]? = nil, to destination: PDFDestination,
                    background: BackgroundMode = .full) throws(LNoteError) -> PDFSummary {
        var indices: [Int] = []
        for n in numbers ?? Array(1...max(1, pageCount)) { indices.append(try index(of: n)) }
        let exporter = PageExporter(package: package, settings: ExportSettings(format: .pdf, render: RenderOptions(background: background)))
        let outcome: (pages: [ExportedPage], bytes: Int, error: LNoteError?)
        switch destination {
        case .file(let path):
            outcome = exporter.exportPDF(pages: indices, to: .file(path))
        case .sink(let write):
            outcome = exporter.exportPDF(pages: indices, to: ClosureOutput(write), shown: "the PDF sink")
        }
        if let error = outcome.error { throw error }
        return PDFSummary(bytes: outcome.bytes, pages: outcome.pages.filter { $0.error == nil }.map(\.number),
                          failed: outcome.pages.compactMap { p in p.error.map { PDFSummary.Failure(page: p.number, error: $0) } },
                          warnings: outcome.pages.flatMap(\.diagnostics))
    }

    /// Page `number` (1-based) as one SVG document's bytes (what `lnote-render export --format
    /// svg` writes): strokes as filled outlines, images embedded as their files, a `<title>`
    /// with the document's title and the page number.
    ///
    /// - Parameter background: Paper and template (`.full`), paper only, or transparent.
    /// - Throws: ``LNoteError`` when the page does not exist or cannot be read or parsed.
    public func svg(page number: Int, background: BackgroundMode = .full) throws(LNoteError) -> [UInt8] {
        let page = try package.loadPage(at: try index(of: number))
        let svg = SVGPageBackend(package: package, pageNumber: number)
        var backend = svg
        _ = try PageRenderer.draw(page, transform: VectorGrid.transform(for: page.entry), layers: background.layers, onto: &backend)
        return svg.document
    }

    /// Checks the package: every inconsistency `lnote-render check` reports (errors and
    /// warnings, each naming the file and a stable rule).
    ///
    /// - Parameter thumbnails: The settings the thumbnails are expected to have been made with.
    public func check(thumbnails: ThumbnailSettings = ThumbnailSettings(jobs: 1)) -> PackageChecker.Report {
        LNoteLibrary.check(path: package.path, thumbnails: thumbnails)
    }

    private func index(of number: Int) throws(LNoteError) -> Int {
        guard number >= 1 && number <= pageCount else {
            throw LNoteError(.invalid, file: DocumentParser.fileName, code: .pageNumber,
                             message: "page \(number) does not exist (the document has \(pageCount) page(s))")
        }
        return number - 1
    }

    private func encode(page number: Int, settings: ExportSettings) throws(LNoteError) -> [UInt8] {
        let index = try index(of: number)
        let page = try package.loadPage(at: index)
        let rendered = try PageRenderer.render(page, of: package, options: settings.render, assets: AssetCache())
        return try PageExporter.encode(rendered, pageNumber: number, settings: settings, title: title, file: page.contentFile)
    }
}

/// Where ``LNoteDocument/pdf(pages:to:background:)`` writes the PDF.
public enum PDFDestination {
    /// A file, written atomically: a temporary file beside it, renamed into place only when the
    /// PDF is complete.
    case file(String)
    /// A byte sink (an HTTP response body, a pipe): called with the PDF's bytes in order as
    /// they are written, a page at a time. An error it throws ends the export.
    case sink(([UInt8]) throws -> Void)
}

/// What ``LNoteDocument/pdf(pages:to:background:)`` wrote.
public struct PDFSummary: Sendable {
    /// A page left out of the file, and why.
    public struct Failure: Sendable {
        public var page: Int
        public var error: LNoteError
    }
    /// Bytes of the PDF.
    public var bytes: Int
    /// The pages in the file (1-based), in file order.
    public var pages: [Int]
    /// The pages that could not be drawn.
    public var failed: [Failure]
    /// Elements skipped on the pages written (invalid elements, images that could not be shown).
    public var warnings: [Diagnostic]
}

/// A `PDFDestination.sink` as the writer's output.
final class ClosureOutput: ByteOutput {
    private let write: ([UInt8]) throws -> Void
    init(_ write: @escaping ([UInt8]) throws -> Void) { self.write = write }
    func append(_ bytes: [UInt8]) throws(LNoteError) {
        do { try write(bytes) } catch {
            throw LNoteError(.io, file: "the PDF sink", code: .write, message: "the sink failed: \(error)")
        }
    }
}

/// Operations on whole libraries (directories of packages) and on packages by path.
public enum LNoteLibrary {
    /// Brings the thumbnails, covers and `manifest.json` of every package under `paths` up to
    /// date, re-rendering only pages whose inputs changed (see ``ThumbnailRegenerator``).
    ///
    /// - Parameter paths: Packages, or directories searched for them.
    /// - Returns: One report per document, with what was rendered, left alone, removed and what
    ///   failed; a path that names no package gets a report with its error.
    public static func regenerateThumbnails(in paths: [String], settings: ThumbnailSettings = ThumbnailSettings())
        -> [DocumentRegeneration] {
        ThumbnailRegenerator(settings: settings, rendererVersion: LNoteRenderer.version).regenerate(paths: paths)
    }

    /// Checks the package at `path` (see ``LNoteDocument/check(thumbnails:)``). A package that
    /// cannot be opened gives a report with that one error.
    public static func check(path: String, thumbnails: ThumbnailSettings = ThumbnailSettings(jobs: 1)) -> PackageChecker.Report {
        PackageChecker.check(path: path, thumbnails: ThumbnailRegenerator(settings: thumbnails, rendererVersion: LNoteRenderer.version))
    }
}
