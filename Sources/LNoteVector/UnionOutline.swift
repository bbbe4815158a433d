import LNoteShape

/// A stroke's outline as the boundary of the union of its pieces: loops no two of which cover
/// the same point, for strokes whose `OutlineBuilder` runs break at most joints
/// (`OutlineBuilder.unionBreakDensity`).
///
/// Why: a viewer that accumulates coverage per path (PDFium, whose AGG rasterizer adds the
/// signed areas of every sub-path in a pixel and clamps the sum at 1) draws an edge pixel that
/// two overlapping sub-paths both cut with the sum of their coverages. Pen strokes of real
/// handwriting turn by 45–90° between samples a fraction of a pixel apart (quantized input),
/// so `OutlineBuilder` breaks its runs at nearly every joint and the edges of a line are cut
/// by two or three sub-paths each: +26 % ink in PDFium's worst 64-px tile at 72 dpi on the
/// real-notebook sample's pen page, where poppler and MuPDF (exact winding per sample) agree
/// with the PNG export.
///
/// How: the signed distance to the union — the smallest signed distance to a piece's hull
/// (two discs and their outer tangents, the shape of spec §6) — is sampled at the corners of a
/// square grid of spacing `spacing(for:)`, and its zero contour is traced by marching squares
/// (crossings interpolated linearly along cell edges, a saddle resolved by its centre's sign).
/// Each loop is then simplified within `simplifyTolerance`. Outer loops and holes come out
/// with opposite orientations, so the nonzero rule fills the union once.
///
/// Error, inward: a chord between two crossings lies at most (√2·h)²/(8r) inside an arc of
/// radius r (h the spacing), which `spacing(for:)` keeps at `chordTolerance`; a crossing
/// interpolated linearly on the (convex) distance lies up to h²/(8r), half that, inside the
/// boundary; simplification adds `simplifyTolerance` and the vector grid half a step (0.025
/// px): about 0.085 px at most, 0.045 px of it from the tracing. Outward: where two pieces meet
/// at a concave crease a cell's chord cuts the corner, a triangle of at most h²/4 per crease.
///
/// Cost is bounded: the grid is stored in 16 × 16-corner tiles allocated only where a piece
/// reaches, and a stroke whose pieces would need more than `maxCorners` corner evaluations,
/// `maxTiles` tiles or a tile grid over `maxTileGrid`, or more than the page has left of
/// `maxCornersPerPage`, is left to `OutlineBuilder` (`write` returns false).
struct UnionOutline {
    /// Largest distance (reference pixels) a chord of the traced contour lies inside an arc:
    /// 0.03 px at 144 dpi. (Measured on the dense page with every broken stroke traced: 0.02
    /// gave MuPDF 46.6 dB and 0.05 gave 44.3 dB against the PNG export.)
    static let chordTolerance: Double = 0.03
    /// Largest distance (reference pixels) a simplified loop's edge lies from the traced
    /// vertices it replaces.
    static let simplifyTolerance: Double = 0.015
    /// Corner evaluations (summed over the pieces' boxes, a cell to spare on each side) above
    /// which a stroke is left to `OutlineBuilder`: at most about 50 ms of work.
    static let maxCorners = 8_000_000
    /// Corner evaluations a page may spend on all its strokes (`beginPage()` starts a page's
    /// count), as `maxCorners` counts them (an upper bound): 0.11 s in the test
    /// `aPageSpendsABoundedWorkOnUnions`. The strokes after that keep their runs, so a page of
    /// many costly strokes (the vector export has no raster-work budget: its other costs are
    /// linear in the samples) cannot stall a server.
    static let maxCornersPerPage = 50_000_000
    /// Tiles (of 256 corners: 1.25 KB, and up to 2 KB of cells listed in `starts`) a stroke
    /// may allocate, and the size of the tile grid over its box (4 bytes an entry): the memory
    /// bounds of one stroke, about 60 MB at most (pieces spread thinly over a large box would
    /// otherwise allocate a tile each within `maxCorners`).
    static let maxTiles = 16384
    static let maxTileGrid = 1 << 20

