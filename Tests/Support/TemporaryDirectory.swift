import Foundation
import XCTest

/// A fresh, empty directory under the system's temporary directory, named after `name` (the
/// test's name by default) so a left-over one says which test made it. With `removedAfter`, it
/// is removed when that test ends. The one temporary-directory helper of every test target.
public func temporaryDirectory(_ name: String = #function, removedAfter test: XCTestCase? = nil) throws -> String {
    let path = NSTemporaryDirectory() + "lnote-test-\(getpid())-\(name.filter(\.isLetter).prefix(60))-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    if let test { test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) } }
    return path
}

/// `temporaryDirectory` as a file URL.
public func temporaryDirectoryURL(_ name: String = #function, removedAfter test: XCTestCase? = nil) throws -> URL {
    URL(fileURLWithPath: try temporaryDirectory(name, removedAfter: test), isDirectory: true)
}
