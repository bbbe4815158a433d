import CUnchecked
import LNoteFormat
import LNoteShape

/// Receives a stroke's coverage one pixel row at a time: `coverage[k]` is the area-weighted
/// opacity factor of pixel (x0 + k, row), 0…1 (the colour alpha is not applied yet). Rows come
/// in increasing order, each at most once.
protocol CoverageSink {
    mutating func emit(row: Int, x0: Int, count: Int, coverage: UnsafePointer<Float>)
}

/// Coverage of one stroke's union by supersampling, row by row: the raster backend's consumer
/// of a `StrokeShape`.
///
/// Each pixel row is cut by `K` sub-scanlines at y = row + (k + ½)/K. On a sub-line every
/// capsule's slice is an exact interval (closed form: its two circles and two tangent segments).
/// The interval's ends are rounded to a grid of `B` cells per pixel and the cells are set:
///
/// - **Uniform strokes** (every capsule has the same opacity factor: pen, highlighter, pencil of
///   constant pressure, nowhere thin): one bit per cell, `UInt32` per pixel and sub-line, filled
///   by OR — the OR *is* the union, so nothing is sorted. A pixel's coverage is its set bits /
///   (K·B), times the factor.
/// - **Varying factors** (thin parts, pencil pressure): one byte per cell holding the factor
///   (0…255), filled by `max` — the spec's "the larger value counts". Coverage is the byte sum
///   / (K·B·255).
///
/// Before any cell is touched, the slices of successive capsules are merged per sub-line into
/// one pending run while they overlap (and carry the same byte value), vectorized over the K
/// lanes: consecutive capsules of a stroke overlap heavily, so a sub-line gets a few fills per
/// row instead of one per capsule, and the result is the same cells.
///
/// **Interior runs** (uniform strokes): pixels that one capsule covers on all K sub-lines are
/// full whatever else covers them. The row keeps one such run (the first, grown by the ones that
/// overlap it); cell fills skip it and its coverage is written as a constant, so a wide
/// stroke costs in proportion to its outline, not its area, until it is composited.
///
/// **Bounded memory**: the shape is streamed; at most `capacity` capsules are held. A stroke with
/// more pieces inside the image is drawn in bands of rows planned from a histogram of its
/// pieces' rows (one more pass over the shape), each band streaming the shape again and keeping
/// the pieces that reach it; a single row reached by more than `capacity` pieces is filled in
/// chunks before it is summed. OR and `max` do not depend on order, so every band and chunk
/// plan gives the same pixels as one pass.
///
/// Errors: the sub-line midpoint rule errs by at most 1/(2K) of a pixel on a horizontal edge;
/// horizontally, ends are rounded to the nearest cell (1/32 px) for bits; byte cells (1/16 px)
/// round with a per-sub-line dither of the rounding point (sub-line k rounds at (k + ½)/K of a
/// cell instead of at ½), so the rounding of a vertical edge averages out over the K sub-lines
/// instead of adding up.
///
/// Layout: bits pixel-major (the K words of one pixel are adjacent), so a capsule's few columns
/// touch a few cache lines and a pixel's sum reads one; bytes sub-line-major, so a run of cells is
/// contiguous and filled 16 at a time whatever its alignment. Slices of the K sub-lines of one
/// capsule are computed together in plain K-float loops that LLVM vectorizes (relative to the
/// row, so Float keeps 1/128 px); capsules with huge coordinates or slopes take a Double path.
/// Each row's touched column span is summed, handed to the sink and cleared.
///
/// Unchecked, on purpose and only here: the hot loops index raw buffers through
/// `UnsafeMutablePointer` (no bounds checks) and use `&+`, `&-`, `&*` where the operands are
/// pixel, cell and capsule indices bounded by `maxWidth`, the image height and `capacity`; the
/// per-row state is `@exclusivity(unchecked)` (only this object's own methods touch it, one
/// stroke at a time). So a release build needs no `-Ounchecked`.
final class CoverageRasterizer {
    /// Sub-scanlines per pixel row (the SIMD width of the slice computation).
    static let K = 12
    /// Bit cells per pixel on a sub-line, uniform strokes.
    static let bitCells = 32
    /// Byte cells per pixel on a sub-line, varying-factor strokes.
    static let byteCells = 16
    /// The widest image drawn in one pass: cell positions are rounded in Float with the 1.5·2^23
    /// trick, exact only while x·cells < 2^22, and Float keeps 1/128 px below 2^16.
    static let maxWidth = 1 << 15
    /// Capsules held at once by default (136 bytes each: 143 MB at most). Dense handwriting
    /// needs a few hundred per stroke.
    static let defaultCapacity = 1 << 20
    /// Interior runs narrower than this many pixels are not worth their bookkeeping.
    static let minInteriorRun = 4

    /// Capsules held at once: the memory bound of one stroke's pieces.
    let capacity: Int

