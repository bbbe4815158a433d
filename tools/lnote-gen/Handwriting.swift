// Synthesis of plausible stylus data.
//
// Cursive writing follows the oscillation model of handwriting (Hollerbach): the pen
// oscillates vertically between the baseline and the letter top while it drifts right;
// a horizontal oscillation in phase with the vertical one turns the drift into loops.
// Heights, widths and loop sizes change smoothly from letter to letter, so the trace
// stays smooth. Everything is sampled like a stylus: 240 Hz, pressure rising at pen-down
// and tapering at lift-off, radius derived from pressure by the tool's curve, integers
// quantized as the format stores them (x, y, r in 0.1 pt, p in 1/1000, t in ms).

import Foundation

let sampleRate = 240.0

/// Samples in page units (0.1 pt), before quantization. `r` overrides the tool's radius curve.
struct Trace {
    var x: [Double] = []
    var y: [Double] = []
    var p: [Double] = []
    var r: [Double]? = nil

    var count: Int { x.count }

    mutating func translate(_ dx: Double, _ dy: Double) {
        for i in 0..<x.count { x[i] += dx; y[i] += dy }
    }

    var minX: Double { x.min() ?? 0 }
    var maxX: Double { x.max() ?? 0 }
}

/// How a tool turns pressure into a radius, and what tool name is written.
struct Ink {
    enum Curve { case pen, pencil, highlighter }
    var tool: String?
    var curve: Curve
    var color: String
    /// Nominal radius in 0.1 pt.
    var width: Double

    static func pen(_ color: String, width: Double = 16) -> Ink { Ink(tool: "pen", curve: .pen, color: color, width: width) }
    static func pencil(_ color: String = "#2B2B2B", width: Double = 10) -> Ink { Ink(tool: "pencil", curve: .pencil, color: color, width: width) }
    static func highlighter(_ color: String = "#FFE45C", width: Double = 80) -> Ink { Ink(tool: "highlighter", curve: .highlighter, color: color, width: width) }

    func radius(pressure p: Double) -> Double {
        let q = min(max(p, 0), 1)
        switch curve {
        case .pen: return width * (0.35 + 0.65 * pow(q, 0.7))
        case .pencil: return width * (0.8 + 0.25 * q)
        case .highlighter: return width * (0.97 + 0.03 * q)
        }
    }
}

@inline(__always) func smoothstep(_ x: Double) -> Double {
    let t = min(max(x, 0), 1)
    return t * t * (3 - 2 * t)
}

/// Quantizes a trace to a stroke: integers, t at 240 Hz with a little clock jitter.
func makeStroke(_ tr: Trace, ink: Ink, id: String, rng: inout Random) -> Stroke {
    var pts = [Int32]()
    pts.reserveCapacity(tr.count * 5)
    let jitter = rng.uniform(-0.4, 0.4)
    var lastT: Int32 = 0
    for i in 0..<tr.count {
        let p = min(max(tr.p[i], 0), 1)
        let r = tr.r?[i] ?? ink.radius(pressure: p)
        pts.append(clampInt32(tr.x[i].rounded()))
        pts.append(clampInt32(tr.y[i].rounded()))
        pts.append(Int32(max(0, min(100_000, r.rounded()))))
        pts.append(Int32((p * 1000).rounded()))
        var t = i == 0 ? 0 : Int32((Double(i) * 1000 / sampleRate + jitter + rng.uniform(-0.3, 0.3)).rounded())
        if t < lastT { t = lastT }
        lastT = t
        pts.append(t)
    }
    return Stroke(id: id, tool: ink.tool, color: ink.color, points: pts)
}

@inline(__always) func clampInt32(_ v: Double) -> Int32 {
    Int32(max(Double(Int32.min), min(Double(Int32.max), v)))
}

