// Golden-image support for the LNoteRender tests: where things are, how a render is compared
// with its golden PNG, and what is written when it does not match.
//
// Environment:
//   LNOTE_RECORD_GOLDENS=1      record mode: every golden is (re)written from the current render and
//                               the test FAILS saying so, so a recording run is never mistaken for a
//                               pass (tools/record-goldens records, then re-runs to verify).
//   CI=true                     a missing golden fails (CI never passes by recording); without CI a
//                               missing golden is recorded and the test fails once, asking for review.
//   LNOTE_GOLDEN_ARTIFACTS=DIR  where failure artifacts go (default: <repo>/.build/golden-artifacts);
//                               each failing comparison gets DIR/<golden-name>/{expected,actual,diff}.png.

import Foundation
import XCTest
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRender

#if canImport(Glibc)
import Glibc
#endif

/// Paths of the repository, found from this file's location (no working-directory assumptions).
enum RepoPaths {
    /// The directory holding Package.swift, walking up from this source file.
    static let root: URL = {
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir }
            dir.deleteLastPathComponent()
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    static var goldenImages: URL { root.appendingPathComponent("GoldenImages") }
    static var fixtures: URL { root.appendingPathComponent("Tests/Fixtures") }
    /// The public sample documents with independent reference renders: `../shared/samples`.
    static var samples: URL { root.appendingPathComponent("../shared/samples").standardizedFileURL }

    /// The one `*.lnote` package inside `directory`.
    static func package(in directory: URL) throws -> URL {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let packages = names.filter { $0.hasSuffix(".lnote") }.sorted()
        guard packages.count == 1 else {
            throw GoldenError("expected exactly one .lnote package in \(directory.path), found \(packages)")
        }
        return directory.appendingPathComponent(packages[0])
    }
}

struct GoldenError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

enum GoldenEnvironment {
    static var environment: [String: String] { ProcessInfo.processInfo.environment }

    static func flag(_ name: String) -> Bool {
        guard let v = environment[name]?.lowercased() else { return false }
        return !(v.isEmpty || v == "0" || v == "false" || v == "no")
    }

    /// LNOTE_RECORD_GOLDENS set (to anything but empty, 0, false, no).
    static var isRecording: Bool { flag("LNOTE_RECORD_GOLDENS") }
    /// CI=true (or 1, yes): never record, never skip what CI must run.
    static var isCI: Bool { flag("CI") }

    static var artifactsRoot: URL {
        if let dir = environment["LNOTE_GOLDEN_ARTIFACTS"], !dir.isEmpty {
            return URL(fileURLWithPath: dir, relativeTo: RepoPaths.root).standardizedFileURL
        }
        return RepoPaths.root.appendingPathComponent(".build/golden-artifacts")
    }
}

/// Rendering helpers shared by the golden tests.
enum GoldenRender {
    static func open(_ packageURL: URL) throws -> LNotePackage {
        try LNotePackage.open(at: packageURL)
    }

    /// Renders page `index` (0-based) of `package`.
    static func render(_ package: LNotePackage, page index: Int, size: OutputSize,
                       background: BackgroundMode = .full, assets: AssetCache = AssetCache()) throws -> RenderedPage {
        let page = try package.loadPage(at: index)
        return try PageRenderer.render(page, of: package, options: RenderOptions(size: size, background: background),
                                       assets: assets)
    }
}

/// The straight-alpha pixels of `bitmap` (an opaque premultiplied bitmap already is straight).
func straightAlpha(_ bitmap: Bitmap) -> Bitmap {
    if !bitmap.isPremultiplied { return bitmap }
    if bitmap.isOpaque {
        var b = bitmap
        b.isPremultiplied = false
        return b
    }
    return bitmap.unpremultiplied()
}

/// Byte equality without a per-element generic loop (the test build is unoptimized).
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { pa in b.withUnsafeBytes { pb in memcmp(pa.baseAddress!, pb.baseAddress!, a.count) == 0 } }
}

/// Writes `bitmap` as a PNG: RGB when opaque, RGBA (straight) otherwise; maximum zlib
/// compression, since goldens are committed.
func writePNG(_ bitmap: Bitmap, to url: URL) throws {
    let options = PNGEncodeOptions(includeAlpha: !bitmap.isOpaque, compression: .zlibDefault(level: 9))
    let bytes = try PNGEncoder.encode(bitmap, options: options)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url, options: .atomic)
}

func readImage(_ url: URL) throws -> Bitmap {
    guard let data = FileManager.default.contents(atPath: url.path) else {
        throw GoldenError("cannot read \(url.path)")
    }
    return try ImageDecoder.decode([UInt8](data))
}

