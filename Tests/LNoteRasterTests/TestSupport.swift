import Foundation

import LNoteFormat
@testable import LNoteRaster
import LNoteTestSupport

/// Builds a stroke from (x, y, r, p) samples given in pixels at `scale` (converted to 0.1 pt).
func strokeFromPixels(_ samples: [(Double, Double, Double, Int)], scale: Double, tool: Tool = .pen,
                      color: Color = Color(r: 0, g: 0, b: 0)) -> Stroke {
    var pts: [Int32] = []
    for (i, s) in samples.enumerated() {
        func q(_ v: Double) -> Int32 { Int32(max(Double(Int32.min), min(Double(Int32.max), (v * 10 / scale).rounded()))) }
        pts += [q(s.0), q(s.1), max(0, min(100000, q(s.2))), Int32(s.3), Int32(i * 4)]
    }
    return Stroke(tool: tool, color: color, points: pts)
}

/// Randomized test strokes of several kinds on a `size` × `size` pixel canvas.
enum StrokeKind: CaseIterable {
    case handwriting, sharpTurns, doublingBack, loop, thin, huge, single, zeroRadius, offPage, pencil, tiny
}

func randomStroke(_ kind: StrokeKind, rng: inout SeededRNG, scale: Double, size: Double) -> Stroke {
    var s: [(Double, Double, Double, Int)] = []
    let c = size / 2
    switch kind {
    case .handwriting, .pencil:
        // A smooth curve: velocity turning smoothly, radius following a pressure curve.
        var x = rng.range(0.2, 0.8) * size, y = rng.range(0.2, 0.8) * size
        var ang = rng.range(0, 6.283), turn = rng.range(-0.3, 0.3)
        let n = Int(rng.range(20, 90))
        let step = rng.range(0.3, 1.5)
        let rBase = rng.range(0.8, 4.0)
        for i in 0..<n {
            let p = Int(500 + 450 * sin(Double(i) * 0.15 + rng.range(0, 0.2)))
            s.append((x, y, rBase * (0.6 + 0.4 * Double(p) / 1000), p))
            turn += rng.range(-0.08, 0.08); turn = max(-0.35, min(0.35, turn))
            ang += turn
            x += step * cos(ang); y += step * sin(ang)
        }
    case .sharpTurns:
        let n = Int(rng.range(3, 8))
        for _ in 0..<n { s.append((rng.range(0.1, 0.9) * size, rng.range(0.1, 0.9) * size, rng.range(0.6, 6), 800)) }
    case .doublingBack:
        let a = (rng.range(0.2, 0.8) * size, rng.range(0.2, 0.8) * size)
        let b = (rng.range(0.2, 0.8) * size, rng.range(0.2, 0.8) * size)
        let r = rng.range(1, 5)
        s = [(a.0, a.1, r, 500), (b.0, b.1, r * rng.range(0.5, 1.5), 500), (a.0 + rng.range(-2, 2), a.1 + rng.range(-2, 2), r, 500)]
    case .loop:
        let r0 = rng.range(0.15, 0.35) * size
        let n = Int(rng.range(20, 60))
        let rad = rng.range(0.7, 4)
        for i in 0...n {
            let t = Double(i) / Double(n) * 6.283 * 1.3
            s.append((c + r0 * cos(t) + Double(i) * 0.2, c + r0 * 0.6 * sin(2 * t), rad, 600))
        }
    case .thin:
        let n = Int(rng.range(5, 40))
        var x = rng.range(0.2, 0.8) * size, y = rng.range(0.2, 0.8) * size
        let dx = rng.range(-2, 2), dy = rng.range(-2, 2)
        for i in 0..<n {
            s.append((x, y, rng.range(0.0, 0.7) * (i == 0 || i == n - 1 ? 0.3 : 1), 500))
            x += dx + rng.range(-0.5, 0.5); y += dy + rng.range(-0.5, 0.5)
        }
    case .huge:
        // A disc of radius far beyond the canvas whose edge crosses it.
        let r = rng.range(200, 3000)
        let ang = rng.range(0, 6.283)
        let d = r + rng.range(-0.3, 0.3) * size
        let cx: Double = c + d * cos(ang)
        let cy: Double = c + d * sin(ang)
        s = [(cx, cy, r, 500)]
        if rng.unit() < 0.5 {
            let r2: Double = r * rng.range(0.98, 1.02)
            s.append((cx + rng.range(-40, 40), cy + rng.range(-40, 40), r2, 500))
        }
    case .single:
        s = [(rng.range(0, size), rng.range(0, size), rng.range(0.2, 8), 500)]
    case .zeroRadius:
        let n = Int(rng.range(2, 12))
        var x = rng.range(0.2, 0.8) * size, y = rng.range(0.2, 0.8) * size
        for i in 0..<n {
            s.append((x, y, i % 3 == 0 ? 0 : rng.range(0.0, 3), 500))
            x += rng.range(-4, 4); y += rng.range(-4, 4)
        }
    case .offPage:
        // Endpoints near the edges of the Int32 range in page units; the segment crosses the canvas.
        let far = 2.0e9 * scale / 10
        let ang = rng.range(0, 6.283)
        let ox = c + rng.range(-0.3, 0.3) * size, oy = c + rng.range(-0.3, 0.3) * size
        let r = rng.range(0.3, 6)
        s = [(ox - far * cos(ang), oy - far * sin(ang), r, 500), (ox + far * cos(ang), oy + far * sin(ang), r, 500)]
    case .tiny:
        let n = Int(rng.range(2, 10))
        var x = rng.range(0.2, 0.8) * size, y = rng.range(0.2, 0.8) * size
        for _ in 0..<n {
            s.append((x, y, rng.range(0.05, 0.5), Int(rng.range(0, 1000))))
            x += rng.range(-0.6, 0.6); y += rng.range(-0.6, 0.6)
        }
    }
    let tool: Tool = kind == .pencil || (kind == .tiny && rng.unit() < 0.5) ? .pencil : .pen
    if tool == .pencil {
        for i in s.indices { s[i].3 = Int(rng.range(0, 1000)) * (i % 7 == 0 ? 0 : 1) + (i % 7 == 0 ? Int(rng.range(0, 1000)) : 0) }
    }
    return strokeFromPixels(s, scale: scale, tool: tool)
}

struct ErrorStats: CustomStringConvertible {
    var touched = 0
    var sumAbs = 0.0
    var over32 = 0
    var maxErr = 0.0
    var worstIndex = -1

    mutating func add(fast: [Float], reference: [Float]) {
        for i in fast.indices where fast[i] > 1e-6 || reference[i] > 1e-6 {
            let e = abs(Double(fast[i]) - Double(reference[i]))
            touched += 1
            sumAbs += e
            if e > 1.0 / 32 { over32 += 1 }
            if e > maxErr { maxErr = e; worstIndex = i }
        }
    }
    var mean: Double { touched == 0 ? 0 : sumAbs / Double(touched) }
    var fractionOver32: Double { touched == 0 ? 0 : Double(over32) / Double(touched) }
    var description: String {
        "pixels \(touched), mean \(String(format: "%.5f", mean)), >1/32 \(String(format: "%.3f%%", 100 * fractionOver32)), max \(String(format: "%.4f", maxErr))"
    }
}
