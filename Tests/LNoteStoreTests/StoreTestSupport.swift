import Foundation
import LNoteBitmap
import LNoteFormat
import LNoteRender
import LNoteStore
import LNoteTestSupport
import XCTest

// What only the store tests need (the shared helpers are LNoteTestSupport's): paths of the
// fixtures and samples, and element and content JSON as raw text, since these tests need members
// and keys that no writer of this project produces (the packages around that text come from
// LNoteTestSupport's `PackageBuilder.make(in:contents:)`).

enum StorePaths {
    /// The directory holding Package.swift, walking up from this source file.
    static let root: String = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir.path }
            dir.deleteLastPathComponent()
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    static var features: String { root + "/Tests/Fixtures/features" }
    /// The public sample documents: `../shared/samples`.
    static var samples: String { URL(fileURLWithPath: root + "/../shared/samples").standardizedFileURL.path }

    /// The package directories under `dir`, sorted.
    static func packages(in dir: String) -> [String] {
        LibraryScan.packages(in: [dir]).packages.sorted()
    }
}

/// A stroke element's JSON text with `n` samples.
func strokeJSON(id: String, n: Int = 20, x: Int = 500, extra: String = "", tool: String = #""pen""#) -> String {
    var points: [String] = []
    for s in 0..<n { points.append("\(x + s * 90),\(800 + (s % 7) * 40),\(20 + s % 9),\(300 + s * 10 % 700),\(s * 8)") }
    return ##"{"type":"stroke","id":"\##(id)","tool":\##(tool),"color":"#1A1A8A","points":[\##(points.joined(separator: ","))]\##(extra)}"##
}

func content(_ elements: [String], extra: String = "") -> String {
    #"{"format":1,"elements":[\#(elements.joined(separator: ",\n"))]\#(extra)}"#
}

/// Migrates, restores, and checks that every page of every package loads to the same elements
/// (same ids, same decoded strokes, images and unknown types, same members) and renders the
/// same pixels at `scale`.
func assertRoundTrip(_ packages: [String], in dir: String, scale: Double = 1, file: StaticString = #filePath, line: UInt = #line) throws {
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let db = dir + "/store.sqlite"
    let report = try Migration.migrate(packages, to: db)
    XCTAssertTrue(report.verified, "\(report.mismatches)", file: file, line: line)
    XCTAssertTrue(report.installed, file: file, line: line)
    let out = dir + "/restored"
    let restored = try Restore.restore(database: db, to: out)
    XCTAssertFalse(restored.hasErrors, "\(restored.problems)", file: file, line: line)
    XCTAssertEqual(restored.mismatches, [], file: file, line: line)
    XCTAssertEqual(restored.written.count, packages.count, file: file, line: line)
    let assets = AssetCache()
    for source in packages {
        let name = URL(fileURLWithPath: source).lastPathComponent
        let a = try LNotePackage.open(at: URL(fileURLWithPath: source))
        let b = try LNotePackage.open(at: URL(fileURLWithPath: out + "/" + name))
        XCTAssertEqual(a.document.title, b.document.title, file: file, line: line)
        XCTAssertEqual(a.document.id, b.document.id, file: file, line: line)
        XCTAssertEqual(a.pages.count, b.pages.count, name, file: file, line: line)
        XCTAssertEqual(try a.assetFiles().map(\.name), try b.assetFiles().map(\.name), file: file, line: line)
        for asset in try a.assetFiles() {
            XCTAssertEqual(try a.readAsset(asset.name), try b.readAsset(asset.name), asset.name, file: file, line: line)
        }
        for i in a.pages.indices {
            let pa = try a.loadPage(at: i), pb = try b.loadPage(at: i)
            var ea = pa.entry, eb = pb.entry
            ea.elementCount = nil; eb.elementCount = nil
            XCTAssertEqual(ea, eb, "\(name) page \(i + 1)", file: file, line: line)
            XCTAssertNil(pb.journalFile, "a restored page has no journal", file: file, line: line)
            XCTAssertEqual(pa.elements.count, pb.elements.count, "\(name) page \(i + 1)", file: file, line: line)
            for (x, y) in zip(pa.elements, pb.elements) {
                XCTAssertEqual(x.id, y.id, file: file, line: line)
                XCTAssertEqual(x.kind, y.kind, "\(name) page \(i + 1) element \(x.id ?? "-")", file: file, line: line)
                XCTAssertEqual(memberTexts(x), memberTexts(y), "\(name) page \(i + 1) element \(x.id ?? "-")", file: file, line: line)
            }
            let options = RenderOptions(size: .scale(scale))
            let ra = try PageRenderer.render(pa, of: a, options: options, assets: assets)
            let rb = try PageRenderer.render(pb, of: b, options: options, assets: AssetCache())
            XCTAssertEqual(ra.bitmap.width, rb.bitmap.width, file: file, line: line)
            XCTAssertEqual(ra.bitmap.height, rb.bitmap.height, file: file, line: line)
            XCTAssertTrue(ra.bitmap.pixels == rb.bitmap.pixels, "\(name) page \(i + 1): pixels differ after restore", file: file, line: line)
        }
    }
}

/// An element's members other than those that the store rewrites in a canonical form (points
/// and frame as plain integers, colour in upper case, rotation and opacity explicit), by key.
func memberTexts(_ e: Element) -> [String] {
    let rewritten: Set<String> = ["points", "frame", "color", "rotation", "opacity", "type", "id", "tool"]
    return e.members.filter { !rewritten.contains($0.key) }.map { String(decoding: $0.text, as: UTF8.self) }
}
