import CRasterKernels

// The image filter's texel readers (see ImageDrawing.swift for what the filter computes): box
// texels read premultiplied, the separable weights of an upright frame, and the exact
// integrator of a rotated frame's footprints.

/// Premultiplied float reads (0…255) of RGBA8 texels.
struct TexelReader {
    let base: UnsafePointer<UInt8>
    let width: Int, height: Int
    /// The texels the frame spans (`ImageTexture.spanX`).
    let spanX: Double, spanY: Double
    let premultiply: Bool

    @inline(__always) func row(_ y: Int) -> UnsafePointer<UInt8> { base + 4 * width * y }

    @inline(__always) func texel(_ row: UnsafePointer<UInt8>, _ x: Int) -> SIMD4<Float> {
        // Bytes to floats without four int→float conversions: 2^23 + b has b in its low
        // mantissa bits, so the float with bits 0x4B00_0000 | b, minus 2^23, is exactly b.
        let w = UnsafeRawPointer(row + 4 * x).loadUnaligned(as: UInt32.self)
        let bits = SIMD4<UInt32>(w, w >> 8, w >> 16, w >> 24) & 0xFF | 0x4B00_0000
        let v = unsafeBitCast(bits, to: SIMD4<Float>.self) - 8_388_608
        guard premultiply else { return v }
        let m = v[3] * (1 / 255)
        return SIMD4(v[0] * m, v[1] * m, v[2] * m, v[3])
    }

    /// Bilinear at texel coordinates (texel centres at +0.5, edges clamped).
    func bilinear(_ x: Double, _ y: Double) -> SIMD4<Float> {
        let sx = min(max(x - 0.5, 0), Double(width - 1)), sy = min(max(y - 0.5, 0), Double(height - 1))
        let x0 = Int(sx), y0 = Int(sy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = Float(sx - Double(x0)), fy = Float(sy - Double(y0))
        let r0 = row(y0), r1 = row(y1)
        let top = texel(r0, x0) + (texel(r0, x1) - texel(r0, x0)) * fx
        let bottom = texel(r1, x0) + (texel(r1, x1) - texel(r1, x0)) * fx
        return top + (bottom - top) * fy
    }
}

/// For each pixel along one screen axis: the texels its footprint covers along the matching
/// image axis, with normalised weights, and the share of the pixel inside the frame.
///
/// Shrunk axis (more texels than pixels): the exact box average over the covered interval —
/// each texel weighted by the length of it inside, partial texels at both ends included.
/// Enlarged axis: linear interpolation at the pixel centre (texel centres at +0.5, clamped).
struct AxisWeights {
    /// Texels first ..< first + count, their weights from `offset`, the pixel's share inside
    /// the frame; a C struct, since the upright filter's row kernel reads these.
    typealias Span = lnote_axis_span
    private var spans: [Span] = []
    private var weights: [Float] = []

    /// `pixels` along the axis; the frame spans `extent` pixels centred on `centre`, and `span`
    /// texels of the `texels` there are (see `ImageTexture.spanX`); `flipped` when the image
    /// axis runs against the screen axis.
    init(pixels: ClosedRange<Int>, centre: Double, extent: Double, texels n: Int, span: Double, flipped: Bool) {
        let k = span / extent   // texels per pixel
        let shrunk = k > 1
        spans.reserveCapacity(pixels.count)
        for p in pixels {
            // The pixel [p, p + 1] in frame-local coordinates, from the frame's start along the image axis.
            let a0 = flipped ? centre - Double(p + 1) + extent / 2 : Double(p) - centre + extent / 2
            let a = max(0, a0), b = min(extent, a0 + 1)
            let coverage = min(1, max(0, b - a))
            let offset = weights.count
            guard coverage > 0 else { spans.append(Span(first: 0, count: 0, offset: offset, coverage: 0)); continue }
            if shrunk {
                let lo = a * k, hi = b * k
                let s0 = min(n - 1, Int(lo.rounded(.down))), s1 = max(s0 + 1, min(n, Int(hi.rounded(.up))))
                let length = hi - lo
                for s in s0..<s1 {
                    let inside = length > 0 ? max(0, min(hi, Double(s + 1)) - max(lo, Double(s))) / length : 1
                    weights.append(Float(inside))
                }
                spans.append(Span(first: s0, count: s1 - s0, offset: offset, coverage: coverage))
            } else {
                let t = min(max((a0 + 0.5) * k - 0.5, 0), Double(n - 1))
                let s0 = Int(t), f = t - Double(s0)
                if s0 + 1 < n && f > 0 {
                    weights += [Float(1 - f), Float(f)]
                    spans.append(Span(first: s0, count: 2, offset: offset, coverage: coverage))
                } else {
                    weights.append(1)
                    spans.append(Span(first: s0, count: 1, offset: offset, coverage: coverage))
                }
            }
        }
        weights.append(0)   // never empty, so its buffer always has a base address
    }

