import Foundation
import XCTest

/// A real Slurm array job: a single-node cluster (munged, slurmctld, slurmd from Debian's
/// `slurm-wlm`, which tools/install-deps installs) started for the test, running
/// tools/engines/slurm-array.sbatch as `sbatch --array=1-3 --wait`. It starts in about a second;
/// the job takes about ten. Skipped where Slurm is not installed or the test is not root (the
/// daemons need it).
final class SlurmArrayJobTests: XCTestCase {
    var dir = ""
    var daemons: [String] = []  // pid files of what this test started

    override func setUpWithError() throws {
        // Short: slurmd makes Unix sockets in its spool directory, whose paths may not pass 108 bytes.
        dir = "/tmp/lnote-slurm-\(getpid())"
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        for pidFile in daemons {
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGTERM)
            }
        }
        try? FileManager.default.removeItem(atPath: dir)
    }

    /// Runs `command` (through /usr/bin/env) with its output in a file, waiting for it alone.
    /// Not Foundation's Process: a daemon the command starts (munged, slurmctld) inherits what
    /// Process uses to watch its child, and `waitUntilExit` then waited for the daemon forever;
    /// `waitpid` on the direct child returns when it exits. Killed after `timeout` seconds.
    @discardableResult
    func run(_ command: [String], environment: [String: String] = [:], timeout: Double = 60) throws -> (Int32, String) {
        let log = dir + "/run-\(UUID().uuidString).log"
        var env = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }.map { "\($0.key)=\($0.value)" }
        let argv = ["/usr/bin/env"] + command
        var cArgs = argv.map { strdup($0) } + [nil]
        var cEnv = env.map { strdup($0) } + [nil]
        defer { for p in cArgs { free(p) }; for p in cEnv { free(p) }; env.removeAll() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/usr/bin/env", &actions, nil, &cArgs, &cEnv)
        guard rc == 0 else { throw NSError(domain: "posix_spawn", code: Int(rc)) }
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        while true {
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid || (r < 0 && errno != EINTR) { break }
            if Date() > deadline { kill(pid, SIGKILL) }
            usleep(20_000)
        }
        let data = FileManager.default.contents(atPath: log) ?? Data()
        let code = (status & 0x7F) != 0 ? 128 + (status & 0x7F) : (status >> 8) & 0xFF
        return (code, String(decoding: data, as: UTF8.self))
    }

    func testARealArrayJobDoesEveryDocumentOnce() throws {
        for tool in ["/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/bin/sinfo"] {
            guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("\(tool) is not installed (Debian slurm-wlm, munge)") }
        }
        guard getuid() == 0 else { throw XCTSkip("the Slurm daemons need root") }
        let render = Repo.productsDirectory + "/lnote-render", gen = Repo.productsDirectory + "/lnote-gen"
        guard FileManager.default.isExecutableFile(atPath: render), FileManager.default.isExecutableFile(atPath: gen) else {
            throw XCTSkip("lnote-render and lnote-gen are not built")
        }
        let library = dir + "/library"
        XCTAssertEqual(try run([gen, "library", "--out", library, "--seed", "9", "--pages", "7"]).0, 0)

        // munged: started only if none is running (it is shared by everything on the machine).
        if !FileManager.default.fileExists(atPath: "/run/munge/munge.socket.2") {
            try FileManager.default.createDirectory(atPath: "/run/munge", withIntermediateDirectories: true)
            try run(["chown", "-R", "munge:munge", "/run/munge", "/var/log/munge", "/var/lib/munge"])
            let (status, out) = try run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"])
            XCTAssertEqual(status, 0, out)
            daemons.append("/run/munge/munged.pid")
        }
        // A cluster of this one machine, on ports of its own, all state under `dir`.
        var host = [CChar](repeating: 0, count: 256)
        gethostname(&host, host.count)
        let name = String(decoding: host.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let node = name.split(separator: ".").first.map(String.init) ?? "localhost"
        let port = 20_000 + Int(getpid() % 20_000)
        for sub in ["state", "spool", "log"] { try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true) }
        let conf = dir + "/slurm.conf"
        try """
            ClusterName=lnotetest
            SlurmctldHost=\(node)
            SlurmctldPort=\(port)
            SlurmdPort=\(port + 1)
            SlurmUser=root
            SlurmdUser=root
            AuthType=auth/munge
            CredType=cred/munge
            MpiDefault=none
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            SelectType=select/cons_tres
            SelectTypeParameters=CR_Core
            SchedulerType=sched/builtin
            ReturnToService=2
            StateSaveLocation=\(dir)/state
            SlurmdSpoolDir=\(dir)/spool
            SlurmctldPidFile=\(dir)/slurmctld.pid
            SlurmdPidFile=\(dir)/slurmd.pid
            SlurmctldLogFile=\(dir)/log/slurmctld.log
            SlurmdLogFile=\(dir)/log/slurmd.log
            JobAcctGatherType=jobacct_gather/none
            AccountingStorageType=accounting_storage/none
            NodeName=\(node) CPUs=\(ProcessInfo.processInfo.activeProcessorCount) State=UNKNOWN
            PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP

            """.write(toFile: conf, atomically: true, encoding: .utf8)
        let slurm = ["SLURM_CONF": conf]
        let started = Date()
        daemons += [dir + "/slurmctld.pid", dir + "/slurmd.pid"]
        XCTAssertEqual(try run(["/usr/sbin/slurmctld", "-i"], environment: slurm).0, 0)
        XCTAssertEqual(try run(["/usr/sbin/slurmd", "-N", node], environment: slurm).0, 0)
        var idle = false
        while !idle && Date().timeIntervalSince(started) < 60 {
            idle = try run(["/usr/bin/sinfo", "-h", "-o", "%t"], environment: slurm, timeout: 5).1.contains("idle")
            if !idle { usleep(200_000) }
        }
        XCTAssertTrue(idle, "Slurm was not up within a minute: \(((try? String(contentsOfFile: dir + "/log/slurmctld.log", encoding: .utf8)) ?? "").suffix(2000))")
        guard idle else { return }

        // The script as a user submits it; its #SBATCH resources are lowered to fit this node.
        let (status, out) = try run(["/usr/bin/sbatch", "--wait", "--array=1-3", "--cpus-per-task=1", "--mem=1M",
                                     "--output=\(dir)/log/task-%a.out", "--export=ALL",
                                     Repo.root + "/tools/engines/slurm-array.sbatch", library],
                                    environment: slurm.merging(["LNOTE_RENDER": render]) { a, _ in a }, timeout: 120)
        XCTAssertEqual(status, 0, out)
        var done: [String] = []
        for task in 1...3 {
            let text = try String(contentsOfFile: "\(dir)/log/task-\(task).out", encoding: .utf8)
            let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
            let shard = try XCTUnwrap(result["shard"] as? [String: Any])
            XCTAssertEqual(shard["index"] as? Int, task)
            XCTAssertEqual(shard["source"] as? String, "slurm")
            done += (shard["documents"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            XCTAssertEqual((result["total"] as? [String: Any])?["failed"] as? Int, 0)
        }
        let all = try FileManager.default.contentsOfDirectory(atPath: library).filter { $0.hasSuffix(".lnote") }.sorted()
        XCTAssertEqual(done.map { ($0 as NSString).lastPathComponent }.sorted(), all)
        let (again, summary) = try run([render, "thumbnails", library])
        XCTAssertEqual(again, 0)
        XCTAssertTrue(summary.contains(" 0 rendered,"), summary)
    }
}
