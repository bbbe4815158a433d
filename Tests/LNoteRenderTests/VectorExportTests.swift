// PDF and SVG export against this project's PNG export, through independent rasterizers:
// poppler (pdftoppm), MuPDF (mutool draw) and PDFium (pypdfium2) for the PDF, librsvg
// (rsvg-convert) and headless Chromium for the SVG, at 72 and 144 dpi; the bars and how they
// are measured are at the top of VectorViewerTests.swift (VectorJudges.judgeDocument).
//
// The PNG-vs-reference yardstick is 35 dB at scale 1 with a stricter channel tolerance;
// different anti-aliasing puts the vector figures a few dB under the PNG's own agreement
// with itself, but far over what a wrong construction gives: `testToleranceCatchesWrongConstructions`
// shows a stroke drawn per segment, a lost multiply and a missing image all fall under 40 dB.
//
// The rasterizers are installed by tools/install-deps. Without them the tests skip, except
// under CI=true, where they fail.

import Foundation
import XCTest
#if canImport(FoundationXML)
import FoundationXML
#endif
import LNoteBitmap
import LNoteFormat
import LNoteRender
import LNoteVector
import LNoteTestSupport

final class VectorExportTests: XCTestCase {
    static let dpi = 144
    static let offThreshold = 32

    struct Tolerance { var psnr: Double; var offShare: Double }
    static let strict = Tolerance(psnr: 40, offShare: 0.005)

    // MARK: - Helpers

    func tool(_ name: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        let message = "\(name) is not installed (poppler-utils, mupdf-tools, librsvg2-bin: run tools/install-deps)"
        if GoldenEnvironment.isCI { XCTFail(message + "; CI=true requires it"); throw GoldenError(message) }
        throw XCTSkip(message)
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        if p.terminationStatus != 0 { throw GoldenError("\(executable) \(arguments.joined(separator: " ")) exited \(p.terminationStatus)") }
        return p.terminationStatus
    }

    func exportPDF(_ package: LNotePackage, to url: URL, pages: [Int]? = nil) throws {
        let exporter = PageExporter(package: package, settings: ExportSettings(format: .pdf, render: RenderOptions()))
        let outcome = exporter.exportPDF(pages: pages ?? Array(0..<package.pages.count), to: .file(url.path))
        if let error = outcome.error { throw GoldenError("PDF export failed: \(error)") }
        XCTAssertTrue(outcome.pages.allSatisfy { $0.error == nil })
    }

    func exportSVG(_ package: LNotePackage, to dir: URL) throws {
        let exporter = PageExporter(package: package, settings: ExportSettings(format: .svg, render: RenderOptions()))
        let results = exporter.export(pages: Array(0..<package.pages.count), to: .directory(dir.path))
        for r in results { if let e = r.error { throw GoldenError("SVG export of page \(r.number) failed: \(e)") } }
    }

    /// Every page of `packageURL` as PDF (poppler, MuPDF, PDFium) and SVG (librsvg, Chromium)
    /// against the PNG export, at 72 and 144 dpi (`VectorJudges.judgeDocument`).
    func checkDocument(_ packageURL: URL, name: String) throws {
        let package = try GoldenRender.open(packageURL)
        let dir = try temporaryDirectoryURL(removedAfter: self)
        try VectorJudges.judgeDocument(package, pages: Array(0..<package.pages.count),
                                       names: Array(repeating: name, count: package.pages.count), dpis: [72, 144], in: dir)
    }

