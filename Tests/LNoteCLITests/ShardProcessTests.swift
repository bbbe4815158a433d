import Foundation
import LNoteFormat
import XCTest
import LNoteTestSupport

/// `thumbnails --shard`: N real processes at once on one library, each started as the files in
/// tools/engines/ start it, with the variables exactly as its job engine sets them.
final class ShardProcessTests: XCTestCase {
    var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory(name) }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: dir) }

    /// Starts `lnote-render` with exactly `environment` (nothing inherited: no stray engine
    /// variable of the machine running the tests), returning its output once it ends.
    func start(_ args: [String], environment: [String: String]) throws -> () -> (status: Int32, out: String) {
        try start(executable: try builtProduct("lnote-render"), args, environment: environment)
    }

    /// Starts `command` with exactly `environment` plus PATH, HOME and LNOTE_RENDER (the binary
    /// the engine scripts in tools/engines/ run).
    func start(command: [String], environment: [String: String]) throws -> () -> (status: Int32, out: String) {
        try start(executable: command[0], Array(command.dropFirst()),
                  environment: environment.merging(["LNOTE_RENDER": try builtProduct("lnote-render")]) { a, _ in a })
    }

    /// Starts `executable` with exactly `environment` plus PATH and HOME; the closure waits for
    /// it and returns its status and standard output.
    private func start(executable: String, _ args: [String], environment: [String: String]) throws
        -> () -> (status: Int32, out: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.environment = environment.merging(["PATH": "/usr/bin:/bin", "HOME": dir]) { a, _ in a }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            _ = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
    }

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func shardDocuments(_ result: [String: Any]) -> [String] {
        ((result["shard"] as? [String: Any])?["documents"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    }

    func generateLibrary(documents: Int) throws -> String {
        let library = dir + "/library"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-gen"))
        p.arguments = ["library", "--out", library, "--seed", "5", "--pages", String(documents)]
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        return library
    }

    /// The variables each engine sets in task `i` of an array of `n`.
    static let engines: [(name: String, environment: @Sendable (Int, Int) -> [String: String])] = [
        // sbatch --array=4-6: task ids 4, 5, 6 (Slurm sets these and more).
        ("slurm", { i, n in ["SLURM_JOB_ID": String(7000 + i), "SLURM_ARRAY_JOB_ID": "7000", "SLURM_ARRAY_TASK_ID": String(4 + i),
                             "SLURM_ARRAY_TASK_MIN": "4", "SLURM_ARRAY_TASK_MAX": String(4 + n - 1),
                             "SLURM_ARRAY_TASK_COUNT": String(n), "SLURM_ARRAY_TASK_STEP": "1", "SLURM_CPUS_PER_TASK": "1"] }),
        ("aws-batch", { i, n in ["AWS_BATCH_JOB_ID": "0a1b2c3d-4e5f:\(i)", "AWS_BATCH_JOB_ARRAY_INDEX": String(i),
                                 "AWS_BATCH_JOB_ARRAY_SIZE": String(n), "AWS_BATCH_JOB_ATTEMPT": "1",
                                 "AWS_BATCH_JQ_NAME": "lnote", "AWS_BATCH_CE_NAME": "lnote-ce"] }),
        // An Indexed Job sets JOB_COMPLETION_INDEX only; the manifest passes the count.
        ("kubernetes", { i, n in ["JOB_COMPLETION_INDEX": String(i), "HOSTNAME": "lnote-thumbnails-\(i)-x7k2p",
                                  "LNOTE_SHARD_COUNT": String(n)] }),
    ]

    /// The command each engine's file in tools/engines/ runs, for a library at `library`: the
    /// sbatch script itself; the container command of the AWS Batch job definition and of the
    /// Kubernetes manifest, with the volume's mount point replaced by `library`.
    func engineCommand(_ engine: String, library: String) throws -> [String] {
        let files = Repo.root + "/tools/engines/"
        let binary = try builtProduct("lnote-render")
        func container(_ command: [String]) -> [String] {
            command.map { $0 == "lnote-render" ? binary : $0 == "/library" ? library : $0 }
        }
        switch engine {
        case "slurm":
            return ["/bin/bash", files + "slurm-array.sbatch", library]
        case "aws-batch":
            let definition = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: files + "aws-batch-job-definition.json"))) as? [String: Any])
            let command = try XCTUnwrap((definition["containerProperties"] as? [String: Any])?["command"] as? [String])
            return container(command)
        default:
            let manifest = try String(contentsOfFile: files + "kubernetes-indexed-job.yaml", encoding: .utf8)
            func line(_ prefix: String) throws -> String {
                try XCTUnwrap(manifest.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix(prefix) },
                              "no \(prefix) in the manifest").dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            }
            // The count the pods are told is the Job's number of completions.
            let completions = try line("completions:")
            let lines = manifest.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let countLine = try XCTUnwrap(lines.firstIndex(of: "- name: LNOTE_SHARD_COUNT"))
            XCTAssertEqual(lines[countLine + 1], "value: \"\(completions)\"", "LNOTE_SHARD_COUNT must equal completions")
            let command = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try line("command:").utf8)) as? [String])
            return container(command)
        }
    }

    func testConcurrentShardsDoEveryDocumentOnceAsEachEngineNumbersThem() throws {
        let original = try generateLibrary(documents: 11)
        let all = try FileManager.default.contentsOfDirectory(atPath: original).filter { $0.hasSuffix(".lnote") }.sorted()
        let pagesOf = try Dictionary(uniqueKeysWithValues: all.map { name in
            (name, try LNotePackage.open(at: URL(fileURLWithPath: original + "/" + name)).document.pages.count)
        })
        let n = 3
        var explicitShares: [[String]] = []
        for (engine, environment) in Self.engines {
            let library = dir + "/" + engine
            try FileManager.default.copyItem(atPath: original, toPath: library)
            let command = try engineCommand(engine, library: library)
            let waits = try (0..<n).map { i in try start(command: command, environment: environment(i, n)) }
            let results = try waits.map { wait -> [String: Any] in
                let (status, out) = wait()
                XCTAssertEqual(status, 0, "\(engine): \(out)")
                return try json(out)
            }
            var done: [String] = []
            for (i, result) in results.enumerated() {
                let shard = try XCTUnwrap(result["shard"] as? [String: Any])
                XCTAssertEqual(shard["index"] as? Int, i + 1, engine)
                XCTAssertEqual(shard["count"] as? Int, n, engine)
                XCTAssertEqual(shard["source"] as? String, engine)
                let documents = shardDocuments(result).map { ($0 as NSString).lastPathComponent }
                done += documents
                // Each shard rendered every page of its own documents and nothing else.
                let total = try XCTUnwrap(result["total"] as? [String: Any])
                XCTAssertEqual(total["rendered"] as? Int, documents.reduce(0) { $0 + pagesOf[$1]! }, engine)
                XCTAssertEqual(total["failed"] as? Int, 0)
            }
            XCTAssertEqual(done.sorted(), all, "\(engine): every document exactly once")
            // An explicit I/N is the same share, on every engine and run.
            var shares: [[String]] = []
            for i in 0..<n {
                let (status, out) = try start(["thumbnails", library, "--shard", "\(i + 1)/\(n)", "--json"], environment: [:])()
                XCTAssertEqual(status, 0, out)
                let result = try json(out)
                XCTAssertEqual(shardDocuments(result), shardDocuments(results[i]), "\(engine): --shard \(i + 1)/\(n)")
                XCTAssertEqual((result["total"] as? [String: Any])?["rendered"] as? Int, 0)
                shares.append(shardDocuments(result).map { ($0 as NSString).lastPathComponent })
            }
            explicitShares.append(shares.flatMap { $0 + ["|"] })
            // A plain run afterwards has nothing to do.
            let (status, out) = try start(["thumbnails", library, "--json"], environment: [:])()
            XCTAssertEqual(status, 0, out)
            let total = try XCTUnwrap(try json(out)["total"] as? [String: Any])
            XCTAssertEqual(total["rendered"] as? Int, 0, engine)
            XCTAssertEqual(total["upToDate"] as? Int, pagesOf.values.reduce(0, +), engine)
        }
        XCTAssertEqual(Set(explicitShares.map { $0.joined(separator: " ") }).count, 1, "the same split whatever the library's path")
    }

    func testABadShardIsAUsageErrorNamingWhatIsWrong() throws {
        let library = try generateLibrary(documents: 2)
        for (args, environment, expected) in [
            (["--shard", "0/4"], [:], "must be 1 to 4"),
            (["--shard", "5/4"], [:], "must be 1 to 4"),
            (["--shard", "two"], [:], "expected I/N"),
            (["--shard", "auto"], [:], "JOB_COMPLETION_INDEX"),
            (["--shard", "auto"], ["JOB_COMPLETION_INDEX": "1"], "--shard-count"),
            (["--shard", "auto", "--shard-count", "2"], ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"],
             "the engine says 3 shards"),
            (["--shard", "2/4", "--shard-count", "4"], [:], "go with --shard auto"),
        ] as [([String], [String: String], String)] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: try builtProduct("lnote-render"))
            p.arguments = ["thumbnails", library] + args
            p.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 2, "\(args) \(environment): \(text)")
            XCTAssertTrue(text.contains(expected), "\(args) \(environment): \(text)")
        }
    }
}