/// A smooth pressure curve: ramps up over the first samples, tapers at the end, and
/// wanders slowly; downstrokes (`vy` > 0, y grows down) press a little harder.
func pressureCurve(count n: Int, base: Double, vy: [Double]? = nil, rise: Int = 6, fall: Int = 8,
                   wobble: Double = 0.12, start: Double = 0.18, end: Double = 0.15,
                   rng: inout Random) -> [Double] {
    var p = [Double](repeating: base, count: n)
    let w1 = rng.uniform(0.04, 0.09), w2 = rng.uniform(0.13, 0.21)
    let ph1 = rng.uniform(0, 6.283), ph2 = rng.uniform(0, 6.283)
    var vscale = 1.0
    if let vy { vscale = max(1e-6, vy.map { abs($0) }.max() ?? 1) }
    for i in 0..<n {
        var v = base * (1 + wobble * sin(ph1 + Double(i) * w1) + wobble * 0.4 * sin(ph2 + Double(i) * w2))
        if let vy { v *= 1 + 0.14 * tanh(2 * vy[i] / vscale) }
        let a = rise > 0 ? start + (1 - start) * smoothstep(Double(i) / Double(rise)) : 1
        let b = fall > 0 ? end + (1 - end) * smoothstep(Double(n - 1 - i) / Double(fall)) : 1
        p[i] = min(1, max(0.01, v * a * b))
    }
    return p
}

// MARK: - Paths (drawn shapes: underlines, highlights, sketches, dots)

/// Samples a smooth path through `points` (Catmull–Rom) the way a hand moves a stylus:
/// a minimum-jerk speed profile (slow at both ends), peaking at `peak` units per sample.
func tracePath(_ points: [(Double, Double)], peak: Double, minSamples: Int = 2) -> Trace {
    var dense: [(Double, Double)] = []
    if points.count == 1 {
        dense = points
    } else {
        let n = points.count
        for i in 0..<(n - 1) {
            let p0 = points[max(0, i - 1)], p1 = points[i], p2 = points[i + 1], p3 = points[min(n - 1, i + 2)]
            for k in 0..<16 {
                let t = Double(k) / 16, t2 = t * t, t3 = t2 * t
                let x = 0.5 * (2 * p1.0 + (-p0.0 + p2.0) * t + (2 * p0.0 - 5 * p1.0 + 4 * p2.0 - p3.0) * t2 + (-p0.0 + 3 * p1.0 - 3 * p2.0 + p3.0) * t3)
                let y = 0.5 * (2 * p1.1 + (-p0.1 + p2.1) * t + (2 * p0.1 - 5 * p1.1 + 4 * p2.1 - p3.1) * t2 + (-p0.1 + 3 * p1.1 - 3 * p2.1 + p3.1) * t3)
                dense.append((x, y))
            }
        }
        dense.append(points[n - 1])
    }
    var cum = [0.0]
    for i in 1..<max(1, dense.count) {
        cum.append(cum[i - 1] + hypot(dense[i].0 - dense[i - 1].0, dense[i].1 - dense[i - 1].1))
    }
    let length = cum.last ?? 0
    // Minimum jerk: peak speed is 1.875 x the average.
    let samples = max(minSamples, Int((length / (peak / 1.875)).rounded()) + 1)
    var tr = Trace()
    tr.x.reserveCapacity(samples); tr.y.reserveCapacity(samples)
    var seg = 0
    for i in 0..<samples {
        let tau = samples == 1 ? 0 : Double(i) / Double(samples - 1)
        let s = length * (tau * tau * tau * (10 - 15 * tau + 6 * tau * tau))
        while seg < dense.count - 2 && cum[seg + 1] < s { seg += 1 }
        if dense.count == 1 { tr.x.append(dense[0].0); tr.y.append(dense[0].1); continue }
        let span = cum[seg + 1] - cum[seg]
        let f = span > 0 ? min(1, max(0, (s - cum[seg]) / span)) : 0
        tr.x.append(dense[seg].0 + (dense[seg + 1].0 - dense[seg].0) * f)
        tr.y.append(dense[seg].1 + (dense[seg + 1].1 - dense[seg].1) * f)
    }
    return tr
}

/// Vertical velocity per sample (for pressure shaping).
func verticalVelocity(_ tr: Trace) -> [Double] {
    let n = tr.count
    var v = [Double](repeating: 0, count: n)
    if n < 2 { return v }
    for i in 0..<n { v[i] = tr.y[min(n - 1, i + 1)] - tr.y[max(0, i - 1)] }
    return v
}

