// Tests for LNoteFormat: shared helpers.

import Foundation
import XCTest
@testable import LNoteFormat

/// Ids used by the synthetic packages in these tests.
enum TestIDs {
    static let doc = "8E1F6C2B-4C1D-4B7A-9A43-2D0C5B1E7F10"
    static let page1 = "C0A80101-0000-4000-8000-00000000A001"
    static let page2 = "C0A80101-0000-4000-8000-00000000A002"
    static let asset = "11111111-2222-4333-8444-555555555555"
    static func element(_ n: Int) -> String { String(format: "E0000000-0000-4000-8000-%012d", n) }
}

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

/// A fresh directory removed at the end of the test.
func makeTemporaryDirectory(_ test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("lnote-format-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Builds a package directory `<doc>.lnote` with the given files (relative path -> bytes).
func makePackage(in dir: URL, files: [String: [UInt8]]) throws -> URL {
    let pkg = dir.appendingPathComponent("\(TestIDs.doc).lnote")
    for sub in ["pages", "assets", "thumbnails"] {
        try FileManager.default.createDirectory(at: pkg.appendingPathComponent(sub), withIntermediateDirectories: true)
    }
    for (rel, data) in files {
        try Data(data).write(to: pkg.appendingPathComponent(rel))
    }
    return pkg
}

/// A document.json with the given page entries (JSON texts).
func documentJSON(pages: [String], format: Int = 1) -> String {
    """
    {"format":\(format),"id":"\(TestIDs.doc)","title":"T","createdAt":"2026-11-20T09:14:03.120Z",
     "modifiedAt":"2026-11-29T10:00:00Z","pages":[\(pages.joined(separator: ","))]}
    """
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
