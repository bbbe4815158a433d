// The `dense` preset: one page packed with small handwriting, for benchmarks.
// Exactly `strokes` strokes (default 2,000) holding exactly 118 samples per stroke on
// average (236,000), about 2 % highlighter and 6 % pencil strokes among them.

import Foundation

extension Presets {
    static func dense(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "dense")
        var (doc, clock) = newDocument(&rng, title: "Dense notes")
        var page = newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "ruled", spacing: 200))
        page.elements = denseElements(strokes: o.strokes ?? 2000, width: page.width, height: page.height, rng: rng.fork(3))
        doc.pages = [page]
        finish(&doc, &clock, &rng)
        var stats = try PackageWriter.write(doc, into: o.out!)
        let mb = Double(stats.contentBytes) / 1_000_000
        stats.note = "dense content file: \(stats.contentBytes) bytes (\(String(format: "%.2f", mb)) MB)"
            + (mb < 3 || mb > 5 ? "  WARNING: outside the 3-5 MB target" : ", within the 3-5 MB target")
        return [stats]
    }

    static func denseElements(strokes total: Int, width: Int, height: Int, rng: Random) -> [Element] {
        var rng = rng
        let spacing = 200.0
        let targetSamples = total * 118
        // Plan: which strokes are highlighter, and how many samples each stroke gets.
        let highlighters = max(0, total / 50)
        let writing = total - highlighters
        var hlCounts = (0..<highlighters).map { _ in rng.int(60...110) }
        var counts = (0..<writing).map { _ in max(12.0, 118 * exp(0.45 * rng.gaussian() - 0.1)) }
        let budget = Double(targetSamples - hlCounts.reduce(0, +))
        let scale = budget / counts.reduce(0, +)
        var plan = counts.map { max(12, Int(($0 * scale).rounded())) }
        // Fix the rounding remainder so the total is exact.
        var diff = targetSamples - plan.reduce(0, +) - hlCounts.reduce(0, +)
        var k = 0
        while diff != 0 && !plan.isEmpty {
            let step = diff > 0 ? 1 : -1
            if plan[k % plan.count] + step >= 12 { plan[k % plan.count] += step; diff -= step }
            k += 1
        }
        counts = []

        var hand = Hand.random(lineSpacing: spacing, rng: &rng)
        hand.xHeight = 60
        hand.letterWidth = 0.9
        hand.rate = 5.4
        let pen = Ink.pen("#1A1A1A", width: 11)
        let blue = Ink.pen("#0B5394", width: 11)
        let pencil = Ink.pencil("#333333", width: 9)
        let left = 500.0, right = Double(width) - 300
        var baseline = spacing * 2
        var layer = 0
        var x = left
        var lineInk = pen
        var lineIndex = 0
        var lineWords: [(Double, Double)] = []
        var elements: [Element] = []
        elements.reserveCapacity(total)
        var next = 0

        func newLine() {
            // Highlight part of the finished line now and then.
            if !hlCounts.isEmpty && lineWords.count >= 3 && rng.chance(Double(hlCounts.count) / max(1, Double(plan.count - next) / 30)) {
                let a = rng.int(0...(lineWords.count - 3))
                let b = min(lineWords.count - 1, a + rng.int(1...4))
                let n = hlCounts.removeLast()
                let y = baseline - hand.xHeight * 0.45
                let x0 = lineWords[a].0 - 20, x1 = lineWords[b].1 + 20
                var tr = tracePath([(x0, y + rng.uniform(-4, 4)), ((x0 + x1) / 2, y + rng.uniform(-5, 5)), (x1, y + rng.uniform(-6, 6))], peak: 1, minSamples: n)
                tr = resample(tr, count: n)
                tr.p = pressureCurve(count: n, base: 0.6, rise: 3, fall: 3, wobble: 0.05, rng: &rng)
                elements.append(.stroke(makeStroke(tr, ink: .highlighter(rng.pick(["#FFE45C", "#FF9ECF", "#9BE58F"]), width: 52), id: rng.uuid(), rng: &rng)))
            }
            lineWords = []
            baseline += spacing
            x = left
            lineIndex += 1
            if baseline > Double(height) - spacing {
                // Page full: keep writing between the lines (annotations in another colour).
                layer += 1
                baseline = spacing * 2.5 + Double(layer - 1) * 37
            }
            lineInk = layer > 0 ? Ink.pen("#B3261E", width: 10) : (lineIndex % 14 == 5 ? pencil : (lineIndex % 5 == 2 ? blue : pen))
        }

        while next < plan.count {
            // A word: one to three strokes, lifted in between.
            let parts = min(plan.count - next, rng.chance(0.6) ? 1 : rng.int(2...3))
            var traces: [Trace] = []
            var wx = 0.0
            for _ in 0..<parts {
                let n = plan[next]; next += 1
                let letters = max(1, Int((Double(n) * hand.rate / sampleRate).rounded()))
                var (tr, _) = cursiveStroke(letters: letters, hand: hand, samples: n, rng: &rng)
                let shift = wx == 0 ? 0 : wx + rng.uniform(8, 20) - tr.minX
                tr.translate(shift, rng.uniform(-2, 2))
                wx = tr.maxX
                traces.append(tr)
            }
            if x + wx > right { newLine() }
            let y0 = baseline + rng.uniform(-3, 3)
            for var tr in traces {
                tr.translate(x, y0)
                elements.append(.stroke(makeStroke(tr, ink: lineInk, id: rng.uuid(), rng: &rng)))
            }
            lineWords.append((x, x + wx))
            x += wx + hand.xHeight * rng.uniform(0.7, 1.0)
        }
        // Any highlighter strokes not yet placed go over the last lines.
        while !hlCounts.isEmpty {
            let n = hlCounts.removeLast()
            let y = baseline - spacing * Double(rng.int(0...3)) - hand.xHeight * 0.45
            let x0 = left + rng.uniform(0, 3000)
            var tr = resample(tracePath([(x0, y), (x0 + rng.uniform(800, 2500), y + rng.uniform(-6, 6))], peak: 1, minSamples: n), count: n)
            tr.p = pressureCurve(count: n, base: 0.6, rise: 3, fall: 3, wobble: 0.05, rng: &rng)
            elements.append(.stroke(makeStroke(tr, ink: .highlighter("#FFE45C", width: 52), id: rng.uuid(), rng: &rng)))
        }
        return elements
    }
}

/// The same path with exactly `count` samples (linear interpolation by index).
func resample(_ tr: Trace, count: Int) -> Trace {
    guard tr.count > 1, count > 1 else { return tr }
    var out = Trace()
    for i in 0..<count {
        let f = Double(i) / Double(count - 1) * Double(tr.count - 1)
        let k = min(tr.count - 2, Int(f)), u = f - Double(k)
        out.x.append(tr.x[k] + (tr.x[k + 1] - tr.x[k]) * u)
        out.y.append(tr.y[k] + (tr.y[k + 1] - tr.y[k]) * u)
    }
    return out
}
