// The `points` decoder's fast paths (word-at-a-time integers, shared element JSON) checked
// against a reference built from the generic JSON parser: values, rules, and syntax errors must
// come out exactly as the grammar says wherever a number falls relative to the end of the buffer.

import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class PointsDecodingTests: XCTestCase {
    enum Outcome: Equatable {
        case fileError
        case points([Int32])
        case rule(String)
    }

    /// What the format contract says a stroke with this `points` text decodes to, computed with
    /// `JSONValue` (the generic, slow path) and the rules of section 4.
    func reference(_ pointsText: String) -> Outcome {
        guard let v = try? parseJSON(pointsText) else { return .fileError }
        guard case .array(let items) = v else { return .rule("points") }
        var problem: String? = nil
        var values: [Int32] = []
        for (n, item) in items.enumerated() {
            if case .number(let num) = item, num.isInteger {
                if let i = num.int, let i32 = Int32(exactly: i) {
                    values.append(i32)
                } else if problem == nil {
                    problem = ElementReader.rangeCode(field: n % 5).rawValue
                }
            } else if problem == nil {
                problem = "points-integer"
            }
        }
        if let problem { return .rule(problem) }
        if values.count % 5 != 0 { return .rule("points-length") }
        for i in stride(from: 0, to: values.count, by: 5) {
            if !ContentLimits.radiusRange.contains(values[i + 2]) { return .rule("radius-range") }
            if !ContentLimits.pressureRange.contains(values[i + 3]) { return .rule("pressure-range") }
        }
        return .points(values)
    }

    /// The element parsed alone (the buffer ends right after the array's `]` and the `}`), so
    /// the last numbers sit within a word of the end.
    func decodeAlone(_ pointsText: String) -> Outcome {
        let e = ##"{"type":"stroke","color":"#000000","points":"## + pointsText + "}"
        switch ContentParser.parseElement(bytes(e)) {
        case .success(let el):
            guard case .stroke(let s) = el.kind else { return .rule("kind") }
            return .points(s.points)
        case .failure(let p):
            return p.code == .json ? .fileError : .rule(p.code.rawValue)
        }
    }

    /// The element inside a page, followed by more content (numbers far from the buffer's end).
    func decodeInPage(_ pointsText: String) -> Outcome {
        let e = ##"{"type":"stroke","id":"P","color":"#000000","points":"## + pointsText + ##","tail":"0123456789abcdef"}"##
        let page = contentJSON([e, strokeJSON("Z")])
        do {
            let c = try ContentParser.parse(bytes(page), file: "p")
            if let d = c.diagnostics.first { return .rule(d.code.rawValue) }
            guard case .stroke(let s) = c.elements[0].kind else { return .rule("kind") }
            return .points(s.points)
        } catch {
            return .fileError
        }
    }

    func check(_ pointsText: String, file: StaticString = #filePath, line: UInt = #line) {
        let want = reference(pointsText)
        XCTAssertEqual(decodeAlone(pointsText), want, pointsText, file: file, line: line)
        XCTAssertEqual(decodeInPage(pointsText), want, pointsText, file: file, line: line)
    }

    func testIntegerEdgeCases() {
        check("[0,0,0,0,0]")
        check("[-0,-0,0,0,-0]")
        check("[2147483647,-2147483648,0,0,0]")
        check("[2147483648,0,0,0,0]")
        check("[-2147483649,0,0,0,0]")
        check("[0,2147483648,0,0,0]")
        check("[0,0,0,0,2147483648]")
        check("[0,0,0,0,-2147483649]")
        check("[99999999,-99999999,0,0,9999999]")           // 8 digits: beyond the 7-digit fast path
        check("[1234567,-1234567,100000,1000,7654321]")      // 7 digits: the longest fast value
        check("[12345678,123456789,100000,1000,1234567890]")
        check("[9999999999,0,0,0,0]")
        check("[00,0,0,0,0]")
        check("[01,0,0,0,0]")
        check("[-01,0,0,0,0]")
        check("[0,0,0,0,01]")
        check("[1.,0,0,0,0]")
        check("[1.5,0,0,0,0]")
        check("[12.0,0,0,0,0]")
        check("[1e5,0,0,0,0]")
        check("[1E5,0,0,0,0]")
        check("[1e+5,0,0,0,0]")
        check("[-1e-5,0,0,0,0]")
        check("[1e,0,0,0,0]")
        check("[-,0,0,0,0]")
        check("[-a,0,0,0,0]")
        check("[--1,0,0,0,0]")
        check("[+1,0,0,0,0]")
        check("[.5,0,0,0,0]")
        check("[1x,0,0,0,0]")
        check("[1,,0,0,0]")
        check("[1,0,0,0,0,]")
        check("[1 0,0,0,0]")
        check("[1,0,0,0,0")
        check("[1,\"2\",0,0,0]")
        check("[1,null,0,0,0]")
        check("[1,true,0,0,0]")
        check("[1,[2],0,0,0]")
        check("[1,{\"a\":2},0,0,0]")
        check("[0,0,-1,0,0]")
        check("[0,0,100001,0,0]")
        check("[0,0,0,1001,0]")
        check("[0,0,0,-1,0]")
        check("[]")
        check("[ ]")
        check("[\n]")
    }

    func testWhitespaceAnywhereBetweenTokens() {
        check("[ 1 , 2 , 3 , 4 , 5 ]")
        check("[\n1,\n2,\n3,\n4,\n5\n]")
        check("[\t1\t,\r\n2\r\n,3,4,5\t]")
        check("[1 ,2 ,3 ,4 ,5 ]")
        check("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]")
        check("[  -12345  ,\n\n -2147483648 ,  0,  0,    2147483647   ]")
        check("[1,2,3,4,5 \u{0B}]")     // vertical tab is not JSON whitespace
        check("[1,2,3,4,\u{0C}5]")      // nor is form feed
    }

    /// Every number length from 1 to 12 digits, signed and not, at every distance from the end of
    /// the buffer (the alone form puts the last value within a word of it).
    func testNumbersAtEveryDistanceFromTheEnd() {
        let digits = "1234567890123"
        for length in 1...12 {
            let magnitude = String(digits.prefix(length))
            for sign in ["", "-"] {
                let v = sign + magnitude
                for prefixCount in 0...9 {
                    // Shift the value's position with a run of single-digit values before it.
                    let before = Array(repeating: "7", count: prefixCount)
                    let filler = Array(repeating: "0", count: (5 - (prefixCount + 1) % 5) % 5)
                    check("[" + (before + [v] + filler).joined(separator: ",") + "]")
                    check("[" + (filler + before + [v]).joined(separator: ",") + "]")
                    check("[" + (filler + before + [v + ".5"]).joined(separator: ",") + "]")
                    check("[" + (filler + before + [v + "e1"]).joined(separator: ",") + "]")
                    check("[" + (filler + before + ["0" + magnitude]).joined(separator: ",") + "]")
                }
            }
        }
    }

    /// Random arrays of mixed tokens, separators and whitespace, some malformed, against the
    /// reference. Deterministic (fixed seed).
    func testRandomArraysMatchTheReference() {
        var rng = SeededRNG(seed: 0x5EED_1234)
        let tokens = ["0", "-0", "1", "9", "10", "-7", "42", "100", "999", "1000", "1001", "4096", "65535", "100000",
                      "100001", "1234567", "-1234567", "12345678", "-99999999", "123456789", "2147483647",
                      "-2147483648", "2147483648", "-2147483649", "99999999999999999999", "01", "-01", "00",
                      "1.0", "1.", "1e3", "1E-2", "-", "\"s\"", "null", "[]", "{}", "true", "1x", "0x1", ".5"]
        let spaces = ["", "", "", "", " ", "\n", "\t", "\r\n", "  "]
        for _ in 0..<3000 {
            // Mostly short arrays; every tenth long enough for several 64-byte blocks.
            let count = rng.next() % 10 == 0 ? 50 + Int(rng.next() % 300) : Int(rng.next() % 16)
            var text = "[" + spaces[Int(rng.next() % UInt64(spaces.count))]
            for i in 0..<count {
                let r = rng.next() % 100
                let token: String
                if r < 97 - Int(rng.next() % 30) {
                    // Mostly plausible values, so that whole valid strokes occur often.
                    let field = i % 5
                    let n: Int = field == 2 ? Int(rng.next() % 200) : field == 3 ? Int(rng.next() % 1001)
                        : Int(Int64(bitPattern: rng.next()) % 100_000)
                    token = String(n)
                } else {
                    token = tokens[Int(rng.next() % UInt64(tokens.count))]
                }
                text += token
                text += spaces[Int(rng.next() % UInt64(spaces.count))]
                if i < count - 1 {
                    text += rng.next() % 200 == 0 ? "" : ","   // occasionally a missing comma
                    text += spaces[Int(rng.next() % UInt64(spaces.count))]
                }
            }
            if rng.next() % 100 == 0 { text += "," }
            text += "]"
            check(text)
        }
    }

    /// Many valid values, so that decoding crosses the scratch buffer's growth and block limits.
    func testLongValidStrokes() {
        var rng = SeededRNG(seed: 42)
        for samples in [1, 12, 13, 819, 820, 821, 2000, 5000] {
            var values: [String] = []
            for _ in 0..<samples {
                let x = Int(Int64(bitPattern: rng.next()) % 2_147_483_648)
                let y = Int(Int64(bitPattern: rng.next()) % 50_000)
                values += [String(x), String(y), String(rng.next() % 100_001), String(rng.next() % 1001), String(rng.next() % 99_999_999)]
            }
            let text = "[" + values.joined(separator: ",") + "]"
            let want = reference(text)
            XCTAssertEqual(decodeAlone(text), want)
            XCTAssertEqual(decodeInPage(text), want)
            if case .points(let p) = want { XCTAssertEqual(p.count, samples * 5) } else { XCTFail("\(want)") }
        }
    }

    /// A block of positive values followed by one with a negative value, and the reverse (the
    /// run decodes blocks without any '-' by a sign-free loop).
    func testSignedAndUnsignedBlocksMix() {
        let positive = Array(repeating: "1234,5678,8,500,9", count: 30).joined(separator: ",")
        let negative = Array(repeating: "-1234,-5678,8,500,9", count: 30).joined(separator: ",")
        check("[" + positive + "," + negative + "," + positive + "]")
        check("[" + negative + "," + positive + ",-0,-1,0,0,1]")
        check("[" + positive + ",1-2,0,0,0,0]")
        check("[" + positive + ",--1,0,0,0,0]")
        check("[" + positive + ",-,0,0,0,0]")
        check("[" + positive + ",-01,0,0,0,0]")
    }

    func testColourHexForms() {
        XCTAssertEqual(Color(hex: "#1a2B3c"), Color(r: 0x1A, g: 0x2B, b: 0x3C, a: 255))
        XCTAssertEqual(Color(hex: "#1a2B3c80"), Color(r: 0x1A, g: 0x2B, b: 0x3C, a: 0x80))
        XCTAssertEqual(Color(hex: "#000000"), Color(r: 0, g: 0, b: 0))
        XCTAssertEqual(Color(hex: "#FFFFFFFF"), Color(r: 255, g: 255, b: 255, a: 255))
        for bad in ["", "#", "#12345", "#1234567", "#123456789", "#1234567890", "123456", "1234567", "#GGGGGG",
                    "#12345g", " #123456", "#123456 ", "#１２３４５６", "##123456"] {
            XCTAssertNil(Color(hex: bad), bad)
        }
    }

    func testElementJSONIsTheExactTextOfEachElement() throws {
        let a = ##"{"type":"stroke","id":"A","color":"#000000","points":[1, 2,3,4,5] }"##
        let b = ##"{ "type":"image","id":"B","asset":"11111111-2222-4333-8444-555555555555.jpg","frame":[0,0,1,1]}"##
        let c = ##"{"type":"future","id":"C","x":{"y":[1,2,{"z":"é"}]}}"##
        let page = "\u{FEFF}{\"format\":1,\"elements\":[ " + a + " ,\n" + b + "," + c + " ] }"
        let content = try ContentParser.parse(bytes(page), file: "p")
        XCTAssertEqual(content.elements.map(\.json), [bytes(a), bytes(b), bytes(c)])
        // The stored text outlives the input array and is independent of later edits to it.
        var copy = content.elements[0]
        copy.json = bytes("{}")
        XCTAssertEqual(copy.json, bytes("{}"))
        XCTAssertEqual(content.elements[0].json, bytes(a))
        XCTAssertNotEqual(copy, content.elements[0])
        // Elements compare by their text, not by where it is stored.
        let alone = try XCTUnwrap(try? ContentParser.parseElement(bytes(a)).get())
        XCTAssertEqual(alone, content.elements[0])
    }
}

final class InvalidElementWarningCapTests: XCTestCase {
    /// A page of many invalid elements gives a bounded number of warnings, but every element is
    /// still counted as skipped (compaction and gc rely on the count).
    func testWarningsAreCappedAndTheRestSummarised() throws {
        let count = ContentLimits.maxWarningsPerPage * 3 + 7
        let json = "{\"format\":1,\"elements\":[" + Array(repeating: "0", count: count).joined(separator: ",") + "]}"
        let content = try ContentParser.parse(Array(json.utf8), file: "pages/x.content")
        XCTAssertEqual(content.elements.count, 0)
        XCTAssertEqual(content.skippedElements, count)
        XCTAssertEqual(content.diagnostics.count, ContentLimits.maxWarningsPerPage + 1)
        XCTAssertEqual(content.diagnostics.last?.code.rawValue, "more-invalid-elements")
        XCTAssertTrue(content.diagnostics.last!.message.hasPrefix("\(count - ContentLimits.maxWarningsPerPage) more"))
    }
}
