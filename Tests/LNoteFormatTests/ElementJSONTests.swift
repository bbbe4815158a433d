// The one writer of element JSON (`ElementJSON`) and the one warning budget (`Capped`).

import LNoteTestSupport
import XCTest
@testable import LNoteFormat

final class ElementJSONTests: XCTestCase {
    func testNewElementsAreCanonical() {
        let stroke = Element.stroke(id: "S1", tool: .pencil, color: Color(r: 0x12, g: 0x34, b: 0x56),
                                    points: [0, -1, 10, 1000, Int32.max, Int32.min, 7, 8, 9, 10])
        XCTAssertEqual(String(decoding: stroke.json, as: UTF8.self),
                       ##"{"type":"stroke","id":"S1","tool":"pencil","color":"#123456","points":[0,-1,10,1000,2147483647,-2147483648,7,8,9,10]}"##)
        let image = Element.image(id: "I\"1", placement: ImagePlacement(asset: "A.png", x: -5, y: 6, width: 7, height: 8,
                                                                          rotation: -90000, opacity: 500))
        XCTAssertEqual(String(decoding: image.json, as: UTF8.self),
                       #"{"type":"image","id":"I\"1","asset":"A.png","frame":[-5,6,7,8],"rotation":-90000,"opacity":500}"#)
        // What is written reads back as the same element.
        guard case .success(let back) = ContentParser.parseElement(stroke.json) else { return XCTFail("stroke does not parse") }
        XCTAssertEqual(back.kind, stroke.kind)
    }

    func testAbsentMembersAreLeftOutAndTheObjectIsLeftOpen() {
        var w = JSONWriter()
        ElementJSON.openStroke(id: nil, tool: nil, color: "#000000", points: [], into: &w)
        w.raw(",\"x\":1")
        ElementJSON.close(&w)
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), ##"{"type":"stroke","color":"#000000","points":[],"x":1}"##)
        var v = JSONWriter()
        ElementJSON.openImage(id: nil, asset: "B.jpg", frame: (1, 2, 3, 4), rotation: 0, opacity: 1000, into: &v)
        ElementJSON.close(&v)
        XCTAssertEqual(String(decoding: v.bytes, as: UTF8.self), #"{"type":"image","asset":"B.jpg","frame":[1,2,3,4],"rotation":0,"opacity":1000}"#)
    }

    func testIntegersMatchTheirDecimalText() {
        let seed: UInt64 = 28
        var g = SeededRNG(seed: seed)
        var values: [Int32] = [0, 1, -1, 9, 10, -10, 99, 100, Int32.max, Int32.min, Int32.max - 1, Int32.min + 1]
        for _ in 0..<2000 { values.append(Int32(truncatingIfNeeded: g.next()) >> Int32(g.next() % 31)) }
        var w = JSONWriter()
        w.integers(values)
        XCTAssertEqual(String(decoding: w.bytes, as: UTF8.self), values.map(String.init).joined(separator: ","), "seed \(seed)")
    }

    func testCappedKeepsTheFirstAndCountsTheRest() {
        var c = Capped<Int>(limit: 3)
        var built = 0
        func item(_ i: Int) -> Int { built += 1; return i }
        for i in 0..<10 { c.add(item(i)) }
        XCTAssertEqual(c.kept, [0, 1, 2])
        XCTAssertEqual(c.total, 10)
        XCTAssertEqual(c.more, 7)
        XCTAssertEqual(built, 3, "an item past the limit is never built")
        var d = Capped<Int>(limit: 5)
        d.add(100)
        d.add(contentsOf: c)
        XCTAssertEqual(d.kept, [100, 0, 1, 2])
        XCTAssertEqual(d.total, 11)

        var warnings = Capped<Diagnostic>(limit: 1)
        XCTAssertEqual(warnings.diagnostics { _ in XCTFail("no summary without more"); return nil }, [])
        warnings.add(Diagnostic(file: "f", code: .color, message: "a"))
        warnings.add(Diagnostic(file: "f", code: .color, message: "b"))
        warnings.add(Diagnostic(file: "f", code: .color, message: "c"))
        XCTAssertEqual(warnings.diagnostics { Diagnostic(file: "f", code: .moreWarnings, message: "\($0) more") }.map(\.message), ["a", "2 more"])
    }
}
