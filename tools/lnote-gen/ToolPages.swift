// The `highlighter` and `pencil` presets: one page each dominated by one tool, so that the
// raster benchmarks are not tuned to pen ink alone.
//
// - highlighter: 200 wide swipes (radius 6–12 pt, multiply), mostly along text lines, some
//   diagonal, over a little pen writing;
// - pencil: shading — 600 hatching strokes with pressure varying along each, radius near the
//   thin-stroke threshold at thumbnail scale, overlapping in patches.

import Foundation

extension Presets {
    static func highlighter(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "highlighter")
        var (doc, clock) = newDocument(&rng, title: "Highlighter page")
        var page = newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "ruled", spacing: 320))
        var c = Composer(width: page.width, height: page.height, lineSpacing: 320, ink: .pen("#1A1A1A"), rng: rng.fork(1))
        c.notes(budget: 120)
        var elements = c.elements
        let colors = ["#FFE45C", "#FFE45C", "#9BE39B", "#F7A8C8", "#8ED1FC"]
        for k in 0..<(o.strokes ?? 200) {
            let ink = Ink.highlighter(rng.pick(colors) + "99", width: rng.uniform(60, 120))
            let y0 = 400 + Double(rng.int(0...34)) * 320, x0 = rng.uniform(300, 3000)
            let diagonal = k % 7 == 0
            let x1 = min(Double(page.width) - 200, x0 + rng.uniform(1500, 5000))
            let y1 = diagonal ? y0 + rng.uniform(-2000, 2000) : y0 + rng.uniform(-40, 40)
            var tr = tracePath([(x0, y0), ((x0 + x1) / 2, (y0 + y1) / 2 + rng.uniform(-30, 30)), (x1, y1)], peak: 40)
            tr.p = pressureCurve(count: tr.count, base: 0.6, wobble: 0.05, rng: &rng)
            elements.append(.stroke(makeStroke(tr, ink: ink, id: rng.uuid(), rng: &rng)))
        }
        page.elements = elements
        doc.pages = [page]
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }

    static func pencil(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "pencil")
        var (doc, clock) = newDocument(&rng, title: "Pencil shading")
        var page = newPage(&rng, &clock, background: Background(color: "#FBF8EF"))
        var elements: [Element] = []
        let patches = 12
        let perPatch = (o.strokes ?? 600) / patches
        for _ in 0..<patches {
            let cx = rng.uniform(1200, Double(page.width) - 1200), cy = rng.uniform(1200, Double(page.height) - 1200)
            let angle = rng.uniform(0, Double.pi)
            let (ux, uy) = (cos(angle), sin(angle))
            for j in 0..<perPatch {
                // Hatching: parallel strokes across the patch, each a gentle arc.
                let offset = (Double(j) - Double(perPatch) / 2) * rng.uniform(18, 30)
                let half = rng.uniform(500, 1100)
                let px = cx - uy * offset, py = cy + ux * offset
                let a = (px - ux * half, py - uy * half), b = (px + ux * half, py + uy * half)
                let mid = ((a.0 + b.0) / 2 + rng.uniform(-60, 60), (a.1 + b.1) / 2 + rng.uniform(-60, 60))
                var tr = tracePath([a, mid, b], peak: 30)
                tr.p = pressureCurve(count: tr.count, base: rng.uniform(0.25, 0.8), rise: 10, fall: 14, wobble: 0.3, rng: &rng)
                elements.append(.stroke(makeStroke(tr, ink: .pencil("#2B2B2B", width: rng.uniform(8, 14)), id: rng.uuid(), rng: &rng)))
            }
        }
        page.elements = elements
        doc.pages = [page]
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }
}
