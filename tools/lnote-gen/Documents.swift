// Multi-page presets: doc200, library, sample. They share one generator of ordinary
// pages with varied density, paper, ink, occasional images and journals.

import Foundation

extension Presets {
    /// Shared image assets of a document (photo-like JPEGs and an RGBA PNG).
    static func documentAssets(_ rng: inout Random, photos: Int) -> [Asset] {
        var assets: [Asset] = []
        for k in 0..<photos {
            let px = Artwork.photo(width: 800, height: 600, seed: rng.next(), fineDetail: k == 0)
            assets.append(Asset(name: rng.uuid() + ".jpg", bytes: JPEGWriter.encode(px, quality: 80)))
        }
        assets.append(Asset(name: rng.uuid() + ".png", bytes: PNGWriter.encode(Artwork.badge(size: 96))))
        return assets
    }

    static func randomBackground(_ rng: inout Random) -> Background {
        let u = rng.unit()
        let color = rng.pick(paperColors)
        if u < 0.45 { return Background(color: color, template: "ruled", spacing: rng.pick([280, 320, 320, 320, 360])) }
        if u < 0.65 { return Background(color: color, template: "grid", spacing: rng.pick([200, 250, 320, 400]),
                                         lineColor: rng.chance(0.3) ? rng.pick(["#D5E3D0", "#E0C8C8", "#B8C4D8"]) : nil) }
        if u < 0.85 { return Background(color: color, template: "dots", spacing: rng.pick([300, 320, 400, 500]),
                                         lineColor: rng.chance(0.3) ? "#9AA5B8" : nil) }
        return rng.chance(0.5) ? Background(color: color, template: "blank") : Background()
    }

    /// One ordinary page: notes of `budget` strokes; optionally an image and a journal.
    static func ordinaryPage(_ page: Page, budget: Int, assets: [Asset], withImage: Bool, withJournal: Bool, rng: Random) -> Page {
        var rng = rng
        var p = page
        let bg = p.background
        let spacing = Double(bg?.template == "ruled" ? (bg?.spacing ?? 320) : 320)
        var c = Composer(width: p.width, height: p.height, lineSpacing: spacing, ink: .pen(rng.pick(inkColors), width: rng.uniform(13, 19)),
                         rng: rng.fork(1))
        if withImage, let asset = assets.first(where: { $0.name.hasSuffix(".jpg") }) ?? assets.first {
            // Notes around a pasted photo in the lower half.
            c.notes(budget: budget / 2, sketches: false)
            let w = Int(rng.uniform(0.4, 0.7) * Double(p.width)), h = w * 3 / 4
            let frame = (Int(rng.uniform(0.08, 0.2) * Double(p.width)), Int(rng.uniform(0.55, 0.62) * Double(p.height)), w, h)
            let rotation = rng.chance(0.3) ? rng.int(-4000...4000) : 0
            c.elements.append(.image(ImageElement(id: rng.uuid(), asset: asset.name, frame: frame, rotation: rotation)))
            if let png = assets.first(where: { $0.name.hasSuffix(".png") }), rng.chance(0.5) {
                c.elements.append(.image(ImageElement(id: rng.uuid(), asset: png.name,
                                                      frame: (frame.0 + w - 400, frame.1 - 300, 700, 700), opacity: 850)))
            }
        } else {
            c.notes(budget: budget, sketches: bg?.template != "ruled" || rng.chance(0.3))
        }
        p.elements = c.elements
        if withJournal { p.journal = editsJournal(p, composer: &c, rng: &rng) }
        return p
    }

    /// A journal of realistic edits after the last save: a few words added, a stroke moved,
    /// a stroke erased, and (sometimes) a torn tail from a crash during the last append.
    static func editsJournal(_ page: Page, composer c: inout Composer, rng: inout Random) -> [JournalFrame] {
        var frames: [JournalFrame] = []
        let before = c.elements.count
        if !c.full {
            c.newLine()
            c.sentence(words: rng.int(1...4))
        }
        for e in c.elements[before...] { frames.append(JournalFrame(kind: .add(e))) }
        let strokes = page.elements.compactMap { e -> Stroke? in if case .stroke(let s) = e { return s } else { return nil } }
        if strokes.count > 4 {
            var moved = strokes[rng.int(0...(strokes.count - 1))]
            let dx = Int32(rng.int(-300...300)), dy = Int32(rng.int(-200...200))
            for i in stride(from: 0, to: moved.points.count, by: 5) { moved.points[i] += dx; moved.points[i + 1] += dy }
            frames.append(JournalFrame(kind: .replace(.stroke(moved))))
            frames.append(JournalFrame(kind: .delete(strokes[rng.int(0...(strokes.count - 1))].id)))
        }
        if rng.chance(0.3), let last = frames.first {
            var torn = last
            torn.tornBytes = rng.int(3...30)
            frames.append(torn)
        }
        return frames
    }