/// Writes expected/actual/diff PNGs for a failed comparison into `<artifacts>/<name>/`;
/// returns a message listing them.
func writeFailureArtifacts(name: String, expectedFile: URL?, expected: Bitmap?, actual: Bitmap,
                           channelTolerance: Int) -> String {
    let dir = GoldenEnvironment.artifactsRoot.appendingPathComponent(name)
    try? FileManager.default.removeItem(at: dir)
    var lines: [String] = []
    do {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        if let expectedFile, FileManager.default.fileExists(atPath: expectedFile.path) {
            let target = dir.appendingPathComponent("expected.png")
            try FileManager.default.copyItem(at: expectedFile, to: target)
            lines.append("  expected: \(target.path)")
        } else if let expected {
            let target = dir.appendingPathComponent("expected.png")
            try writePNG(expected, to: target)
            lines.append("  expected: \(target.path)")
        }
        let actualURL = dir.appendingPathComponent("actual.png")
        try writePNG(actual, to: actualURL)
        lines.append("  actual:   \(actualURL.path)")
        if let expected {
            let diffURL = dir.appendingPathComponent("diff.png")
            if let diff = ImageComparison.diffImage(expected: expected, actual: actual, channelTolerance: channelTolerance) {
                try writePNG(diff, to: diffURL)
                lines.append("  diff:     \(diffURL.path)  (red: over the tolerance, yellow: within it, magenta: size mismatch)")
            }
        }
    } catch {
        lines.append("  (could not write the artifacts into \(dir.path): \(error))")
    }
    return lines.joined(separator: "\n")
}

private func removeStaleArtifacts(_ name: String) {
    try? FileManager.default.removeItem(at: GoldenEnvironment.artifactsRoot.appendingPathComponent(name))
}

/// Compares `bitmap` with `GoldenImages/<name>.png`.
///
/// - Identical decoded pixels pass at once.
/// - Otherwise the images must have the same size and at most `tolerance.maxDifferingPixels`
///   pixels may have a channel differing by more than `tolerance.channelTolerance`.
/// - On failure, expected.png, actual.png and diff.png are written under the artifacts
///   folder and the failure message gives their paths and the statistics.
/// - Record mode (LNOTE_RECORD_GOLDENS=1) rewrites the golden and fails; a missing golden is
///   recorded (and fails) outside CI and fails under CI=true.
func assertMatchesGolden(_ bitmap: Bitmap, named name: String, tolerance: ComparisonTolerance = .exact,
                         file: StaticString = #filePath, line: UInt = #line) {
    let goldenURL = RepoPaths.goldenImages.appendingPathComponent(name + ".png")
    let actual = straightAlpha(bitmap)
    let exists = FileManager.default.fileExists(atPath: goldenURL.path)
    let reRecord = "LNOTE_RECORD_GOLDENS=1 swift test --filter LNoteRenderTests (or tools/record-goldens)"

    if !exists && GoldenEnvironment.isCI && !GoldenEnvironment.isRecording {
        let artifacts = writeFailureArtifacts(name: name, expectedFile: nil, expected: nil, actual: actual, channelTolerance: 0)
        XCTFail("golden \(goldenURL.path) is MISSING; CI=true never records goldens. Record it locally with \(reRecord), "
                + "review it and commit it.\n\(artifacts)", file: file, line: line)
        return
    }
    if GoldenEnvironment.isRecording || !exists {
        // Leave an existing golden untouched when its pixels are already right (no churn from
        // a different zlib producing different bytes for the same picture).
        if exists, let old = try? readImage(goldenURL), old.width == actual.width, old.height == actual.height,
           sameBytes(old.pixels, actual.pixels) {
            XCTFail("RECORD MODE: golden \(name).png unchanged (pixels identical). A recording run never passes; "
                    + "run the tests again without LNOTE_RECORD_GOLDENS.", file: file, line: line)
            return
        }
        do {
            try writePNG(actual, to: goldenURL)
        } catch {
            XCTFail("could not record golden \(goldenURL.path): \(error)", file: file, line: line)
            return
        }
        let why = exists ? "RECORD MODE: golden REWRITTEN" : "golden was MISSING and has been RECORDED (not under CI)"
        XCTFail("\(why): \(goldenURL.path) (\(actual.width)×\(actual.height)). Look at it before committing, then run "
                + "the tests again without LNOTE_RECORD_GOLDENS; a recording run never passes.", file: file, line: line)
        return
    }

    let expected: Bitmap
    do {
        expected = try readImage(goldenURL)
    } catch {
        let artifacts = writeFailureArtifacts(name: name, expectedFile: goldenURL, expected: nil, actual: actual, channelTolerance: 0)
        XCTFail("golden \(goldenURL.path) cannot be decoded: \(error)\n\(artifacts)", file: file, line: line)
        return
    }
    if expected.width == actual.width && expected.height == actual.height && sameBytes(expected.pixels, actual.pixels) {
        removeStaleArtifacts(name)
        return
    }
    let result = ImageComparison.compare(expected: expected, actual: actual, tolerance: tolerance)
    if result.passes {
        removeStaleArtifacts(name)
        print("note: \(name) matches its golden within the tolerance: \(result)")
        return
    }
    let artifacts = writeFailureArtifacts(name: name, expectedFile: goldenURL, expected: expected, actual: actual,
                                          channelTolerance: tolerance.channelTolerance)
    XCTFail("""
        render does not match golden \(name).png: \(result)
        \(artifacts)
        If the change is intended, look at diff.png and actual.png, then re-record: \(reRecord)
        """, file: file, line: line)
}
