// The presets: what each generated document contains.

import Foundation

struct GenOptions {
    var out: String?
    var seed: UInt64 = 1
    var pages: Int?
    var strokes: Int?
}

/// Fixed dates derived from the seed: documents created during 2026, edited days later.
struct Clock {
    var seconds: Int
    init(rng: inout Random) {
        // 2026-01-01T00:00:00Z plus up to ~10 months, during the working day.
        seconds = 1_767_225_600 + rng.int(0...300) * 86400 + rng.int(8 * 3600...19 * 3600)
    }
    mutating func advance(_ rng: inout Random, minutes: ClosedRange<Int>) -> String {
        seconds += rng.int(minutes) * 60 + rng.int(0...59)
        return isoDate(seconds, millis: rng.int(0...999))
    }
}

let paperColors = ["#FFFFFF", "#FFFFFF", "#FFFFFF", "#FFFDF5", "#FFFDF5", "#FBF8EF", "#F4F7FB", "#FFF8E7"]
let inkColors = ["#1A1A1A", "#1A1A1A", "#1A1A1A", "#0B5394", "#0B5394", "#1F3FAF", "#2B2B2B", "#6A1B9A", "#B3261E", "#1B5E20"]
let titles = ["Physics lecture", "Linear algebra", "Team meeting", "Project kickoff", "Reading notes", "Chemistry lab",
              "Weekly planning", "Book club", "Design review", "History seminar", "Ideas", "Groceries and errands",
              "Spanish vocabulary", "Travel plans", "Statistics", "Journal", "Interview notes", "Sketchbook"]

enum Presets {
    static let all: [String: @Sendable (GenOptions) throws -> [WriteStats]] = [
        "line": line, "page": page, "dense": dense, "doc200": doc200,
        "library": library, "features": features, "sample": sample, "costly": costly,
        "highlighter": highlighter, "pencil": pencil,
    ]

    static func newDocument(_ rng: inout Random, title: String? = nil) -> (Document, Clock) {
        var clock = Clock(rng: &rng)
        let id = rng.uuid()
        let t = title ?? "\(rng.pick(titles)) \(rng.int(1...12))"
        let created = isoDate(clock.seconds, millis: rng.int(0...999))
        let doc = Document(id: id, title: t, createdAt: created, modifiedAt: created)
        _ = clock.advance(&rng, minutes: 0...0)
        return (doc, clock)
    }

    /// Sets modifiedAt of the document from the latest page edit.
    static func finish(_ doc: inout Document, _ clock: inout Clock, _ rng: inout Random) {
        let modified = clock.advance(&rng, minutes: 60...4000)
        doc.modifiedAt = modified
    }

    static func newPage(_ rng: inout Random, _ clock: inout Clock, background: Background?) -> Page {
        let id = rng.uuid()
        let created = clock.advance(&rng, minutes: 1...20)
        var copy = clock
        let modified = copy.advance(&rng, minutes: 1...3000)
        return Page(id: id, createdAt: created, modifiedAt: modified, background: background)
    }

    static func ruled(_ rng: inout Random, spacing: Int = 320) -> Background {
        Background(color: rng.pick(paperColors), template: "ruled", spacing: spacing)
    }

    // MARK: line

    static func line(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "line")
        var (doc, clock) = newDocument(&rng, title: "One line")
        var page = newPage(&rng, &clock, background: ruled(&rng))
        var c = Composer(width: page.width, height: page.height, lineSpacing: 320, ink: .pen(rng.pick(inkColors)), rng: rng.fork(1))
        c.sentence(words: 10)
        page.elements = c.elements
        doc.pages = [page]
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }

    // MARK: page

    static func page(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "page")
        var (doc, clock) = newDocument(&rng)
        for k in 0..<(o.pages ?? 1) {
            var page = newPage(&rng, &clock, background: ruled(&rng))
            var c = Composer(width: page.width, height: page.height, lineSpacing: 320, ink: .pen(rng.pick(inkColors)), rng: rng.fork(UInt64(k)))
            c.notes(budget: o.strokes ?? 300)
            page.elements = c.elements
            doc.pages.append(page)
        }
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }

}