    // MARK: doc200

    static func doc200(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "doc200")
        let pageCount = o.pages ?? 200
        let mean = Double(o.strokes ?? 130)
        var (doc, clock) = newDocument(&rng, title: "Semester notebook")
        doc.assets = documentAssets(&rng, photos: 2)
        for k in 0..<pageCount {
            var prng = rng.fork(UInt64(k))
            let page = newPage(&prng, &clock, background: randomBackground(&prng))
            let budget = max(3, min(600, Int(mean * exp(0.6 * prng.gaussian() - 0.18))))
            doc.pages.append(ordinaryPage(page, budget: budget, assets: doc.assets,
                                          withImage: k % 40 == 7, withJournal: prng.chance(0.1), rng: prng.fork(2)))
        }
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }

    // MARK: library

    static func library(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "library")
        var results: [WriteStats] = []
        var used = Set<String>()
        for d in 0..<(o.pages ?? 6) {
            var drng = rng.fork(UInt64(d))
            var title = "\(drng.pick(titles)) \(drng.int(1...12))"
            // 18 titles × 20 numbers run out at 360 documents; past that (a library-scale
            // run), the document's number makes the title unique.
            var tries = 0
            while used.contains(title) {
                tries += 1
                title = tries < 100 ? "\(drng.pick(titles)) \(drng.int(1...20))" : "\(title) (\(d + 1))"
            }
            used.insert(title)
            var (doc, clock) = newDocument(&drng, title: title)
            let pages = drng.int(1...5)
            let images = d % 2 == 1
            if images { doc.assets = documentAssets(&drng, photos: 1) }
            for k in 0..<pages {
                var prng = drng.fork(UInt64(k))
                let page = newPage(&prng, &clock, background: randomBackground(&prng))
                doc.pages.append(ordinaryPage(page, budget: prng.int(20...220), assets: doc.assets,
                                              withImage: images && k == pages - 1, withJournal: (d + k) % 3 == 0, rng: prng.fork(2)))
            }
            finish(&doc, &clock, &drng)
            results.append(try PackageWriter.write(doc, into: o.out!))
        }
        return results
    }

    // MARK: sample

    /// The README demo: handwriting on ruled paper with a highlighter mark and a pencil sketch,
    /// a dots page with a small diagram, and a page with a photo.
    static func sample(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "sample")
        var (doc, clock) = newDocument(&rng, title: "Field trip notes")
        let photo = Artwork.photo(width: 640, height: 480, seed: 11, fineDetail: false)
        doc.assets = [Asset(name: rng.uuid() + ".jpg", bytes: JPEGWriter.encode(photo, quality: 82))]

        // Page 1: ruled notes, highlighted line, pencil sketch.
        var p1 = newPage(&rng, &clock, background: Background(color: "#FFFDF5", template: "ruled", spacing: 320))
        var c = Composer(width: p1.width, height: p1.height, lineSpacing: 320, ink: .pen("#0B5394", width: 16), rng: rng.fork(1))
        c.title(words: 3)
        c.sentence(words: 8)
        c.highlightCurrentLine(color: "#FFE45C")
        c.newLine()
        c.sentence(words: 20)
        c.newLine(2)
        c.pencilSketch(x: c.left + 300, y: c.baseline - 200, w: 4200, h: 1700)
        c.newLine(7)
        for _ in 0..<3 { c.bullet(); c.indent = c.hand.xHeight * 1.8; c.sentence(words: c.rng.int(3...6)); c.newLine() }
        c.indent = 0
        c.newLine()
        c.sentence(words: 30)
        p1.elements = c.elements

        // Page 2: dots, a boxed diagram, a few lines.
        var p2 = newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "dots", spacing: 320))
        var d = Composer(width: p2.width, height: p2.height, lineSpacing: 320, ink: .pen("#1A1A1A", width: 15), rng: rng.fork(2))
        d.title(words: 2)
        for _ in 0..<3 {
            d.x = d.left + 400; d.sentence(words: 2); d.boxAndArrow(); d.sentence(words: 2); d.newLine(2)
        }
        d.sentence(words: 18)
        d.highlightCurrentLine(color: "#9BE58F")
        p2.elements = d.elements

        // Page 3: a photo with a caption and an arrow.
        var p3 = newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "blank"))
        var e = Composer(width: p3.width, height: p3.height, lineSpacing: 320, ink: .pen("#1A1A1A", width: 15), rng: rng.fork(3))
        e.title(words: 2)
        e.elements.append(.image(ImageElement(id: e.rng.uuid(), asset: doc.assets[0].name, frame: (900, 1700, 5600, 4200), rotation: -2000)))
        e.baseline = 6700
        e.x = e.left + 300
        e.sentence(words: 6)
        e.highlightCurrentLine(color: "#FF9ECF")
        p3.elements = e.elements

        doc.pages = [p1, p2, p3]
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }
}
