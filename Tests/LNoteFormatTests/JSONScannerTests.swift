// The JSON grammar as the scanner applies it: whitespace, strings, numbers, nesting, encoding.

import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class JSONScannerTests: XCTestCase {
    func assertInvalid(_ text: String, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parseJSON(text), "expected invalid: \(text.prefix(80)) \(message)", file: file, line: line)
    }

    func assertInvalid(bytes b: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try JSONValue.parse(b), "expected invalid: \(b)", file: file, line: line)
    }

    func testWhitespaceAllFourKinds() throws {
        let v = try parseJSON(" \t\r\n{ \"a\" \n:\t[ 1 ,\r2 ] } \n")
        XCTAssertEqual(v["a"], .array([.number(.init(isInteger: true, int: 1, text: "1")),
                                       .number(.init(isInteger: true, int: 2, text: "2"))]))
        assertInvalid("{\"a\":1}\u{0B}")        // vertical tab is not JSON whitespace
        assertInvalid("\u{A0}{}")               // nor is NBSP
    }

    func testStringEscapes() throws {
        let v = try parseJSON(#"["\"\\\/\b\f\n\r\t", "\u0041\u00e9\u20AC", "\ud83d\ude00", "\u0000"]"#)
        guard case .array(let a) = v else { return XCTFail() }
        XCTAssertEqual(a[0].stringValue, "\"\\/\u{08}\u{0C}\n\r\t")
        XCTAssertEqual(a[1].stringValue, "Aé€")
        XCTAssertEqual(a[2].stringValue, "😀")
        XCTAssertEqual(a[3].stringValue, "\u{0}")
        XCTAssertEqual(try parseJSON("\"héllo 😀\"").stringValue, "héllo 😀") // raw UTF-8 kept
    }

    func testInvalidEscapesAndSurrogates() {
        assertInvalid(#""\x41""#)
        assertInvalid(#""\u12G4""#)
        assertInvalid(#""\u123""#)
        assertInvalid(#""\ud83d""#)            // lone high surrogate
        assertInvalid(#""\ud83dx""#)
        assertInvalid(#""\ud83d\u0041""#)       // high followed by non-low
        assertInvalid(#""\ude00""#)            // lone low surrogate
        assertInvalid("\"a\u{01}b\"")           // raw control character
        assertInvalid("\"tab\there\"")
        assertInvalid("\"unterminated")
        assertInvalid(#""ends with backslash\"#)
    }

    func testInvalidUTF8Rejected() {
        let q: UInt8 = 0x22
        assertInvalid(bytes: [q, 0xFF, q])                    // never valid
        assertInvalid(bytes: [q, 0xC0, 0x80, q])              // overlong NUL
        assertInvalid(bytes: [q, 0xE0, 0x80, 0x80, q])        // overlong
        assertInvalid(bytes: [q, 0xED, 0xA0, 0x80, q])        // encoded surrogate
        assertInvalid(bytes: [q, 0xF4, 0x90, 0x80, 0x80, q])  // above U+10FFFF
        assertInvalid(bytes: [q, 0xE2, 0x82, q])              // truncated
        assertInvalid(bytes: [q, 0x80, q])                    // lone continuation
        assertInvalid(bytes: [0x5B, 0xC3, 0xA9, 0x5D])        // UTF-8 outside a string
        XCTAssertNoThrow(try JSONValue.parse([q, 0xF0, 0x9F, 0x98, 0x80, q]))
    }

    func testUnknownNestedValuesSkippedWithValidation() throws {
        // In a content file unknown keys are walked in `.skip` mode.
        let ok = contentJSON([strokeJSON(IDs.element(1))]).replacingOccurrences(
            of: "\"format\":1,", with: "\"format\":1,\"x\":{\"a\":[1,{\"b\":[[],{},\"\\u00e9\",true,false,null,-0.5e+3]}]},")
        XCTAssertEqual(try ContentParser.parse(bytes(ok), file: "c").elements.count, 1)
        for bad in ["{\"a\":[1,]}", "{\"a\":{\"b\":1,}}", "{\"a\":[1 2]}", "{\"a\":{1:2}}", "{\"a\":[tru]}",
                    "{\"a\":{\"b\" 1}}", "{\"a\":[}", "{\"a\":{]}", "{\"a\":[\"\\q\"]}", "{\"a\":[01]}", "{\"a\":nul}"] {
            let text = "{\"elements\":[],\"unknown\":" + bad + "}"
            XCTAssertThrowsError(try ContentParser.parse(bytes(text), file: "c"), bad)
            assertInvalid(bad)
        }
    }

    func testDuplicateKeysLastWins() throws {
        XCTAssertEqual(try parseJSON(#"{"a":1,"a":"two"}"#)["a"], .string("two"))
        // In content files too: the last `elements` and the last `points` count.
        let text = ##"{"elements":[{"type":"stroke"}],"elements":[{"type":"stroke","id":"x","color":"#000000","points":[1.5],"points":[1,2,3,4,5],"color":"#FF0000"}]}"##
        let c = try ContentParser.parse(bytes(text), file: "c")
        XCTAssertEqual(c.elements.count, 1)
        XCTAssertTrue(c.diagnostics.isEmpty)
        guard case .stroke(let s) = c.elements[0].kind else { return XCTFail() }
        XCTAssertEqual(s.points, [1, 2, 3, 4, 5])
        XCTAssertEqual(s.color, Color(r: 255, g: 0, b: 0))
    }

    func testDepth64AcceptedAnd65Rejected() throws {
        XCTAssertNoThrow(try parseJSON(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)))
        assertInvalid(String(repeating: "[", count: 65) + String(repeating: "]", count: 65))
        // Objects count too, and the skip path (unknown key) enforces the same limit.
        let nested63 = String(repeating: "{\"a\":", count: 63) + "1" + String(repeating: "}", count: 63)
        XCTAssertNoThrow(try parseJSON("{\"x\":" + nested63 + "}"))                        // 64 levels
        assertInvalid("[{\"x\":" + nested63 + "}]")                                        // 65 levels
        XCTAssertNoThrow(try ContentParser.parse(bytes("{\"elements\":[],\"x\":" + nested63 + "}"), file: "c"))
        XCTAssertThrowsError(try ContentParser.parse(bytes("{\"elements\":[],\"x\":[" + nested63 + "]}"), file: "c"))
    }

    func testDeepNestingDoesNotOverflowTheStack() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        assertInvalid(deep)
        XCTAssertThrowsError(try ContentParser.parse(bytes("{\"elements\":[],\"x\":" + deep + "}"), file: "c"))
        XCTAssertThrowsError(try ContentParser.parse(bytes("{\"elements\":[" + deep + "]}"), file: "c"))
        let deepObjects = String(repeating: "{\"a\":", count: 100_000)
        assertInvalid(deepObjects)
        XCTAssertThrowsError(try DocumentParser.parse(bytes(deepObjects)))
        if case .failure(let p) = ContentParser.parseElement(bytes("{\"type\":\"stroke\",\"x\":" + deep + "}")) {
            XCTAssertEqual(p.code.rawValue, "json")
        } else { XCTFail() }
    }

    func testNumbersFollowTheGrammar() throws {
        for ok in ["0", "-0", "12", "-12", "1.5", "-0.25", "1e3", "1E+3", "1e-3", "123.456e-7", "9223372036854775807",
                   "-9223372036854775808", "123456789012345678901234567890", "1e999999"] {
            XCTAssertNoThrow(try parseJSON(ok), ok)
        }
        for bad in ["01", "-", "+1", ".5", "1.", "1.e3", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1_000", "--1", "- 1"] {
            assertInvalid(bad)
        }
        XCTAssertEqual(try parseJSON("9223372036854775807").integerValue, Int64.max)
        XCTAssertEqual(try parseJSON("-9223372036854775808").integerValue, Int64.min)
        XCTAssertNil(try parseJSON("9223372036854775808").integerValue)   // out of range: no trap
        XCTAssertNil(try parseJSON("-9223372036854775809").integerValue)
        XCTAssertNil(try parseJSON("12.0").integerValue)
        XCTAssertNil(try parseJSON("1e3").integerValue)
    }

    func testBOMToleratedOnlyAtTheStart() throws {
        XCTAssertEqual(try JSONValue.parse([0xEF, 0xBB, 0xBF] + bytes("[1]")), try parseJSON("[1]"))
        assertInvalid(bytes: bytes(" ") + [0xEF, 0xBB, 0xBF] + bytes("[1]"))
        assertInvalid(bytes: [0xEF, 0xBB] + bytes("[1]"))
        XCTAssertEqual(try ContentParser.parse([0xEF, 0xBB, 0xBF] + bytes(contentJSON([])), file: "c").elements.count, 0)
    }

    func testTrailingGarbageAndEmptyInput() {
        assertInvalid("{} x")
        assertInvalid("[1]]")
        assertInvalid("{}{}")
        assertInvalid("")
        assertInvalid("   ")
        assertInvalid(bytes: bytes("{}") + [0])
        XCTAssertThrowsError(try ContentParser.parse(bytes(contentJSON([]) + ","), file: "c"))
        XCTAssertThrowsError(try ContentParser.parse([], file: "c"))
    }

    func testSkipValueKeepsDepthBalanced() throws {
        // After skipping a large unknown value the parser continues at the right level.
        let text = "{\"u\":[[[{\"a\":[]}]],{}],\"elements\":[\(strokeJSON("a"))],\"v\":{\"w\":[[]]}}"
        XCTAssertEqual(try ContentParser.parse(bytes(text), file: "c").elements.count, 1)
    }
}
