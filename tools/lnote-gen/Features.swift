// The `features` preset: the rendering fixture of the golden-image tests. Each page
// isolates one feature of section 6 of the format; see the comments per page.
// It is always generated from the same default seed unless --seed is given.

import Foundation

extension Presets {
    static func features(_ o: GenOptions) throws -> [WriteStats] {
        var rng = Random(seed: o.seed, salt: "features")
        var (doc, clock) = newDocument(&rng, title: "Rendering features")
        var f = FeatureBuilder(rng: rng.fork(99))

        doc.pages.append(f.toolsPage(newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "blank"))))
        doc.pages.append(f.geometryPage(newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "blank"))))
        let (imagePage, assets) = f.imagesPage(newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "blank")))
        doc.pages.append(imagePage)
        doc.assets = assets
        // (4)-(7): one page per background template.
        doc.pages.append(f.backgroundPage(newPage(&rng, &clock, background: Background(color: "#FFF4D6", template: "blank")), lineSpacing: 320))
        doc.pages.append(f.backgroundPage(newPage(&rng, &clock, background: Background(color: "#FFFDF5", template: "ruled", spacing: 320)), lineSpacing: 320))
        doc.pages.append(f.backgroundPage(newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "grid", spacing: 500, lineColor: "#9FC5B0")), lineSpacing: 500))
        doc.pages.append(f.backgroundPage(newPage(&rng, &clock, background: Background(color: "#FAFAF7", template: "dots", spacing: 400, lineColor: "#3050A080")), lineSpacing: 400))
        doc.pages.append(f.journalPage(newPage(&rng, &clock, background: Background(color: "#FFFFFF", template: "ruled", spacing: 320))))
        finish(&doc, &clock, &rng)
        return [try PackageWriter.write(doc, into: o.out!)]
    }
}

struct FeatureBuilder {
    var rng: Random

    /// A stroke from explicit (x, y, r, p) samples, t at 240 Hz.
    mutating func explicit(_ samples: [(Double, Double, Double, Double)], _ ink: Ink) -> Element {
        var tr = Trace()
        tr.x = samples.map { $0.0 }; tr.y = samples.map { $0.1 }
        tr.r = samples.map { $0.2 }; tr.p = samples.map { $0.3 }
        return .stroke(makeStroke(tr, ink: ink, id: rng.uuid(), rng: &rng))
    }

    mutating func path(_ pts: [(Double, Double)], _ ink: Ink, peak: Double = 24, pressure: Double = 0.5) -> Element {
        var tr = tracePath(pts, peak: peak)
        tr.p = pressureCurve(count: tr.count, base: pressure, rng: &rng)
        return .stroke(makeStroke(tr, ink: ink, id: rng.uuid(), rng: &rng))
    }

    /// A line of handwriting starting at (x, baseline).
    mutating func handwriting(words: Int, x: Double, baseline: Double, ink: Ink, lineSpacing: Double = 320, width: Int = 8340) -> [Element] {
        var c = Composer(width: width, height: 11940, lineSpacing: lineSpacing, ink: ink, rng: rng.fork(7))
        c.baseline = baseline
        c.x = x
        c.sentence(words: words)
        _ = rng.next()
        return c.elements
    }

    // (1) Each tool side by side.
    mutating func toolsPage(_ page: Page) -> Page {
        var p = page
        var e: [Element] = []
        // Pen: handwriting and a heavy loop.
        e += handwriting(words: 6, x: 600, baseline: 1400, ink: .pen("#1A1A1A"))
        e.append(path([(600, 2000), (1400, 1700), (1900, 2300), (1300, 2500), (1100, 2000), (2600, 1800), (3400, 2300)], .pen("#0B5394", width: 30)))
        // Pencil: pressure swinging from 5 % to 100 % along one long wave, then pencil writing.
        var wave: [(Double, Double, Double, Double)] = []
        for i in 0..<420 {
            let u = Double(i) / 419
            let pr = 0.05 + 0.95 * (0.5 - 0.5 * cos(u * 2 * Double.pi * 4))
            wave.append((600 + u * 6800, 3300 + 250 * sin(u * 2 * Double.pi * 3), 14, pr))
        }
        e.append(explicit(wave, .pencil("#2B2B2B", width: 14)))
        e += handwriting(words: 5, x: 600, baseline: 4200, ink: .pencil("#333333", width: 11))
        // Highlighter: text, a highlighter across it, one crossing itself, a translucent one crossing pen ink.
        e += handwriting(words: 7, x: 600, baseline: 5400, ink: .pen("#1A1A1A"))
        e.append(path([(500, 5300), (3000, 5290), (5600, 5310)], .highlighter("#FFE45C", width: 70), peak: 28, pressure: 0.6))
        e.append(path([(1000, 6400), (2200, 5900), (2600, 6700), (1500, 6900), (1400, 6000), (3200, 6200), (4200, 6600)],
                      .highlighter("#7FD3FF", width: 90), peak: 26, pressure: 0.6))
        e.append(path([(4800, 4900), (5000, 5600), (5100, 6500)], .highlighter("#FF9ECF80", width: 100), peak: 26, pressure: 0.6))
        // Pen variants: unknown tool name, no tool at all, lower-case hex, translucent self-overlapping pen.
        var marker = Ink.pen("#B3261E", width: 22); marker.tool = "marker"
        e.append(path([(600, 8000), (1500, 7600), (2200, 8300), (3000, 7700)], marker))
        var noTool = Ink.pen("#1b5e20", width: 18); noTool.tool = nil
        e.append(path([(600, 8800), (1500, 8500), (2200, 9100), (3000, 8600)], noTool))
        e.append(path([(4200, 8200), (5600, 7600), (6400, 8600), (5000, 9200), (4700, 7900), (6600, 7900), (7400, 9000)],
                      .pen("#1E88E580", width: 45), peak: 26, pressure: 0.7))
        p.elements = e
        return p
    }

