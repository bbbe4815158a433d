// The codes are one type (`Code`): the README's table "Error and warning codes" must list exactly
// its cases, area by area, in its order, and every problem line is written by `ProblemLine`.

import Foundation
import XCTest
@testable import LNoteFormat

final class CodeTableTests: XCTestCase {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md").path

    /// The table's rows: the area (first column) and the codes of the second column, without the
    /// explanations in parentheses (which quote options such as `--to`).
    static func readmeRows() throws -> [(area: String, codes: [String])] {
        let text = try String(contentsOfFile: readme, encoding: .utf8)
        guard let start = text.range(of: "\n## Error and warning codes\n") else { throw CodeTableError("README lacks the codes section") }
        let section = text[start.upperBound...].components(separatedBy: "\n## ").first ?? ""
        var rows: [(String, [String])] = []
        for line in section.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, cells[1] != "area" else { continue }
            var codes: [String] = []
            var depth = 0
            var current: String? = nil
            for ch in cells[2] {
                switch ch {
                case "(": depth += 1
                case ")": depth -= 1
                case "`" where depth == 0:
                    if let c = current { codes.append(c); current = nil } else { current = "" }
                default:
                    if depth == 0, current != nil { current!.append(ch) }
                }
            }
            rows.append((cells[1], codes))
        }
        return rows
    }

    func testTheREADMEListsEveryCodeByArea() throws {
        let rows = try Self.readmeRows()
        XCTAssertEqual(rows.map(\.area), Code.Area.allCases.map(\.rawValue), "the table's rows are the areas, in order")
        for (area, codes) in rows {
            guard let a = Code.Area(rawValue: area) else { continue }
            XCTAssertEqual(codes, Code.allCases.filter { $0.area == a }.map(\.rawValue), "README row \"\(area)\"")
        }
        XCTAssertEqual(rows.flatMap(\.codes).count, Code.allCases.count)
    }

    func testRawValuesAreStableKebabCase() {
        XCTAssertEqual(Set(Code.allCases.map(\.rawValue)).count, Code.allCases.count)
        for code in Code.allCases {
            XCTAssertNotNil(code.rawValue.range(of: "^[a-z][a-z0-9]*(-[a-z0-9]+)*$", options: .regularExpression), code.rawValue)
        }
        // A few that scripts match on, spelled out.
        XCTAssertEqual(Code.pointsLength.rawValue, "points-length")
        XCTAssertEqual(Code.journalCrc.rawValue, "journal-crc")
        XCTAssertEqual(Code.targetNotAStore.rawValue, "target-not-a-store")
        XCTAssertEqual(Code.type.rawValue, "type")
    }

    /// The one formatter, as each of its users writes a line.
    func testProblemLines() {
        let d = Diagnostic(severity: .warning, file: "pages/X.content", elementIndex: 3, elementID: "A1", code: .pointsLength,
                           message: "points has 7 values")
        XCTAssertEqual(d.description, "warning: pages/X.content: element 3 (id A1): [points-length] points has 7 values")
        let anonymous = Diagnostic(severity: .error, file: "pages/X.content", elementIndex: 0, code: .color, message: "m")
        XCTAssertEqual(anonymous.description, "error: pages/X.content: element 0 (no id): [color] m")
        let journal = Diagnostic(file: "pages/X.journal", offset: 120, code: .journalCrc, message: "frame discarded")
        XCTAssertEqual(journal.description, "warning: pages/X.journal @120: [journal-crc] frame discarded")
        let page = Diagnostic(file: "document.json", elementID: "P", code: .pageId, message: "m")
        XCTAssertEqual(page.description, "warning: document.json: id P: [page-id] m")
        let e = LNoteError(.invalidJSON, file: "document.json", code: .json, message: "invalid JSON at byte 3")
        XCTAssertEqual(e.description, "document.json: [json] invalid JSON at byte 3")
        XCTAssertEqual(LNoteError(.io, file: "", code: .write, message: "m").description, ": [write] m")
        XCTAssertEqual(ProblemLine.text(severity: "warning", page: 2, file: "doc.lnote/pages/X.content", offset: 9, element: 1,
                                        id: nil, code: .radiusRange, message: "big"),
                       "warning: page 2: doc.lnote/pages/X.content @9: element 1 (no id): [radius-range] big")
        // The page is not said twice when the message starts with it.
        XCTAssertEqual(ProblemLine.text(severity: "error", page: 2, file: "doc.lnote", code: .pageSize, message: "page 2: no width"),
                       "error: doc.lnote: [page-size] page 2: no width")
        XCTAssertEqual(ProblemLine.text(severity: "error", file: nil, code: .usage, message: "no file"), "error: [usage] no file")
    }
}

struct CodeTableError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
