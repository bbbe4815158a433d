// Lays handwriting out on a page the way a person takes notes: a title, paragraphs that
// run along the ruling, bullet lists, a highlighted phrase, a boxed diagram, a pencil sketch.

import Foundation

struct Composer {
    var rng: Random
    let width: Double
    let height: Double
    var elements: [Element] = []
    var hand: Hand
    var ink: Ink
    let lineSpacing: Double
    let left: Double
    let right: Double
    let bottom: Double
    var baseline: Double
    var x: Double
    var indent = 0.0
    /// Word extents on the current line (for highlighting).
    var lineWords: [(Double, Double)] = []
    var full = false
    var lineSlope = 0.0

    init(width: Int, height: Int, lineSpacing: Double, ink: Ink, rng: Random) {
        self.rng = rng
        self.width = Double(width)
        self.height = Double(height)
        self.lineSpacing = lineSpacing
        self.ink = ink
        hand = Hand.random(lineSpacing: lineSpacing, rng: &self.rng)
        left = Double(width) * self.rng.uniform(0.07, 0.1)
        right = Double(width) * self.rng.uniform(0.92, 0.95)
        bottom = Double(height) - lineSpacing * 1.2
        baseline = lineSpacing * Double(max(2, Int((Double(height) * 0.06 / lineSpacing).rounded(.up))))
        x = left
        lineSlope = self.rng.uniform(-0.006, 0.006)
    }

    var strokeCount: Int { elements.count }

    mutating func add(_ tr: Trace, ink: Ink) {
        guard tr.count > 0 else { return }
        elements.append(.stroke(makeStroke(tr, ink: ink, id: rng.uuid(), rng: &rng)))
    }

    mutating func newLine(_ k: Int = 1) {
        baseline += lineSpacing * Double(k)
        x = left + indent
        lineWords = []
        lineSlope = rng.uniform(-0.006, 0.006)
        if baseline > bottom { full = true }
    }

    /// Writes one word, wrapping to the next line when it does not fit. False when the page is full.
    @discardableResult
    mutating func word(_ letters: Int, hand h: Hand? = nil, ink i: Ink? = nil) -> Bool {
        if full { return false }
        let hd = h ?? hand
        let word = writeWord(letters: letters, hand: hd, rng: &rng)
        if x + word.width > right && x > left + indent + 1 {
            newLine()
            if full { return false }
        }
        let y0 = baseline - hd.xHeight * 0.04 + (x - left) * lineSlope + rng.uniform(-0.04, 0.04) * hd.xHeight
        for var tr in word.traces {
            tr.translate(x, y0)
            add(tr, ink: i ?? ink)
        }
        lineWords.append((x, x + word.width))
        x += word.width + hd.xHeight * rng.uniform(0.75, 1.2)
        return true
    }

    mutating func randomWordLength() -> Int {
        let u = rng.unit()
        return u < 0.12 ? 1 : u < 0.3 ? 2 : u < 0.5 ? 3 : u < 0.7 ? 4 : u < 0.84 ? 5 : u < 0.93 ? 6 : rng.int(7...9)
    }

    mutating func sentence(words: Int, budget: Int = .max) {
        for _ in 0..<words where !full && strokeCount < budget { word(randomWordLength()) }
    }

    mutating func title(words: Int) {
        var big = hand
        big.xHeight *= 1.35
        big.pressure = min(0.85, big.pressure * 1.15)
        let start = x
        for _ in 0..<words { word(randomWordLength() + 1, hand: big) }
        underline(from: start - hand.xHeight * 0.2, to: x - hand.xHeight * 0.6)
        newLine(2)
    }

    mutating func underline(from x0: Double, to x1: Double) {
        let y = baseline + hand.xHeight * rng.uniform(0.3, 0.45)
        var tr = tracePath([(x0, y + rng.uniform(-4, 4)), ((x0 + x1) / 2, y + rng.uniform(-6, 6)), (x1, y + rng.uniform(-8, 4))],
                           peak: rng.uniform(24, 34))
        tr.p = pressureCurve(count: tr.count, base: hand.pressure, rise: 4, fall: 5, rng: &rng)
        add(tr, ink: ink)
    }

