import Foundation

/// SplitMix64: a tiny seeded generator, so that every randomized test is reproducible. The one
/// copy for all test targets (`LNoteTestSupport`).
public struct SeededRNG: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in [a, b).
    public mutating func range(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
}

/// The seed of a randomized test: `LNOTE_TEST_SEED` when set (to replay a failure), else a fresh
/// one. `description` is what a failure message carries, so every failure can be reproduced.
public struct TestSeed: CustomStringConvertible, Sendable {
    public let value: UInt64

    public init() {
        if let text = ProcessInfo.processInfo.environment["LNOTE_TEST_SEED"], let v = UInt64(text) {
            value = v
        } else {
            var system = SystemRandomNumberGenerator()
            value = system.next()
        }
    }

    /// A generator started from this seed.
    public var generator: SeededRNG { SeededRNG(seed: value) }

    public var description: String { "seed \(value) (rerun with LNOTE_TEST_SEED=\(value))" }
}

import XCTest

extension TestSeed {
    /// A fresh (or replayed) seed that `test`'s log names if the test fails, for randomized tests
    /// whose failures are reported by shared helpers that cannot carry it in their messages.
    public init(for test: XCTestCase) {
        self.init()
        let seed = self
        test.addTeardownBlock { [weak test] in
            guard let test, let run = test.testRun, run.totalFailureCount > 0 else { return }
            print("\(test.name) failed with \(seed)")
        }
    }
}
