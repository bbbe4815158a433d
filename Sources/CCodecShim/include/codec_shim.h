#ifndef LNOTE_CODEC_SHIM_H
#define LNOTE_CODEC_SHIM_H
// C entry points that own libpng's and libjpeg's setjmp error handling.
//
// libpng and libjpeg report errors by longjmp. Swift cannot call setjmp, and a longjmp across
// Swift frames is undefined behaviour, so every library call that can fail happens inside one
// of these functions: each sets its own jmp_buf, and returns a status code plus a formatted
// message in a caller-supplied buffer. Nothing here prints, exits, or jumps out.
//
// Memory: output buffers that the shim allocates (`*out`) are malloc'd and must be released
// with lnc_free. Decoders write into a buffer the caller allocated after reading the header,
// so the caller can refuse an oversized image before any pixel memory exists.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LNC_OK = 0,
    LNC_ERR_LIBRARY = 1,      // libpng/libjpeg reported an error (message in msg)
    LNC_ERR_NOMEM = 2,        // an allocation failed
    LNC_ERR_ARGUMENT = 3,     // the caller passed something inconsistent
    LNC_ERR_TOO_LARGE = 4,    // the header claims more pixels than allowed
    LNC_ERR_UNSUPPORTED = 5,  // a valid file in a form this shim does not decode
} lnc_status;

/// Recommended size of the message buffer; shorter buffers are truncated, never overrun.
#define LNC_MSG_CAPACITY 256

void lnc_free(void *p);

// MARK: - PNG

typedef struct {
    const char *keyword;  // 1-79 Latin-1 bytes, NUL-terminated (validated by libpng)
    const char *text;     // Latin-1 bytes, NUL-terminated
} lnc_png_text;

/// `filters` value: per row, NONE where at least half the pixels repeat their left
/// neighbour (paper, ink), else UP (photos, gradients). See shim_png.c for the measurements.
#define LNC_PNG_FILTER_ADAPTIVE_NONE_UP (-2)

typedef struct {
    int level;            // zlib level 0-9
    int filters;          // libpng PNG_FILTER_* mask (PNG_ALL_FILTERS = 0xf8), or
                          // LNC_PNG_FILTER_ADAPTIVE_NONE_UP; -1: libpng default
    int strategy;         // zlib strategy (Z_FILTERED 1, Z_RLE 3, ...); <0: libpng default
    int mem_level;        // zlib memLevel 1-9; <=0: libpng default (8)
    int window_bits;      // zlib windowBits 8-15; <=0: libpng default (15, reduced for small images)
    int buffer_size;      // libpng's IDAT/zlib output buffer size; <=0: libpng default (8192)
    int srgb_intent;      // sRGB chunk rendering intent 0-3; <0: no sRGB chunk
    uint32_t pixels_per_metre;  // pHYs (both axes, unit metre); 0: no pHYs chunk
} lnc_png_options;

/// Encodes `height` rows of RGBA8 pixels (4 bytes per pixel, `stride` bytes per row).
/// `with_alpha` = 0 writes colour type RGB (the 4th byte of each pixel is dropped by libpng's
/// filler transform, no copy); 1 writes RGBA as given (straight alpha expected).
int lnc_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                   int with_alpha, const lnc_png_options *options,
                   const lnc_png_text *texts, int text_count,
                   uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity);

/// Reads the IHDR only: width and height as the file claims them.
int lnc_png_read_header(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height,
                        char *msg, size_t msg_capacity);

/// Decodes to 8-bit straight-alpha RGBA in `out` (exactly width*height*4 bytes, width and
/// height as lnc_png_read_header returned). Palette, grey, grey+alpha, 1/2/4/16-bit, tRNS and
/// Adam7 are normalised. Refuses (LNC_ERR_TOO_LARGE) an image over `max_pixels` before
/// touching `out`. `out` may be partly written when an error is returned.
int lnc_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   uint8_t *out, size_t out_size, uint32_t width, uint32_t height,
                   char *msg, size_t msg_capacity);

// MARK: - JPEG

/// Encodes RGBA8 pixels (the 4th byte is ignored: composite first if it matters) as baseline
/// YCbCr 4:2:0 JPEG with a JFIF APP0 giving `dots_per_inch` on both axes (0: no unit, aspect
/// ratio 1:1, libjpeg's default), and, when
/// `comment` is non-NULL, one COM marker holding `comment_length` (<= 65533) bytes.
int lnc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                    int quality, int dots_per_inch, const uint8_t *comment, size_t comment_length,
                    uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity);

/// The same as a baseline one-component (greyscale) JPEG: each pixel's luma (0.299 R + 0.587 G +
/// 0.114 B, libjpeg-turbo's conversion; exactly the value of a grey pixel), no comment.
int lnc_jpeg_encode_gray(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                         int quality, int dots_per_inch, uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity);

typedef struct {
    uint32_t image_width, image_height;    // as stored in SOF
    uint32_t output_width, output_height;  // after DCT scaling by 1/scale_denom
    int components;                         // 1 grey, 3 YCbCr/RGB, 4 CMYK/YCCK
    int color_space;                        // libjpeg J_COLOR_SPACE of the file
    // How many image pixels the coarsest component's samples span along x and y (max / min
    // sampling factor): 2 and 2 for YCbCr 4:2:0, 1 and 1 for grey or 4:4:4.
    int chroma_scale_x, chroma_scale_y;
} lnc_jpeg_info;

/// Reads the markers up to the first SOS (no entropy-coded data): sizes, and the output size
/// for DCT scaling by 1/scale_denom (1, 2, 4 or 8).
int lnc_jpeg_read_header(const uint8_t *data, size_t size, int scale_denom, lnc_jpeg_info *info,
                         char *msg, size_t msg_capacity);

/// Decodes at 1/scale_denom into `out` (exactly output_width*output_height*4 bytes, as
/// lnc_jpeg_read_header returned for the same scale_denom), as opaque RGBA. Grey is expanded;
/// CMYK and YCCK are converted naively (no colour management; Adobe inverted CMYK detected).
int lnc_jpeg_decode(const uint8_t *data, size_t size, int scale_denom, uint64_t max_pixels,
                    uint8_t *out, size_t out_size, uint32_t output_width, uint32_t output_height,
                    char *msg, size_t msg_capacity);

/// Reads the first COM marker before the first SOS, without decoding pixels. Returns LNC_OK
/// with *out == NULL when there is none; otherwise *out (free with lnc_free) holds the bytes.
int lnc_jpeg_read_comment(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size,
                          char *msg, size_t msg_capacity);

#ifdef __cplusplus
}
#endif
#endif
