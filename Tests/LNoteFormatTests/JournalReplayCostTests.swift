// Journal replay on hostile journals: it must cost about the journal's size, not its square,
// and keep exactly the semantics of section 5 (checked against a direct transcription of the
// rules on random journals).

import Foundation
import XCTest
@testable import LNoteFormat
import LNoteTestSupport

final class JournalReplayCostTests: XCTestCase {
    func element(_ id: String?, _ n: Int = 0) -> Element {
        let idPart = id.map { "\"id\":\"\($0)\"," } ?? ""
        let json = "{\(idPart)\"type\":\"stroke\",\"color\":\"#000000\",\"points\":[\(n),0,1,1,0]}"
        guard case .success(let e) = ContentParser.parseElement(Array(json.utf8)) else { fatalError(json) }
        return e
    }

    /// A regression test: each frame used to scan the whole page for its id (and each delete
    /// shifted the array), so 10,000 distinct adds took 34 s in a debug build and a 34 MB
    /// journal would have taken days.
    func testReplayCostIsNotQuadratic() throws {
        let n = 40_000
        var journal: [UInt8] = []
        for i in 0..<n { journal += Journal.encodeFrame(.add, payload: Array("{\"type\":\"x\",\"id\":\"E\(i)\"}".utf8)) }
        for i in 0..<n { journal += Journal.encodeFrame(.replace, payload: Array("{\"type\":\"y\",\"id\":\"e\(i)\"}".utf8)) }
        for i in 0..<n { journal += Journal.encodeFrame(.delete, payload: Array("E\(i)".utf8)) }
        var elements: [Element] = []
        let started = Date()
        let report = try Journal.replay(journal, onto: &elements, file: "pages/p.journal")
        let seconds = Date().timeIntervalSince(started)
        print("replay of \(3 * n) frames (\(journal.count) bytes): \(seconds) s")
        XCTAssertEqual(report.appliedCount, 3 * n)
        XCTAssertEqual(elements, [])
        XCTAssertEqual(report.applied[n].effect, .replaced(index: 0))
        XCTAssertEqual(report.applied[2 * n + 1].effect, .deleted(index: 0))
        XCTAssertLessThan(seconds, 20)
    }

    /// Section 5 transcribed directly (a scan per frame), to compare against.
    func reference(_ frames: [(JournalFrameType, Element?, String)], onto snapshot: [Element]) -> ([Element], [JournalReport.Effect]) {
        var elements = snapshot
        var effects: [JournalReport.Effect] = []
        func first(_ id: String) -> Int? { elements.firstIndex { $0.hasID(id) } }
        for (type, element, id) in frames {
            switch type {
            case .add, .replace:
                if let eid = element!.id, let i = first(eid) {
                    elements[i] = element!
                    effects.append(.replaced(index: i))
                } else {
                    elements.append(element!)
                    effects.append(.appended)
                }
            case .delete:
                if let i = first(id) {
                    elements.remove(at: i)
                    effects.append(.deleted(index: i))
                } else {
                    effects.append(.noOp)
                }
            }
        }
        return (elements, effects)
    }

    func testReplayMatchesTheRulesOnRandomJournals() throws {
        let seed = TestSeed()
        var rng = seed.generator
        let ids: [String?] = ["a", "A", "b", "B", "c", nil, "d", "ab"]
        for trial in 0..<300 {
            let snapshot = (0..<Int.random(in: 0...6, using: &rng)).map { element(ids.randomElement(using: &rng)!, $0) }
            var frames: [(JournalFrameType, Element?, String)] = []
            var journal: [UInt8] = []
            for k in 0..<Int.random(in: 0...30, using: &rng) {
                let type = [JournalFrameType.add, .replace, .delete].randomElement(using: &rng)!
                if type == .delete {
                    let id = (ids.randomElement(using: &rng)! ?? "zz")
                    frames.append((type, nil, id))
                    journal += Journal.encodeFrame(type, payload: Array(id.utf8))
                } else {
                    let e = element(ids.randomElement(using: &rng)!, 100 + k)
                    frames.append((type, e, ""))
                    journal += Journal.encodeFrame(type, payload: e.json)
                }
            }
            var elements = snapshot
            let report = try Journal.replay(journal, onto: &elements, file: "p")
            let (expected, effects) = reference(frames, onto: snapshot)
            XCTAssertEqual(elements, expected, "\(seed), trial \(trial)")
            XCTAssertEqual(report.applied.map(\.effect), effects, "\(seed), trial \(trial)")
        }
    }

    /// The limit counts live elements: deletes make room again.
    func testLimitCountsLiveElements() throws {
        var journal: [UInt8] = []
        for i in 0..<10 {
            journal += Journal.encodeFrame(.add, payload: Array("{\"type\":\"x\",\"id\":\"E\(i)\"}".utf8))
            journal += Journal.encodeFrame(.delete, payload: Array("E\(i)".utf8))
        }
        var elements = [element("S")]
        XCTAssertNoThrow(try Journal.replay(journal, onto: &elements, file: "p", elementLimit: 2))
        XCTAssertEqual(elements.map(\.id), ["S"])
    }
}
