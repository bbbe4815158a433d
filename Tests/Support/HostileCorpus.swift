import Foundation
import XCTest

/// The files of Tests/Hostile/ (small inputs that attack one parser each), by kind: `content`,
/// `document`, `journal`, `image`. Sorted by name; an empty kind fails the test.
public enum HostileCorpus {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Hostile")

    public static func files(_ kind: String, file: StaticString = #filePath, line: UInt = #line) throws -> [(String, [UInt8])] {
        let dir = root.appendingPathComponent(kind)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertFalse(names.isEmpty, "no inputs in \(dir.path)", file: file, line: line)
        return try names.map { ($0, Array(try Data(contentsOf: dir.appendingPathComponent($0)))) }
    }
}