    // (2) Geometry edge cases.
    mutating func geometryPage(_ page: Page) -> Page {
        var p = page
        var e: [Element] = []
        // Hairlines r = 1...4 (0.1-0.4 pt): below half a pixel at thumbnail scale.
        for (k, r) in [1.0, 2, 3, 4].enumerated() {
            var s: [(Double, Double, Double, Double)] = []
            let y0 = 900 + Double(k) * 300
            for i in 0..<300 { let u = Double(i) / 299; s.append((600 + 7000 * u, y0 + 80 * sin(u * 18), r, 0.5)) }
            e.append(explicit(s, .pen("#1A1A1A")))
        }
        // Single-sample dots of several radii.
        for (k, r) in [5.0, 10, 20, 40, 80, 160].enumerated() {
            e.append(explicit([(800 + Double(k) * 1100, 2600, r, 0.6)], .pen("#0B5394")))
        }
        // Zero radius: strokes tapering to r = 0 at both ends, and a lone zero-radius dot (draws nothing).
        for k in 0..<3 {
            var s: [(Double, Double, Double, Double)] = []
            let n = 60, y0 = 3500 + Double(k) * 400, rmax = [12.0, 30, 60][k]
            for i in 0..<n {
                let u = Double(i) / Double(n - 1)
                s.append((800 + u * 5000, y0 + 150 * sin(u * 5), rmax * sin(u * Double.pi), 0.2 + 0.6 * sin(u * Double.pi)))
            }
            e.append(explicit(s, .pen("#1A1A1A")))
        }
        e.append(explicit([(7000, 3700, 0, 0.5)], .pen("#FF0000")))
        // One huge radius: a cone from r = 30 to r = 2000 (200 pt), translucent.
        e.append(explicit([(1800, 7000, 30, 0.5), (4200, 7000, 2000, 0.9)], .pen("#1E88E540")))
        // Partly off the page (left, bottom, right edges) and wholly off it.
        e.append(path([(-900, 9000), (0, 8800), (900, 9300), (1800, 9000)], .pen("#6A1B9A", width: 30)))
        e.append(path([(6000, 11500), (6500, 11900), (7000, 12600)], .pen("#6A1B9A", width: 30)))
        e.append(path([(7600, 9500), (8340, 9800), (9200, 9600)], .pen("#6A1B9A", width: 30)))
        e.append(path([(9000, 2000), (9800, 2600), (10400, 2200)], .pen("#FF0000", width: 30)))
        e.append(path([(2000, -3000), (3000, -2500), (4000, -2900)], .pen("#FF0000", width: 30)))
        // Coordinates at the ends of the 32-bit range: a nearly horizontal line across the
        // page near y = 1000 pt, and a vertical one from Int32.min to Int32.max through x = 520 pt.
        e.append(explicit([(-2_147_483_000, 10_000, 25, 0.5), (2_147_483_000, 10_400, 25, 0.5)], .pen("#B3261E")))
        e.append(explicit([(5200, -2_147_483_648, 25, 0.5), (5200, 2_147_483_647, 25, 0.5)], .pen("#1B5E20")))
        p.elements = e
        return p
    }