    func withSpans<R>(_ body: (UnsafeBufferPointer<Span>, UnsafePointer<Float>) -> R) -> R {
        spans.withUnsafeBufferPointer { s in weights.withUnsafeBufferPointer { w in body(s, w.baseAddress!) } }
    }
}

/// ⌊x⌋ and ⌈x⌉ as Int without a libm call (Int(x) truncates toward zero); |x| < 2^62.
@inline(__always) func floorInt(_ x: Double) -> Int { let i = Int(x); return Double(i) > x ? i - 1 : i }
@inline(__always) func ceilInt(_ x: Double) -> Int { let i = Int(x); return Double(i) < x ? i + 1 : i }

/// The exact integral of the box-reconstructed image (texel (x, y) constant on
/// [x, x+1) × [y, y+1), zero outside [0, spanX] × [0, spanY]) over the footprints of a tile of
/// pixels, each a parallelogram in texel coordinates (a rotated frame's pixel).
///
/// Green's theorem: ∬_P f dA = ∮_∂P F dy with F(x, y) = ∫_{−∞}^x f(s, y) ds. Within texel row k,
/// F is the row's prefix sum, linear inside each texel; so along an edge, split where it
/// crosses texel rows and columns, each piece contributes its Δy times F at its midpoint:
/// O(edge length) per edge instead of O(area) per pixel. Neighbouring pixels share their
/// edges (each edge integrated once per tile: pixel = top + right − bottom − left), and the
/// prefix sums are built once per tile, each row only over the columns the tile's footprint
/// touches, from that row's first such column (an offset of F that depends on y alone adds
/// nothing around a closed boundary). Clipping to the image is F's: 0 left of the image,
/// the row's total right of it, nothing above or below.
struct EdgeIntegrator {
    let texels: TexelReader
    let ex: SIMD2<Double>, ey: SIMD2<Double>
    /// ex × ey: a whole pixel's footprint area in texels, signed by orientation.
    let area: Double
    /// Prefix sums of the tile's rows, as integers (opaque texels) or as floats (bit patterns,
    /// premultiplied on the fly): row r (texel row k0 + r) holds P at columns first ... last,
    /// P(first) = 0 (`Row`, a C struct: the edges are integrated in CRasterKernels).
    let prefix: UnsafeMutablePointer<SIMD4<UInt32>>, capacity: Int
    typealias Row = lnote_prefix_row
    let rows: UnsafeMutablePointer<Row>, rowCapacity: Int
    /// Edge integrals of the tile: h[a + b·n] from corner (a, b) to (a + 1, b), b ≤ nj;
    /// v[a + b·(n + 1)] from (a, b) to (a, b + 1), a ≤ ni.
    let h: UnsafeMutablePointer<SIMD4<Float>>, v: UnsafeMutablePointer<SIMD4<Float>>
    let n: Int

    static func with<R>(_ texels: TexelReader, ex: SIMD2<Double>, ey: SIMD2<Double>, tile n: Int,
                        _ body: (EdgeIntegrator) -> R) -> R {
        // A tile's footprint fits in a box of (|ex| + |ey|)·n texels each way, plus the cells its
        // edges start and end in.
        let bw = Int(((abs(ex.x) + abs(ey.x)) * Double(n)).rounded(.up)) + 3
        let bh = Int(((abs(ex.y) + abs(ey.y)) * Double(n)).rounded(.up)) + 3
        let capacity = bh * (bw + 1)
        let prefix = UnsafeMutablePointer<SIMD4<UInt32>>.allocate(capacity: capacity)
        let rows = UnsafeMutablePointer<Row>.allocate(capacity: bh)
        let edges = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 2 * (n + 1) * (n + 1))
        defer { prefix.deallocate(); rows.deallocate(); edges.deallocate() }
        let integrator = EdgeIntegrator(texels: texels, ex: ex, ey: ey, area: ex.x * ey.y - ex.y * ey.x,
                                        prefix: prefix, capacity: capacity, rows: rows, rowCapacity: bh,
                                        h: edges, v: edges + (n + 1) * (n + 1), n: n)
        return body(integrator)
    }