    /// A bullet dash or dot at the line start, then indented text.
    mutating func bullet() {
        let y = baseline - hand.xHeight * 0.5
        let x0 = left + hand.xHeight * 0.3
        var tr: Trace
        if rng.chance(0.5) {
            tr = tracePath([(x0, y), (x0 + hand.xHeight * 0.6, y + rng.uniform(-3, 3))], peak: 10)
        } else {
            tr = tracePath([(x0, y), (x0 + 3, y + 2), (x0 + 1, y + 5)], peak: 2, minSamples: 4)
        }
        tr.p = pressureCurve(count: tr.count, base: hand.pressure, rise: 2, fall: 2, rng: &rng)
        add(tr, ink: ink)
        x = left + hand.xHeight * 1.8
    }

    /// A highlighter pass over a run of words on the current line (drawn over the ink).
    mutating func highlightCurrentLine(color: String? = nil) {
        guard lineWords.count >= 2 else { return }
        let a = rng.int(0...(lineWords.count - 2))
        let b = min(lineWords.count - 1, a + rng.int(1...3))
        let x0 = lineWords[a].0 - hand.xHeight * 0.25, x1 = lineWords[b].1 + hand.xHeight * 0.2
        let y = baseline - hand.xHeight * 0.45 + (x0 - left) * lineSlope
        var tr = tracePath([(x0, y + rng.uniform(-5, 5)), ((x0 + x1) / 2, y + rng.uniform(-6, 6)), (x1, y + rng.uniform(-8, 8))],
                           peak: rng.uniform(20, 30))
        tr.p = pressureCurve(count: tr.count, base: 0.6, rise: 3, fall: 3, wobble: 0.05, rng: &rng)
        let hl = Ink.highlighter(color ?? rng.pick(["#FFE45C", "#FFE45C", "#FF9ECF", "#9BE58F", "#7FD3FF"]),
                                 width: hand.xHeight * rng.uniform(0.75, 0.9))
        add(tr, ink: hl)
    }

    /// A box around the last words written plus an arrow to the right: a small diagram.
    mutating func boxAndArrow() {
        guard let first = lineWords.first, let last = lineWords.last else { return }
        let pad = hand.xHeight * 0.45
        let x0 = first.0 - pad, x1 = last.1 + pad
        let y0 = baseline - hand.xHeight * 1.9, y1 = baseline + hand.xHeight * 0.6
        var box = tracePath([(x0 + 8, y0), (x1, y0 + 4), (x1 + 3, y1), (x0, y1 - 3), (x0 - 2, y0 + 10), (x0 + 20, y0 - 2)],
                            peak: rng.uniform(26, 36))
        box.p = pressureCurve(count: box.count, base: hand.pressure, rng: &rng)
        add(box, ink: ink)
        let ay = (y0 + y1) / 2, ax0 = x1 + hand.xHeight * 0.5, ax1 = min(right, ax0 + hand.xHeight * rng.uniform(2.5, 4))
        var shaft = tracePath([(ax0, ay), ((ax0 + ax1) / 2, ay + rng.uniform(-4, 4)), (ax1, ay)], peak: 28)
        shaft.p = pressureCurve(count: shaft.count, base: hand.pressure, rng: &rng)
        add(shaft, ink: ink)
        let hsz = hand.xHeight * 0.5
        var head = tracePath([(ax1 - hsz, ay - hsz * 0.7), (ax1, ay), (ax1 - hsz, ay + hsz * 0.7)], peak: 14)
        head.p = pressureCurve(count: head.count, base: hand.pressure, rng: &rng)
        add(head, ink: ink)
        x = ax1 + hand.xHeight
    }

