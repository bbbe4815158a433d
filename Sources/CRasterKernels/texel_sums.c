#include "raster_kernels.h"

#include <stddef.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// Same rounding on every target: no a·b + c fused into one FMA. The float arithmetic here is
// pinned by TexelKernelTests against plain Swift formulas, bit for bit.
#pragma clang fp contract(off)

// The next row's span (`count` texels at `next`, if any) asked for, one cache line at a time,
// before this row is summed: the rows of a rotated frame's tile are short runs a whole image
// row apart, which the hardware prefetcher does not follow from one row to the next.
static inline void prefetch_span(const uint8_t *next, int32_t count) {
    if (!next || count <= 0) return;
    for (int32_t b = 0; b < 4 * count; b += 64) __builtin_prefetch(next + b, 0, 3);
    __builtin_prefetch(next + 4 * count - 1, 0, 3);   // the line the span ends in
}

// A texel as TexelReader.texel reads it: exact byte values, premultiplied by m = a · (1/255)
// when asked (alpha itself kept).
static inline __attribute__((always_inline)) void read_texel(const uint8_t *t, int premultiply, float v[4]) {
    v[0] = t[0]; v[1] = t[1]; v[2] = t[2]; v[3] = t[3];
    if (premultiply) {
        float m = v[3] * (1.0f / 255.0f);
        v[0] *= m; v[1] *= m; v[2] *= m;
    }
}

void lnote_prefix_rgba8(const uint8_t *restrict texels, int32_t count, uint32_t *restrict prefix,
                        const uint8_t *next) {
    int32_t c = 0;
    prefetch_span(next, count);
#if defined(__SSE2__)
    // Four texels a load, widened byte → 16 → 32 bits, one running add each.
    const __m128i zero = _mm_setzero_si128();
    __m128i acc = zero;
    _mm_storeu_si128((__m128i *)prefix, acc);
    for (; c + 4 <= count; c += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(texels + 4 * c));
        __m128i lo = _mm_unpacklo_epi8(v, zero), hi = _mm_unpackhi_epi8(v, zero);
        acc = _mm_add_epi32(acc, _mm_unpacklo_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(prefix + 4 * (c + 1)), acc);
        acc = _mm_add_epi32(acc, _mm_unpackhi_epi16(lo, zero));
        _mm_storeu_si128((__m128i *)(prefix + 4 * (c + 2)), acc);
        acc = _mm_add_epi32(acc, _mm_unpacklo_epi16(hi, zero));
        _mm_storeu_si128((__m128i *)(prefix + 4 * (c + 3)), acc);
        acc = _mm_add_epi32(acc, _mm_unpackhi_epi16(hi, zero));
        _mm_storeu_si128((__m128i *)(prefix + 4 * (c + 4)), acc);
    }
    uint32_t r = (uint32_t)_mm_cvtsi128_si32(acc);
    uint32_t g = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 4));
    uint32_t b = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 8));
    uint32_t a = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(acc, 12));
#else
    uint32_t r = 0, g = 0, b = 0, a = 0;
    prefix[0] = prefix[1] = prefix[2] = prefix[3] = 0;
#endif
    for (; c < count; c++) {
        const uint8_t *t = texels + 4 * c;
        r += t[0]; g += t[1]; b += t[2]; a += t[3];
        uint32_t *p = prefix + 4 * (c + 1);
        p[0] = r; p[1] = g; p[2] = b; p[3] = a;
    }
}

void lnote_prefix_rgba8_premultiplied(const uint8_t *restrict texels, int32_t count, float *restrict prefix,
                                      const uint8_t *next) {
    prefetch_span(next, count);
    float acc[4] = {0, 0, 0, 0};
    prefix[0] = prefix[1] = prefix[2] = prefix[3] = 0;
    for (int32_t c = 0; c < count; c++) {
        float v[4];
        read_texel(texels + 4 * c, 1, v);
        for (int k = 0; k < 4; k++) prefix[4 * (c + 1) + k] = acc[k] += v[k];
    }
}

// MARK: Upright frames: one texel row into every pixel of a pixel row

