// The viewers that judge the vector export, each run headless to rasterize a file to a PNG:
// poppler (pdftoppm), MuPDF (mutool draw) and PDFium (pypdfium2, tools/judges/pdfium.py) for a
// PDF; librsvg (rsvg-convert) and Chromium (a screenshot of the SVG shown through <img>) for an
// SVG. tools/install-deps installs all five. Without one the tests skip, except under CI=true,
// where they fail.

import Foundation
import XCTest
import LNoteBitmap
import LNoteRender
import LNoteTestSupport

enum VectorJudge: String, CaseIterable, Sendable {
    case poppler, mupdf, pdfium, librsvg, chromium

    static let pdf: [VectorJudge] = [.poppler, .mupdf, .pdfium]
    static let svg: [VectorJudge] = [.librsvg, .chromium]
}

enum VectorJudges {
    /// `name` on PATH, or skip (fail under CI) naming the package that provides it.
    static func tool(_ name: String, package: String) throws -> String {
        try ExternalTool.require(name, package: package)
    }

    static func missing(_ message: String) throws -> Never {
        try ExternalTool.missing(message)
    }

    /// The Python of tools/.venv, checked once to import pypdfium2.
    static func pdfiumPython() throws -> String {
        let python = RepoPaths.root.appendingPathComponent("tools/.venv/bin/python").path
        if pdfiumChecked.withLock({ $0 }) { return python }
        guard FileManager.default.isExecutableFile(atPath: python),
              (try? run(python, ["-c", "import pypdfium2"])) != nil else {
            try missing("pypdfium2 is not installed in tools/.venv (run tools/install-deps)")
        }
        pdfiumChecked.withLock { $0 = true }
        return python
    }
    private static let pdfiumChecked = Locked(false)

    static var pdfiumScript: String { RepoPaths.root.appendingPathComponent("tools/judges/pdfium.py").path }

    /// Runs `executable`; its standard output, or an error with its exit status and standard error.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        try ExternalProcess.output(executable, arguments)
    }

    /// Page `page` (1-based) of `pdf` rasterized by `judge` at `dpi`, as a PNG in `dir`.
    static func rasterizePDF(_ pdf: URL, page: Int, dpi: Int, judge: VectorJudge, in dir: URL) throws -> URL {
        let base = dir.appendingPathComponent("\(pdf.deletingPathExtension().lastPathComponent)-\(judge.rawValue)-\(dpi)-\(page)")
        switch judge {
        case .poppler:
            let pdftoppm = try tool("pdftoppm", package: "poppler-utils")
            try run(pdftoppm, ["-r", "\(dpi)", "-f", "\(page)", "-l", "\(page)", "-singlefile", "-png", pdf.path, base.path])
            return base.appendingPathExtension("png")
        case .mupdf:
            let mutool = try tool("mutool", package: "mupdf-tools")
            let png = base.appendingPathExtension("png")
            try run(mutool, ["draw", "-q", "-r", "\(dpi)", "-o", png.path, pdf.path, "\(page)"])
            return png
        case .pdfium:
            let python = try pdfiumPython()
            try run(python, [pdfiumScript, "render", pdf.path, "\(dpi)", base.path, "\(page)"])
            return URL(fileURLWithPath: base.path + "-\(page).png")
        case .librsvg, .chromium:
            preconditionFailure("\(judge) draws SVG")
        }
    }

    /// `svg` (a page `widthPoints` × `heightPoints`) rasterized by `judge` at `dpi`, as a PNG in `dir`.
    static func rasterizeSVG(_ svg: URL, widthPoints: Double, heightPoints: Double, dpi: Int, judge: VectorJudge,
                             in dir: URL) throws -> URL {
        let png = dir.appendingPathComponent("\(svg.deletingPathExtension().lastPathComponent)-\(judge.rawValue)-\(dpi).png")
        switch judge {
        case .librsvg:
            let rsvg = try tool("rsvg-convert", package: "librsvg2-bin")
            try run(rsvg, ["-d", "\(dpi)", "-p", "\(dpi)", svg.path, "-o", png.path])
        case .chromium:
            try chromiumScreenshot(svg, widthPoints: widthPoints, heightPoints: heightPoints, dpi: dpi, to: png, in: dir)
        case .poppler, .mupdf, .pdfium:
            preconditionFailure("\(judge) draws PDF")
        }
        return png
    }

    /// Headless Chromium's screenshot of an HTML page that shows `svg` through `<img>` (how a
    /// web page shows an SVG) at its size in points as CSS pixels, with a device scale factor
    /// of dpi/72, so one point is dpi/72 screenshot pixels. Running as root needs --no-sandbox.
    static func chromiumScreenshot(_ svg: URL, widthPoints: Double, heightPoints: Double, dpi: Int, to png: URL,
                                   in dir: URL) throws {
        let chromium: String
        if let c = try? tool("chromium", package: "chromium") { chromium = c } else { chromium = try tool("chromium-browser", package: "chromium") }
        let html = svg.deletingLastPathComponent().appendingPathComponent("\(svg.deletingPathExtension().lastPathComponent)-\(dpi).html")
        let w = Int(widthPoints.rounded()), h = Int(heightPoints.rounded())
        let page = """
            <!doctype html><html><head><style>html,body{margin:0;padding:0;background:#fff;overflow:hidden}\
            img{display:block;width:\(w)px;height:\(h)px}</style></head>\
            <body><img src="\(svg.lastPathComponent)"></body></html>
            """
        try page.write(to: html, atomically: true, encoding: .utf8)
        let profile = dir.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        var arguments = ["--headless", "--disable-gpu", "--hide-scrollbars", "--force-color-profile=srgb",
                         "--user-data-dir=\(profile.path)", "--force-device-scale-factor=\(Double(dpi) / 72)",
                         "--window-size=\(w),\(h)", "--screenshot=\(png.path)", html.absoluteString]
        if geteuid() == 0 { arguments.insert("--no-sandbox", at: 0) }
        try run(chromium, arguments)
        guard FileManager.default.fileExists(atPath: png.path) else { throw GoldenError("chromium wrote no screenshot of \(svg.path)") }
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock(); defer { lock.unlock() }
        return try body(&value)
    }
}

