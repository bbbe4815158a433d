// The raster backend's C kernels (lnote-format.md section 6): the row compositing of strokes
// (row_blend.c), and the image filter's texel sums (texel_sums.c: upright frames' row sums,
// rotated frames' row prefix sums and the edge integrals over them; ImageDrawing.swift).
//
// Compositing: the formulas are those of Compositor.swift, operation for operation, so the
// pixels are the same bit for bit; written in C because Clang vectorizes these loops (four
// pixels per SSE2 vector on baseline x86-64, checked with -Rpass=loop-vectorize; the same
// vectorizer serves arm64's NEON, not measured here) where Swift's per-pixel loop stays
// scalar: the float → int truncation has no fast generic SIMD form in Swift. Texel sums: exact
// integer sums where the texels are straight, and for the rest the float arithmetic the
// filter had in Swift, pinned by TexelKernelTests. No fused multiply-add (contraction is off
// in both files), so every target rounds the same way.
#ifndef LNOTE_RASTER_KERNELS_H
#define LNOTE_RASTER_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Source-over of the straight colour (sr, sg, sb) onto `count` premultiplied RGBA8 pixels at
/// `dst`, pixel k at opacity gain · coverage[k]: d + (s − d)·a per channel (s = 255 for alpha),
/// rounded to nearest (halves up). Opacity 0 leaves a pixel as it is.
void lnote_blend_row_source_over(uint8_t *dst, const float *coverage, int32_t count, float gain,
                                 float sr, float sg, float sb);

/// Multiply (premultiplied W3C form) of the straight colour onto `count` pixels, as above:
/// d + (s·(1 − αd) + s·d/255 − d)·a per colour channel, αd + (255 − αd)·a for alpha.
void lnote_blend_row_multiply(uint8_t *dst, const float *coverage, int32_t count, float gain,
                              float sr, float sg, float sb);


/// Prefix sums of `count` straight RGBA8 texels: prefix[4·(c + 1) + k] = the sum of channel k
/// over texels 0…c, prefix[0…3] = 0 (room for 4·(count + 1) values). `next`, when not null,
/// is the same span one image row down, fetched into the cache for the call that follows.
void lnote_prefix_rgba8(const uint8_t *texels, int32_t count, uint32_t *prefix, const uint8_t *next);

/// The same over premultiplied texels, in floats: each texel is (r·m, g·m, b·m, a) with
/// m = a · (1/255), added in order, rounding as TexelReader.texel and a running SIMD4<Float> sum do.
void lnote_prefix_rgba8_premultiplied(const uint8_t *texels, int32_t count, float *prefix, const uint8_t *next);

/// One pixel's texels along the image's x axis (ImageDrawing.swift's AxisWeights.Span): texels
/// first ..< first + count, weights at `offset` in the weight array, and the share of the
/// pixel inside the frame (0: outside, skipped).
typedef struct {
    intptr_t first, count, offset;
    double coverage;
} lnote_axis_span;

/// For each of `count` pixels with coverage > 0: sums[4a…4a+3] += wy · (the pixel's span of
/// `row` weighted by `weights`), the texels read as TexelReader reads them (premultiplied on
/// read when `premultiply`): line = (w0·t_first + w1·Σ t_between) + w_last·t_last for three
/// texels or more, else Σ w_i·t_i in order from 0; straight texels between summed exactly (in
/// blocks of 256).
void lnote_area_row(const uint8_t *row, const lnote_axis_span *spans, const float *weights, int32_t count, float wy,
                    int32_t premultiply, float *sums);

/// One texel row of a rotated frame's tile (ImageDrawing.swift's EdgeIntegrator.Row): its prefix
/// sums, 4 values an entry (integers, or float bits for premultiplied texels), the entry for
/// column c at base[4·(c − first_column)]; held for x from first to last (texel coordinates:
/// first = first_column, last clamped to the image's span), last_column the last column whose
/// entry and the next are held.
typedef struct {
    const uint32_t *base;
    intptr_t first_column;
    double first, last;
    intptr_t last_column;
} lnote_prefix_row;

/// The edge integrals ∫ F dy of a tile of ni × nj pixels (EdgeIntegrator.integrate): corner
/// (a, b) at q + a·ex + b·ey in texel coordinates; h[4·(a + b·n)] from corner (a, b) to
/// (a + 1, b) for b ≤ nj, v[4·(a + b·(n + 1))] from (a, b) to (a, b + 1) for a ≤ ni; `count`
/// rows from texel row k0. Pinned by TexelKernelTests to the Swift it replaced, bit for bit.
void lnote_tile_edges(const lnote_prefix_row *rows, int32_t count, intptr_t k0, double span_x, double span_y,
                      int32_t premultiply, double qx, double qy, double exx, double exy, double eyx, double eyy,
                      int32_t ni, int32_t nj, int32_t n, float *h, float *v);

#endif
