/// Values kept within a budget of cost units (bytes, say), the least recently used dropped
/// first to make room. The one eviction rule of the project's caches: decoded images
/// (`AssetCache`) and resampled image frames (`ResampleStore`).
///
/// A value type with no lock of its own: its owner holds it under the lock that also guards
/// what goes with it (a decode in progress, a hit count).
public struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Slot {
        var value: Value
        let cost: Int
        var lastUse: Int
    }

    /// The most cost units kept at once.
    public let budget: Int
    /// Cost units kept now.
    public private(set) var held = 0
    private var slots: [Key: Slot] = [:]
    /// Ticks on every insert and every use: the slot with the smallest `lastUse` is the least
    /// recently used.
    private var clock = 0

    public init(budget: Int) {
        self.budget = max(0, budget)
    }

    /// Values kept now.
    public var count: Int { slots.count }

    /// The value kept for `key`, marked as used now.
    public mutating func value(for key: Key) -> Value? {
        guard var slot = slots[key] else { return nil }
        clock += 1
        slot.lastUse = clock
        slots[key] = slot
        return slot.value
    }

    /// The value kept for `key`, leaving its place in the order as it is.
    public func peek(_ key: Key) -> Value? {
        slots[key]?.value
    }

    /// Keeps `value` for `key` at `cost`, first dropping the least recently used values until
    /// it fits (a value already kept for `key` is replaced). A value whose cost is over the
    /// whole budget is not kept and drops nothing: false.
    @discardableResult
    public mutating func insert(_ value: Value, cost: Int, for key: Key) -> Bool {
        guard cost <= budget else { return false }
        if let old = slots.removeValue(forKey: key) { held -= old.cost }
        while held + cost > budget, let oldest = slots.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            held -= oldest.value.cost
            slots[oldest.key] = nil
        }
        clock += 1
        slots[key] = Slot(value: value, cost: cost, lastUse: clock)
        held += cost
        return true
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Slot: Sendable where Key: Sendable, Value: Sendable {}