    /// A pencil sketch in the given rectangle: a sun, a mountain outline, shading hatches
    /// (strong pressure changes), and the ground.
    mutating func pencilSketch(x sx: Double, y sy: Double, w: Double, h: Double, pencil: Ink = .pencil()) {
        // Sun: one loop that overshoots its start.
        let cx = sx + w * 0.78, cy = sy + h * 0.22, rad = min(w, h) * 0.11
        var pts: [(Double, Double)] = []
        for k in 0...13 {
            let a = Double(k) / 12 * 2 * Double.pi - 1.9
            let rr = rad * (1 + rng.uniform(-0.05, 0.05))
            pts.append((cx + rr * cos(a), cy + rr * sin(a)))
        }
        var sun = tracePath(pts, peak: 18)
        sun.p = pressureCurve(count: sun.count, base: 0.55, wobble: 0.25, rng: &rng)
        add(sun, ink: pencil)
        for k in 0..<8 {
            let a = Double(k) / 8 * 2 * Double.pi + rng.uniform(-0.1, 0.1)
            var ray = tracePath([(cx + rad * 1.35 * cos(a), cy + rad * 1.35 * sin(a)), (cx + rad * 1.8 * cos(a), cy + rad * 1.8 * sin(a))], peak: 12)
            ray.p = pressureCurve(count: ray.count, base: 0.5, rise: 2, fall: 3, rng: &rng)
            add(ray, ink: pencil)
        }
        // Mountains: a zigzag ridge.
        let groundY = sy + h * 0.85
        var ridge: [(Double, Double)] = [(sx, groundY - h * 0.1)]
        let peaks = rng.int(2...3)
        var peakPoints: [(Double, Double)] = []
        for k in 0..<peaks {
            let px = sx + w * (Double(k) + 0.5) / Double(peaks) * 0.85 + rng.uniform(-0.03, 0.03) * w
            let py = sy + h * rng.uniform(0.25, 0.45)
            peakPoints.append((px, py))
            ridge.append((px - w * 0.02, py + h * 0.03)); ridge.append((px, py)); ridge.append((px + w * 0.03, py + h * 0.04))
            ridge.append((px + w * 0.5 / Double(peaks) * 0.85, groundY - h * rng.uniform(0.08, 0.2)))
        }
        var rt = tracePath(ridge, peak: 22)
        rt.p = pressureCurve(count: rt.count, base: 0.6, wobble: 0.3, rng: &rng)
        add(rt, ink: pencil)
        // Hatching on the right flank of each peak: quick strokes, heavy in the middle.
        for (px, py) in peakPoints {
            let hatches = rng.int(6...10)
            for k in 0..<hatches {
                let f = Double(k + 1) / Double(hatches + 1)
                let hx = px + w * 0.02 + f * w * 0.16, hy = py + h * 0.06 + f * h * 0.3
                let len = h * 0.22 * (1 - f * 0.5)
                var hatch = tracePath([(hx, hy), (hx - len * 0.35, hy + len)], peak: 16)
                hatch.p = pressureCurve(count: hatch.count, base: rng.uniform(0.55, 0.95), rise: hatch.count / 2, fall: hatch.count / 2,
                                        wobble: 0.1, start: 0.05, end: 0.05, rng: &rng)
                add(hatch, ink: pencil)
            }
        }
        var ground = tracePath([(sx - w * 0.02, groundY), (sx + w * 0.5, groundY + rng.uniform(-6, 6)), (sx + w, groundY + rng.uniform(-8, 8))], peak: 26)
        ground.p = pressureCurve(count: ground.count, base: 0.7, wobble: 0.3, rng: &rng)
        add(ground, ink: pencil)
    }

    /// Ordinary notes up to `budget` strokes (or until the page is full).
    mutating func notes(budget: Int, sketches: Bool = true, diagrams: Bool = true) {
        title(words: rng.int(2...4))
        while !full && strokeCount < budget {
            let u = rng.unit()
            if u < 0.55 {
                // A paragraph.
                indent = 0
                x = left + (rng.chance(0.4) ? hand.xHeight * 2 : 0)
                let lines = rng.int(1...5)
                for l in 0..<lines where !full && strokeCount < budget {
                    let words = l == lines - 1 ? rng.int(2...10) : 40
                    let startLine = baseline
                    for _ in 0..<words where !full && strokeCount < budget {
                        word(randomWordLength())
                        if baseline != startLine { break }
                    }
                    if rng.chance(0.12) && !full { highlightCurrentLine() }
                    if baseline == startLine { newLine() }
                }
            } else if u < 0.85 {
                // A bullet list.
                for _ in 0..<rng.int(2...5) where !full && strokeCount < budget {
                    bullet()
                    indent = hand.xHeight * 1.8
                    sentence(words: rng.int(2...7), budget: budget)
                    if rng.chance(0.1) && !full { highlightCurrentLine() }
                    newLine()
                }
                indent = 0
                x = left
            } else if u < 0.93 || !sketches {
                guard diagrams else { continue }
                x = left + hand.xHeight * rng.uniform(1, 4)
                sentence(words: rng.int(1...2))
                if !full { boxAndArrow() }
                sentence(words: rng.int(1...3))
                newLine()
            } else {
                let h = lineSpacing * Double(rng.int(4...6))
                if baseline + h > bottom { newLine(); continue }
                pencilSketch(x: left + (right - left) * rng.uniform(0.05, 0.45), y: baseline - lineSpacing * 0.3,
                             w: (right - left) * rng.uniform(0.35, 0.5), h: h)
                newLine(Int(h / lineSpacing) + 1)
            }
            if !full && rng.chance(0.6) { newLine() }
        }
    }
}