    /// Grid spacing (reference pixels) for pieces whose smallest radius is `radius`: the
    /// largest whose chords stay within `chordTolerance` of an arc of that radius, between
    /// 0.05 and 0.5 px (0.35 px for a 1-px radius, the dense page's pen).
    static func spacing(for radius: Double) -> Double {
        min(0.5, max(0.05, (4 * radius * chordTolerance).squareRoot()))
    }

    private static let tileShift = 4
    private static let tileSide = 1 << tileShift
    private static let tileArea = tileSide * tileSide

    /// Corner values, `tileArea` per allocated tile.
    private var values: [Float] = []
    /// Per cell (indexed by its top-left corner, as `values`): bit k set once a traced loop's
    /// segment starting on the cell's edge k has been written (see `trace`).
    private var visited: [UInt8] = []
    /// Tile grid (row-major, `tilesX` wide) → index of its tile in `values`, or −1.
    private var tileOf: [Int32] = []
    /// The tile-grid entries allocated for the current stroke (to reset them).
    private var allocated: [Int] = []
    private var tilesX = 0, tilesY = 0
    /// Corners of the current grid; its origin and spacing (reference pixels).
    private var cornersX = 0, cornersY = 0
    private var ox = 0.0, oy = 0.0, h = 0.0
    /// The loop being traced, on the vector grid.
    private var loop: [(x: Int, y: Int)] = []
    /// Cells whose corners differ in sign (or lie on a tile's edge), in tile order.
    private var starts: [SIMD2<Int32>] = []
    private var kept: [(x: Int, y: Int)] = []

    /// Corner evaluations spent on this page so far.
    private var spent = 0.0

    /// Starts a page's count of work (`maxCornersPerPage`).
    mutating func beginPage() { spent = 0 }