    let caps = Scratch<Capsule>()
    private let order = Scratch<Int32>()
    private let bucket = Scratch<Int32>()
    private let active = Scratch<Int32>()
    private let merged = Scratch<Int32>()
    private let bits = Scratch<UInt32>()          // width × K, pixel-major
    private let cells = Scratch<SIMD16<UInt8>>()  // K lines of width + 1 pixels, sub-line-major
    private let cov = Scratch<Float>()
    /// Bit fills of the current row as (first word, last word) pairs: those inside the row's
    /// final interior run are cleared at the sum (the run may grow after they were made).
    private let fills = Scratch<Int32>()
    @exclusivity(unchecked) private var fillCount = 0
    /// The current row's interior run, whole pixels [interiorLo, interiorHi); empty when lo ≥ hi.
    @exclusivity(unchecked) private var interiorLo = 0, interiorHi = 0
    /// Row histograms for band planning: pieces starting, and ending (exclusive), in each bucket.
    private let starts = Scratch<Int>()
    private let ends = Scratch<Int>()
    @exclusivity(unchecked) private var bitsWidth = 0, cellsWidth = 0
    /// Bytes from one sub-line's cells to the next: 16 per pixel, plus 16 of padding.
    @exclusivity(unchecked) private var cellsStride = 0
    @exclusivity(unchecked) private var uniformPath = true
    /// The cell, coverage and fill buffers' current addresses, refreshed after each `reserve`:
    /// read in every row, and a `Scratch`'s own pointer is checked for exclusive access when
    /// read from another module even where it is marked unchecked.
    @exclusivity(unchecked) private var bitsP: UnsafeMutablePointer<UInt32>
    @exclusivity(unchecked) private var cellsP: UnsafeMutablePointer<SIMD16<UInt8>>
    @exclusivity(unchecked) private var covP: UnsafeMutablePointer<Float>
    @exclusivity(unchecked) private var fillsP: UnsafeMutablePointer<Int32>
    @exclusivity(unchecked) private var capsP: UnsafeMutablePointer<Capsule>
    @exclusivity(unchecked) private var activeP: UnsafeMutablePointer<Int32>
    /// Whether the current stroke has a capsule wide enough for an interior run (uniform only).
    @exclusivity(unchecked) private var interiorsPossible = false

    /// Per-sub-line scratch: slice ends (2K floats), then the pending merged runs (2K floats)
    /// and, for varying factors, their byte values (K floats).
    private let lanes = UnsafeMutablePointer<Float>.allocate(capacity: 5 * K)

    /// Sub-line k's y offset in the row, (k + ½)/K; sub-line k rounds cell boundaries at
    /// ½ − that (the dither). Computed, not loaded, so the lane loops vectorize without alias checks.
    @inline(__always) private static func subline(_ k: Int) -> Float { (Float(k) + 0.5) * (1 / Float(K)) }
    /// Byte ramps for partial cells: FF×16, 00×16, then 00×16, FF×16.
    private let ramp = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
    /// 1 << k for each sub-line k: the lane tests AND their masks with these and OR them into
    /// one word, so a flush visits only the lanes that need it (by trailing zero count).
    private let laneBit = UnsafeMutablePointer<UInt32>.allocate(capacity: K)

    init(capacity: Int = CoverageRasterizer.defaultCapacity) {
        self.capacity = max(1, capacity)
        bitsP = bits.p; cellsP = cells.p; covP = cov.p; fillsP = fills.p; capsP = caps.p; activeP = active.p
        for i in 0..<16 { ramp[i] = 0xFF; ramp[16 + i] = 0; ramp[32 + i] = 0; ramp[48 + i] = 0xFF }
        for k in 0..<CoverageRasterizer.K { laneBit[k] = 1 << UInt32(k) }
    }

    deinit {
        lanes.deallocate(); ramp.deallocate(); laneBit.deallocate()
    }

    // MARK: - Passes over the shape

    /// Keeps the pieces that reach rows [rowLo, rowHi) of the image (clipping: nothing later
    /// loops over off-image geometry), as capsules; of those, the ones numbered [keepFrom,
    /// keepFrom + room) in stream order are stored, the rest only counted.
    private struct Collector: ShapeSink {
        let caps: Scratch<Capsule>
        let width: Double, rowLo: Double, rowHi: Double
        let keepFrom: Int, room: Int
        var seen = 0, stored = 0
        /// The capsule buffer and its capacity, read once per growth rather than per piece.
        var base: UnsafeMutablePointer<Capsule>, held: Int

        init(caps: Scratch<Capsule>, width: Double, rowLo: Double, rowHi: Double, keepFrom: Int, room: Int) {
            self.caps = caps; self.width = width; self.rowLo = rowLo; self.rowHi = rowHi
            self.keepFrom = keepFrom; self.room = room
            base = caps.p; held = caps.capacity
        }

        @inline(never)
        private mutating func grow() {
            caps.reserve(held &+ 1, keep: stored)
            base = caps.p; held = caps.capacity
        }
        var yMin = Double.infinity, yMax = -Double.infinity
        var firstF: Float = -1
        var constantFactor = true
        var maxRadius = 0.0

        mutating func piece(_ p: ShapePiece) {
            let yLo = p.minY, yHi = p.maxY
            guard p.maxX > 0, p.minX < width, yHi > rowLo, yLo < rowHi else { return }
            defer { seen &+= 1 }
            if firstF < 0 { firstF = p.f } else if p.f != firstF { constantFactor = false }
            yMin = min(yMin, yLo); yMax = max(yMax, yHi)
            maxRadius = max(maxRadius, p.r0, p.r1)
            guard seen >= keepFrom, stored < room else { return }
            if stored == held { grow() }
            base[stored] = Capsule(p, yMin: yLo, yMax: yHi)
            stored &+= 1
        }
    }

