import XCTest
@testable import LNoteCLI

final class ArgumentParserTests: XCTestCase {
    static let output = Option<String?>.text("output", short: "o", "PATH", "Where to write", absent: "here")
    static let scale = Option<Double?>.number("scale", "S", "Scale", in: 0.01...100, absent: "1")
    static let quality = Option<Int>.int("quality", "Q", "JPEG quality", in: 1...100, default: 85)
    static let transparent = Flag("transparent", help: "No paper.")
    let spec = CommandSpec(
        name: "export", abstract: "Export pages.",
        positionals: [PositionalSpec("DOC", help: "The document.")],
        options: [output.spec, scale.spec, quality.spec, transparent.spec])
    typealias T = ArgumentParserTests

    func testLongShortAndEqualsForms() throws {
        let a = try ParsedArguments(["doc.lnote", "--scale", "2", "-o", "out.png", "--quality=90", "--transparent"], spec: spec)
        XCTAssertEqual(a.positionals, ["doc.lnote"])
        XCTAssertEqual(try a.value(T.output), "out.png")
        XCTAssertEqual(try a.value(T.scale), 2)
        XCTAssertEqual(try a.value(T.quality), 90)
        XCTAssertTrue(a.isSet(T.transparent))
        let b = try ParsedArguments(["-o=x.png", "doc"], spec: spec)
        XCTAssertEqual(try b.value(T.output), "x.png")
        XCTAssertFalse(b.isSet(T.transparent))
        // Absent: the default the declaration holds, also in the help it generates.
        XCTAssertEqual(try b.value(T.quality), 85)
        XCTAssertNil(try b.value(T.scale))
        XCTAssertEqual(T.quality.spec.help, "JPEG quality, 1-100 (default 85).")
    }

    func testDashIsAPositionalOrValueAndDoubleDashEndsOptions() throws {
        let a = try ParsedArguments(["doc", "-o", "-"], spec: spec)
        XCTAssertEqual(try a.value(T.output), "-")
        let b = try ParsedArguments(["--", "--weird-name.lnote"], spec: spec)
        XCTAssertEqual(b.positionals, ["--weird-name.lnote"])
    }

    func testUnknownOptionSuggestsTheClosest() {
        XCTAssertThrowsError(try ParsedArguments(["doc", "--scal", "2"], spec: spec)) { error in
            let message = (error as! UsageError).message
            XCTAssertTrue(message.contains("--scal"), message)
            XCTAssertTrue(message.contains("did you mean --scale"), message)
        }
    }

    func testMissingValueMissingArgumentExtraArgumentRepeatedOption() {
        XCTAssertThrowsError(try ParsedArguments(["doc", "--scale"], spec: spec)) {
            XCTAssertEqual(($0 as! UsageError).message, "--scale needs a value <S>")
        }
        XCTAssertThrowsError(try ParsedArguments([], spec: spec)) {
            XCTAssertEqual(($0 as! UsageError).message, "missing argument DOC")
        }
        XCTAssertThrowsError(try ParsedArguments(["a", "b"], spec: spec)) {
            XCTAssertEqual(($0 as! UsageError).message, "unexpected argument 'b'")
        }
        XCTAssertThrowsError(try ParsedArguments(["a", "--scale", "1", "--scale=2"], spec: spec)) {
            XCTAssertEqual(($0 as! UsageError).message, "--scale was given more than once")
        }
        XCTAssertThrowsError(try ParsedArguments(["a", "--transparent=yes"], spec: spec))
    }

    func testBadValuesNameTheOptionAndTheRange() throws {
        let a = try ParsedArguments(["doc", "--quality", "0", "--scale", "nan"], spec: spec)
        XCTAssertThrowsError(try a.value(T.quality)) {
            XCTAssertEqual(($0 as! UsageError).message, "--quality: '0' is not an integer from 1 to 100")
        }
        XCTAssertThrowsError(try a.value(T.scale)) {
            XCTAssertTrue(($0 as! UsageError).message.hasPrefix("--scale: 'nan' is not a number"))
        }
    }

    func testHelpNeedsNoOtherArgumentsAndListsEveryOption() throws {
        let a = try ParsedArguments(["--help"], spec: spec)
        XCTAssertTrue(a.wantsHelp)
        let text = spec.helpText(tool: "lnote-render")
        for needle in ["USAGE: lnote-render export DOC [options]", "-o, --output <PATH>", "--transparent", "-h, --help"] {
            XCTAssertTrue(text.contains(needle), "help lacks \(needle):\n\(text)")
        }
    }
}

final class PageSelectionTests: XCTestCase {
    func testRangesResolveInOrderOnce() throws {
        let s = try PageSelection(parsing: "1,3-5,7-")
        XCTAssertEqual(s.resolve(pageCount: 9).indices, [0, 2, 3, 4, 6, 7, 8])
        XCTAssertEqual(try PageSelection(parsing: "5,1,1-2").resolve(pageCount: 9).indices, [0, 1, 4])
        XCTAssertEqual(PageSelection.all.resolve(pageCount: 3).indices, [0, 1, 2])
    }

    func testPagesPastTheEndAreReported() throws {
        let r = try PageSelection(parsing: "2,4-6,9-").resolve(pageCount: 5)
        XCTAssertEqual(r.indices, [1, 3, 4])
        XCTAssertEqual(r.outOfRange, [6, 9])
    }

    func testBadSelectionsAreUsageErrors() {
        for bad in ["", "0", "a", "3-1", "1,,2", "-3", "1-2-3", "2.5"] {
            XCTAssertThrowsError(try PageSelection(parsing: bad), "accepted '\(bad)'")
        }
    }
}
