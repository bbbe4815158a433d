import Foundation
import LNoteCodecs
import LNoteFormat
import LNoteRender
import XCTest

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
                XCTAssertEqual(error.rule, "page-number")
                XCTAssertEqual(error.message, "page \(page) does not exist (the document has 3 page(s))")
            }
        }
        do {
            _ = try document.render(page: 1, size: .scale(10), maxPixels: 1000)
            XCTFail("over maxPixels")
        } catch {
            XCTAssertEqual(error.rule, "max-pixels")
        }
        do {
            _ = try document.jpeg(page: 1, background: .transparent)
            XCTFail("transparent JPEG")
        } catch {
            XCTAssertEqual(error.rule, "format")
        }
    }

    func testCheckAndRegenerate() throws {
        let dir = NSTemporaryDirectory() + "lnote-doc-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let copy = dir + "/" + (Self.sample as NSString).lastPathComponent
        try FileManager.default.copyItem(atPath: Self.sample, toPath: copy)
        let before = try LNoteDocument(path: copy).check()
        XCTAssertTrue(before.findings.contains { $0.rule == "missing-thumbnail" })
        let reports = LNoteLibrary.regenerateThumbnails(in: [dir], settings: ThumbnailSettings(jobs: 1))
        XCTAssertEqual(reports.map(\.rendered), [3])
        XCTAssertEqual(LNoteLibrary.check(path: copy).findings.filter { $0.rule.hasSuffix("thumbnail") }, [])
        XCTAssertEqual(LNoteLibrary.check(path: copy).errorCount, 0)
    }
}
