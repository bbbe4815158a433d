// Values whose contents are never looked at (a `format` of the wrong type, unknown keys of
// document.json...) are validated without being built. Invalid input must still get exactly
// the error the full parser gives: same message, same offset.

import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class UnbuiltValueTests: XCTestCase {
    /// Malformed values, each placed where the parsers only validate or build by type.
    let malformed = ["[1,]", "[1 2]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[tru]", "[\"\\x\"]", "[01]", "[1.]", "[-]",
                     "{\"a\":[1,]}", "[{}, {\"b\":[[]],}]", "[\"\u{1}\"]", String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
                     "[[1,2],[3,]]", "{\"a\":{\"b\":{\"c\":[1,]}}}"]

    func fullParserError(_ text: String) -> String? {
        do { _ = try JSONValue.parse(bytes(text)); return nil } catch { return error.description }
    }

    func assertSameError(_ text: String, _ parse: ([UInt8]) throws -> Void, file f: StaticString = #filePath, line: UInt = #line) {
        let expected = fullParserError(text)
        XCTAssertNotNil(expected, text, file: f, line: line)
        do {
            try parse(bytes(text))
            XCTFail("no error for \(text)", file: f, line: line)
        } catch {
            XCTAssertEqual((error as? LNoteError)?.message, expected, text, file: f, line: line)
        }
    }

    func testContentValuesGetTheFullParsersErrors() {
        for v in malformed {
            let image = #"{"type":"image","id":"I","asset":"\#(IDs.asset).jpg","frame":"#
            // An object as the file or as an element is read member by member, its unknown
            // members skipped by the same walker: the same errors there too.
            for text in [v, "{\"elements\":[\(v)]}", "{\"elements\":[],\"x\":\(v)}", "{\"elements\":[{\"type\":\"stroke\",\"x\":\(v)}]}",
                         "{\"format\":\(v),\"elements\":[]}", "{\"elements\":\(v)}",
                         "{\"elements\":[{\"type\":\(v)}]}", "{\"elements\":[{\"id\":\(v),\"type\":\"x\"}]}",
                         "{\"elements\":[{\"type\":\"stroke\",\"color\":\(v)}]}",
                         "{\"elements\":[\(image)\(v)}]}", "{\"elements\":[\(image)[1,2,3,4,5,\(v)]}]}",
                         "{\"elements\":[\(image)[1,\(v),3,4]}]}", "{\"elements\":[{\"type\":\"image\",\"asset\":\(v)}]}",
                         "{\"elements\":[{\"type\":\"image\",\"rotation\":\(v),\"opacity\":1}]}",
                         "{\"elements\":[{\"type\":\"stroke\",\"points\":\(v)}]}", "{\"elements\":[{\"type\":\"stroke\",\"points\":[1,\(v)]}]}"] {
                assertSameError(text) { _ = try ContentParser.parse($0, file: "p") }
            }
        }
    }

    func testDocumentAndManifestGetTheFullParsersErrors() {
        for v in malformed {
            let page = "{\"id\":\"\(IDs.p1)\",\"width\":1,\"height\":1"
            for text in [v, "{\"x\":\(v),\"pages\":[]}", "{\"pages\":\(v)}", "{\"pages\":[\(v)]}", "{\"format\":\(v)}",
                         "{\"pages\":[\(page),\"x\":\(v)}]}", "{\"pages\":[\(page),\"background\":\(v)}]}",
                         "{\"pages\":[\(page),\"background\":{\"color\":\(v)}}]}", "{\"pages\":[\(page),\"width\":\(v)}]}"] {
                assertSameError(text) { _ = try DocumentParser.parse($0) }
            }
            for text in [v, "{\"id\":\(v)}", "{\"x\":\(v),\"id\":\"a\"}"] {
                assertSameError(text) { _ = try Manifest.parse($0) }
            }
        }
    }

    func testValuesOfTheWrongTypeAreStillReportedByType() throws {
        func failure(_ text: String) -> LNoteError? {
            do { _ = try ContentParser.parse(bytes(text), file: "p"); return nil } catch { return error }
        }
        XCTAssertEqual(failure(#"{"format":[2,3],"elements":[]}"#)?.message, "format must be a positive integer, found an array")
        XCTAssertEqual(failure(#"{"format":{"a":2},"elements":[]}"#)?.message, "format must be a positive integer, found an object")
        XCTAssertEqual(failure(#"{"elements":{"a":[]}}"#)?.message, "elements is an object, not an array")
        func problem(_ element: String) throws -> String? {
            let c = try ContentParser.parse(bytes(contentJSON([element])), file: "p")
            return c.diagnostics.first.map { "[\($0.code.rawValue)] \($0.message)" }
        }
        let image = #"{"type":"image","id":"I","asset":"\#(IDs.asset).jpg","frame":"#
        XCTAssertEqual(try problem(image + "[1,2,3,4,5,6,7]}"), "[frame] frame is not an array of 4 integers")
        XCTAssertEqual(try problem(image + "[1,2,3]}"), "[frame] frame is not an array of 4 integers")
        XCTAssertEqual(try problem(image + "{\"x\":[1,2,3,4]}}"), "[frame] frame is not an array of 4 integers")
        XCTAssertEqual(try problem(image + "[1,[2],3,4]}"), "[frame] frame values must be integers in the 32-bit range, found an array")
        XCTAssertNil(try problem(image + "[1,2,3,4]}"))
        XCTAssertEqual(try problem(#"{"type":"image","id":"I","asset":["a"]}"#), "[asset] asset is an array, not a string")
        XCTAssertEqual(try problem(#"{"type":{"a":1},"id":"I"}"#), "[type] type is an object, not a string")
        XCTAssertEqual(try problem(#"{"type":"stroke","id":["I"]}"#), "[id] id is an array, not a string")
        XCTAssertEqual(try problem(#"{"type":"stroke","id":"I","color":[1],"points":[]}"#), "[color] color is an array, not a string")
        XCTAssertEqual(try problem(##"{"type":"stroke","id":"I","color":"#000000","points":{"a":1}}"##), "[points] points is an object, not an array")
        XCTAssertEqual(try problem(##"{"type":"stroke","id":"I","color":"#000000","points":[1,[2],3,4,5]}"##),
                       "[points-integer] points value 1 is an array, not an integer")
        XCTAssertEqual(try problem("[[1,2]]"), "[element-object] the element is an array, not an object")
    }

    func testDocumentReadsOnlyWhatItNeedsWithTheSameResults() throws {
        let page = pageEntryJSON(IDs.p1, extra: ##","x":[1,{"y":2}],"background":{"color":"#FFFFFF","z":[3],"spacing":[40]}"##)
        let text = #"{"a":{"b":[1,2]},"format":1,"id":"\#(IDs.doc)","title":"T","title":"U","pages":5,"pages":[\#(page),7]}"#
        let d = try DocumentParser.parse(bytes(text))
        XCTAssertEqual(d.title, "U")
        XCTAssertEqual(d.pages.count, 2)
        XCTAssertEqual(d.pages[0].entry?.background.spacing, 320)
        XCTAssertEqual(d.diagnostics.map(\.message), ["spacing (an array) is not an integer from 40 to 100000; 320 is used"])
        XCTAssertEqual(d.pages[1].error?.message, "page 2: the entry is an integer, not an object")
        XCTAssertEqual((try? DocumentParser.parse(bytes(#"{"pages":[],"pages":{"a":[]}}"#))).map { _ in "" }, nil)
        XCTAssertThrowsError(try DocumentParser.parse(bytes(#"{"pages":[],"pages":{"a":[]}}"#))) { error in
            XCTAssertEqual((error as? LNoteError)?.message, "pages is an object, not an array")
        }
        XCTAssertThrowsError(try DocumentParser.parse(bytes("[[1]]"))) { error in
            XCTAssertEqual((error as? LNoteError)?.message, "document.json is an array, not an object")
        }
    }

    func testPageLimitAndWarningLimit() throws {
        // Over the limit the document fails, after the entries are still validated; a newer
        // format wins.
        let entries = (0..<5).map { _ in "0" }.joined(separator: ",")
        XCTAssertThrowsError(try DocumentParser.parse(bytes(#"{"pages":[\#(entries)]}"#), pageLimit: 4)) { error in
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "page-limit")
            XCTAssertEqual((error as? LNoteError)?.kind, .limit)
        }
        XCTAssertEqual(try DocumentParser.parse(bytes(#"{"pages":[\#(entries)]}"#), pageLimit: 5).pages.count, 5)
        XCTAssertThrowsError(try DocumentParser.parse(bytes(#"{"pages":[\#(entries),[1,]]}"#), pageLimit: 4)) { error in
            XCTAssertEqual((error as? LNoteError)?.kind, .invalidJSON)
        }
        XCTAssertThrowsError(try DocumentParser.parse(bytes(#"{"format":2,"pages":[\#(entries)]}"#), pageLimit: 4)) { error in
            XCTAssertEqual((error as? LNoteError)?.kind, .newerFormat)
        }
        XCTAssertEqual(DocumentParser.maxPageEntries, 1_000_000)
        // Warnings: the first 100, then one summary.
        let pages = (1...150).map { pageEntryJSON(String(format: "C0A80101-0000-4000-8000-%012d", $0), extra: #","elementCount":-1"#) }
        let d = try DocumentParser.parse(bytes(#"{"id":"x","pages":[\#(pages.joined(separator: ","))]}"#))
        XCTAssertEqual(d.pages.count, 150)
        XCTAssertEqual(d.diagnostics.count, 101)
        XCTAssertEqual(d.diagnostics.first?.code.rawValue, "document-id")
        XCTAssertEqual(d.diagnostics.last?.message, "… and 51 more warnings")
    }
}
