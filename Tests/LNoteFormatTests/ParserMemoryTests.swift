// Hostile JSON that used to be built into a general value tree (about 36 bytes of memory per
// input byte): a 1 GiB content file whose `format` is one huge array, or a 256 MiB
// document.json of `0,` entries, needed tens of GB. Each case here is 8 MB; built as a tree it
// would raise the peak RSS by about 290 MB.

import Foundation
import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class ParserMemoryTests: XCTestCase {
    /// `[0,0,…]` of about `megabytes` MB.
    func zeros(_ megabytes: Int) -> String {
        "[" + String(repeating: "0,", count: megabytes << 19) + "0]"
    }

    func assertSmall<T>(_ what: String, _ body: () throws -> T, file f: StaticString = #filePath, line: UInt = #line) rethrows -> T {
        let m = try measured(body)
        XCTAssertLessThan(m.peakGrowth, 64 << 20, "\(what): the value was built", file: f, line: line)
        return m.value
    }

    /// The measure itself: an allocation must show even after a larger one earlier in the process
    /// (the tests run in one process, and some render large pages first).
    func testPeakGrowthSeesAnAllocationAfterALargerOne() throws {
        guard resetPeakRSS() else { throw XCTSkip("this kernel does not let a process reset its peak RSS") }
        func touch(_ megabytes: Int) -> Int {
            let bytes = UnsafeMutableRawPointer.allocate(byteCount: megabytes << 20, alignment: 64)
            defer { bytes.deallocate() }
            for page in stride(from: 0, to: megabytes << 20, by: 4096) { bytes.storeBytes(of: 1, toByteOffset: page, as: UInt8.self) }
            return Int(bytes.load(fromByteOffset: 4096, as: UInt8.self))
        }
        _ = touch(384)
        // Half of it is enough: memory an earlier test frees while this runs lowers the RSS the
        // growth is counted from.
        let m = measured { touch(192) }
        print("peak growth for 192 MB touched after 384 MB: \(m.peakGrowth >> 20) MB")
        XCTAssertGreaterThan(m.peakGrowth, 96 << 20)
    }

    func testContentValuesOnlyCheckedForTheirTypeAreNotBuilt() throws {
        let huge = zeros(8)
        let image = #"{"type":"image","id":"I","asset":"\#(IDs.p1).jpg","frame":"#
        let cases: [(String, String)] = [
            ("format", #"{"format":\#(huge),"elements":[]}"#),
            ("elements", #"{"elements":{"a":\#(huge)}}"#),
            ("content-object", huge),
            ("frame", #"{"elements":[\#(image)\#(huge)}]}"#),
            ("type", #"{"elements":[{"type":\#(huge)}]}"#),
            ("element-object", #"{"elements":[\#(huge)]}"#),
            ("points-integer", ##"{"elements":[{"type":"stroke","color":"#000000","points":[\##(huge)]}]}"##),
        ]
        for (rule, text) in cases {
            let data = Array(text.utf8)
            let outcome = assertSmall(rule) { () -> String in
                do {
                    let c = try ContentParser.parse(data, file: "p")
                    return c.diagnostics.first?.code.rawValue ?? "none"
                } catch { return (error as? LNoteError)?.code.rawValue ?? "?" }
            }
            XCTAssertEqual(outcome, rule)
        }
    }

    func testDocumentAndManifestBuildOnlyWhatTheyRead() throws {
        let huge = zeros(8)
        let doc = Array(#"{"x":\#(huge),"id":"\#(IDs.doc)","pages":[{"id":"\#(IDs.p1)","width":1,"height":1,"y":\#(huge)}]}"#.utf8)
        let d = try assertSmall("document.json") { try DocumentParser.parse(doc) }
        XCTAssertEqual(d.validPages.count, 1)
        // 4 million `0` page entries: refused at the page limit, each entry past it only validated.
        let zeroPages = Array(#"{"pages":\#(huge)}"#.utf8)
        let error = assertSmall("pages") { () -> LNoteError? in
            do { _ = try DocumentParser.parse(zeroPages, pageLimit: 1000); return nil } catch { return error as? LNoteError }
        }
        XCTAssertEqual(error?.code.rawValue, "page-limit")
        let manifest = Array(#"{"x":\#(huge),"id":"a","title":"t","pageCount":0}"#.utf8)
        XCTAssertEqual(try assertSmall("manifest.json") { try Manifest.parse(manifest) }.pageCount, 0)
    }
}