    /// Counts, per bucket of rows, the pieces inside the image that start and end there.
    private struct RowHistogram: ShapeSink {
        let starts: UnsafeMutablePointer<Int>, ends: UnsafeMutablePointer<Int>
        let width: Double, height: Int, rowsPerBucket: Int

        mutating func piece(_ p: ShapePiece) {
            let yLo = p.minY, yHi = p.maxY
            guard p.maxX > 0, p.minX < width, yHi > 0, yLo < Double(height) else { return }
            let first = max(0, CoverageRasterizer.floorRow(yLo)), end = min(height, -CoverageRasterizer.floorRow(-yHi))
            starts[first / rowsPerBucket] &+= 1
            ends[(end &- 1) / rowsPerBucket &+ 1] &+= 1
        }
    }

    /// Rasterizes the prepared `shape` on a `width` × `height` image (the size of the transform
    /// it was prepared with, or of the strip), handing each touched row's coverage to `sink`.
    func rasterize<S: CoverageSink>(_ shape: StrokeShape, width: Int, height: Int, sink: inout S) {
        precondition(width <= CoverageRasterizer.maxWidth, "wider images are drawn in strips (Canvas.draw)")
        var first = Collector(caps: caps, width: Double(width), rowLo: 0, rowHi: Double(height), keepFrom: 0, room: capacity)
        shape.stream(into: &first)
        guard first.seen > 0 else { return }
        let rowMin = max(0, CoverageRasterizer.floorRow(first.yMin))
        let rowMax = min(height, -CoverageRasterizer.floorRow(-first.yMax))   // exclusive: ⌈yMax⌉
        guard rowMin < rowMax else { return }
        prepareCells(width: width, uniform: first.constantFactor)
        interiorsPossible = first.constantFactor && 2 * first.maxRadius >= Double(CoverageRasterizer.minInteriorRun + 2)
        let factor = first.firstF
        if first.seen <= capacity {
            sweep(count: first.stored, rows: rowMin..<rowMax, width: width, factor: factor, sink: &sink)
            return
        }
        // More pieces than fit: plan bands of rows whose pieces fit, from a histogram.
        let rowsPerBucket = max(1, (height + 8191) / 8192)
        let buckets = (height + rowsPerBucket - 1) / rowsPerBucket
        starts.reserve(buckets + 1); ends.reserve(buckets + 1)
        starts.p.update(repeating: 0, count: buckets + 1); ends.p.update(repeating: 0, count: buckets + 1)
        var histogram = RowHistogram(starts: starts.p, ends: ends.p, width: Double(width), height: height,
                                     rowsPerBucket: rowsPerBucket)
        shape.stream(into: &histogram)
        // reach: the pieces that reach bucket b (started at or before it, not ended before it).
        var reach = starts.p[0]
        var b = 0
        while b < buckets {
            var e = b + 1, count = reach
            if count <= capacity {
                while e < buckets && count + starts.p[e] <= capacity { count += starts.p[e]; e += 1 }
            }
            let lo = b * rowsPerBucket, hi = min(height, e * rowsPerBucket)
            var band = Collector(caps: caps, width: Double(width), rowLo: Double(lo), rowHi: Double(hi),
                                 keepFrom: 0, room: capacity)
            if count <= capacity { shape.stream(into: &band) }
            if count <= capacity && band.seen <= capacity {
                if band.seen > 0 { sweep(count: band.stored, rows: lo..<hi, width: width, factor: factor, sink: &sink) }
            } else {
                // One bucket reached by too many pieces: its rows one at a time, in chunks.
                for row in lo..<hi { drawRowInChunks(shape, row: row, width: width, factor: factor, sink: &sink) }
            }
            for q in (b + 1)...e where q < buckets { reach += starts.p[q] - ends.p[q] }
            b = e
        }
    }

    /// One row whose pieces may not fit at once: chunks of `capacity` pieces accumulate into the
    /// row's cells, and the row is summed after the last.
    private func drawRowInChunks<S: CoverageSink>(_ shape: StrokeShape, row: Int, width: Int, factor: Float,
                                                  sink: inout S) {
        var colLo = Int.max, colHi = -1
        var keepFrom = 0
        resetRowState()
        while true {
            var chunk = Collector(caps: caps, width: Double(width), rowLo: Double(row), rowHi: Double(row + 1),
                                  keepFrom: keepFrom, room: capacity)
            shape.stream(into: &chunk)
            if chunk.stored == 0 { break }
            active.reserve(chunk.stored)
            activeP = active.p; capsP = caps.p
            for i in 0..<chunk.stored { activeP[i] = Int32(i) }
            accumulateRow(row, activeCount: chunk.stored, width: width, colLo: &colLo, colHi: &colHi)
            keepFrom += chunk.stored
            if keepFrom >= chunk.seen { break }
        }
        finishRow(row, factor: factor, colLo: colLo, colHi: colHi, sink: &sink)
    }

    /// Zeroed cell buffers wide enough for `width` (they are all zero between strokes: each
    /// row's sum clears what it read).
    private func prepareCells(width: Int, uniform: Bool) {
        let K = CoverageRasterizer.K
        cov.reserve(width + 1)
        defer { covP = cov.p; bitsP = bits.p; cellsP = cells.p }
        if uniform {
            if bitsWidth < width {
                bits.reserve(width * K)
                bits.p.update(repeating: 0, count: width * K)
                bitsWidth = width
            }
        } else if cellsWidth < width {
            cells.reserve((width + 1) * K)
            cells.p.update(repeating: SIMD16<UInt8>(), count: (width + 1) * K)
            cellsWidth = width
            cellsStride = 16 * (width + 1)
        }
        uniformPath = uniform
    }