// MARK: - Cursive handwriting

/// One writer's hand.
struct Hand {
    /// x-height in 0.1 pt.
    var xHeight: Double
    /// Horizontal shift per unit of height (right-leaning > 0).
    var slant: Double
    /// Mean advance per letter, in x-heights.
    var letterWidth: Double
    /// Letters per second.
    var rate: Double
    /// Mean ratio of the horizontal oscillation to the drift: above 1 makes loops.
    var loopiness: Double
    var pressure: Double

    static func random(lineSpacing: Double, rng: inout Random) -> Hand {
        Hand(xHeight: lineSpacing * rng.uniform(0.26, 0.32),
             slant: rng.uniform(0.08, 0.3),
             letterWidth: rng.uniform(0.95, 1.3),
             rate: rng.uniform(4.8, 6.2),
             loopiness: rng.uniform(0.9, 1.25),
             pressure: rng.uniform(0.38, 0.62))
    }
}

/// Where a letter was written (for i-dots and t-crosses), in the word's local coordinates.
struct LetterMark { var x: Double; var top: Double }

struct Word {
    var traces: [Trace]
    var letters: [LetterMark]
    var width: Double
}

/// Value of a per-cycle parameter at cycle position `j`, switching smoothly around integers.
@inline(__always)
private func blend(_ v: [Double], _ j: Double) -> Double {
    let k = Int(floor(j))
    let f = j - Double(k)
    let kk = max(0, min(v.count - 1, k))
    if f < 0.25 {
        let prev = v[max(0, min(v.count - 1, k - 1))]
        return prev + (v[kk] - prev) * smoothstep((f + 0.25) / 0.5)
    } else if f > 0.75 {
        let next = v[max(0, min(v.count - 1, k + 1))]
        return v[kk] + (next - v[kk]) * smoothstep((f - 0.75) / 0.5)
    }
    return v[kk]
}

/// One continuous cursive stroke of `letters` letters, starting at (0, 0) on the baseline.
/// With `samples` given, the stroke has exactly that many samples (the writing speed adapts).
func cursiveStroke(letters: Int, hand: Hand, samples: Int? = nil, rng: inout Random) -> (Trace, [LetterMark]) {
    let xh = hand.xHeight
    let cycles = letters + 2
    var tops = [Double](), descs = [Double](), widths = [Double](), loops = [Double](), shifts = [Double]()
    for k in 0..<cycles {
        let u = rng.unit()
        let top = u < 0.22 ? rng.uniform(1.9, 2.5) : (u < 0.32 ? rng.uniform(0.65, 0.85) : rng.uniform(0.92, 1.1))
        tops.append(top * xh)
        descs.append(k > 0 && rng.chance(0.14) ? rng.uniform(0.8, 1.25) * xh : rng.uniform(-0.03, 0.04) * xh)
        widths.append(hand.letterWidth * xh * rng.uniform(0.75, 1.3))
        loops.append(hand.loopiness * rng.uniform(0.55, 1.45) * (top > 1.5 ? 1.25 : 1))
        // Phase of the horizontal oscillation relative to the vertical one: 0 gives
        // upright loops (l, e), around ±0.8 rounder (o, a) or pointed (n, m) letters.
        shifts.append(rng.chance(0.45) ? rng.uniform(-0.2, 0.2) : rng.uniform(0.5, 1.1) * (rng.chance(0.5) ? 1 : -1))
    }
    descs[0] = 0
    let startPhase = rng.uniform(-0.15, 0.05) * Double.pi
    let endPhase = 2 * Double.pi * Double(letters) + rng.uniform(0.25, 0.55) * Double.pi
    let totalPhase = endPhase - startPhase
    let n = max(6, samples ?? Int((totalPhase / (2 * Double.pi) * sampleRate / (hand.rate * rng.uniform(0.9, 1.1))).rounded()))

    // Phase increments: a wandering speed, slower right after pen-down and before lift-off.
    var inc = [Double](repeating: 0, count: n)
    let f1 = rng.uniform(0.05, 0.1), f2 = rng.uniform(0.15, 0.3), p1 = rng.uniform(0, 6.28), p2 = rng.uniform(0, 6.28)
    var sum = 0.0
    for i in 1..<n {
        let edge = Double(min(i, n - i))
        let s = (1 + 0.14 * sin(p1 + f1 * Double(i)) + 0.06 * sin(p2 + f2 * Double(i))) * (0.45 + 0.55 * smoothstep(edge / 6))
        inc[i] = s; sum += s
    }
    var tr = Trace()
    tr.x.reserveCapacity(n); tr.y.reserveCapacity(n)
    var marks: [LetterMark] = []
    var phi = startPhase, x = 0.0
    let twoPi = 2 * Double.pi
    for i in 0..<n {
        let dphi = i == 0 ? 0 : inc[i] / sum * totalPhase
        let mid = phi + dphi / 2
        let jm = mid / twoPi
        let c = blend(widths, jm) / twoPi
        let a = blend(loops, jm) * c
        x += dphi * (c + a * cos(mid + blend(shifts, jm)))
        let before = phi
        phi += dphi
        let j = phi / twoPi
        let top = blend(tops, j), desc = blend(descs, j + 0.5)
        let y = desc - (top + desc) * (1 - cos(phi)) / 2
        // Record each letter's top when the pen passes it (phase crosses 2πk + π).
        let kTop = floor((phi - Double.pi) / twoPi)
        if i > 0 && kTop >= 0 && floor((before - Double.pi) / twoPi) < kTop {
            marks.append(LetterMark(x: x - y * hand.slant, top: top))
        }
        tr.x.append(x - y * hand.slant)
        tr.y.append(y)
    }
    let vy = verticalVelocity(tr)
    tr.p = pressureCurve(count: n, base: hand.pressure, vy: vy, rise: rng.int(4...7), fall: rng.int(5...9), rng: &rng)
    return (tr, marks)
}

