// Golden-image snapshot assertions for an app's own tests, in XCTest and in Swift Testing:
//
//     func testCover() throws {
//         let document = try LNoteDocument(path: fixture)
//         assertSnapshot(of: document, page: 1, width: 320)
//     }
//
// The golden of page 1 of `testCover` in `Tests/AppTests/CoverTests.swift` is
// `Tests/AppTests/__Snapshots__/CoverTests/testCover.1.png`. The pixels are compared exactly as
// `lnote-render snapshot` and `diff` compare them (ImageComparison), and goldens are the same PNGs
// (they carry the renderer version that made them).

import Foundation
import LNoteBitmap
import LNoteCodecs
import LNoteFormat
import LNoteRaster
import LNoteRender
import XCTest
#if canImport(Testing)
import Testing
#endif

/// Where the test is and what it may write.
public struct SnapshotLocation: Sendable {
    /// `#filePath` of the test.
    public var filePath: String
    /// `#function` of the test: `testCover()`, or a Swift Testing function's name.
    public var function: String
    public var line: Int
    public var column: Int

    public init(filePath: String, function: String, line: Int, column: Int) {
        self.filePath = filePath
        self.function = function
        self.line = line
        self.column = column
    }

    /// The test's name as a file name: `testCover()` → `testCover`.
    public var testName: String {
        var name = function
        if let paren = name.firstIndex(of: "(") { name = String(name[..<paren]) }
        let safe = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return safe.isEmpty ? "snapshot" : safe
    }

    /// `__Snapshots__/<TestFile>/` beside the test file.
    public var directory: String {
        let url = URL(fileURLWithPath: filePath)
        return url.deletingLastPathComponent().appendingPathComponent("__Snapshots__")
            .appendingPathComponent(url.deletingPathExtension().lastPathComponent).path
    }
}