    /// Writes the boundary of the union of `pieces` as closed sub-paths into `path`; false
    /// (nothing written) when the stroke is too costly to trace (`maxCorners`, `maxTiles`,
    /// `maxTileGrid`, or what is left of `maxCornersPerPage`).
    mutating func write(_ pieces: [ShapePiece], into path: inout PathText) -> Bool {
        guard let first = pieces.first else { return true }
        var b = (x0: first.minX, y0: first.minY, x1: first.maxX, y1: first.maxY)
        var rmin = Double.infinity
        for p in pieces {
            b.x0 = min(b.x0, p.minX); b.y0 = min(b.y0, p.minY); b.x1 = max(b.x1, p.maxX); b.y1 = max(b.y1, p.maxY)
            // The thin end of a tapering piece sets the spacing too (its cap is traced); a
            // piece whose larger disc holds the other is that disc.
            let nested = p.outerTangents(tolerance: 0) == nil
            rmin = min(rmin, nested ? max(p.r0, p.r1) : min(p.r0, p.r1))
        }
        guard rmin.isFinite, rmin > 0 else { return false }
        h = Self.spacing(for: rmin)
        var work = 0.0
        for p in pieces { work += ((p.maxX - p.minX) / h + 3) * ((p.maxY - p.minY) / h + 3) }
        guard work <= Double(Self.maxCorners), spent + work <= Double(Self.maxCornersPerPage) else { return false }
        spent += work
        // Two empty cells around the box, so every loop closes inside the grid.
        ox = b.x0 - 2 * h; oy = b.y0 - 2 * h
        cornersX = Int(((b.x1 - ox) / h).rounded(.up)) + 3
        cornersY = Int(((b.y1 - oy) / h).rounded(.up)) + 3
        tilesX = (cornersX + Self.tileSide - 1) >> Self.tileShift
        tilesY = (cornersY + Self.tileSide - 1) >> Self.tileShift
        guard tilesX * tilesY <= Self.maxTileGrid else { return false }
        if tileOf.count < tilesX * tilesY { tileOf = [Int32](repeating: -1, count: tilesX * tilesY) }
        defer {
            for t in allocated { tileOf[t] = -1 }
            allocated.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true)
            visited.removeAll(keepingCapacity: true)
        }
        for p in pieces where !splat(p) { return false }
        traceAll(into: &path)
        return true
    }

    // MARK: - Distances

    /// Signed distance (reference pixels, negative inside) from (x, y) to the hull of a piece:
    /// the nearer of its discs where the point lies beyond a tangent segment's ends, else the
    /// distance to the tangent line on the point's side. (The normals at the tangent points
    /// split the plane into the regions whose nearest boundary point is on a disc or on a
    /// tangent.) A piece one of whose discs holds the other is its larger disc.
    private struct Hull {
        let x0: Double, y0: Double, r0: Double, x1: Double, y1: Double, r1: Double
        /// Unit axis u, the tangent normal's components along u (c) and across it (s), and the
        /// tangent segments' length d·s (zeros for a nested piece).
        let ux: Double, uy: Double, c: Double, s: Double, span: Double
        let nested: Bool

        init(_ p: ShapePiece) {
            x1 = p.x1; y1 = p.y1; r1 = p.r1
            if let t = p.outerTangents(tolerance: 0) {
                x0 = p.x0; y0 = p.y0; r0 = p.r0
                ux = t.ux; uy = t.uy
                // The left normal c·u + s·u⊥ read back in (u, u⊥).
                c = t.lx * t.ux + t.ly * t.uy
                s = t.ly * t.ux - t.lx * t.uy
                span = OutlineBuilder.edgeLength(p)
                nested = false
            } else {
                // The larger disc, in slot 0.
                (x0, y0, r0) = p.r1 > p.r0 ? (p.x1, p.y1, p.r1) : (p.x0, p.y0, p.r0)
                ux = 0; uy = 0; c = 0; s = 0; span = 0
                nested = true
            }
        }

        @inline(__always) func distance(_ x: Double, _ y: Double) -> Double {
            let px = x - x0, py = y - y0
            if nested { return (px * px + py * py).squareRoot() - r0 }
            let a = px * ux + py * uy                 // along the axis
            let b = abs(px * uy - py * ux)            // across it, on the point's side
            let w = a * s - b * c                     // along the tangent, from disc 0's tangent point
            if w < 0 { return (px * px + py * py).squareRoot() - r0 }
            if w > span { let qx = x - x1, qy = y - y1; return (qx * qx + qy * qy).squareRoot() - r1 }
            return a * c + b * s - r0
        }
    }

    /// Lowers the corner values within a spacing of the piece's box to its distance; false
    /// when that needs more than `maxTiles` tiles. (A corner farther than a spacing from every
    /// piece neighbours no inside corner, so its value, +∞, only has to be positive.)
    private mutating func splat(_ p: ShapePiece) -> Bool {
        let hull = Hull(p)
        let i0 = max(0, Int(((p.minX - ox) / h - 1).rounded(.up)))
        let i1 = min(cornersX - 1, Int(((p.maxX - ox) / h + 1).rounded(.down)))
        let j0 = max(0, Int(((p.minY - oy) / h - 1).rounded(.up)))
        let j1 = min(cornersY - 1, Int(((p.maxY - oy) / h + 1).rounded(.down)))
        guard i0 <= i1, j0 <= j1 else { return true }
        let side = Self.tileSide, shift = Self.tileShift
        let deep = Float(-h)
        for tj in (j0 >> shift)...(j1 >> shift) {
            for ti in (i0 >> shift)...(i1 >> shift) {
                guard let base = tile(ti, tj) else { return false }
                let ja = max(j0, tj << shift), jb = min(j1, (tj << shift) + side - 1)
                let ia = max(i0, ti << shift), ib = min(i1, (ti << shift) + side - 1)
                values.withUnsafeMutableBufferPointer { v in
                    for j in ja...jb {
                        let y = oy + Double(j) * h
                        let row = base + (j & (side - 1)) << shift
                        for i in ia...ib {
                            let k = row + (i & (side - 1))
                            // A corner already more than a spacing inside cannot neighbour an
                            // outside one (the distance changes by at most h per step), so
                            // only its sign matters: no need to lower it further.
                            if v[k] <= deep { continue }
                            let d = Float(hull.distance(ox + Double(i) * h, y))
                            if d < v[k] { v[k] = d }
                        }
                    }
                }
            }
        }
        return true
    }

    /// The offset in `values` of tile (ti, tj), allocated (all corners outside) if new; nil
    /// when `maxTiles` are already allocated.
    private mutating func tile(_ ti: Int, _ tj: Int) -> Int? {
        let t = tj * tilesX + ti
        if tileOf[t] >= 0 { return Int(tileOf[t]) * Self.tileArea }
        guard allocated.count < Self.maxTiles else { return nil }
        let slot = values.count / Self.tileArea
        tileOf[t] = Int32(slot)
        allocated.append(t)
        values.append(contentsOf: repeatElement(Float.infinity, count: Self.tileArea))
        visited.append(contentsOf: repeatElement(0, count: Self.tileArea))
        return slot * Self.tileArea
    }

    /// Offset of corner (i, j) in `values`, or nil where no piece reached (outside).
    @inline(__always) private func offset(_ i: Int, _ j: Int) -> Int? {
        guard i >= 0, j >= 0, i < cornersX, j < cornersY else { return nil }
        let t = tileOf[(j >> Self.tileShift) * tilesX + (i >> Self.tileShift)]
        guard t >= 0 else { return nil }
        return Int(t) * Self.tileArea + (j & (Self.tileSide - 1)) << Self.tileShift + (i & (Self.tileSide - 1))
    }

    @inline(__always) private func value(_ i: Int, _ j: Int) -> Float {
        guard let k = offset(i, j) else { return .infinity }
        return values[k]
    }

    // MARK: - Marching squares

    // A cell's corners in order: 0 (i, j), 1 (i+1, j), 2 (i+1, j+1), 3 (i, j+1); edge k joins
    // corner k to corner k+1. Going round the cell in that order, a crossing from an inside
    // corner to an outside one is where a loop's segment in this cell starts; it ends at a
    // crossing from outside to inside. A neighbour goes round their shared edge the other way,
    // so the crossing where a segment ends here is where the neighbour's segment starts.

    /// Bits of the cell's inside corners (bit k: corner k) and their values.
    @inline(__always) private func cell(_ i: Int, _ j: Int) -> (mask: Int, v: SIMD4<Float>) {
        let v = SIMD4(value(i, j), value(i + 1, j), value(i + 1, j + 1), value(i, j + 1))
        var mask = 0
        for k in 0..<4 where v[k] < 0 { mask |= 1 << k }
        return (mask, v)
    }

    /// The edge where the segment that starts on edge `e` of a cell (corner e inside, corner
    /// e+1 outside) ends: the next edge round the cell that goes from outside to inside; in a
    /// saddle (two opposite corners inside), the one that joins the inside corners through the
    /// centre when the centre is inside, else the one that cuts corner e off.
    @inline(__always) private static func exit(from e: Int, mask: Int, v: SIMD4<Float>) -> Int {
        if mask == 0b0101 || mask == 0b1010 {
            let centre = (v[0] + v[1] + v[2] + v[3]) / 4
            return centre < 0 ? (e + 1) & 3 : (e + 3) & 3
        }
        var k = (e + 1) & 3
        while !(mask & (1 << k) == 0 && mask & (1 << ((k + 1) & 3)) != 0) { k = (k + 1) & 3 }
        return k
    }

    /// The crossing on edge `k` of cell (i, j), on the vector grid. Computed from the edge's
    /// left or top corner whichever cell asks, so both neighbours get the same point.
    @inline(__always) private func crossing(_ i: Int, _ j: Int, edge k: Int) -> (x: Int, y: Int) {
        // The edge as (corner a, corner b) left to right or top to bottom.
        let (ai, aj, horizontal): (Int, Int, Bool)
        switch k {
        case 0: (ai, aj, horizontal) = (i, j, true)
        case 1: (ai, aj, horizontal) = (i + 1, j, false)
        case 2: (ai, aj, horizontal) = (i, j + 1, true)
        default: (ai, aj, horizontal) = (i, j, false)
        }
        let va = Double(value(ai, aj))
        let vb = Double(horizontal ? value(ai + 1, aj) : value(ai, aj + 1))
        let t = va.isFinite && vb.isFinite ? min(1, max(0, va / (va - vb))) : (va.isFinite ? 1 : 0)
        let x = ox + (Double(ai) + (horizontal ? t : 0)) * h
        let y = oy + (Double(aj) + (horizontal ? 0 : t)) * h
        return (VectorGrid.grid(x), VectorGrid.grid(y))
    }

    /// Traces every loop: the cells whose corners differ in sign are found first (inside a
    /// tile straight from its values), then each loop is followed from the first of its cells.
    private mutating func traceAll(into path: inout PathText) {
        starts.removeAll(keepingCapacity: true)
        let side = Self.tileSide, shift = Self.tileShift
        for t in allocated {
            let ti = t % tilesX, tj = t / tilesX
            let base = Int(tileOf[t]) * Self.tileArea
            let iMax = min(side, cornersX - 1 - (ti << shift)), jMax = min(side, cornersY - 1 - (tj << shift))
            values.withUnsafeBufferPointer { v in
                for dj in 0..<jMax {
                    let j = (tj << shift) + dj
                    let row = base + dj << shift
                    for di in 0..<iMax {
                        let i = (ti << shift) + di
                        if di < side - 1 && dj < side - 1 {
                            let a = v[row + di] < 0, b = v[row + di + 1] < 0
                            let c = v[row + side + di + 1] < 0, d = v[row + side + di] < 0
                            if a == b && b == c && c == d { continue }
                        }
                        starts.append(SIMD2(Int32(i), Int32(j)))
                    }
                }
            }
        }
        for k in starts.indices {
            let i = Int(starts[k].x), j = Int(starts[k].y)
            let (mask, _) = cell(i, j)
            guard mask != 0, mask != 15, let o = offset(i, j) else { continue }
            for e in 0..<4 where mask & (1 << e) != 0 && mask & (1 << ((e + 1) & 3)) == 0 && visited[o] & (1 << e) == 0 {
                trace(from: i, j, edge: e, into: &path)
            }
        }
    }

    /// Follows the loop whose segment in cell (i, j) starts on edge `e` until it comes back,
    /// then writes it simplified.
    private mutating func trace(from i0: Int, _ j0: Int, edge e0: Int, into path: inout PathText) {
        loop.removeAll(keepingCapacity: true)
        var i = i0, j = j0, e = e0
        repeat {
            guard let k = offset(i, j) else { break }   // cannot happen: loops stay in allocated tiles
            visited[k] |= UInt8(1 << e)
            let (mask, v) = cell(i, j)
            let x = Self.exit(from: e, mask: mask, v: v)
            let q = crossing(i, j, edge: x)
            if loop.last.map({ $0 != q }) ?? true { loop.append(q) }
            switch x {
            case 0: j -= 1; e = 2
            case 1: i += 1; e = 3
            case 2: j += 1; e = 0
            default: i -= 1; e = 1
            }
        } while !(i == i0 && j == j0 && e == e0)
        if loop.count > 1 && loop.first! == loop.last! { loop.removeLast() }
        simplify()
        guard kept.count >= 3 else { return }
        path.move(kept[0].x, kept[0].y)
        for q in kept.dropFirst() { path.line(q.x, q.y) }
        path.close()
    }

    /// `loop` reduced to `kept`: from each kept vertex, the farthest vertex such that every
    /// traced vertex between lies within `simplifyTolerance` of the chord.
    private mutating func simplify() {
        kept.removeAll(keepingCapacity: true)
        let n = loop.count
        guard n > 3 else { kept.append(contentsOf: loop); return }
        let tol = Self.simplifyTolerance * VectorGrid.perPixel
        var a = 0
        kept.append(loop[0])
        while a < n - 1 {
            var best = a + 1
            var k = a + 2
            let ax = Double(loop[a].x), ay = Double(loop[a].y)
            while k < n && k - a <= 64 {
                let dx = Double(loop[k].x) - ax, dy = Double(loop[k].y) - ay
                let len = (dx * dx + dy * dy).squareRoot()
                var ok = len > 0
                if ok {
                    for m in (a + 1)..<k {
                        let px = Double(loop[m].x) - ax, py = Double(loop[m].y) - ay
                        // Within the tolerance of the chord's line, and between its ends.
                        let along = (px * dx + py * dy) / len
                        if abs(px * dy - py * dx) / len > tol || along < -tol || along > len + tol { ok = false; break }
                    }
                }
                if !ok { break }
                best = k
                k += 1
            }
            if best < n { kept.append(loop[best]) }
            a = best
        }
        // The last kept vertex may be the first again's neighbour on a straight line: fine;
        // a zero-length closing edge is dropped.
        if kept.count > 1 && kept.last! == kept.first! { kept.removeLast() }
    }
}