/// A word: usually one stroke, sometimes lifted once in the middle, plus i-dots and t-crosses.
func writeWord(letters: Int, hand: Hand, rng: inout Random) -> Word {
    var traces: [Trace] = []
    var marks: [LetterMark] = []
    var parts = [letters]
    if (letters >= 4 && rng.chance(0.3)) || (letters == 3 && rng.chance(0.12)) {
        let cut = letters == 3 ? rng.int(1...2) : rng.int(2...(letters - 2))
        parts = [cut, letters - cut]
    }
    var x = 0.0
    for part in parts {
        var (tr, m) = cursiveStroke(letters: part, hand: hand, rng: &rng)
        let shift = x == 0 ? 0 : x + hand.xHeight * rng.uniform(0.05, 0.25) - tr.minX
        tr.translate(shift, rng.uniform(-0.03, 0.03) * hand.xHeight)
        marks += m.map { LetterMark(x: $0.x + shift, top: $0.top) }
        x = tr.maxX
        traces.append(tr)
    }
    let width = x
    // i-dots over short letters, t-crosses over tall ones.
    for m in marks where rng.chance(0.09) {
        let xh = hand.xHeight
        if m.top < 1.4 * xh {
            let cx = m.x + xh * 0.3 * hand.slant + rng.uniform(-0.1, 0.2) * xh
            let cy = -1.65 * xh + rng.uniform(-0.1, 0.1) * xh
            var dot = tracePath([(cx, cy), (cx + rng.uniform(0.5, 4), cy + rng.uniform(0.5, 3))], peak: 2, minSamples: rng.int(2...5))
            dot.p = pressureCurve(count: dot.count, base: hand.pressure * 0.9, rise: 1, fall: 1, rng: &rng)
            traces.append(dot)
        } else {
            let cy = -1.25 * xh
            let cx = m.x + 1.2 * xh * hand.slant
            let half = xh * rng.uniform(0.45, 0.7)
            var cross = tracePath([(cx - half, cy + rng.uniform(-3, 3)), (cx + half, cy + rng.uniform(-6, 2))], peak: rng.uniform(14, 22), minSamples: 6)
            cross.p = pressureCurve(count: cross.count, base: hand.pressure, rise: 3, fall: 4, rng: &rng)
            traces.append(cross)
        }
    }
    return Word(traces: traces, letters: marks, width: width)
}
