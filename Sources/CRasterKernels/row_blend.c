#include "raster_kernels.h"

// Same rounding on every target: no a·b + c fused into one FMA.
#pragma clang fp contract(off)

// Compositor.round8: v + 0.5, clamped to [0, 255] (NaN → 0), truncated.
static inline __attribute__((always_inline)) uint8_t round8(float v) {
    float c = v + 0.5f;
    c = c > 0.0f ? c : 0.0f;
    c = c < 255.0f ? c : 255.0f;
    return (uint8_t)(int32_t)c;
}

void lnote_blend_row_source_over(uint8_t *restrict dst, const float *restrict coverage, int32_t count, float gain,
                                 float sr, float sg, float sb) {
    for (int32_t k = 0; k < count; k++) {
        float a = coverage[k] * gain;
        uint8_t *p = dst + 4 * k;
        float dr = p[0], dg = p[1], db = p[2], da = p[3];
        p[0] = round8(dr + (sr - dr) * a);
        p[1] = round8(dg + (sg - dg) * a);
        p[2] = round8(db + (sb - db) * a);
        p[3] = round8(da + (255.0f - da) * a);
    }
}

void lnote_blend_row_multiply(uint8_t *restrict dst, const float *restrict coverage, int32_t count, float gain,
                              float sr, float sg, float sb) {
    const float inv = 1.0f / 255.0f;
    for (int32_t k = 0; k < count; k++) {
        float a = coverage[k] * gain;
        uint8_t *p = dst + 4 * k;
        float dr = p[0], dg = p[1], db = p[2], da = p[3];
        float uncovered = (255.0f - da) * inv;
        p[0] = round8(dr + (sr * uncovered + sr * dr * inv - dr) * a);
        p[1] = round8(dg + (sg * uncovered + sg * dg * inv - dg) * a);
        p[2] = round8(db + (sb * uncovered + sb * db * inv - db) * a);
        p[3] = round8(da + (255.0f - da) * a);
    }
}
