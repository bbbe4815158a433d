import Foundation
import LNoteFormat

/// One shard of a job split over several machines: `index` (0-based) of `count`. This project
/// does not schedule anything; the user's engine (Slurm, AWS Batch, Kubernetes) starts the
/// tasks, and each one takes exactly its own share of the documents (`ShardPartition`).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// 0-based.
    public var index: Int
    public var count: Int
    /// Where it came from: "explicit", "slurm", "aws-batch" or "kubernetes".
    public var source: String

    public init(index: Int, count: Int, source: String = "explicit") {
        self.index = index
        self.count = count
        self.source = source
    }

    /// `I/N`, 1-based as given on the command line (as in jest and playwright).
    public var description: String { "\(index + 1)/\(count)" }

    /// The most shards one job may have: far more than any engine runs as one array, few enough
    /// that a typo (`--shard 1/10000000000`) is refused, not obeyed.
    public static let maxCount = 100_000

    /// Parses `I/N` with 1 ≤ I ≤ N.
    public static func parse(_ text: String) throws(ShardError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else {
            throw ShardError("--shard \(text.debugDescription): expected I/N (such as 2/8) or auto")
        }
        guard n >= 1, n <= maxCount else { throw ShardError("--shard \(text): the shard count must be 1 to \(maxCount)") }
        guard i >= 1, i <= n else { throw ShardError("--shard \(text): the shard number must be 1 to \(n) (shards count from 1)") }
        return Shard(index: i - 1, count: n)
    }

    /// The shard an engine's array task is, from the variables the engine sets:
    /// - Slurm array tasks: `SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN` (divided by
    ///   `SLURM_ARRAY_TASK_STEP` when the range has a step), of `SLURM_ARRAY_TASK_COUNT`;
    /// - AWS Batch array jobs: `AWS_BATCH_JOB_ARRAY_INDEX` of `AWS_BATCH_JOB_ARRAY_SIZE`;
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX`, of `count` or the value of the variable
    ///   named `countVariable` (Kubernetes injects no count).
    /// Looked for in that order. A `count` given with Slurm or AWS Batch must agree with theirs.
    public static func fromEnvironment(_ env: [String: String], count: Int? = nil,
                                       countVariable: String? = nil) throws(ShardError) -> Shard {
        func number(_ name: String) throws(ShardError) -> Int? {
            guard let text = env[name] else { return nil }
            guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw ShardError("--shard auto: \(name)=\(text.debugDescription) is not a non-negative integer")
            }
            return n
        }
        func explicitCount() throws(ShardError) -> Int? {
            if let count { return count }
            guard let countVariable else { return nil }
            guard let n = try number(countVariable) else {
                throw ShardError("--shard auto: --shard-count-env \(countVariable), but \(countVariable) is not set")
            }
            return n
        }
        func make(_ index: Int, _ n: Int, _ source: String, _ from: String) throws(ShardError) -> Shard {
            guard n >= 1, n <= maxCount else { throw ShardError("--shard auto (\(source)): \(from) gives a shard count of \(n), not 1 to \(maxCount)") }
            guard index < n else { throw ShardError("--shard auto (\(source)): \(from) gives shard index \(index), not below the count \(n)") }
            if let wanted = try explicitCount(), wanted != n {
                throw ShardError("--shard auto (\(source)): the engine says \(n) shards (\(from)), but --shard-count/--shard-count-env says \(wanted)")
            }
            return Shard(index: index, count: n, source: source)
        }

        if let id = try number("SLURM_ARRAY_TASK_ID") {
            guard let min = try number("SLURM_ARRAY_TASK_MIN"), let n = try number("SLURM_ARRAY_TASK_COUNT") else {
                throw ShardError("--shard auto (slurm): SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_COUNT is not")
            }
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            let from = "SLURM_ARRAY_TASK_ID=\(id), SLURM_ARRAY_TASK_MIN=\(min), SLURM_ARRAY_TASK_COUNT=\(n)" + (step > 1 ? ", SLURM_ARRAY_TASK_STEP=\(step)" : "")
            guard id >= min, (id - min) % step == 0 else {
                throw ShardError("--shard auto (slurm): \(from) is not a task of one evenly spaced range; submit --array=0-\(n - 1)")
            }
            return try make((id - min) / step, n, "slurm", from)
        }
        if let index = try number("AWS_BATCH_JOB_ARRAY_INDEX") {
            var size = try number("AWS_BATCH_JOB_ARRAY_SIZE")
            if size == nil { size = try explicitCount() }
            guard let n = size else {
                throw ShardError("--shard auto (aws-batch): AWS_BATCH_JOB_ARRAY_INDEX is set but AWS_BATCH_JOB_ARRAY_SIZE is not; give --shard-count N")
            }
            return try make(index, n, "aws-batch", "AWS_BATCH_JOB_ARRAY_INDEX=\(index), array size \(n)")
        }
        if let index = try number("JOB_COMPLETION_INDEX") {
            guard let n = try explicitCount() else {
                throw ShardError("--shard auto (kubernetes): JOB_COMPLETION_INDEX=\(index), but Kubernetes sets no shard count; "
                                 + "give --shard-count N (the Job's completions) or --shard-count-env NAME")
            }
            return try make(index, n, "kubernetes", "JOB_COMPLETION_INDEX=\(index), count \(n)")
        }
        throw ShardError("--shard auto: none of SLURM_ARRAY_TASK_ID (Slurm), AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch) or "
                         + "JOB_COMPLETION_INDEX (Kubernetes Indexed Job) is set; give --shard I/N")
    }
}

/// A shard that cannot be made from the arguments or the environment.
public struct ShardError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Splits a library's documents into shards: whole documents (one is never split), the same
/// documents for the same shard count on every run and every machine, balanced by pages.
///
/// Documents are ordered by their key (the path below the library argument they were found
/// under, so the same library mounted elsewhere splits the same way) and cut into `count`
/// contiguous runs of about equal pages: a document goes to the shard in whose share its
/// middle page lies. So no shard holds more than an even share plus one document; within 2× of
/// an even share whenever no document is larger than an even share (one that is, is a shard's
/// worth by itself). Each shard computes the partition on its own, from the same listing, and
/// takes its part, so shards running at once never touch the same document, and a retried task
/// redoes exactly its own. A document added between runs lands in some shard's range and is
/// picked up by the next run.
public enum ShardPartition {
    public struct Document: Sendable, Equatable {
        public var path: String
        public var key: String
        /// Its weight: pages in document.json (at least 1, so that an empty or unreadable
        /// document still belongs to a shard, which reports it).
        public var pages: Int

        public init(path: String, key: String, pages: Int) {
            self.path = path
            self.key = key
            self.pages = max(1, pages)
        }
    }

    /// The documents of packages found by `LibraryScan.keyedPackages`, weighed by their pages.
    public static func documents(_ packages: [(path: String, key: String)]) -> [Document] {
        packages.map { package in
            let pages = (try? LNotePackage.open(at: URL(fileURLWithPath: package.path)))?.document.pages.count ?? 1
            return Document(path: package.path, key: package.key, pages: pages)
        }
    }

    /// Each document's shard (0-based), in the order given.
    public static func assign(_ documents: [Document], count: Int) -> [Int] {
        let n = max(1, count)
        // Byte order of the keys: the same on every machine and locale.
        let order = documents.indices.sorted { Array(documents[$0].key.utf8).lexicographicallyPrecedes(Array(documents[$1].key.utf8)) }
        let total = documents.reduce(0) { $0 + $1.pages }
        var shards = Array(repeating: 0, count: documents.count)
        var before = 0
        for i in order {
            let w = documents[i].pages
            // floor((before + w/2) · n / total), in integers.
            shards[i] = min(n - 1, (2 * before + w) * n / (2 * max(1, total)))
            before += w
        }
        return shards
    }

    /// The documents of shard `shard.index`, in key order.
    public static func documents(of shard: Shard, in documents: [Document]) -> [Document] {
        let shards = assign(documents, count: shard.count)
        return documents.indices.filter { shards[$0] == shard.index }.map { documents[$0] }
            .sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
    }
}

/// What one shard took on: its documents, and the library it took them from.
public struct ShardShare: Sendable {
    public var shard: Shard
    public var documents: [ShardPartition.Document]
    public var libraryDocuments: Int
    public var libraryPages: Int

    public var pages: Int { documents.reduce(0) { $0 + $1.pages } }
}

extension ThumbnailRegenerator {
    /// Regenerates one shard's documents of the packages found under `paths`. Every shard
    /// lists and weighs the whole library, then does its own documents only; errors about the
    /// paths themselves are reported by every shard.
    public func regenerate(paths: [String], shard: Shard) -> (reports: [DocumentRegeneration], share: ShardShare) {
        let found = LibraryScan.keyedPackages(in: paths)
        let share = Self.share(of: shard, in: found.packages)
        var reports = found.errors.map { DocumentRegeneration(path: $0.path, failures: [.init($0.error)]) }
        reports += regenerate(packages: share.documents.map(\.path))
        return (reports, share)
    }

    /// The documents of `shard` among the packages found under `paths` (errors about the paths
    /// are the caller's to report, as for a whole run).
    public static func share(of shard: Shard, under paths: [String]) -> ShardShare {
        share(of: shard, in: LibraryScan.keyedPackages(in: paths).packages)
    }

    static func share(of shard: Shard, in packages: [(path: String, key: String)]) -> ShardShare {
        let documents = ShardPartition.documents(packages)
        let mine = ShardPartition.documents(of: shard, in: documents)
        return ShardShare(shard: shard, documents: mine, libraryDocuments: documents.count,
                          libraryPages: documents.reduce(0) { $0 + $1.pages })
    }
}
