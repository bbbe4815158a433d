import Foundation

/// Jobs 0..<n on a few threads: each worker takes the next job number until none is left.
///
/// Each worker gets its own `context` (made by `context()`: callers that share one object,
/// such as the export's thread-safe `AssetCache`, return the same one); results go to fixed
/// slots (`ResultSlots`), so what a run produces does not depend on scheduling.
enum WorkerPool {
    static func run<Context>(jobs count: Int, workers: Int, context: @Sendable () -> Context,
                             _ body: @Sendable (Int, Context) -> Void) {
        let workers = min(max(1, workers), max(1, count))
        let next = AtomicCounter()
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let own = context()
            while true {
                let j = next.increment()
                guard j < count else { break }
                body(j, own)
            }
        }
    }
}

/// Fixed result slots that worker threads fill, each slot written by exactly one job.
final class ResultSlots<T: Sendable>: @unchecked Sendable {
    private var values: [T]
    private let lock = NSLock()

    init(count: Int, initial: T) { values = Array(repeating: initial, count: count) }

    subscript(index: Int) -> T {
        get { lock.lock(); defer { lock.unlock() }; return values[index] }
        set { lock.lock(); values[index] = newValue; lock.unlock() }
    }
}

/// A shared counter handing out job numbers to worker threads.
final class AtomicCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()

    func increment() -> Int {
        lock.lock(); defer { lock.unlock() }
        let v = value
        value += 1
        return v
    }
}

/// Results that workers put in any order and one consumer takes in order, waiting for each.
final class OrderedResults<T: Sendable>: @unchecked Sendable {
    private var values: [T?]
    private let condition = NSCondition()

    init(count: Int) { values = Array(repeating: nil, count: count) }

    func put(_ index: Int, _ value: T) {
        condition.lock()
        values[index] = value
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until slot `index` is filled, then returns (and releases) its value.
    func take(_ index: Int) -> T {
        condition.lock()
        defer { condition.unlock() }
        while values[index] == nil { condition.wait() }
        let value = values[index]!
        values[index] = nil
        return value
    }
}
