import LNoteFormat
import XCTest

final class ElementMembersTests: XCTestCase {
    func testMembersAreTheTextOfEachMemberInOrder() throws {
        let text = ##"{ "type" : "stroke", "id":"A0000000-0000-4000-8000-000000000001","color":"#000000","points":[ 1, -2,3,4,5 ] ,"x\"y":{"a":[1,[2]],"b":"]"}, "points":[6,7,8,9,10],"n":null }"##
        let element = try ContentParser.parseElement(Array(text.utf8)).get()
        let members = element.members
        XCTAssertEqual(members.map(\.key), ["type", "id", "color", "points", "x\"y", "points", "n"])
        XCTAssertEqual(members.map { String(decoding: $0.text, as: UTF8.self) }, [
            #""type" : "stroke""#, #""id":"A0000000-0000-4000-8000-000000000001""#, ##""color":"#000000""##,
            #""points":[ 1, -2,3,4,5 ]"#, #""x\"y":{"a":[1,[2]],"b":"]"}"#, #""points":[6,7,8,9,10]"#, #""n":null"#,
        ])
        XCTAssertEqual(members[0].stringValue, "stroke")
        XCTAssertNil(members[3].stringValue)
        // The points of the last `points` member are the stroke's, as the parser reads them.
        guard case .stroke(let s) = element.kind else { return XCTFail("not a stroke") }
        XCTAssertEqual(s.points, [6, 7, 8, 9, 10])
    }

    func testArraysThatAreNotPlainIntegersTakeTheFullGrammar() throws {
        let text = #"{"type":"lasso","a":[1,"]",2],"b":[[1],[2]],"c":[{"d":"]"}],"e":[]}"#
        let element = try ContentParser.parseElement(Array(text.utf8)).get()
        XCTAssertEqual(element.members.map { String(decoding: $0.text, as: UTF8.self) },
                       [#""type":"lasso""#, #""a":[1,"]",2]"#, #""b":[[1],[2]]"#, #""c":[{"d":"]"}]"#, #""e":[]"#])
        XCTAssertEqual(Element(id: nil, kind: .unknown(type: "x"), json: Array("[1]".utf8)).members, [])
    }
}
