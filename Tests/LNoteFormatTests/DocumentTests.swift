// Sections 2 and 3: document.json validation and the manifest.

import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class DocumentTests: XCTestCase {
    func parse(_ pages: [String]) throws -> DocumentInfo {
        try DocumentParser.parse(bytes(documentJSON(pages: pages)))
    }

    func failure(_ text: String) -> LNoteError? {
        do { _ = try DocumentParser.parse(bytes(text)); return nil } catch { return error }
    }

    func testValidDocument() throws {
        let d = try parse([pageEntryJSON(IDs.p1, extra: ##","elementCount":3,"createdAt":"2026-11-20T09:14:03.120Z","background":{"color":"#FFFDF5","template":"ruled","spacing":400,"lineColor":"#11223344"}"##)])
        XCTAssertEqual(d.id, LNoteID(IDs.doc))
        XCTAssertEqual(d.title, "T")
        XCTAssertEqual(d.modifiedAt, "2026-11-29T10:00:00Z")
        XCTAssertTrue(d.diagnostics.isEmpty, "\(d.diagnostics)")
        let e = try XCTUnwrap(d.pages.first?.entry)
        XCTAssertEqual(e.width, 8340)
        XCTAssertEqual(e.elementCount, 3)
        XCTAssertEqual(e.createdAt, "2026-11-20T09:14:03.120Z")
        XCTAssertEqual(e.background, PageBackground(color: Color(hex: "#FFFDF5")!, template: .ruled, spacing: 400,
                                                    lineColor: Color(r: 0x11, g: 0x22, b: 0x33, a: 0x44)))
        // No background: all defaults.
        XCTAssertEqual(try parse([pageEntryJSON(IDs.p1)]).pages[0].entry?.background, .default)
    }

    func testDocumentFailures() {
        XCTAssertEqual(failure(documentJSON(pages: [], format: 2))?.kind, .newerFormat)
        XCTAssertEqual(failure(documentJSON(pages: [], format: 2))?.file, "document.json")
        XCTAssertEqual(failure("[]")?.code.rawValue, "document-object")
        XCTAssertEqual(failure("\"x\"")?.code.rawValue, "document-object")
        XCTAssertEqual(failure("{")?.kind, .invalidJSON)
        XCTAssertEqual(failure(#"{"format":1,"id":"x"}"#)?.code.rawValue, "pages")
        XCTAssertEqual(failure(#"{"format":1,"pages":{}}"#)?.code.rawValue, "pages")
        XCTAssertEqual(failure(#"{"format":"1","pages":[]}"#)?.code.rawValue, "format")
        XCTAssertNil(failure(#"{"pages":[]}"#)) // missing format means 1
    }

    func testInvalidPageEntriesFailIndividually() throws {
        let d = try parse([
            pageEntryJSON(IDs.p1),
            pageEntryJSON("../../x"),
            pageEntryJSON("C0A80101-0000-4000-8000-00000000A00"),       // 35 characters
            pageEntryJSON(pid(3), width: "0"),
            pageEntryJSON(pid(4), height: "200001"),
            pageEntryJSON(pid(5), width: "8340.0"),
            pageEntryJSON(pid(6), width: "\"8340\""),
            #"{"id":"\#(pid(7))","width":8340}"#,
            "42",
            #"{"id":7,"width":1,"height":1}"#,
            pageEntryJSON(IDs.p1.lowercased()),                    // duplicate of the first
            pageEntryJSON(IDs.p2, width: "1", height: "200000"),
        ])
        XCTAssertEqual(d.pages.count, 12)
        XCTAssertEqual(d.validPages.map(\.id), [LNoteID(IDs.p1)!, LNoteID(IDs.p2)!])
        let rules = d.pages.compactMap { $0.error?.code.rawValue }
        XCTAssertEqual(rules, ["page-id", "page-id", "page-size", "page-size", "page-size", "page-size", "page-size",
                               "page-entry", "page-id", "page-duplicate-id"])
        if case .invalid(let index, let rawID, let error) = d.pages[1] {
            XCTAssertEqual(index, 1)
            XCTAssertEqual(rawID, "../../x")
            XCTAssertEqual(error.file, "document.json")
            XCTAssertTrue(error.description.contains("page 2"), error.description)
        } else { XCTFail() }
    }

    func pid(_ n: Int) -> String { "C0A80101-0000-4000-8000-00000000B00\(n)" }

    func testAnIdUsedTwiceFailsTheLaterEntryEvenIfTheEarlierIsInvalid() throws {
        let d = try parse([pageEntryJSON(IDs.p1, width: "0"), pageEntryJSON(IDs.p1)])
        XCTAssertEqual(d.pages.map { $0.error?.code.rawValue }, ["page-size", "page-duplicate-id"])
    }

    func testInvalidBackgroundValuesFallBackToDefaultsWithWarnings() throws {
        let d = try parse([pageEntryJSON(IDs.p1, extra: #","background":{"color":"white","template":"hexagons","spacing":39,"lineColor":12}"#),
                           pageEntryJSON(IDs.p2, extra: #","background":{"template":"grid","spacing":100001}"#)])
        XCTAssertEqual(d.pages[0].entry?.background, .default)
        XCTAssertEqual(d.pages[1].entry?.background, PageBackground(template: .grid))
        XCTAssertEqual(d.diagnostics.map(\.code.rawValue), ["background-color", "background-template", "background-spacing",
                                                   "background-line-color", "background-spacing"])
        XCTAssertEqual(d.diagnostics.map(\.elementIndex), [0, 0, 0, 0, 1])
        XCTAssertEqual(d.diagnostics.last?.elementID, IDs.p2)
        XCTAssertEqual(d.diagnostics.last?.file, "document.json")
        let e = try parse([pageEntryJSON(IDs.p1, extra: #","background":"paper""#),
                           pageEntryJSON(IDs.p2, extra: #","background":{"spacing":320.0}"#)])
        XCTAssertEqual(e.validPages.map(\.background), [.default, .default])
        XCTAssertEqual(e.diagnostics.map(\.code.rawValue), ["background", "background-spacing"])
    }

    func testTimestamps() throws {
        for ok in ["2026-11-20T09:14:03Z", "2026-11-20T09:14:03.120Z", "2026-11-20T09:14:03.123456789Z"] {
            XCTAssertTrue(Timestamp.isValidUTC(ok), ok)
        }
        for bad in ["2026-11-20 09:14:03Z", "2026-11-20T09:14:03", "2026-11-20T09:14:03+01:00", "2026-13-20T09:14:03Z",
                    "2026-11-20T25:14:03Z", "2026-11-20T09:14:03.Z", "yesterday", ""] {
            XCTAssertFalse(Timestamp.isValidUTC(bad), bad)
        }
        let d = try parse([pageEntryJSON(IDs.p1, extra: #","modifiedAt":"now""#)])
        XCTAssertNil(d.pages[0].entry?.modifiedAt)
        XCTAssertEqual(d.diagnostics.map(\.code.rawValue), ["timestamp"])
    }

    func testManifestRoundTripAndFromDocument() throws {
        let d = try parse([pageEntryJSON(IDs.p1.lowercased()), pageEntryJSON(IDs.p2)])
        let m = Manifest(document: d)
        XCTAssertEqual(m, Manifest(id: IDs.doc, title: "T", modifiedAt: "2026-11-29T10:00:00Z", pageCount: 2,
                                   cover: "thumbnails/\(IDs.p1).jpg"))
        XCTAssertEqual(try Manifest.parse(m.jsonBytes()), m)
        let empty = Manifest(document: try parse([]))
        XCTAssertNil(empty.cover)
        XCTAssertTrue(String(decoding: empty.jsonBytes(), as: UTF8.self).contains("\"cover\": null"))
        XCTAssertEqual(try Manifest.parse(empty.jsonBytes()), empty)
        let odd = Manifest(id: "x", title: "quote \" backslash \\ newline \n tab \t bell \u{7} é", modifiedAt: nil, pageCount: 0, cover: nil)
        XCTAssertEqual(try Manifest.parse(odd.jsonBytes()), odd)
        XCTAssertThrowsError(try Manifest.parse(bytes(#"{"format":2,"id":"x","title":"t","pageCount":1}"#)))
        XCTAssertThrowsError(try Manifest.parse(bytes(#"{"id":"x","title":"t","pageCount":"1"}"#)))
    }
}