    /// Sweeps rows `rows` over the `n` stored capsules.
    private func sweep<S: CoverageSink>(count n: Int, rows: Range<Int>, width: Int, factor: Float, sink: inout S) {
        let rowMin = rows.lowerBound, rowMax = rows.upperBound
        // Counting sort of the capsules by first row, so each row adds its newcomers in O(1).
        let nRows = rowMax - rowMin
        bucket.reserve(nRows + 1)
        bucket.p.update(repeating: 0, count: nRows + 1)
        order.reserve(n)
        active.reserve(n)
        merged.reserve(n)
        activeP = active.p; capsP = caps.p
        let cp = capsP, bp = bucket.p, op = order.p
        for i in 0..<n {
            let s = max(rowMin, CoverageRasterizer.floorRow(cp[i].yMin)) &- rowMin
            bp[s &+ 1] &+= 1
        }
        for r in 0..<nRows { bp[r &+ 1] &+= bp[r] }
        for i in 0..<n {
            let s = max(rowMin, CoverageRasterizer.floorRow(cp[i].yMin)) &- rowMin
            op[Int(bp[s])] = Int32(truncatingIfNeeded: i)
            bp[s] &+= 1
        }
        // bucket[r] is now the end of row r's run; runs are consecutive.

        var activeCount = 0
        var next = 0
        let ap = active.p
        for j in rowMin..<rowMax {
            let y0 = Double(j)
            // Survivors and newcomers are each in stroke order; merging keeps the list so, which
            // lets consecutive capsules' overlapping slices merge into one run per sub-line.
            var k = 0
            for a in 0..<activeCount {
                let c = ap[a]
                if cp[Int(c)].yMax > y0 { ap[k] = c; k &+= 1 }
            }
            let end = Int(bp[j &- rowMin])
            if next < end {
                if k == 0 {
                    while next < end { ap[k] = op[next]; k &+= 1; next &+= 1 }
                } else {
                    let old = merged.p
                    old.update(from: ap, count: k)
                    var a = 0, m = 0
                    while a < k && next < end {
                        if old[a] < op[next] { ap[m] = old[a]; a &+= 1 } else { ap[m] = op[next]; next &+= 1 }
                        m &+= 1
                    }
                    while a < k { ap[m] = old[a]; a &+= 1; m &+= 1 }
                    while next < end { ap[m] = op[next]; next &+= 1; m &+= 1 }
                    k = m
                }
            }
            activeCount = k
            if activeCount == 0 { continue }
            var colLo = Int.max, colHi = -1
            resetRowState()
            accumulateRow(j, activeCount: activeCount, width: width, colLo: &colLo, colHi: &colHi)
            finishRow(j, factor: factor, colLo: colLo, colHi: colHi, sink: &sink)
        }
    }

    @inline(__always)
    private func resetRowState() {
        fillCount = 0
        interiorLo = 0; interiorHi = 0
    }

    /// Fills the cells of row `row` with the slices of the first `activeCount` capsules listed
    /// in `active`.
    @inline(__always)
    private func accumulateRow(_ row: Int, activeCount: Int, width: Int, colLo: inout Int, colHi: inout Int) {
        // Three loops, each with its path's constants folded in: the interior bookkeeping costs
        // the narrow strokes of handwriting nothing.
        if !uniformPath {
            accumulateRow(row, activeCount: activeCount, width: width, uniform: false, Interiors.Off.self, colLo: &colLo, colHi: &colHi)
        } else if interiorsPossible {
            accumulateRow(row, activeCount: activeCount, width: width, uniform: true, Interiors.On.self, colLo: &colLo, colHi: &colHi)
        } else {
            accumulateRow(row, activeCount: activeCount, width: width, uniform: true, Interiors.Off.self, colLo: &colLo, colHi: &colHi)
        }
    }

    @inline(__always)
    private func accumulateRow<I: InteriorPolicy>(_ row: Int, activeCount: Int, width: Int, uniform: Bool, _: I.Type,
                                                  colLo: inout Int, colHi: inout Int) {
        let y0 = Double(row)
        let cp = capsP, ap = activeP
        clearPending()
        for a in 0..<activeCount {
            let c = cp + Int(ap[a])
            if c.pointee.large {
                slicesDouble(c, row: y0, width: width)
            } else {
                slices(c, row: y0, width: width)
            }
            if uniform {
                if I.enabled { noteInterior() }
                mergeOrFlush(I.self, colLo: &colLo, colHi: &colHi)
            } else {
                // The factor as a byte (truncating conversion: no floor call on baseline x86-64).
                let value = Float(lnote_trunc_f32_i32(min(max(c.pointee.f * 255 + 0.5, 0), 255)))
                mergeOrFlush(value: value, colLo: &colLo, colHi: &colHi)
            }
        }
        flushPending(uniform: uniform, I.self, colLo: &colLo, colHi: &colHi)
    }

