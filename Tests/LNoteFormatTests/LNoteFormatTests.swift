// Tests for LNoteFormat: shared helpers.

import Foundation
import XCTest
@testable import LNoteFormat
import LNoteTestSupport

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

func parseJSON(_ s: String) throws -> JSONValue { try JSONValue.parse(Array(s.utf8)) }

/// `{"format":1,"elements":[…]}` around element texts.
func contentJSON(_ elements: [String], format: Int = 1) -> String {
    "{\"format\":\(format),\"elements\":[\(elements.joined(separator: ","))]}"
}

/// A stroke element's JSON text.
func strokeJSON(_ id: String, color: String = "#1A1A1A", tool: String = "pen", points: String = "[1,2,3,4,5]") -> String {
    "{\"type\":\"stroke\",\"id\":\"\(id)\",\"tool\":\"\(tool)\",\"color\":\"\(color)\",\"points\":\(points)}"
}

/// A document.json with the given page entries (JSON texts).
func documentJSON(pages: [String], format: Int = 1) -> String {
    DocumentJSON.text(title: "T", createdAt: "2026-11-20T09:14:03.120Z", format: format, pages: pages)
}

func pageEntryJSON(_ id: String, width: String = "8340", height: String = "11940", extra: String = "") -> String {
    "{\"id\":\"\(id)\",\"width\":\(width),\"height\":\(height)\(extra)}"
}

/// The public samples, at `../shared/samples` beside the repository root. Missing samples fail
/// the test when `CI` is `true` and skip it otherwise.
func samplesDirectory(file: StaticString = #filePath, line: UInt = #line) throws -> URL {
    let root = URL(fileURLWithPath: "\(#filePath)")
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let samples = root.appendingPathComponent("../shared/samples").standardizedFileURL
    var isDir: ObjCBool = false
    if FileManager.default.fileExists(atPath: samples.path, isDirectory: &isDir), isDir.boolValue { return samples }
    if ProcessInfo.processInfo.environment["CI"] == "true" {
        XCTFail("samples not found at \(samples.path) (required when CI=true)", file: file, line: line)
        throw LNoteError(.missing, file: samples.path, code: .missing, message: "samples missing")
    }
    throw XCTSkip("samples not found at \(samples.path)")
}