/// The check behind `assertSnapshot`: renders, compares, records as asked, writes the failure
/// artifacts, and says what failed (nil: the page matches).
public enum SnapshotAssertion {
    /// `LNOTE_SNAPSHOT_RECORD=missing|all` (anything else, or unset: nil).
    public static func environmentRecording(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapshotRecording? {
        switch environment["LNOTE_SNAPSHOT_RECORD"]?.lowercased() {
        case "missing": return .missing
        case "all": return .all
        case "never", "none", "0": return .never
        default: return nil
        }
    }

    /// The recording of an assertion: its parameter, else the environment variable, else
    /// `missing` outside CI (the new golden is written and the test fails once, so it is looked
    /// at) and `never` under `CI=true`.
    public static func recording(_ parameter: SnapshotRecording?, environment: [String: String] = ProcessInfo.processInfo.environment) -> SnapshotRecording {
        if let parameter { return parameter }
        if let fromEnvironment = environmentRecording(environment) { return fromEnvironment }
        let ci = environment["CI"]?.lowercased()
        return ci == "true" || ci == "1" || ci == "yes" ? .never : .missing
    }

    /// Where the actual and diff images of failures go: `LNOTE_SNAPSHOT_ARTIFACTS`, else
    /// `<temporary directory>/lnote-snapshot-failures/<TestFile>/`.
    public static func artifactsDirectory(for location: SnapshotLocation, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let test = URL(fileURLWithPath: location.filePath).deletingPathExtension().lastPathComponent
        if let dir = environment["LNOTE_SNAPSHOT_ARTIFACTS"], !dir.isEmpty { return dir + "/" + test }
        return NSTemporaryDirectory() + "lnote-snapshot-failures/" + test
    }

    /// A failure: the message, and the images worth attaching (name, PNG bytes).
    public struct Failure: Sendable {
        public var message: String
        public var attachments: [(name: String, png: [UInt8])]
    }

    /// Checks page `number` of `document` against `<directory>/<test-name>.<number>.png`.
    public static func verify(_ document: LNoteDocument, page number: Int, size: OutputSize, tolerance: Int,
                              maxDiffering: PixelAllowance, recording: SnapshotRecording, location: SnapshotLocation,
                              artifacts: String) -> Failure? {
        let name = "\(location.testName).\(number)"
        let golden = location.directory + "/" + name + ".png"
        let rendered: RenderedPage
        do throws(LNoteError) {
            rendered = try document.render(page: number, size: size)
        } catch {
            return Failure(message: "page \(number) of \(document.package.path) cannot be rendered: \(error)", attachments: [])
        }
        let actual = rendered.bitmap.flattened(onto: .white)
        let pageID = document.package.pages[number - 1].entry?.id.canonical ?? ""
        let png: [UInt8]
        do throws(CodecError) {
            png = try SnapshotRunner.goldenPNG(actual, scale: rendered.scale, pageID: pageID, rendererVersion: LNoteRenderer.version)
        } catch {
            return Failure(message: "page \(number) cannot be encoded: \(error)", attachments: [])
        }
        func write(_ bytes: [UInt8], _ path: String) -> String? { GoldenFile.write(bytes, to: path) }
        guard FileManager.default.fileExists(atPath: golden) else {
            guard recording != .never else {
                let path = artifacts + "/" + name + ".actual.png"
                let saved = write(png, path) == nil ? "; the actual image is \(path)" : ""
                return Failure(message: "no golden \(golden) (recording is off: set LNOTE_SNAPSHOT_RECORD=missing or pass record: .missing)\(saved)",
                               attachments: [(name + ".actual.png", png)])
            }
            if let failure = write(png, golden) { return Failure(message: "cannot write the golden \(golden): \(failure)", attachments: []) }
            return Failure(message: "recorded a new golden \(golden): look at it, commit it, and run the test again", attachments: [(name + ".png", png)])
        }
        let checked: GoldenComparison
        do throws(GoldenFileError) {
            checked = try GoldenFile.compare(actual, withGoldenAt: golden) { pixels in
                ComparisonTolerance(channelTolerance: tolerance, maxDifferingPixels: maxDiffering.pixels(of: pixels))
            }
        } catch {
            return Failure(message: error.message, attachments: [])
        }
        let result = checked.result
        if result.passes { return nil }
        var attachments: [(String, [UInt8])] = [(name + ".actual.png", png)]
        var saved: [String] = []
        let actualPath = artifacts + "/" + name + ".actual.png"
        if write(png, actualPath) == nil { saved.append("actual \(actualPath)") }
        if let diffPNG = checked.diffPNG(actual: actual) {
            let diffPath = artifacts + "/" + name + ".diff.png"
            if write(diffPNG, diffPath) == nil { saved.append("diff \(diffPath)") }
            attachments.append((name + ".diff.png", diffPNG))
        }
        let version = checked.recordedByAnother(than: LNoteRenderer.version)
            ? " (the golden was recorded by renderer \(checked.rendererVersion!), this is \(LNoteRenderer.version))" : ""
        if recording == .all {
            if let failure = write(png, golden) { return Failure(message: "cannot rewrite the golden \(golden): \(failure)", attachments: []) }
            return Failure(message: "rewrote the golden \(golden), which differed\(version): \(result)", attachments: attachments)
        }
        return Failure(message: "page \(number) differs from \(golden)\(version): \(result); \(saved.joined(separator: ", "))"
                       + "; LNOTE_SNAPSHOT_RECORD=all records it", attachments: attachments)
    }

    /// Reports a failure to the running test: Swift Testing's issue (with attachments) inside a
    /// `@Test`, XCTFail otherwise. (XCTest on Linux has no XCTAttachment: the images are in the
    /// directory the message names.)
    static func report(_ failure: Failure, location: SnapshotLocation, file: StaticString, fileID: String) {
        #if canImport(Testing)
        if Test.current != nil {
            let source = SourceLocation(fileID: fileID, filePath: location.filePath, line: location.line, column: location.column)
            for (name, png) in failure.attachments { Attachment.record(png, named: name, sourceLocation: source) }
            Issue.record(Comment(rawValue: failure.message), sourceLocation: source)
            return
        }
        #endif
        #if canImport(Darwin)
        if !failure.attachments.isEmpty {
            XCTContext.runActivity(named: "snapshot") { activity in
                for (name, png) in failure.attachments {
                    let attachment = XCTAttachment(data: Data(png), uniformTypeIdentifier: "public.png")
                    attachment.name = name
                    activity.add(attachment)
                }
            }
        }
        #endif
        XCTFail(failure.message, file: file, line: UInt(location.line))
    }
}

/// Asserts that page `page` of `document`, rendered `width` pixels wide, matches its golden
/// `__Snapshots__/<TestFile>/<test-name>.<page>.png` beside the test file.
///
/// - Parameters:
///   - record: `.missing` writes a missing golden, `.all` also rewrites a differing one (either
///     way the test fails, saying what it wrote); nil: `LNOTE_SNAPSHOT_RECORD=missing|all`, else
///     missing goldens are recorded outside CI and fail under `CI=true`.
///   - tolerance: Per-channel tolerance (0…255); `maxDiffering`: pixels allowed over it.
public func assertSnapshot(of document: LNoteDocument, page: Int, width: Int = 320, tolerance: Int = 0,
                           maxDiffering: PixelAllowance = .pixels(0), record: SnapshotRecording? = nil,
                           filePath: StaticString = #filePath, fileID: String = #fileID, function: String = #function,
                           line: Int = #line, column: Int = #column) {
    let location = SnapshotLocation(filePath: "\(filePath)", function: function, line: line, column: column)
    let failure = SnapshotAssertion.verify(document, page: page, size: .width(width), tolerance: tolerance, maxDiffering: maxDiffering,
                                           recording: SnapshotAssertion.recording(record), location: location,
                                           artifacts: SnapshotAssertion.artifactsDirectory(for: location))
    if let failure { SnapshotAssertion.report(failure, location: location, file: filePath, fileID: fileID) }
}

/// Asserts every page of `document` (goldens `<test-name>.1.png`, `<test-name>.2.png`, …); one
/// failure per page that does not match.
public func assertSnapshot(of document: LNoteDocument, width: Int = 320, tolerance: Int = 0,
                           maxDiffering: PixelAllowance = .pixels(0), record: SnapshotRecording? = nil,
                           filePath: StaticString = #filePath, fileID: String = #fileID, function: String = #function,
                           line: Int = #line, column: Int = #column) {
    for page in 1...max(1, document.pageCount) {
        assertSnapshot(of: document, page: page, width: width, tolerance: tolerance, maxDiffering: maxDiffering, record: record,
                       filePath: filePath, fileID: fileID, function: function, line: line, column: column)
    }
}