    /// Sums row `row`'s cells over its touched columns and hands the coverage to `sink`.
    @inline(__always)
    private func finishRow<S: CoverageSink>(_ row: Int, factor: Float, colLo: Int, colHi: Int, sink: inout S) {
        var lo = colLo, hi = colHi
        if interiorsPossible && interiorHi > interiorLo {
            lo = min(lo, interiorLo); hi = max(hi, interiorHi &- 1)
        }
        if hi < lo { return }
        if uniformPath {
            sumBits(lo, hi, scale: factor / Float(CoverageRasterizer.K * CoverageRasterizer.bitCells))
        } else {
            sumCells(lo, hi)
        }
        sink.emit(row: row, x0: lo, count: hi &- lo &+ 1, coverage: covP)
    }

    /// ⌊y⌋ as a row index, for a capsule's top edge: clamped to ±2^30 first (capsules of huge
    /// strokes reach far off the image), then converted without a range check.
    @inline(__always)
    static func floorRow(_ y: Double) -> Int {
        Int(lnote_trunc_f64_i64(min(max(y, -1_073_741_824), 1_073_741_824).rounded(.down)))
    }

    // MARK: - Interior runs

    /// Widens the row's interior run by the whole pixels the current slices cover on every
    /// sub-line (uniform strokes). Exact: a pixel p with every slice ⊇ [p, p + 1) has every cell
    /// set, since a cell range's rounded ends are monotone.
    @inline(__always)
    private func noteInterior() {
        let K = CoverageRasterizer.K
        let l = lanes, r = lanes + K
        var lo = l[0], hi = r[0]
        for k in 1..<K { lo = CoverageRasterizer.higher(l[k], lo); hi = min(hi, r[k]) }
        guard hi - lo >= Float(CoverageRasterizer.minInteriorRun + 2) else { return }
        // lo, hi are slice ends clamped to [0, width]: in range for an unchecked conversion.
        let a = Int(lnote_trunc_f32_i32(lo.rounded(.up))), b = Int(lnote_trunc_f32_i32(hi.rounded(.down)))
        if interiorHi <= interiorLo {
            interiorLo = a; interiorHi = b
        } else if a <= interiorHi && b >= interiorLo {
            interiorLo = min(interiorLo, a); interiorHi = max(interiorHi, b)
        }
        // A disjoint run is left to the cells: the run only ever grows, because fills already
        // made were clipped against it.
    }

    // MARK: - Slices

    /// `a > b ? a : b`: one `maxps` (Swift's `max` returns its second argument on ties, which
    /// costs a compare and three mask operations per vector on x86).
    @inline(__always) static func higher(_ a: Float, _ b: Float) -> Float { a > b ? a : b }

    /// The capsule's slice [l, r) on each sub-line of row `row`, clamped to [0, width] (an empty
    /// slice has l ≥ r).
    ///
    /// Written as plain loops over K floats, which LLVM vectorizes (minps, maxps, sqrtps, masks);
    /// Swift's SIMD types' `pointwiseMin`, `replacing(with:where:)` and `squareRoot()` compile to
    /// per-lane code on this target.
    @inline(__always)
    private func slices(_ c: UnsafeMutablePointer<Capsule>, row: Double, width: Int) {
        let K = CoverageRasterizer.K
        let l = lanes, r = lanes + K
        for k in 0..<K { l[k] = .infinity; r[k] = -.infinity }
        CoverageRasterizer.circle(row, c.pointee.cx0, c.pointee.cy0, c.pointee.r0, l, r)
        CoverageRasterizer.circle(row, c.pointee.cx1, c.pointee.cy1, c.pointee.r1, l, r)
        CoverageRasterizer.tangent(row, c.pointee.ya1, c.pointee.yb1, c.pointee.xa1, c.pointee.k1, l, r)
        CoverageRasterizer.tangent(row, c.pointee.ya2, c.pointee.yb2, c.pointee.xa2, c.pointee.k2, l, r)
        let w = Float(width)
        for k in 0..<K { l[k] = min(CoverageRasterizer.higher(l[k], 0), w); r[k] = min(CoverageRasterizer.higher(r[k], 0), w) }
    }

    /// A circle's slices: half-width √((ρ − |d|)(ρ + |d|)), which keeps its precision for huge radii.
    @inline(__always)
    private static func circle(_ row: Double, _ cx: Double, _ cy: Double, _ rad: Double,
                               _ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>) {
        if row - cy > rad || cy - row > rad + 1 { return }   // the circle misses the row
        let d0 = Float(row - cy), rr = Float(rad), x = Float(cx)
        for k in 0..<K {
            let d = abs(d0 + subline(k))
            let t = (rr - d) * (rr + d)
            // Where the circle misses the sub-line, the half-width becomes −∞, so its slice
            // [x − s, x + s] is (+∞, −∞) and leaves l and r alone: one mask op (andnps) instead
            // of two selects.
            let miss: Float = t > 0 ? 0 : .infinity
            let s = CoverageRasterizer.higher(t, 0).squareRoot() - miss
            l[k] = min(l[k], x - s)
            r[k] = CoverageRasterizer.higher(x + s, r[k])
        }
    }

    /// A tangent segment's crossings: x(y) = xa + (y − ya)·k on [ya, yb].
    @inline(__always)
    private static func tangent(_ row: Double, _ ya: Double, _ yb: Double, _ xa: Double, _ slope: Double,
                                _ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>) {
        let a = Float(min(max(ya - row, -2), 3)), b = Float(min(max(yb - row, -2), 3))
        if !(a < 1 && b > 0) { return }
        let x0 = Float(min(max(xa + (row - ya) * slope, -1e9), 1e9)), m = Float(slope)
        for k in 0..<K {
            let y = subline(k)
            let x = x0 + y * m
            let off: Float = y >= a && y <= b ? 0 : .infinity   // as for circles
            l[k] = min(l[k], x + off)
            r[k] = CoverageRasterizer.higher(x - off, r[k])
        }
    }