    func samplePackage(_ name: String) throws -> URL {
        let dir = RepoPaths.samples.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: dir.path) else {
            let message = "the public samples are not at \(RepoPaths.samples.path)"
            if GoldenEnvironment.isCI { XCTFail(message); throw GoldenError(message) }
            throw XCTSkip(message)
        }
        return try RepoPaths.package(in: dir)
    }

    static var features: URL { get throws { try RepoPaths.package(in: RepoPaths.fixtures.appendingPathComponent("features")) } }

    // MARK: - Rasterized comparisons

    func testFeaturesFixture() throws { try checkDocument(try Self.features, name: "features") }
    func testNotesSample() throws { try checkDocument(try samplePackage("notes"), name: "notes") }
    func testImagesSample() throws { try checkDocument(try samplePackage("images"), name: "images") }
    func testRealHandwritingSample() throws { try checkDocument(try samplePackage("real-handwriting"), name: "real-handwriting") }
    func testRealNotebookSample() throws { try checkDocument(try samplePackage("real-notebook"), name: "real-notebook") }

    /// The tolerance is not loose: SVGs made wrong on purpose — every sub-path of a stroke its
    /// own element (a stroke per segment), the multiply dropped, the images dropped — fall
    /// under it with librsvg. (Measured also on features p1: per-segment 30.9 dB, no multiply
    /// 36.3 dB; notes p1: 34.2 and 27.0 dB; left out here to keep the suite short.)
    func testToleranceCatchesWrongConstructions() throws {
        let rsvg = try tool("rsvg-convert")
        let dir = try temporaryDirectoryURL(removedAfter: self)
        // The images sample's page has all three: translucent pen, highlighter, images.
        let cases: [(URL, Int, String)] = [(try samplePackage("images"), 1, "images")]
        for (url, page, name) in cases {
            let package = try GoldenRender.open(url)
            let reference = straightAlpha(try GoldenRender.render(package, page: page - 1, size: .scale(2)).bitmap)
            let exporter = PageExporter(package: package, settings: ExportSettings(format: .svg, render: RenderOptions()))
            let svgURL = dir.appendingPathComponent("\(name).svg")
            XCTAssertNil(exporter.export(pages: [page - 1], to: .file(svgURL.path))[0].error)
            let svg = try String(contentsOf: svgURL, encoding: .utf8)
            var variants: [(String, String)] = [("per-segment", Self.perSegment(svg))]
            if svg.contains("mix-blend-mode:multiply") {
                variants.append(("no-multiply", svg.replacingOccurrences(of: " style=\"mix-blend-mode:multiply\"", with: "")))
            }
            if svg.contains("<use ") {
                variants.append(("no-images", svg.split(separator: "\n", omittingEmptySubsequences: false)
                    .filter { !$0.hasPrefix("<use ") }.joined(separator: "\n")))
            }
            for (label, text) in variants {
                let v = dir.appendingPathComponent("\(name)-\(label).svg"), png = dir.appendingPathComponent("\(name)-\(label).png")
                try text.write(to: v, atomically: true, encoding: .utf8)
                try run(rsvg, ["-d", "\(Self.dpi)", "-p", "\(Self.dpi)", v.path, "-o", png.path])
                let actual = straightAlpha(try readImage(png))
                let result = ImageComparison.compare(expected: reference, actual: actual)
                print("vector: wrong construction \(name) \(label): PSNR \(String(format: "%.1f", result.psnr)) dB")
                XCTAssertLessThan(result.psnr, Self.strict.psnr, "\(name) \(label) would pass the tolerance")
            }
        }
    }

    /// Each sub-path of every stroke path as its own `<path>` with the same paint.
    static func perSegment(_ svg: String) -> String {
        var out: [String] = []
        for line in svg.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("<path "), let d = line.range(of: " d=\"") else { out.append(String(line)); continue }
            let head = line[..<d.lowerBound]
            let data = line[d.upperBound...].dropLast(3)   // `"/>`
            let parts = (try? SVGPathData(String(data)).subPaths) ?? []
            for part in parts { out.append("\(head) d=\"\(part.absoluteText)\"/>") }
        }
        return out.joined(separator: "\n")
    }

    // MARK: - Structure

    /// Occurrences of `needle` in `haystack`.
    static func occurrences(_ needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard !needle.isEmpty, needle.count <= haystack.count else { return 0 }
        var count = 0, i = 0
        let first = needle[0]
        haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                while i + n.count <= h.count {
                    if h[i] == first && memcmp(h.baseAddress! + i, n.baseAddress!, n.count) == 0 { count += 1; i += n.count } else { i += 1 }
                }
            }
        }
        return count
    }

    func testPDFStructure() throws {
        let package = try GoldenRender.open(try Self.features)
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let url = dir.appendingPathComponent("f.pdf")
        // Page 3 twice (its assets are shown on two pages of the file) plus every other page.
        let pages = Array(0..<package.pages.count) + [2]
        try exportPDF(package, to: url, pages: pages)
        let pdf = [UInt8](try Data(contentsOf: url))
        let text = String(decoding: pdf, as: UTF8.self)

        XCTAssertTrue(text.hasPrefix("%PDF-1.7"))
        XCTAssertTrue(text.hasSuffix("%%EOF\n"))
        XCTAssertEqual(Self.occurrences(Array("/Type/Page/".utf8), in: pdf), pages.count)
        XCTAssertTrue(text.contains("/Count \(pages.count)/Kids["))
        for index in Set(pages) {
            guard case .valid(let entry) = package.pages[index] else { return XCTFail("page \(index) invalid") }
            XCTAssertTrue(text.contains("/MediaBox[0 0 \(Self.points(entry.width)) \(Self.points(entry.height))]"))
        }
        XCTAssertTrue(text.contains("/Title(\(package.document.title))"))
        XCTAssertTrue(text.contains("/Producer(lnote-render)"))
        XCTAssertTrue(text.contains("/CreationDate(D:"))
        XCTAssertTrue(text.contains("/ModDate(D:"))

        // Image objects: one per distinct asset shown (a PNG with alpha adds its soft mask).
        var shown = Set<String>()
        for index in 0..<package.pages.count {
            for element in try package.loadPage(at: index).elements {
                if case .image(let p) = element.kind, p.opacity > 0 { shown.insert(p.asset.lowercased()) }
            }
        }
        XCTAssertFalse(shown.isEmpty, "the fixture shows images")
        let images = Self.occurrences(Array("/Subtype/Image".utf8), in: pdf)
        let masks = Self.occurrences(Array("/SMask ".utf8), in: pdf)   // image soft masks (`/SMask N 0 R`)
        XCTAssertEqual(images - masks, shown.count, "image objects beyond the distinct assets shown")

        // Every JPEG shown: its bytes exactly once, unchanged.
        var jpegs = 0
        for name in shown {
            let bytes = try package.readAsset(name)
            guard bytes.starts(with: [0xFF, 0xD8, 0xFF]) else { continue }
            jpegs += 1
            XCTAssertEqual(Self.occurrences(bytes, in: pdf), 1, "\(name): its bytes should be in the PDF exactly once")
        }
        XCTAssertGreaterThan(jpegs, 0)
        XCTAssertEqual(Self.occurrences(Array("/DCTDecode".utf8), in: pdf), jpegs)
    }

    static func points(_ tenths: Int) -> String {
        tenths % 10 == 0 ? String(tenths / 10) : String(format: "%g", Double(tenths) / 10)
    }

    func testSVGIsWellFormedAndEmbedsEachAssetOnce() throws {
        let package = try GoldenRender.open(try Self.features)
        let dir = try temporaryDirectoryURL(removedAfter: self)
        try exportSVG(package, to: dir)
        for index in 0..<package.pages.count {
            let url = dir.appendingPathComponent(PageExporter.fileName(forPage: index + 1, format: .svg))
            let data = try Data(contentsOf: url)
            let parser = XMLParser(data: data)
            XCTAssertTrue(parser.parse(), "page \(index + 1): \(parser.parserError.map { "\($0)" } ?? "not well-formed")")
            let text = String(decoding: data, as: UTF8.self)
            var assets = Set<String>()
            var showings = 0
            for element in try package.loadPage(at: index).elements {
                if case .image(let p) = element.kind, p.opacity > 0 { assets.insert(p.asset.lowercased()); showings += 1 }
            }
            XCTAssertEqual(text.components(separatedBy: "<image ").count - 1, assets.count, "page \(index + 1)")
            XCTAssertEqual(text.components(separatedBy: "<use ").count - 1, showings, "page \(index + 1)")
        }
    }

    func testPDFToStandardOutputAndFailingPage() throws {
        // A selection with every page still gives one file; the size and info survive a second export.
        let package = try GoldenRender.open(try Self.features)
        let dir = try temporaryDirectoryURL(removedAfter: self)
        let a = dir.appendingPathComponent("a.pdf"), b = dir.appendingPathComponent("b.pdf")
        try exportPDF(package, to: a, pages: [0])
        try exportPDF(package, to: b, pages: [0])
        XCTAssertEqual(try Data(contentsOf: a), try Data(contentsOf: b), "the export is deterministic")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary file is left behind")
    }
}