/// A decoded (straight-alpha) image composited onto white, as a viewer shows it on a white page.
func onWhite(_ b: Bitmap) -> Bitmap {
    let straight = straightAlpha(b)
    if straight.isOpaque { return straight }
    var out = straight
    out.pixels.withUnsafeMutableBufferPointer { p in
        for i in stride(from: 0, to: p.count, by: 4) where p[i + 3] != 255 {
            let a = Int(p[i + 3])
            for c in 0..<3 { p[i + c] = UInt8((Int(p[i + c]) * a + 255 * (255 - a) + 127) / 255) }
            p[i + 3] = 255
        }
    }
    return out
}

/// Ink measures: mean darkness (255 − the mean of R, G, B) of a region or of 64-px tiles.
enum InkMeasure {
    /// Mean darkness of the pixels in [x0, x1) × [y0, y1) of an opaque (or straight) bitmap.
    static func darkness(_ b: Bitmap, x0: Int, y0: Int, x1: Int, y1: Int) -> Double {
        var sum = 0
        b.pixels.withUnsafeBufferPointer { p in
            for y in max(0, y0)..<min(b.height, y1) {
                for x in max(0, x0)..<min(b.width, x1) {
                    let i = 4 * (y * b.width + x)
                    sum += 765 - Int(p[i]) - Int(p[i + 1]) - Int(p[i + 2])
                }
            }
        }
        let n = max(1, (min(b.height, y1) - max(0, y0)) * (min(b.width, x1) - max(0, x0)))
        return Double(sum) / Double(3 * n)
    }

    struct TileResult: CustomStringConvertible {
        /// The largest relative difference of a tile's ink (its darkness above the paper's).
        var worst: Double
        var at: (x: Int, y: Int)
        var inkTiles: Int
        var description: String {
            "worst tile \(String(format: "%.1f", worst * 100)) % at (\(at.x), \(at.y)) of \(inkTiles) ink tiles"
        }
    }

    /// For each `size`-px tile whose ink in `reference` — its mean darkness above `paper`'s —
    /// is at least `minInk` levels, the relative difference of `actual`'s ink there; the worst.
    /// Tiles that meet a box of `skipping` (x0, y0, x1, y1 in pixels) are left out.
    static func tiles(reference: Bitmap, actual: Bitmap, paper: Double, size: Int = 64, minInk: Double = 2,
                      skipping: [(Double, Double, Double, Double)] = []) -> TileResult {
        var result = TileResult(worst: 0, at: (0, 0), inkTiles: 0)
        guard reference.width == actual.width, reference.height == actual.height else {
            return TileResult(worst: .infinity, at: (0, 0), inkTiles: 0)
        }
        for ty in stride(from: 0, to: reference.height, by: size) {
            for tx in stride(from: 0, to: reference.width, by: size) {
                if skipping.contains(where: { $0.0 < Double(tx + size) && $0.2 > Double(tx) && $0.1 < Double(ty + size) && $0.3 > Double(ty) }) { continue }
                let r = darkness(reference, x0: tx, y0: ty, x1: tx + size, y1: ty + size) - paper
                guard r >= minInk else { continue }
                result.inkTiles += 1
                let a = darkness(actual, x0: tx, y0: ty, x1: tx + size, y1: ty + size) - paper
                let rel = abs(a - r) / r
                if rel > result.worst { result.worst = rel; result.at = (tx, ty) }
            }
        }
        return result
    }
}