// Texels x0..<x1, each weight 1: premultiplied texels one after another in floats; straight
// ones as exact integers in blocks of 256 from x0, each block's sum then added as a float (so
// the result is the exact sum until it passes 2^24, and rounds the same way on every target
// after that).
static inline __attribute__((always_inline)) void sum_texels(const uint8_t *row, intptr_t x0, intptr_t x1, int premultiply,
                                                            float acc[4]) {
    acc[0] = acc[1] = acc[2] = acc[3] = 0;
    if (premultiply) {
        for (intptr_t x = x0; x < x1; x++) {
            float v[4];
            read_texel(row + 4 * x, 1, v);
            acc[0] += v[0]; acc[1] += v[1]; acc[2] += v[2]; acc[3] += v[3];
        }
        return;
    }
    for (intptr_t x = x0; x < x1;) {
        intptr_t end = x1 - x < 256 ? x1 : x + 256;
        uint32_t s[4] = {0, 0, 0, 0};
#if defined(__SSE2__)
        // Four texels a load, widened to 16-bit lanes: at most 64 loads of 2 · 255 a lane per
        // block, below 2^16.
        const __m128i zero = _mm_setzero_si128();
        __m128i lanes = zero;
        for (; x + 4 <= end; x += 4) {
            __m128i v = _mm_loadu_si128((const __m128i *)(row + 4 * x));
            lanes = _mm_add_epi16(lanes, _mm_add_epi16(_mm_unpacklo_epi8(v, zero), _mm_unpackhi_epi8(v, zero)));
        }
        __m128i wide = _mm_add_epi32(_mm_unpacklo_epi16(lanes, zero), _mm_unpackhi_epi16(lanes, zero));
        uint32_t w[4];
        _mm_storeu_si128((__m128i *)w, wide);
        s[0] = w[0]; s[1] = w[1]; s[2] = w[2]; s[3] = w[3];
#endif
        for (; x < end; x++) {
            const uint8_t *t = row + 4 * x;
            s[0] += t[0]; s[1] += t[1]; s[2] += t[2]; s[3] += t[3];
        }
        acc[0] += (float)s[0]; acc[1] += (float)s[1]; acc[2] += (float)s[2]; acc[3] += (float)s[3];
    }
}

void lnote_area_row(const uint8_t *restrict row, const lnote_axis_span *restrict spans, const float *restrict weights,
                    int32_t count, float wy, int32_t premultiply, float *restrict sums) {
    for (int32_t a = 0; a < count; a++) {
        const lnote_axis_span s = spans[a];
        if (!(s.coverage > 0)) continue;
        const float *w = weights + s.offset;
        float line[4];
        if (s.count >= 3) {
            // Partial texels at both ends; those between share one weight (AxisWeights).
            intptr_t last = s.first + s.count - 1;
            float t0[4], mid[4], tl[4];
            read_texel(row + 4 * s.first, premultiply, t0);
            sum_texels(row, s.first + 1, last, premultiply, mid);
            read_texel(row + 4 * last, premultiply, tl);
            float w1 = w[1], wl = w[s.count - 1];
            for (int k = 0; k < 4; k++) line[k] = w[0] * t0[k] + w1 * mid[k] + wl * tl[k];
        } else {
            line[0] = line[1] = line[2] = line[3] = 0;
            for (intptr_t i = 0; i < s.count; i++) {
                float t[4];
                read_texel(row + 4 * (s.first + i), premultiply, t);
                for (int k = 0; k < 4; k++) line[k] += w[i] * t[k];
            }
        }
        float *out = sums + 4 * a;
        for (int k = 0; k < 4; k++) out[k] += wy * line[k];
    }
}

// MARK: Rotated frames: the edge integrals of a tile (Green's theorem on the prefix sums)

typedef float float4 __attribute__((ext_vector_type(4)));

// Swift's min and max, operand order included (they differ from fmin/fmax on ±0 and NaN).
static inline double smin(double x, double y) { return y < x ? y : x; }
static inline double smax(double x, double y) { return y >= x ? y : x; }

// ⌊x⌋ by truncation and one correction (|x| < 2^62: texel coordinates of pixels on a canvas).
static inline intptr_t floor_int(double x) {
    intptr_t i = (intptr_t)x;
    return (double)i > x ? i - 1 : i;
}

// A prefix entry as floats: integer sums converted (exact below 2^24, rounded to nearest
// above: a tile row of over 65,793 texels, a shrink of that many texels a pixel),
// premultiplied sums stored as float bits.
static inline float4 prefix_value(const uint32_t *entry, int premultiply) {
    typedef int32_t int4 __attribute__((ext_vector_type(4)));
    if (premultiply) {
        float4 v;
        __builtin_memcpy(&v, entry, sizeof v);
        return v;
    }
    int4 sums;   // below 2^31 while a tile row holds fewer than 8.4 million texels
    __builtin_memcpy(&sums, entry, sizeof sums);
    return __builtin_convertvector(sums, float4);
}

// F at x in a texel row: the row's prefix sum, linear inside a texel, clamped to the columns
// held and to the image's span.
static inline float4 row_f(const lnote_prefix_row *row, double x, int premultiply) {
    if (row->last_column < 0 || !(row->last > row->first)) return (float4)0;
    double xc = smin(smax(x, row->first), row->last);
    intptr_t c = (intptr_t)xc;
    if (row->last_column < c) c = row->last_column;
    float4 p0 = prefix_value(row->base + 4 * (c - row->first_column), premultiply);
    return p0 + (prefix_value(row->base + 4 * (c + 1 - row->first_column), premultiply) - p0) * (float)(xc - (double)c);
}

