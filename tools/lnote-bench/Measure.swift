import Foundation
import Glibc

/// Median, fastest and slowest of a series of timed runs, in milliseconds.
struct Timing {
    var median: Double
    var min: Double
    var max: Double

    /// `{"ms": median, "min": …, "max": …}`, rounded to microseconds.
    var json: [String: Any] { ["ms": rounded(median), "min": rounded(min), "max": rounded(max)] }
}

/// Milliseconds on the monotonic clock.
func nowMs() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1e3 + Double(t.tv_nsec) / 1e6
}

/// Runs `body` `warmup` times untimed, then `runs` times timed. `prepare` runs before every
/// call of `body` (warm-ups included) and is never timed.
func measure(runs: Int, warmup: Int = 1, prepare: () throws -> Void = {}, _ body: () throws -> Void) throws -> Timing {
    for _ in 0..<warmup {
        try prepare()
        try body()
    }
    var times: [Double] = []
    for _ in 0..<max(1, runs) {
        try prepare()
        let start = nowMs()
        try body()
        times.append(nowMs() - start)
    }
    times.sort()
    let n = times.count
    let median = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2
    return Timing(median: median, min: times[0], max: times[n - 1])
}

/// Every measured result is folded in here, and the total printed, so that the optimizer
/// (cross-module, -Ounchecked: `precondition` is gone) cannot drop the work that made it.
nonisolated(unsafe) var checksum = 0

func keep(_ value: Int) { checksum &+= value }

/// A value rounded to three decimals, for JSON.
func rounded(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }

/// The worker counts a scaling figure is measured at: 1, 2 and every core, each once.
func jobCounts() -> [Int] {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    return Array(Set([1, min(2, cores), cores])).sorted()
}
