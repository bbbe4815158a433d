// The raster backend's C kernels: row compositing of strokes (lnote-format.md section 6).
//
// The formulas are those of Compositor.swift, operation for operation, so the pixels are the
// same bit for bit; written in C because Clang vectorizes these loops (four pixels per SSE2
// vector on baseline x86-64, checked with -Rpass=loop-vectorize; the same vectorizer serves
// arm64's NEON, not measured here) where Swift's per-pixel loop stays scalar: the float → int
// truncation has no fast generic SIMD form in Swift. No fused multiply-add
// (contraction is off in row_blend.c), so every target rounds the same way.
#ifndef LNOTE_RASTER_KERNELS_H
#define LNOTE_RASTER_KERNELS_H

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

#endif