    // (3) Images.
    mutating func imagesPage(_ page: Page) -> (Page, [Asset]) {
        var p = page
        let photoName = rng.uuid() + ".jpg", badgeName = rng.uuid() + ".png", pixelName = rng.uuid() + ".png"
        let assets = [
            Asset(name: photoName, bytes: JPEGWriter.encode(Artwork.photo(width: 1600, height: 1200, seed: 5, fineDetail: true), quality: 80)),
            Asset(name: badgeName, bytes: PNGWriter.encode(Artwork.badge(size: 192))),
            Asset(name: pixelName, bytes: PNGWriter.encode(Artwork.pixelArt())),
        ]
        func image(_ asset: String, _ frame: (Int, Int, Int, Int), rotation: Int = 0, opacity: Int = 1000) -> Element {
            .image(ImageElement(id: rng.uuid(), asset: asset, frame: frame, rotation: rotation, opacity: opacity))
        }
        var e: [Element] = []
        // Photo upright (1600 px into 400 pt: minified 4x at scale 1), highlighter over it.
        e.append(image(photoName, (600, 700, 4000, 3000)))
        e.append(path([(700, 2300), (2600, 2280), (4500, 2320)], .highlighter("#FFE45C", width: 90), peak: 28, pressure: 0.6))
        // Heavily shrunk (1600 px into 80 pt).
        e.append(image(photoName, (5200, 700, 800, 600)))
        // Translucent (opacity 500) over handwriting.
        e += handwriting(words: 4, x: 5300, baseline: 2200, ink: .pen("#1A1A1A"))
        e.append(image(photoName, (5100, 1600, 2600, 1950), opacity: 500))
        // PNG with alpha, rotated 30 degrees clockwise; and upright over a pen line.
        e.append(path([(600, 5200), (3400, 5000), (4000, 6600)], .pen("#0B5394", width: 30)))
        e.append(image(badgeName, (800, 4400, 2400, 2400), rotation: 30000))
        e.append(image(badgeName, (3000, 4600, 900, 900)))
        // A 40x30 asset drawn 10x enlarged.
        e.append(image(pixelName, (4200, 4300, 3600, 2700)))
        // The photo rotated 12 degrees with pen writing over it.
        e.append(image(photoName, (1200, 7800, 3600, 2700), rotation: 12000))
        e += handwriting(words: 5, x: 1400, baseline: 9200, ink: .pen("#FFFFFF", width: 18))
        p.elements = e
        return (p, assets)
    }

    // (4)-(7) A background page with one short line of writing.
    mutating func backgroundPage(_ page: Page, lineSpacing: Double) -> Page {
        var p = page
        p.elements = handwriting(words: 4, x: 800, baseline: lineSpacing * Double(Int(2400 / lineSpacing)), ink: .pen("#1A1A1A"), lineSpacing: min(lineSpacing, 400))
        return p
    }

    // (8) Journal replay: every frame kind, a CRC-corrupted frame, an unknown type, a torn tail.
    mutating func journalPage(_ page: Page) -> Page {
        var p = page
        let ink = Ink.pen("#0B5394", width: 22)
        let bad = Ink.pen("#FF0000", width: 60)  // anything red must not appear after replay
        var snapshot = handwriting(words: 5, x: 800, baseline: 1280, ink: .pen("#1A1A1A"))
        func circle(_ cx: Double, _ cy: Double, _ r: Double) -> [(Double, Double)] {
            (0...12).map { k in let a = Double(k) / 12 * 2 * Double.pi; return (cx + r * cos(a), cy + r * sin(a)) }
        }
        let addTarget = path(circle(1500, 3000, 500), ink)       // replaced in place by an `add` with its id
        let replaceTarget = path([(3000, 2500), (4000, 2500), (4000, 3500), (3000, 3500), (3000, 2500)], ink)
        let deleteTarget = path([(5000, 2500), (6000, 3500)], bad) // deleted
        let keep = path([(6500, 2500), (7500, 2500), (7000, 3500), (6500, 2500)], ink)
        snapshot += [addTarget, replaceTarget, deleteTarget, keep]
        p.elements = snapshot

        func withId(_ e: Element, _ id: String) -> Element {
            guard case .stroke(var s) = e else { return e }
            s.id = id
            return .stroke(s)
        }
        let green = Ink.pen("#1B5E20", width: 26)
        var frames: [JournalFrame] = []
        // add: a new element on top (a tick).
        frames.append(JournalFrame(kind: .add(path([(1000, 5000), (1400, 5500), (2400, 4500)], green))))
        // add with an existing id: replaces the circle in place (now green, smaller, lower).
        frames.append(JournalFrame(kind: .add(withId(path(circle(1500, 3200, 300), green), addTarget.id!))))
        // replace: the square moves down and turns green.
        frames.append(JournalFrame(kind: .replace(withId(path([(3000, 3000), (4000, 3000), (4000, 4000), (3000, 4000), (3000, 3000)], green), replaceTarget.id!))))
        // replace of a missing id: appended.
        frames.append(JournalFrame(kind: .replace(path([(3000, 5000), (4000, 5000), (3500, 5800), (3000, 5000)], green))))
        // delete: the red diagonal disappears.
        frames.append(JournalFrame(kind: .delete(deleteTarget.id!)))
        // delete of a missing id: no-op.
        frames.append(JournalFrame(kind: .delete(rng.uuid())))
        // CRC-corrupted add: discarded.
        frames.append(JournalFrame(kind: .add(path([(800, 7000), (7500, 9000)], bad)), corruptCRC: true))
        // Unknown frame type 7 with a valid element: discarded.
        frames.append(JournalFrame(kind: .unknownType(7, path([(800, 9000), (7500, 7000)], bad))))
        // Zero-length payload: discarded.
        frames.append(JournalFrame(kind: .emptyPayload(1)))
        // Replay continues after damaged frames: a line of writing is added.
        for w in handwriting(words: 3, x: 800, baseline: 6720, ink: green) { frames.append(JournalFrame(kind: .add(w))) }
        // Torn tail: a frame whose length runs past the end of the file.
        frames.append(JournalFrame(kind: .add(path([(800, 10000), (7500, 11000)], bad)), tornBytes: 40))
        p.journal = frames
        return p
    }
}
