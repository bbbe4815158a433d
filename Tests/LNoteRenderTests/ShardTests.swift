import Foundation
@testable import LNoteRender
import XCTest
import LNoteTestSupport

final class ShardTests: XCTestCase {
    func testParseIsOneBased() throws {
        XCTAssertEqual(try Shard.parse("1/4"), Shard(index: 0, count: 4))
        XCTAssertEqual(try Shard.parse("4/4"), Shard(index: 3, count: 4))
        XCTAssertEqual(try Shard.parse("4/4").description, "4/4")
        for bad in ["0/4", "5/4", "1/0", "-1/3", "1/", "/3", "a/b", "1/2/3", "1/1000001"] {
            XCTAssertThrowsError(try Shard.parse(bad), bad)
        }
    }

    func testEachEngineNumbersItsTasks() throws {
        // sbatch --array=10-40:10 gives ids 10, 20, 30, 40.
        let slurm = try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "30", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "40",
                                               "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "10"])
        XCTAssertEqual(slurm, Shard(index: 2, count: 4, source: "slurm"))
        XCTAssertEqual(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "8"]),
                       Shard(index: 0, count: 8, source: "slurm"))
        XCTAssertEqual(try Shard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "2"]),
                       Shard(index: 0, count: 2, source: "aws-batch"))
        XCTAssertEqual(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "5"], count: 6), Shard(index: 5, count: 6, source: "kubernetes"))
        XCTAssertEqual(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "5", "N": "7"], countVariable: "N"),
                       Shard(index: 5, count: 7, source: "kubernetes"))
        // What cannot be a shard is refused with the variables named.
        let refused: [([String: String], Int?, String)] = [
            (["JOB_COMPLETION_INDEX": "5"], nil, "--shard-count"),
            (["JOB_COMPLETION_INDEX": "6"], 6, "not below the count 6"),
            (["JOB_COMPLETION_INDEX": "x"], 6, "JOB_COMPLETION_INDEX=\"x\""),
            (["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"], nil, "not below the count 3"),  // --array=1,3,5
            (["SLURM_ARRAY_TASK_ID": "5"], nil, "SLURM_ARRAY_TASK_MIN"),
            (["AWS_BATCH_JOB_ARRAY_INDEX": "1"], nil, "AWS_BATCH_JOB_ARRAY_SIZE"),
            (["AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "4"], 3, "the engine says 4"),
            ([:], nil, "none of SLURM_ARRAY_TASK_ID"),
        ]
        for (env, count, expected) in refused {
            XCTAssertThrowsError(try Shard.fromEnvironment(env, count: count), "\(env)") { error in
                XCTAssertTrue("\(error)".contains(expected), "\(env): \(error)")
            }
        }
    }

    func documents(_ pages: [Int]) -> [ShardPartition.Document] {
        pages.enumerated().map { i, p in ShardPartition.Document(path: "/lib/\(i).lnote", key: String(format: "%05d.lnote", i), pages: p) }
    }

    func testThePartitionIsExactDeterministicAndBalancedByPages() {
        let seed = TestSeed()
        var rng = seed.generator
        for trial in 0..<200 {
            let count = Int.random(in: 1...40, using: &rng)
            let docs = documents((0..<Int.random(in: 0...400, using: &rng)).map { _ in Int.random(in: 0...30, using: &rng) })
            let shards = ShardPartition.assign(docs, count: count)
            XCTAssertTrue(shards.allSatisfy { (0..<count).contains($0) }, "\(seed), trial \(trial)")
            // The same whatever order the documents are listed in.
            let shuffled = Array(zip(docs, shards)).shuffled(using: &rng)
            let again = ShardPartition.assign(shuffled.map(\.0), count: count)
            if again != shuffled.map(\.1) { XCTFail("\(seed), trial \(trial): another order gave another partition") }
            // Within 2× of an even share, since no document here is larger than one.
            let total = docs.reduce(0) { $0 + $1.pages }
            let even = Double(total) / Double(count)
            guard docs.allSatisfy({ Double($0.pages) <= even }) else { continue }
            var loads = Array(repeating: 0, count: count)
            for (doc, s) in zip(docs, shards) { loads[s] += doc.pages }
            for (s, load) in loads.enumerated() {
                XCTAssertLessThanOrEqual(Double(load), 2 * even, "\(seed), trial \(trial): shard \(s + 1) of \(count)")
            }
        }
    }

    func testDocumentsAddedBetweenRunsArePickedUpAndTheRestMoveLittle() {
        let before = documents(Array(repeating: 3, count: 100))
        let shardsBefore = ShardPartition.assign(before, count: 8)
        var after = before
        after.append(ShardPartition.Document(path: "/lib/new.lnote", key: "00050x.lnote", pages: 3))
        let shardsAfter = ShardPartition.assign(after, count: 8)
        XCTAssertTrue((0..<8).contains(shardsAfter[100]))
        let moved = zip(shardsBefore, shardsAfter).filter { $0 != $1 }.count
        XCTAssertLessThanOrEqual(moved, 8, "only documents near the cuts change shard")
        // Every shard together is the whole library, each document once.
        let union = (0..<8).flatMap { ShardPartition.documents(of: Shard(index: $0, count: 8), in: after).map(\.path) }
        XCTAssertEqual(union.sorted(), after.map(\.path).sorted())
    }
}