    /// `slices` in Double, one sub-line at a time, for capsules beyond Float's comfortable range.
    private func slicesDouble(_ c: UnsafeMutablePointer<Capsule>, row: Double, width: Int) {
        let W = Double(width)
        let cp = c.pointee
        for k in 0..<CoverageRasterizer.K {
            let y = row + (Double(k) + 0.5) / Double(CoverageRasterizer.K)
            var l = Double.infinity, r = -Double.infinity
            // (Plain calls, not loops over array literals: those allocate on every sub-line.)
            func circle(_ cx: Double, _ cy: Double, _ rad: Double) {
                let d = abs(y - cy)
                let t = (rad - d) * (rad + d)
                if t > 0 { let s = t.squareRoot(); l = min(l, cx - s); r = max(r, cx + s) }
            }
            func tangent(_ ya: Double, _ yb: Double, _ xa: Double, _ kk: Double) {
                guard y >= ya && y <= yb else { return }
                let x = xa + (y - ya) * kk
                l = min(l, x); r = max(r, x)
            }
            circle(cp.cx0, cp.cy0, cp.r0)
            circle(cp.cx1, cp.cy1, cp.r1)
            tangent(cp.ya1, cp.yb1, cp.xa1, cp.k1)
            tangent(cp.ya2, cp.yb2, cp.xa2, cp.k2)
            lanes[k] = Float(min(max(l, 0), W))
            lanes[k + CoverageRasterizer.K] = Float(min(max(r, 0), W))
        }
    }

    // MARK: - Cells

    /// Per sub-line, the slices of successive capsules that overlap (and, for varying factors,
    /// carry the same byte value) are merged into one pending run (lane-wise min/max); a slice
    /// that cannot join its lane's run flushes the run first. Consecutive capsules of a stroke
    /// overlap heavily, so each sub-line gets a few fills per row instead of one per capsule.
    /// Merging is exact: cell rounding is monotone, so the rounded union of two overlapping
    /// runs is the union of their rounded cells, and `max` with one value is idempotent.
    @inline(__always)
    private func clearPending() {
        let K = CoverageRasterizer.K
        let pl = lanes + 2 * K, pr = lanes + 3 * K, pv = lanes + 4 * K
        for k in 0..<K { pl[k] = .infinity; pr[k] = -.infinity; pv[k] = -1 }
    }

    /// Uniform strokes: runs join while they overlap. Kept apart from the varying-factor version
    /// below on purpose: folding the two together (one value throughout) costs 18 % more
    /// instructions at 1x and 2x for the value lanes alone.
    @inline(__always)
    private func mergeOrFlush<I: InteriorPolicy>(_: I.Type, colLo: inout Int, colHi: inout Int) {
        let K = CoverageRasterizer.K
        let l = lanes, r = lanes + K, pl = lanes + 2 * K, pr = lanes + 3 * K
        // Branch-free lane tests (vectorized): non-empty slice, non-empty run, and disjoint.
        var conflict: UInt32 = 0
        for k in 0..<K {
            let a: UInt32 = l[k] < r[k] ? .max : 0, b: UInt32 = pl[k] < pr[k] ? .max : 0
            let c: UInt32 = l[k] > pr[k] ? .max : 0, d: UInt32 = r[k] < pl[k] ? .max : 0
            conflict |= a & b & (c | d) & laneBit[k]
        }
        while conflict != 0 {
            let k = conflict.trailingZeroBitCount
            conflict &= conflict &- 1
            fillBits(k, pl[k], pr[k], I.self, colLo: &colLo, colHi: &colHi)
            pl[k] = .infinity; pr[k] = -.infinity
        }
        for k in 0..<K {
            let nonEmpty = l[k] < r[k]
            pl[k] = min(pl[k], nonEmpty ? l[k] : .infinity)
            pr[k] = CoverageRasterizer.higher(nonEmpty ? r[k] : -.infinity, pr[k])
        }
    }

    /// Varying factors: runs join while they overlap and carry the same byte `value` (0…255).
    @inline(__always)
    private func mergeOrFlush(value v: Float, colLo: inout Int, colHi: inout Int) {
        let K = CoverageRasterizer.K
        let l = lanes, r = lanes + K, pl = lanes + 2 * K, pr = lanes + 3 * K, pv = lanes + 4 * K
        var conflict: UInt32 = 0
        for k in 0..<K {
            let a: UInt32 = l[k] < r[k] ? .max : 0, b: UInt32 = pl[k] < pr[k] ? .max : 0
            let c: UInt32 = l[k] > pr[k] ? .max : 0, d: UInt32 = r[k] < pl[k] ? .max : 0
            let e: UInt32 = pv[k] != v ? .max : 0
            conflict |= a & b & (c | d | e) & laneBit[k]
        }
        while conflict != 0 {
            let k = conflict.trailingZeroBitCount
            conflict &= conflict &- 1
            fillCells(k, pl[k], pr[k], value: UInt8(truncatingIfNeeded: lnote_trunc_f32_i32(pv[k])), colLo: &colLo, colHi: &colHi)
            pl[k] = .infinity; pr[k] = -.infinity
        }
        for k in 0..<K {
            let nonEmpty = l[k] < r[k]
            pl[k] = min(pl[k], nonEmpty ? l[k] : .infinity)
            pr[k] = CoverageRasterizer.higher(nonEmpty ? r[k] : -.infinity, pr[k])
            pv[k] = nonEmpty ? v : pv[k]
        }
    }

