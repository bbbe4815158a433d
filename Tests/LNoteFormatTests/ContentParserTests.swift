// Section 4 and 7 rules for elements and content files.

import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class ContentParserTests: XCTestCase {
    let file = "pages/\(IDs.p1).content"

    func parse(_ elements: [String]) throws -> PageContent {
        try ContentParser.parse(bytes(contentJSON(elements)), file: file)
    }

    /// Parses a page of [valid, candidate, valid] and expects the candidate to be skipped with
    /// a warning naming file, index 1, its id and `rule`.
    func assertSkipped(_ element: String, rule: String, id: String? = "BAD", file f: StaticString = #filePath, line: UInt = #line) throws {
        let c = try parse([strokeJSON("A"), element, strokeJSON("C")])
        XCTAssertEqual(c.elements.map(\.id), ["A", "C"], element, file: f, line: line)
        XCTAssertEqual(c.diagnostics.count, 1, file: f, line: line)
        guard let d = c.diagnostics.first else { return }
        XCTAssertEqual(d.severity, .warning, file: f, line: line)
        XCTAssertEqual(d.file, file, file: f, line: line)
        XCTAssertEqual(d.elementIndex, 1, file: f, line: line)
        XCTAssertEqual(d.elementID, id, file: f, line: line)
        XCTAssertEqual(d.code.rawValue, rule, "\(d)", file: f, line: line)
        XCTAssertTrue(d.description.contains(file) && d.description.contains("element 1") && d.description.contains(rule),
                      d.description, file: f, line: line)
    }

    func testValidStrokeDecodesFlatPoints() throws {
        let c = try parse([strokeJSON("A", color: "#1a2B3c80", tool: "highlighter", points: "[1204, 880, 12, 512, 0, -5,-2147483648,0,1000,2147483647]")])
        XCTAssertTrue(c.diagnostics.isEmpty)
        guard case .stroke(let s) = c.elements[0].kind else { return XCTFail() }
        XCTAssertEqual(s.tool, .highlighter)
        XCTAssertEqual(s.color, Color(r: 0x1A, g: 0x2B, b: 0x3C, a: 0x80))
        XCTAssertEqual(s.points, [1204, 880, 12, 512, 0, -5, Int32.min, 0, 1000, Int32.max])
        XCTAssertEqual(s.sampleCount, 2)
    }

    func testElementJSONKeptByteForByte() throws {
        let e = ##"{ "type" : "stroke", "id":"A", "color":"#000000", "points":[1,2,3,4,5], "future": {"k":[1,2]} }"##
        let c = try parse([e])
        XCTAssertEqual(c.elements[0].json, bytes(e))
    }

    func testToolDefaultsToPen() throws {
        let c = try parse([##"{"type":"stroke","id":"A","color":"#000000","points":[]}"##,
                           strokeJSON("B", tool: "crayon"),
                           ##"{"type":"stroke","id":"C","color":"#000000","tool":7,"points":[]}"##,
                           strokeJSON("D", tool: "pencil")])
        let tools: [Tool] = c.elements.compactMap { (e: Element) -> Tool? in if case .stroke(let s) = e.kind { return s.tool } else { return nil } }
        XCTAssertEqual(tools, [.pen, .pen, .pen, .pencil])
        XCTAssertTrue(c.diagnostics.isEmpty)
    }

    func testEmptyStrokeIsValid() throws {
        let c = try parse([strokeJSON("A", points: "[]")])
        XCTAssertEqual(c.elements.count, 1)
    }

    func testColourRequiredAndChecked() throws {
        try assertSkipped(#"{"type":"stroke","id":"BAD","points":[]}"#, rule: "color")
        try assertSkipped(strokeJSON("BAD", color: "#12345"), rule: "color")
        try assertSkipped(strokeJSON("BAD", color: "red"), rule: "color")
        try assertSkipped(strokeJSON("BAD", color: "#GGGGGG"), rule: "color")
        try assertSkipped(#"{"type":"stroke","id":"BAD","color":255,"points":[]}"#, rule: "color")
    }

    func testPointsRules() throws {
        try assertSkipped(##"{"type":"stroke","id":"BAD","color":"#000000"}"##, rule: "points")
        try assertSkipped(##"{"type":"stroke","id":"BAD","color":"#000000","points":{}}"##, rule: "points")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3,4]"), rule: "points-length")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3,4,5,6]"), rule: "points-length")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3.0,4,5]"), rule: "points-integer")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,1e3,4,5]"), rule: "points-integer")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,\"3\",4,5]"), rule: "points-integer")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,[3],4,5]"), rule: "points-integer")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,null,4,5]"), rule: "points-integer")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,-1,4,5]"), rule: "radius-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,100001,4,5]"), rule: "radius-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3,-1,5]"), rule: "pressure-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3,1001,5]"), rule: "pressure-range")
        try assertSkipped(strokeJSON("BAD", points: "[2147483648,2,3,4,5]"), rule: "coordinate-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,-2147483649,3,4,5]"), rule: "coordinate-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,3,4,99999999999999999999999999]"), rule: "time-range")
        try assertSkipped(strokeJSON("BAD", points: "[1,2,-99999999999,4,5]"), rule: "radius-range")
        // Limits inclusive; decreasing t tolerated.
        XCTAssertEqual(try parse([strokeJSON("A", points: "[0,0,100000,1000,5, 0,0,0,0,3]")]).elements.count, 1)
        // A syntax error inside points is a file error, not an element error.
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4,5,]")]))
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4,05]")]))
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4,-]")]))
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4,1.]")]))
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4 5]")]))
        XCTAssertThrowsError(try parse([strokeJSON("A", points: "[1,2,3,4,5")]))
    }

    func testSampleLimit() throws {
        // 1,000,000 samples are allowed; one more makes the element invalid.
        let sample = "0,0,1,0,0,"
        var exact = "[" + String(repeating: sample, count: ContentLimits.maxSamplesPerStroke)
        exact.removeLast()
        exact += "]"
        let ok = try parse([strokeJSON("A", points: exact)])
        XCTAssertEqual(ok.elements.count, 1)
        let over = "[" + String(repeating: sample, count: ContentLimits.maxSamplesPerStroke) + "0,0,1,0,0]"
        try assertSkipped(strokeJSON("BAD", points: over), rule: "sample-limit")
    }

    func testImageRules() throws {
        let asset = "\(IDs.asset).jpg"
        func image(_ fields: String) -> String { #"{"type":"image","id":"BAD","#  + fields + "}" }
        let c = try parse([image(#""asset":"\#(IDs.asset.lowercased()).PNG","frame":[-10,20,30,40],"rotation":-20000,"opacity":0"#),
                           image(#""asset":"\#(asset)","frame":[0,0,1,1]"#)])
        XCTAssertTrue(c.diagnostics.isEmpty, "\(c.diagnostics)")
        XCTAssertEqual(c.elements[0].kind, .image(ImagePlacement(asset: "\(IDs.asset.lowercased()).PNG", x: -10, y: 20, width: 30, height: 40, rotation: -20000, opacity: 0)))
        XCTAssertEqual(c.elements[1].kind, .image(ImagePlacement(asset: asset, x: 0, y: 0, width: 1, height: 1, rotation: 0, opacity: 1000)))

        for badAsset in ["../../etc/passwd", "x.jpg", "\(IDs.asset).gif", "\(IDs.asset).jpeg", "/\(IDs.asset).jpg",
                         "sub/\(IDs.asset).jpg", "\(IDs.asset).jpg\\u0000", "\(IDs.asset)", "", ".jpg"] {
            try assertSkipped(image(#""asset":"\#(badAsset)","frame":[0,0,1,1]"#), rule: "asset")
        }
        try assertSkipped(image(#""frame":[0,0,1,1]"#), rule: "asset")
        try assertSkipped(image(#""asset":"\#(asset)""#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,1,1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,0,1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,-1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1.5,1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[3000000000,0,1,1]"#), rule: "frame")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,1],"rotation":1.5"#), rule: "rotation")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,1],"opacity":1001"#), rule: "opacity")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,1],"opacity":-1"#), rule: "opacity")
        try assertSkipped(image(#""asset":"\#(asset)","frame":[0,0,1,1],"opacity":"1000""#), rule: "opacity")
    }

    func testUnknownTypeKeptAndOtherElementRules() throws {
        let c = try parse([#"{"type":"sticky-note","id":"U","text":"hi"}"#])
        XCTAssertEqual(c.elements.first?.kind, .unknown(type: "sticky-note"))
        XCTAssertTrue(c.diagnostics.isEmpty)
        try assertSkipped(##"{"id":"BAD","color":"#000000","points":[]}"##, rule: "type")
        try assertSkipped(#"{"type":3,"id":"BAD"}"#, rule: "type")
        try assertSkipped(##"{"type":"stroke","id":5,"color":"#000000","points":[]}"##, rule: "id", id: nil)
        try assertSkipped("[1,2]", rule: "element-object", id: nil)
        try assertSkipped("\"stroke\"", rule: "element-object", id: nil)
        // No id is allowed.
        XCTAssertNil(try parse([##"{"type":"stroke","color":"#000000","points":[]}"##]).elements.first?.id)
    }

    func testContentFileRules() throws {
        XCTAssertEqual(try ContentParser.parse(bytes(#"{"elements":[]}"#), file: file).format, 1) // missing format = 1
        func failure(_ text: String) -> LNoteError? {
            do { _ = try ContentParser.parse(bytes(text), file: file); return nil } catch { return error }
        }
        XCTAssertEqual(failure(contentJSON([], format: 2))?.kind, .newerFormat)
        XCTAssertEqual(failure(contentJSON([], format: 2))?.file, file)
        XCTAssertEqual(failure(#"{"format":"1","elements":[]}"#)?.code.rawValue, "format")
        XCTAssertEqual(failure(#"{"format":1.0,"elements":[]}"#)?.code.rawValue, "format")
        XCTAssertEqual(failure(#"{"format":1}"#)?.code.rawValue, "elements")
        XCTAssertEqual(failure(#"{"elements":{}}"#)?.code.rawValue, "elements")
        XCTAssertEqual(failure("[]")?.code.rawValue, "content-object")
        XCTAssertEqual(failure("{")?.kind, .invalidJSON)
        XCTAssertEqual(failure("{\"elements\":[]}\u{1}")?.kind, .invalidJSON)
        XCTAssertEqual(failure(String(decoding: [0x7B, 0xFF, 0x7D], as: UTF8.self))?.kind, .invalidJSON)
        XCTAssertTrue(failure("{\"x\":")?.description.contains(file) ?? false)
    }

    func testUnknownTopLevelKeysAreKeptAsTextAndWrittenBack() throws {
        let text = "{ \"a\" :1,\"format\":1,\n \"x\": {\"y\":[1,2]} , \"elements\":[],\"\\u0078\":null,\"a\":[\"}\"]}"
        let c = try ContentParser.parse(bytes(text), file: file)
        XCTAssertEqual(c.unknownMembers.map { String(decoding: $0, as: UTF8.self) },
                       [#""a" :1"#, #""x": {"y":[1,2]}"#, #""\u0078":null"#, #""a":["}"]"#])
        // Written back after the known keys, in order; they read back the same.
        let again = try ContentParser.parse(ContentWriter.snapshot(c.elements, unknownMembers: c.unknownMembers), file: file)
        XCTAssertEqual(again.unknownMembers, c.unknownMembers)
        XCTAssertEqual(try ContentParser.parse(bytes(contentJSON([])), file: file).unknownMembers, [])
    }

    func testElementLimitMakesThePageFail() throws {
        let three = contentJSON([strokeJSON("A"), strokeJSON("B"), "1"])
        XCTAssertEqual(try ContentParser.parse(bytes(three), file: file, elementLimit: 3).elements.count, 2)
        XCTAssertThrowsError(try ContentParser.parse(bytes(three), file: file, elementLimit: 2)) { error in
            XCTAssertEqual((error as? LNoteError)?.kind, .limit)
            XCTAssertEqual((error as? LNoteError)?.code.rawValue, "element-limit")
        }
        XCTAssertEqual(ContentLimits.maxElementsPerPage, 1_000_000)
    }

    func testDiagnosticDescriptionIsOneLineWithEverything() {
        let d = Diagnostic(severity: .warning, file: "pages/X.content", elementIndex: 4, elementID: "ABC", code: .radiusRange, message: "too big")
        XCTAssertEqual(d.description, "warning: pages/X.content: element 4 (id ABC): [radius-range] too big")
        XCTAssertFalse(d.description.contains("\n"))
    }

    func testElementBuildersRoundTrip() throws {
        let s = Element.stroke(id: "S\"1", tool: .pencil, color: Color(r: 1, g: 2, b: 3, a: 4), points: [1, -2, 3, 4, 5])
        let i = Element.image(id: "I", placement: ImagePlacement(asset: "\(IDs.asset).png", x: 1, y: 2, width: 3, height: 4, rotation: -5, opacity: 6))
        let c = try ContentParser.parse(ContentWriter.snapshot([s, i]), file: file)
        XCTAssertEqual(c.elements, [s, i])
        XCTAssertTrue(c.diagnostics.isEmpty)
        XCTAssertEqual(try ContentParser.parse(ContentWriter.snapshot([]), file: file).elements, [])
    }
}
