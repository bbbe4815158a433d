import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRender
import XCTest
import LNoteTestSupport

/// The library's front door, as an app calls it.
final class LNoteDocumentTests: XCTestCase {
    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path + "/tools/sample/5F5C08FF-9739-4483-B5A4-3351D704D540.lnote"

    func testOpenRenderAndEncode() throws {
        let document = try LNoteDocument(path: Self.sample)
        XCTAssertEqual(document.title, "Field trip notes")
        XCTAssertEqual(document.pageCount, 3)
        let pixels = try document.render(page: 2, size: .width(200))
        XCTAssertEqual(pixels.bitmap.width, 200)
        let png = try ImageDecoder.decode(document.png(page: 2, size: .width(200)))
        XCTAssertEqual(png.width, 200)
        XCTAssertEqual(png.height, pixels.bitmap.height)
        let jpeg = try document.jpeg(page: 3, size: .scale(0.5), quality: 70)
        XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8])
        XCTAssertEqual(try ImageDecoder.decode(jpeg).width, 417)
    }

    func testVectorOutput() throws {
        let document = try LNoteDocument(path: Self.sample)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // To a file, pages 3 and 2 in that order; to a sink, the same bytes, in more than one piece.
        let summary = try document.pdf(pages: [3, 2], to: .file(dir + "/out.pdf"))
        XCTAssertEqual(summary.pages, [3, 2])
        XCTAssertTrue(summary.failed.isEmpty)
        let file = try XCTUnwrap(FileManager.default.contents(atPath: dir + "/out.pdf"))
        XCTAssertEqual(summary.bytes, file.count)
        var pieces: [[UInt8]] = []
        let streamed = try document.pdf(pages: [3, 2], to: .sink { pieces.append($0) })
        XCTAssertGreaterThan(pieces.count, 2, "written as it goes, not at the end")
        XCTAssertEqual(pieces.flatMap { $0 }, [UInt8](file))
        XCTAssertEqual(streamed.bytes, file.count)
        let text = String(decoding: file, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("%PDF-1.7") && text.contains("/PageLabels<</Nums[0<</S/D/St 3>> 1<</S/D/St 2>>]>>"))
        // Every page by default; the same file as the exporter writes for the tool.
        let all = try document.pdf(to: .file(dir + "/all.pdf"))
        XCTAssertEqual(all.pages, [1, 2, 3])
        let package = try LNotePackage.open(at: URL(fileURLWithPath: Self.sample))
        let tool = PageExporter(package: package, settings: ExportSettings(format: .pdf, render: RenderOptions()))
            .exportPDF(pages: [0, 1, 2], to: .file(dir + "/tool.pdf"))
        XCTAssertNil(tool.error)
        XCTAssertEqual(FileManager.default.contents(atPath: dir + "/all.pdf"), FileManager.default.contents(atPath: dir + "/tool.pdf"))
        // A missing page is refused before anything is written; a failing sink ends the export.
        XCTAssertThrowsError(try document.pdf(pages: [1, 9], to: .file(dir + "/none.pdf"))) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "page-number")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/none.pdf"))
        struct Full: Error {}
        XCTAssertThrowsError(try document.pdf(to: .sink { _ in throw Full() })) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "write")
        }

        // SVG: the bytes the tool writes for that page.
        let svg = try document.svg(page: 2)
        let svgDir = dir + "/svg"
        try FileManager.default.createDirectory(atPath: svgDir, withIntermediateDirectories: true)
        let written = PageExporter(package: package, settings: ExportSettings(format: .svg, render: RenderOptions()))
            .export(pages: [1], to: .file(svgDir + "/p2.svg"))
        XCTAssertNil(written[0].error)
        XCTAssertEqual(FileManager.default.contents(atPath: svgDir + "/p2.svg"), Data(svg))
        XCTAssertTrue(String(decoding: svg, as: UTF8.self).contains("<title>Field trip notes — page 2</title>"))
        XCTAssertFalse(String(decoding: try document.svg(page: 1, background: .transparentNoTemplate), as: UTF8.self).contains("<rect width="))
        XCTAssertThrowsError(try document.svg(page: 4))
    }

    func testTypedErrors() throws {
        XCTAssertThrowsError(try LNoteDocument(path: "/nonexistent/x.lnote")) { error in
            XCTAssertEqual((error as? LNoteError)?.kind, .missing)
        }
        let document = try LNoteDocument(path: Self.sample)
        for page in [0, 4] {
            do {
                _ = try document.png(page: page)
                XCTFail("page \(page) rendered")
            } catch {
                XCTAssertEqual(error.code.rawValue, "page-number")
                XCTAssertEqual(error.message, "page \(page) does not exist (the document has 3 page(s))")
            }
        }
        do {
            _ = try document.render(page: 1, size: .scale(10), maxPixels: 1000)
            XCTFail("over maxPixels")
        } catch {
            XCTAssertEqual(error.code.rawValue, "max-pixels")
        }
        do {
            _ = try document.jpeg(page: 1, background: .transparent)
            XCTFail("transparent JPEG")
        } catch {
            XCTAssertEqual(error.code.rawValue, "format")
        }
    }

    func testCheckAndRegenerate() throws {
        let dir = try temporaryDirectory(removedAfter: self)
        let copy = dir + "/" + (Self.sample as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: Self.sample, toPath: copy)
        let before = try LNoteDocument(path: copy).check()
        XCTAssertTrue(before.findings.contains { $0.code.rawValue == "missing-thumbnail" })
        let reports = LNoteLibrary.regenerateThumbnails(in: [dir], settings: ThumbnailSettings(jobs: 1))
        XCTAssertEqual(reports.map(\.rendered), [3])
        XCTAssertEqual(LNoteLibrary.check(path: copy).findings.filter { $0.code.rawValue.hasSuffix("thumbnail") }, [])
        XCTAssertEqual(LNoteLibrary.check(path: copy).errorCount, 0)
    }
}
