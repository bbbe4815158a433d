import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat

/// The file format of an exported page.
public enum ExportFormat: String, Sendable, CaseIterable {
    case png, jpeg

    /// The format a file name's extension asks for, if any (`.png`, `.jpg`, `.jpeg`).
    public init?(pathExtension path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { self = .png }
        else if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") { self = .jpeg }
        else { return nil }
    }

    public var fileExtension: String { self == .png ? "png" : "jpg" }
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

    public static let defaultJPEGQuality = 85

    public init(format: ExportFormat, render: RenderOptions, jpegQuality: Int = defaultJPEGQuality) {
        self.format = format
        self.render = render
        self.jpegQuality = jpegQuality
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

/// Exports pages one at a time: load, render, encode, write, forget. A 200-page export holds
/// one page's pixels at a time. A failing page is reported and the others are still written.
public struct PageExporter {
    public let package: LNotePackage
    public let settings: ExportSettings
    private let assets = AssetCache()

    public init(package: LNotePackage, settings: ExportSettings) {
        self.package = package
        self.settings = settings
    }

    /// The file name of page `number` inside an export directory.
    public static func fileName(forPage number: Int, format: ExportFormat) -> String {
        let digits = String(number)
        return "page-" + String(repeating: "0", count: max(0, 3 - digits.count)) + digits + "." + format.fileExtension
    }

    /// Exports the pages at `indices` (0-based) to `destination`, calling `progress` after each.
    public func export(pages indices: [Int], to destination: ExportDestination,
                       progress: (ExportedPage) -> Void = { _ in }) -> [ExportedPage] {
        var results: [ExportedPage] = []
        for index in indices {
            let result = exportPage(index, to: destination)
            progress(result)
            results.append(result)
        }
        return results
    }

    private func exportPage(_ index: Int, to destination: ExportDestination) -> ExportedPage {
        var result = ExportedPage(number: index + 1)
        do throws(LNoteError) {
            let page = try package.loadPage(at: index)
            let rendered = try PageRenderer.render(page, of: package, options: settings.render, assets: assets)
            result.diagnostics = rendered.diagnostics
            result.width = rendered.bitmap.width
            result.height = rendered.bitmap.height
            let encoded = try encode(rendered, pageNumber: index + 1, file: page.contentFile)
            result.bytes = encoded.count
            switch destination {
            case .standardOutput:
                try Self.writeToStandardOutput(encoded)
            case .file(let path):
                try AtomicFile.write(encoded, toPath: path, display: path)
                result.path = path
            case .directory(let dir):
                let path = dir + "/" + Self.fileName(forPage: index + 1, format: settings.format)
                try AtomicFile.write(encoded, toPath: path, display: path)
                result.path = path
            }
        } catch {
            result.error = error
        }
        return result
    }

    /// Encodes a rendered page with the export metadata: resolution, title and page number.
    func encode(_ rendered: RenderedPage, pageNumber: Int, file: String) throws(LNoteError) -> [UInt8] {
        let ppi = 72 * rendered.scale
        do {
            switch settings.format {
            case .png:
                let options = PNGEncodeOptions(
                    includeAlpha: settings.render.isTransparent, pixelsPerInch: ppi,
                    text: [("Title", package.document.title), ("Page", String(pageNumber)), ("Software", "lnote-render")])
                return try PNGEncoder.encode(rendered.bitmap, options: options)
            case .jpeg:
                return try JPEGEncoder.encode(rendered.bitmap, quality: settings.jpegQuality,
                                              pixelsPerInch: Int(ppi.rounded()))
            }
        } catch {
            throw LNoteError(.invalid, file: file, rule: "encode", message: error.description)
        }
    }

    private static func writeToStandardOutput(_ bytes: [UInt8]) throws(LNoteError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw LNoteError(.io, file: "<stdout>", rule: "write", message: "cannot write: \(String(cString: strerror(errno)))")
            }
            offset += n
        }
    }
}