// ∫ F dy along the segment from a to b, over `count` texel rows from k0.
static float4 edge_integral(const lnote_prefix_row *rows, int32_t count, intptr_t k0, double span_x, double span_y,
                            int premultiply, double ax, double ay, double bx, double by) {
    double dy = by - ay;
    if (dy == 0 || count <= 0) return (float4)0;
    double ylo = smax(smin(ay, by), (double)k0);
    double yhi = smin(smin(smax(ay, by), (double)(k0 + count)), span_y);
    if (!(ylo < yhi)) return (float4)0;
    double slope = (bx - ax) / dy;
    float4 total = 0;
    double y0 = ylo;
    intptr_t r = floor_int(ylo) - k0;
    if (count - 1 < r) r = count - 1;
    while (y0 < yhi && r < count) {
        const lnote_prefix_row *row = rows + r;
        double y1 = smin((double)(k0 + r + 1), yhi);
        double x0 = ax + (y0 - ay) * slope, x1 = ax + (y1 - ay) * slope;
        double height = y1 - y0;
        double lo = smin(x0, x1), hi = smax(x0, x1);
        intptr_t cell = floor_int(lo);
        if ((double)(cell + 1) >= hi || hi - lo < 1e-12) {
            // Within one texel column: F is linear along the piece, take its midpoint.
            total += row_f(row, (lo + hi) / 2, premultiply) * (float)height;
        } else if (lo >= row->first && hi <= row->last) {
            // Across whole texel columns, nothing clamped: the partial columns at both ends at
            // their midpoints, and each whole column c in between at its midpoint, where F is
            // the mean of P(c) and P(c + 1); all with the same height per unit of x.
            double per_x = height / (hi - lo);
            intptr_t c1 = floor_int(hi);
            float4 piece = row_f(row, (lo + (double)(cell + 1)) / 2, premultiply) * (float)(((double)(cell + 1) - lo) * per_x);
            if (hi > (double)c1) piece += row_f(row, ((double)c1 + hi) / 2, premultiply) * (float)((hi - (double)c1) * per_x);
            if (c1 > cell + 1) {
                // Columns cell + 1 … c1, all held (lo ≥ first): entries from cell + 1 − first_column on.
                const uint32_t *at = row->base + 4 * (cell + 1 - row->first_column);
                intptr_t span = c1 - (cell + 1);
                float4 inner = (prefix_value(at, premultiply) + prefix_value(at + 4 * span, premultiply)) * 0.5f;
                for (intptr_t c = 1; c < span; c++) inner += prefix_value(at + 4 * c, premultiply);
                piece += inner * (float)per_x;
            }
            total += piece;
        } else {
            // Split where it crosses texel columns (and the image's right edge): F is linear in
            // each piece; each piece's share of the height is its share of x.
            double per_x = height / (hi - lo);
            double p = lo, next = (double)(cell + 1);
            while (p < hi) {
                double end = smin(hi, next);
                if (p < span_x && span_x < end) end = span_x;
                total += row_f(row, (p + end) / 2, premultiply) * (float)((end - p) * per_x);
                if (end == next) next += 1;
                p = end;
            }
        }
        y0 = y1;
        r += 1;
    }
    return dy > 0 ? total : -total;
}

void lnote_tile_edges(const lnote_prefix_row *rows, int32_t count, intptr_t k0, double span_x, double span_y,
                      int32_t premultiply, double qx, double qy, double exx, double exy, double eyx, double eyy,
                      int32_t ni, int32_t nj, int32_t n, float *h, float *v) {
    for (int32_t b = 0; b <= nj; b++) {
        for (int32_t a = 0; a < ni; a++) {
            double px = (qx + (double)a * exx) + (double)b * eyx, py = (qy + (double)a * exy) + (double)b * eyy;
            float4 e = edge_integral(rows, count, k0, span_x, span_y, premultiply, px, py, px + exx, py + exy);
            __builtin_memcpy(h + 4 * (a + b * n), &e, sizeof e);
        }
    }
    for (int32_t b = 0; b < nj; b++) {
        for (int32_t a = 0; a <= ni; a++) {
            double px = (qx + (double)a * exx) + (double)b * eyx, py = (qy + (double)a * exy) + (double)b * eyy;
            float4 e = edge_integral(rows, count, k0, span_x, span_y, premultiply, px, py, px + eyx, py + eyy);
            __builtin_memcpy(v + 4 * (a + b * (n + 1)), &e, sizeof e);
        }
    }
}
