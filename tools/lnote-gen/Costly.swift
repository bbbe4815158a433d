// The "costly" preset: valid pages that are expensive by construction, one document each, to
// prove that rendering cost and memory stay bounded (tests and tools/bench use them). Each is
// within every limit of the format; none is what an app writes, and each is what a hostile
// upload can be.

extension Presets {
    /// The four classes, by name (the document title): each is one page of one document.
    static let costlyClasses = ["pencil-million", "covering-translucent", "far-diagonals", "stacked-discs"]

    static func costly(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "costly")
        // --strokes scales every class down (tests use small versions of the same shapes).
        let fraction = Double(o.strokes ?? 100) / 100
        func count(_ full: Int) -> Int { max(1, Int(Double(full) * fraction)) }
        var out: [WriteStats] = []
        for name in costlyClasses {
            var (doc, clock) = newDocument(&rng, title: name)
            var page = newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "ruled", spacing: 320))
            var strokeRNG = rng.fork(UInt64(out.count))
            page.elements = costlyElements(name, count: count, rng: &strokeRNG)
            doc.pages = [page]
            finish(&doc, &clock, &rng)
            out.append(try PackageWriter.write(doc, into: o.out!))
        }
        return out
    }

    private static func costlyElements(_ name: String, count: (Int) -> Int, rng: inout Random) -> [Element] {
        let w = 8340, h = 11940
        var elements: [Element] = []
        func stroke(_ tool: String?, _ color: String, _ points: [Int32]) {
            elements.append(.stroke(Stroke(id: rng.uuid(), tool: tool, color: color, points: points)))
        }
        switch name {
        case "pencil-million":
            // One pencil stroke at the sample limit: a zigzag down the page whose radius crosses
            // the thin-stroke threshold at every scale (0.1 pt ↔ 4 pt) and whose pressure swings
            // 0 ↔ 1000 at every sample, so each segment is cut into dozens of pieces.
            let n = count(1_000_000)
            var pts: [Int32] = []
            pts.reserveCapacity(5 * n)
            for i in 0..<n {
                let row = i / 400, col = i % 400
                let x = 200 + (row % 2 == 0 ? col : 399 - col) * 20 + rng.int(0...6)
                let y = 200 + (row * 37) % (h - 400)
                pts += [Int32(x), Int32(y), i % 2 == 0 ? 1 : 40, i % 2 == 0 ? 0 : 1000, Int32(i)]
            }
            stroke("pencil", "#303030", pts)
        case "covering-translucent":
            // 3,000 translucent pen strokes of the largest radius, each covering the whole page.
            for _ in 0..<count(3000) {
                let x = rng.int(0...w), y = rng.int(0...h)
                stroke("pen", "#1A1A1A08", [Int32(x), Int32(y), 100_000, 500, 0, Int32(w - x), Int32(h - y), 100_000, 500, 16])
            }
        case "far-diagonals":
            // 100,000 two-sample strokes from about −2·10⁹ to +2·10⁹: clipped to the page's
            // diagonal, each crosses every row.
            for _ in 0..<count(100_000) {
                let a = Int32(-2_000_000_000 + rng.int(0...1_000_000)), b = Int32(2_000_000_000 - rng.int(0...1_000_000))
                let skew = Int32(rng.int(-20_000_000...20_000_000))
                stroke("pen", "#0B5394", [a, a &+ skew, 10, 500, 0, b, b &+ skew, 10, 500, 16])
            }
        default:  // "stacked-discs"
            // 200,000 single-sample highlighter discs of radius 40 pt, stacked near the centre.
            for _ in 0..<count(200_000) {
                let x = w / 2 + rng.int(-400...400), y = h / 2 + rng.int(-400...400)
                stroke("highlighter", "#FFEB3B80", [Int32(x), Int32(y), 400, 500, 0])
            }
        }
        return elements
    }
}
