// The programs some tests hand their output to (xmllint, Chromium, poppler, MuPDF, …): finding
// one, and running it with a deadline that holds. tools/install-deps installs them all, so a
// missing one skips the test on a developer's machine and fails it under CI=true, where a skip
// would hide a check that never ran.

import Foundation
import XCTest

public enum ExternalTool {
    /// CI=true (or 1, yes): never skip what CI must run.
    public static var isCI: Bool {
        guard let v = ProcessInfo.processInfo.environment["CI"]?.lowercased() else { return false }
        return !(v.isEmpty || v == "0" || v == "false" || v == "no")
    }

    /// `name` on PATH; otherwise the test is skipped (failed under CI) with a message naming the
    /// Debian package that provides it.
    public static func require(_ name: String, package: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        try missing("\(name) is not installed (\(package): run tools/install-deps --test)")
    }

    /// Skips, or under CI fails, with `message`.
    public static func missing(_ message: String) throws -> Never {
        if isCI {
            XCTFail(message + "; CI=true requires it")
            throw ExternalProcess.Failure(message)
        }
        throw XCTSkip(message)
    }
}

public enum ExternalProcess {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    public struct Outcome: Sendable {
        public var status: Int32
        public var output: Data
        public var errors: Data
        /// The program outlived its deadline and was killed.
        public var timedOut: Bool

        /// Standard output, then standard error, as text.
        public var text: String { String(decoding: output, as: UTF8.self) + "\n" + String(decoding: errors, as: UTF8.self) }
    }

    /// Runs `executable` with standard input closed. Both pipes are drained on threads of their
    /// own, so neither can fill and block the program, and the deadline is kept even when the
    /// program never closes them: after `timeout` seconds it gets SIGTERM, two seconds later
    /// SIGKILL, and whatever it wrote by then is returned with `timedOut` set. (A program that
    /// leaves a child holding the pipes — Chromium does — cannot make the caller wait past that.)
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60,
                           environment: [String: String]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = Drain(out.fileHandleForReading), errors = Drain(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        var timedOut = false
        if process.isRunning {
            timedOut = true
            process.terminate()
            let grace = Date().addingTimeInterval(2)
            while process.isRunning && Date() < grace { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
        let settle: TimeInterval = timedOut ? 1 : 10
        return Outcome(status: process.terminationStatus, output: output.finish(within: settle),
                       errors: errors.finish(within: settle), timedOut: timedOut)
    }

    /// Runs `executable`; its standard output, or an error with its exit status and standard error.
    @discardableResult
    public static func output(_ executable: String, _ arguments: [String], timeout: TimeInterval = 300) throws -> Data {
        let outcome = try run(executable, arguments, timeout: timeout)
        if outcome.timedOut || outcome.status != 0 {
            let why = outcome.timedOut ? "was killed after \(Int(timeout)) s" : "exited \(outcome.status)"
            let message = String(decoding: outcome.errors.suffix(2000), as: UTF8.self)
            throw Failure("\(executable) \(arguments.joined(separator: " ")) \(why): \(message)")
        }
        return outcome.output
    }

    /// Reads a pipe to its end on a thread of its own.
    private final class Drain: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle) {
            Thread.detachNewThread { [self] in
                while true {
                    let chunk = handle.availableData  // empty at the end of the pipe
                    if chunk.isEmpty { break }
                    lock.lock(); data.append(chunk); lock.unlock()
                }
                done.signal()
            }
        }

        /// What was read, waiting at most `seconds` for the end of the pipe.
        func finish(within seconds: TimeInterval) -> Data {
            _ = done.wait(timeout: .now() + seconds)
            lock.lock(); defer { lock.unlock() }
            return data
        }
    }
}

/// Files of random bytes, one of each length, written into `dir` from `seed`: inputs for holding
/// a hash to a command-line tool (`xxhsum`, `sha256sum`) that reads them back.
public func randomFiles(lengths: [Int], in dir: String, seed: TestSeed) throws -> [(path: String, bytes: [UInt8])] {
    var rng = seed.generator
    return try lengths.enumerated().map { i, n in
        let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let path = dir + "/input-\(i)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }
}
