import Foundation
import LNoteCLI
import XCTest

/// Runs `lnote-render` in-process and captures what it prints.
struct CLIRun {
    var status: Int32
    var out: String
    var err: String
    var all: String { out + err }

    init(_ arguments: [String]) {
        let box = OutputBox()
        let console = Console(out: { box.append(out: $0) }, err: { box.append(err: $0) })
        status = LNoteTool.run(arguments, console: console)
        out = box.out
        err = box.err
    }
}

final class OutputBox: @unchecked Sendable {
    private(set) var out = ""
    private(set) var err = ""
    private let lock = NSLock()
    func append(out s: String) { lock.lock(); out += s; lock.unlock() }
    func append(err s: String) { lock.lock(); err += s; lock.unlock() }
}

enum Repo {
    /// The repository root (three levels above this file).
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static let sampleName = "5F5C08FF-9739-4483-B5A4-3351D704D540.lnote"
    static let sample = root + "/tools/sample/" + sampleName

    /// A writable copy of the shipped sample document in `dir`.
    static func copySample(to dir: String) throws -> String {
        let target = dir + "/" + sampleName
        try FileManager.default.copyItem(atPath: sample, toPath: target)
        return target
    }

    /// The directory of the built products (where `lnote-render` and `lnote-gen` are).
    static var productsDirectory: String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [here, here.deletingLastPathComponent(), here.deletingLastPathComponent().deletingLastPathComponent()] {
            if FileManager.default.isExecutableFile(atPath: candidate.path + "/lnote-render") { return candidate.path }
        }
        return root + "/.build/debug"
    }
}

/// The path of the built product `name` (`lnote-render`, `lnote-gen`), for tests that run it as
/// a child process. `swift test` builds every product, so under CI a missing binary is a
/// failure, not a skip.
func builtProduct(_ name: String) throws -> String {
    let path = Repo.productsDirectory + "/" + name
    guard FileManager.default.isExecutableFile(atPath: path) else {
        if ProcessInfo.processInfo.environment["CI"] == "true" { XCTFail("\(name) is not built at \(path)") }
        throw XCTSkip("\(name) is not built at \(path)")
    }
    return path
}

func temporaryDirectory(_ name: String) throws -> String {
    let path = NSTemporaryDirectory() + "lnote-cli-\(getpid())-\(name.filter(\.isLetter))-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
