import XCTest
import LNoteFormat

/// The one eviction rule of the caches (`AssetCache`, `ResampleStore`).
final class LRUCacheTests: XCTestCase {
    func testLeastRecentlyUsedGoesFirst() {
        var lru = LRUCache<String, Int>(budget: 10)
        XCTAssertTrue(lru.insert(1, cost: 4, for: "a"))
        XCTAssertTrue(lru.insert(2, cost: 4, for: "b"))
        XCTAssertEqual(lru.held, 8)
        XCTAssertEqual(lru.value(for: "a"), 1)          // a is now the most recent
        XCTAssertTrue(lru.insert(3, cost: 4, for: "c"))  // b goes
        XCTAssertNil(lru.peek("b"))
        XCTAssertEqual(lru.peek("a"), 1)
        XCTAssertEqual(lru.held, 8)
        XCTAssertEqual(lru.count, 2)
    }

    func testPeekDoesNotRefresh() {
        var lru = LRUCache<String, Int>(budget: 8)
        lru.insert(1, cost: 4, for: "a")
        lru.insert(2, cost: 4, for: "b")
        XCTAssertEqual(lru.peek("a"), 1)
        lru.insert(3, cost: 4, for: "c")                 // a is still the oldest
        XCTAssertNil(lru.peek("a"))
        XCTAssertEqual(lru.peek("b"), 2)
    }

    func testTooLargeIsNotKeptAndDropsNothing() {
        var lru = LRUCache<String, Int>(budget: 8)
        lru.insert(1, cost: 8, for: "a")
        XCTAssertFalse(lru.insert(2, cost: 9, for: "b"))
        XCTAssertEqual(lru.peek("a"), 1)
        XCTAssertNil(lru.peek("b"))
        XCTAssertEqual(lru.held, 8)
        // Several may go to make room for one.
        var many = LRUCache<Int, Int>(budget: 10)
        for k in 0..<5 { many.insert(k, cost: 2, for: k) }
        many.insert(9, cost: 7, for: 9)
        XCTAssertEqual((0..<5).filter { many.peek($0) != nil }, [4])
        XCTAssertEqual(many.held, 9)
    }

    func testReplacingAKeyCountsItOnce() {
        var lru = LRUCache<String, Int>(budget: 10)
        lru.insert(1, cost: 6, for: "a")
        lru.insert(2, cost: 6, for: "a")
        XCTAssertEqual(lru.held, 6)
        XCTAssertEqual(lru.peek("a"), 2)
        XCTAssertEqual(LRUCache<String, Int>(budget: -5).budget, 0)
    }
}
