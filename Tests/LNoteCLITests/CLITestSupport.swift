import Foundation
import Glibc
import LNoteCLI
import LNoteFormat
import LNoteTestSupport
import XCTest

/// Runs `lnote-render` in-process and captures what it prints: the one in-process runner of the
/// CLI tests.
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

/// Collects output from any thread (the console's, a child's pipes); read under the same lock.
final class OutputBox: @unchecked Sendable {
    private var outText = "", errText = ""
    private let lock = NSLock()
    func append(out s: String) { lock.lock(); outText += s; lock.unlock() }
    func append(err s: String) { lock.lock(); errText += s; lock.unlock() }
    var out: String { lock.lock(); defer { lock.unlock() }; return outText }
    var err: String { lock.lock(); defer { lock.unlock() }; return errText }
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

/// Starts the built `lnote-render arguments` with its output discarded (a test that only
/// watches what it does to files, or interrupts it).
func startLNoteRender(_ arguments: [String]) throws -> Process {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-render"))
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    return p
}

/// Ctrl-C in the middle of a write: starts `lnote-render arguments`, waits until a temporary
/// file (or directory) shows in `directory`, lets it work a moment longer, sends SIGINT and waits
/// for the end. Returns the temporary names left in `directory` (an interrupted command must
/// leave none); skips when the command ended before it could be interrupted.
func interruptedWhileWriting(_ arguments: [String], temporariesIn directory: String,
                             file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
    let p = try startLNoteRender(arguments)
    defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    func temporaries() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(AtomicFile.isTemporaryFileName).sorted()
    }
    let deadline = Date().addingTimeInterval(60)
    while temporaries().isEmpty && p.isRunning && Date() < deadline { usleep(5_000) }
    guard p.isRunning, !temporaries().isEmpty else { throw XCTSkip("\(arguments[0]) ended before it could be interrupted") }
    usleep(50_000)
    kill(p.processIdentifier, SIGINT)
    p.waitUntilExit()
    XCTAssertEqual(p.terminationReason, .uncaughtSignal, "ended by the signal, as without the handler", file: file, line: line)
    XCTAssertEqual(p.terminationStatus, SIGINT, file: file, line: line)
    return temporaries()
}

// MARK: - The real executable, with an address-space limit

/// What a child process did: exit status (or 128 + signal), output, peak RSS, wall time.
struct ChildResult {
    var status: Int32
    var signaled: Bool
    var out: String
    var err: String
    var maxRSS: Int
    var seconds: Double
    var all: String { out + err }
}

/// The `lnote-render` executable built next to the test bundle, if there is one.
func toolExecutable() -> String? {
    let candidates = [CommandLine.arguments.first, Bundle.main.executablePath].compactMap { $0 }
    for c in candidates {
        var dir = URL(fileURLWithPath: c).deletingLastPathComponent()
        if dir.lastPathComponent == "MacOS" { dir = dir.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }
        let path = dir.appendingPathComponent("lnote-render").path
        if FileIO.kind(atPath: path) == .regular { return path }
    }
    return nil
}

/// Whether address-space limits can be used (sanitizer runtimes reserve terabytes of it).
var addressSpaceLimitsUsable: Bool { ProcessInfo.processInfo.environment["LNOTE_NO_ADDRESS_LIMIT"] == nil }

/// Runs `lnote-render` with `arguments` in a child whose address space is limited to
/// `addressSpaceMB` (so an allocation the limits should have prevented kills it), and reports
/// its own peak RSS. (Not wait4's ru_maxrss: posix_spawn's child shares this process's memory
/// until it execs, and Linux keeps that high-water mark across exec. /proc's VmHWM belongs to
/// the executable's own address space; it is polled until the child exits.)
func runTool(_ arguments: [String], addressSpaceMB: Int) throws -> ChildResult {
    guard let tool = toolExecutable() else { throw XCTSkip("the lnote-render executable is not built next to the tests") }
    let dir = try temporaryDirectory("child")
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let limit = addressSpaceLimitsUsable ? "ulimit -v \(addressSpaceMB * 1024); " : ""
    let argv = ["/bin/sh", "-c", limit + "exec \"$0\" \"$@\" >'\(dir)/out' 2>'\(dir)/err'", tool] + arguments
    var cArgs = argv.map { strdup($0) } + [nil]
    defer { for p in cArgs { free(p) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let rc = posix_spawn(&pid, "/bin/sh", nil, nil, &cArgs, environ)
    guard rc == 0 else { throw NSError(domain: "posix_spawn", code: Int(rc)) }
    var status: Int32 = 0
    var peak = 0
    while true {
        let r = waitpid(pid, &status, WNOHANG)
        if r == pid || (r < 0 && errno != EINTR) { break }
        // Only once the child is the tool: before its exec, a posix_spawn child shares this
        // process's memory, and its VmHWM is this (large) test process's.
        if let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8), comm.hasPrefix("lnote-render"),
           let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
           let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kb = Int(line.split(separator: " ").dropFirst().first ?? "") {
            peak = max(peak, kb * 1024)
        }
        usleep(10_000)
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let read = { (name: String) in (try? String(contentsOfFile: dir + "/" + name, encoding: .utf8)) ?? "" }
    let signaled = (status & 0x7F) != 0
    let code = signaled ? 128 + (status & 0x7F) : (status >> 8) & 0xFF
    return ChildResult(status: code, signaled: signaled, out: read("out"), err: read("err"), maxRSS: peak, seconds: seconds)
}