    @inline(__always)
    private func flushPending<I: InteriorPolicy>(uniform: Bool, _: I.Type, colLo: inout Int, colHi: inout Int) {
        let K = CoverageRasterizer.K
        let pl = lanes + 2 * K, pr = lanes + 3 * K, pv = lanes + 4 * K
        if uniform {
            for k in 0..<K where pl[k] < pr[k] { fillBits(k, pl[k], pr[k], I.self, colLo: &colLo, colHi: &colHi) }
        } else {
            for k in 0..<K where pl[k] < pr[k] {
                fillCells(k, pl[k], pr[k], value: UInt8(truncatingIfNeeded: lnote_trunc_f32_i32(pv[k])), colLo: &colLo, colHi: &colHi)
            }
        }
    }

    /// The cells [a, b) covered by the run from x = l to r (pixels): both ends rounded to a cell
    /// boundary, at `dither` + ½ of a cell instead of at ½, without a floor call.
    @inline(__always)
    private static func cellRange(_ l: Float, _ r: Float, cellsPerPixel: Float, dither: Float) -> (Int, Int) {
        let magic: Float = 12_582_912   // 1.5·2^23: adding it rounds to an integer in the mantissa
        let mb = Int32(bitPattern: magic.bitPattern)
        let a = Int(Int32(bitPattern: (l * cellsPerPixel + dither + magic).bitPattern) &- mb)
        let b = Int(Int32(bitPattern: (r * cellsPerPixel + dither + magic).bitPattern) &- mb)
        return (a, b)
    }

    /// Sets the bits of sub-line k from x = l to r (pixels, 0 ≤ l < r ≤ width), ends rounded
    /// to the nearest cell, except inside the row's interior run (full already).
    @inline(__always)
    private func fillBits<I: InteriorPolicy>(_ k: Int, _ l: Float, _ r: Float, _: I.Type, colLo: inout Int, colHi: inout Int) {
        // No dither at 32 cells per pixel: measured, it raises the mean error against the
        // reference (0.0009 → 0.0010 at thumbnail scale) and leaves the largest unchanged.
        let (a, b) = CoverageRasterizer.cellRange(l, r, cellsPerPixel: Float(CoverageRasterizer.bitCells), dither: 0)
        if a >= b { return }
        if I.enabled && interiorHi > interiorLo {
            let ia = interiorLo &* CoverageRasterizer.bitCells, ib = interiorHi &* CoverageRasterizer.bitCells
            if a < ib && b > ia {
                if a < ia { setBits(k, a, ia, record: true, colLo: &colLo, colHi: &colHi) }
                if b > ib { setBits(k, ib, b, record: true, colLo: &colLo, colHi: &colHi) }
                return
            }
        }
        setBits(k, a, b, record: I.enabled, colLo: &colLo, colHi: &colHi)
    }

    /// Sets bit cells [a, b) of sub-line k (a < b).
    @inline(__always)
    private func setBits(_ k: Int, _ a: Int, _ b: Int, record: Bool, colLo: inout Int, colHi: inout Int) {
        let K = CoverageRasterizer.K
        let p = bitsP
        let w0 = a &>> 5, w1 = (b &- 1) &>> 5
        let m0 = UInt32.max << UInt32(truncatingIfNeeded: a & 31)
        let m1 = UInt32.max >> UInt32(truncatingIfNeeded: 31 &- ((b &- 1) & 31))
        if w0 < colLo { colLo = w0 }
        if w1 > colHi { colHi = w1 }
        p[w0 &* K &+ k] |= w0 == w1 ? m0 & m1 : m0
        if w1 > w0 {
            var w = w0 &+ 1
            while w < w1 { p[w &* K &+ k] = UInt32.max; w &+= 1 }
            p[w1 &* K &+ k] |= m1
        }
        if record {
            // Remembered so that the part of it a later interior run covers can be cleared.
            if 2 &* (fillCount &+ 1) > fills.capacity {
                fills.reserve(2 &* (fillCount &+ 1), keep: 2 &* fillCount)
                fillsP = fills.p
            }
            fillsP[2 &* fillCount] = Int32(truncatingIfNeeded: w0)
            fillsP[2 &* fillCount &+ 1] = Int32(truncatingIfNeeded: w1)
            fillCount &+= 1
        }
    }

