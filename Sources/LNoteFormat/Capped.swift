// "At most N one by one, then a summary": the one budget for warnings and records that hostile
// input could otherwise multiply without bound (a page of a million bad elements, a journal of
// 100 million bad frames, a document.json of a million bad page entries).

/// The first `limit` items added, kept one by one; the rest only counted.
public struct Capped<Item> {
    public let limit: Int
    /// The first `limit` items, in the order they were added.
    public private(set) var kept: [Item] = []
    /// Every item added, kept or not.
    public private(set) var total = 0

    public init(limit: Int) {
        self.limit = limit
    }

    /// How many were only counted.
    public var more: Int { total - kept.count }

    /// Adds an item; it is built only while it is still kept.
    @inline(__always)
    public mutating func add(_ item: @autoclosure () -> Item) {
        total += 1
        if kept.count < limit { kept.append(item()) }
    }

    /// Adds what `other` kept, one by one, and counts what it only counted.
    public mutating func add(contentsOf other: Capped<Item>) {
        for item in other.kept { add(item) }
        total += other.more
    }
}

extension Capped: Sendable where Item: Sendable {}
extension Capped: Equatable where Item: Equatable {}

extension Capped where Item == Diagnostic {
    /// The kept warnings, then, when some were only counted, the summary made of their number
    /// (none when `summary` gives nil).
    public func diagnostics(summary: (_ more: Int) -> Diagnostic?) -> [Diagnostic] {
        guard more > 0, let last = summary(more) else { return kept }
        return kept + [last]
    }
}