    /// The integral over pixel (a, b) of the tile last integrated, signed like `area`.
    @inline(__always) func pixel(_ a: Int, _ b: Int) -> SIMD4<Float> {
        h[a + b * n] + v[a + 1 + b * (n + 1)] - h[a + (b + 1) * n] - v[a + b * (n + 1)]
    }

    /// Integrates every edge of the tile of `ni` × `nj` pixels whose top-left corner lies at
    /// texel coordinates `corner`.
    func integrate(corner q: SIMD2<Double>, ni: Int, nj: Int) {
        // The tile's parallelogram and the texel rows it meets.
        let c0 = q, c1 = q + Double(ni) * ex, c2 = c1 + Double(nj) * ey, c3 = q + Double(nj) * ey
        let ymin = min(c0.y, c1.y, c2.y, c3.y), ymax = max(c0.y, c1.y, c2.y, c3.y)
        let k0 = max(0, floorInt(ymin)), k1 = min(ceilInt(texels.spanY) - 1, ceilInt(ymax) - 1)
        let count = max(0, min(rowCapacity, k1 - k0 + 1))
        var used = 0
        for r in 0..<count {
            let k = k0 + r
            // The parallelogram's x-extent over the strip [k, k + 1].
            let y0 = Double(k), y1 = Double(k + 1)
            var xlo = Double.infinity, xhi = -Double.infinity
            @inline(__always) func extend(_ a: SIMD2<Double>, _ b: SIMD2<Double>) {
                let lo = max(min(a.y, b.y), y0), hi = min(max(a.y, b.y), y1)
                guard lo <= hi, a.y != b.y else { return }
                let s = (b.x - a.x) / (b.y - a.y)
                let xa = a.x + (lo - a.y) * s, xb = a.x + (hi - a.y) * s
                xlo = min(xlo, xa, xb); xhi = max(xhi, xa, xb)
            }
            extend(c0, c1); extend(c1, c2); extend(c2, c3); extend(c3, c0)
            let cl = xlo.isFinite ? min(max(0, floorInt(xlo)), texels.width) : 0
            let cr = xhi.isFinite ? max(cl, min(texels.width, ceilInt(xhi))) : cl
            let m = max(0, min(cr - cl, capacity - used - 1))
            let p = prefix + used
            rows[r] = Row(base: UnsafeRawPointer(p).assumingMemoryBound(to: UInt32.self), first_column: cl,
                          first: Double(cl), last: min(texels.spanX, Double(cl + m)), last_column: cl + m - 1)
            // The row's span, summed by a C kernel (CRasterKernels) that also fetches the
            // next row's span: a tile's rows are short runs an image row apart, and reading
            // them is most of a big rotated shrink.
            let start = texels.row(k) + 4 * cl
            let next = r + 1 < count && k + 1 < texels.height ? texels.row(k + 1) + 4 * cl : nil
            let out = UnsafeMutableRawPointer(p)
            if !texels.premultiply {
                lnote_prefix_rgba8(start, Int32(m), out.assumingMemoryBound(to: UInt32.self), next)
            } else {
                // Float sums kept as their bit patterns (read back by the edge kernel).
                lnote_prefix_rgba8_premultiplied(start, Int32(m), out.assumingMemoryBound(to: Float.self), next)
            }
            used += m + 1
        }
        // Every edge of the tile, each split where it crosses texel rows and columns (see the
        // type's comment): a C kernel beside the prefix sums it reads (CRasterKernels), the
        // same arithmetic double for double as the Swift loop it replaced, about 5 % faster at
        // scale 1 (2.4 million pieces on the photo page; a piece costs some 25 ns either way).
        lnote_tile_edges(rows, Int32(count), k0, texels.spanX, texels.spanY, texels.premultiply ? 1 : 0,
                         q.x, q.y, ex.x, ex.y, ey.x, ey.y, Int32(ni), Int32(nj), Int32(n),
                         UnsafeMutableRawPointer(h).assumingMemoryBound(to: Float.self),
                         UnsafeMutableRawPointer(v).assumingMemoryBound(to: Float.self))
    }
}
