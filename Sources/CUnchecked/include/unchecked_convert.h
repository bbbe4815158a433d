// Float-to-integer conversions without Swift's range checks, for the raster's hot loops.
//
// Swift's Int32(Float) traps on NaN and out-of-range values, which costs a compare and a branch
// per conversion unless the whole module is built with -Ounchecked (refused in versioned
// dependencies). Callers clamp first; these are the machine's truncating conversion
// (cvttss2si on x86-64, fcvtzs on arm64), inlined into Swift by the Clang importer.
#ifndef LNOTE_UNCHECKED_CONVERT_H
#define LNOTE_UNCHECKED_CONVERT_H

#include <stdint.h>

/// (int32_t)v: toward zero. v must be within the int32 range (callers clamp).
static inline __attribute__((always_inline)) int32_t lnote_trunc_f32_i32(float v) { return (int32_t)v; }

/// (int64_t)v: toward zero. v must be within the int64 range (callers clamp).
static inline __attribute__((always_inline)) int64_t lnote_trunc_f64_i64(double v) { return (int64_t)v; }

#endif