    /// Sets the byte cells of sub-line k from x = l to r (pixels, 0 ≤ l < r ≤ width) to at
    /// least `value`, ends rounded to cells with the sub-line's dither. The byte lines are
    /// sub-line-major (sub-line k's cells are contiguous, 16 per pixel, with 16 bytes of padding),
    /// and `max` is idempotent, so a run is covered by unaligned 16-byte `max` steps whose last
    /// one may overlap the previous; a run shorter than 16 cells takes one step masked by a
    /// window of the ramp.
    @inline(__always)
    private func fillCells(_ k: Int, _ l: Float, _ r: Float, value: UInt8, colLo: inout Int, colHi: inout Int) {
        let (a, b) = CoverageRasterizer.cellRange(l, r, cellsPerPixel: Float(CoverageRasterizer.byteCells),
                                                  dither: 0.5 - CoverageRasterizer.subline(k))
        if a >= b { return }
        let w0 = a >> 4, w1 = (b - 1) >> 4
        if w0 < colLo { colLo = w0 }
        if w1 > colHi { colHi = w1 }
        let line = UnsafeMutableRawPointer(cellsP) + k &* cellsStride
        let n = b - a
        let v = SIMD16<UInt8>(repeating: value)
        // The operand is a SIMD value, not a pointer: reading the ramp byte by byte inside the
        // loop, LLVM cannot rule out that the cells alias it and emits sixteen scalar steps.
        // (`pointwiseMax` on SIMD16<UInt8> is not inlined.)
        @inline(__always) func raise(_ q: UnsafeMutableRawPointer, _ v: SIMD16<UInt8>) {
            let q = q.assumingMemoryBound(to: UInt8.self)
            for c in 0..<16 { q[c] = max(q[c], v[c]) }
        }
        if n < 16 {
            raise(line + a, v & UnsafeRawPointer(ramp + (16 - n)).loadUnaligned(as: SIMD16<UInt8>.self))
        } else {
            var p = a
            while p < b - 16 { raise(line + p, v); p += 16 }
            raise(line + (b - 16), v)
        }
    }

    // MARK: - Sums

    /// Coverage of columns lo...hi from the bit rows (set bits × `scale`), clearing them. The
    /// row's interior run is full: its coverage is what all K·32 bits would sum to, and only
    /// the words that fills set there are cleared.
    @inline(__always)
    private func sumBits(_ lo: Int, _ hi: Int, scale: Float) {
        let o = covP
        guard interiorsPossible && interiorHi > interiorLo else {
            sumBitColumns(lo, hi, scale: scale, into: o)
            return
        }
        let K = CoverageRasterizer.K
        let ia = interiorLo, ib = interiorHi   // lo ≤ ia < ib ≤ hi + 1
        if lo < ia { sumBitColumns(lo, ia &- 1, scale: scale, into: o) }
        if ib <= hi { sumBitColumns(ib, hi, scale: scale, into: o + (ib &- lo)) }
        let full = Float(Int32(K * CoverageRasterizer.bitCells)) * scale
        for i in ia..<ib { o[i &- lo] = full }
        let p = bitsP
        for f in 0..<fillCount {
            let w0 = max(ia, Int(fillsP[2 &* f])), w1 = min(ib &- 1, Int(fillsP[2 &* f &+ 1]))
            if w0 <= w1 { (p + w0 &* K).update(repeating: 0, count: (w1 &- w0 &+ 1) &* K) }
        }
    }

    /// Coverage of columns lo...hi into o[0...hi − lo], clearing their bits.
    @inline(__always)
    private func sumBitColumns(_ lo: Int, _ hi: Int, scale: Float, into o: UnsafeMutablePointer<Float>) {
        let K = CoverageRasterizer.K
        let base = bitsP
        for i in lo...hi {
            let q = UnsafeMutableRawPointer(base + i &* K)
            var acc = SIMD4<UInt32>()
            for g in 0..<(K / 4) {
                var x = q.loadUnaligned(fromByteOffset: 16 &* g, as: SIMD4<UInt32>.self)
                x = x &- ((x &>> 1) & 0x5555_5555)
                x = (x & 0x3333_3333) &+ ((x &>> 2) & 0x3333_3333)
                x = (x &+ (x &>> 4)) & 0x0F0F_0F0F
                acc &+= x
                q.storeBytes(of: SIMD4<UInt32>(), toByteOffset: 16 &* g, as: SIMD4<UInt32>.self)
            }
            acc = acc &+ (acc &>> 8)
            acc = acc &+ (acc &>> 16)
            acc &= 0xFF
            o[i &- lo] = Float(Int32(truncatingIfNeeded: acc.wrappedSum())) * scale
        }
    }

    /// Coverage of columns lo...hi from the byte cells (sum / (K·cells·255)), clearing them.
    @inline(__always)
    private func sumCells(_ lo: Int, _ hi: Int) {
        let K = CoverageRasterizer.K
        let o = covP
        let stride = cellsStride
        let scale = 1 / Float(K * CoverageRasterizer.byteCells * 255)
        let base = UnsafeMutableRawPointer(cellsP)
        for i in lo...hi {
            var acc = SIMD8<UInt16>()
            for k in 0..<K {
                let q = base + (k * stride + 16 * i)
                let x = q.loadUnaligned(as: SIMD8<UInt16>.self)
                acc &+= (x & 0x00FF) &+ (x &>> 8)
                q.storeBytes(of: SIMD8<UInt16>(), as: SIMD8<UInt16>.self)
            }
            o[i &- lo] = Float(Int32(truncatingIfNeeded: acc.wrappedSum())) * scale
        }
    }
}

/// Whether a stroke's uniform-path loops keep interior runs: a type parameter rather than a
/// flag, so each loop is compiled with its answer folded in (narrow handwriting pays nothing).
protocol InteriorPolicy { static var enabled: Bool { get } }

enum Interiors {
    enum On: InteriorPolicy { static var enabled: Bool { true } }
    enum Off: InteriorPolicy { static var enabled: Bool { false } }
}
