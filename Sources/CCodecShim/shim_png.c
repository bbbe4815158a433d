// PNG encode/decode over libpng 1.6, with every png_error turned into a status code.
//
// Each entry point sets png_jmpbuf once, before any call that can fail. Everything it must
// clean up after a longjmp (row pointers, output buffer) is allocated before setjmp and only
// reached through pointers that do not change afterwards, so no local needs `volatile`.
#include "codec_shim.h"
#include "shim_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *msg;
    size_t capacity;
} png_error_sink;

// libpng calls this with its message; we keep the message and jump back to our setjmp.
// (Returning would make libpng print the message to stderr before jumping.)
static void png_error_cb(png_structp png, png_const_charp text) {
    png_error_sink *sink = png_get_error_ptr(png);
    if (sink) lnc_set_message(sink->msg, sink->capacity, text ? text : "libpng error");
    png_longjmp(png, 1);
}

// Warnings (e.g. a bad CRC in an ancillary chunk, which libpng then skips) are not failures
// and must not reach stderr.
static void png_warning_cb(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

// MARK: Encode

static void png_write_cb(png_structp png, png_bytep bytes, size_t length) {
    lnc_buffer *b = png_get_io_ptr(png);
    if (!lnc_buffer_reserve(b, length)) png_error(png, "out of memory while writing PNG");
    memcpy(b->data + b->size, bytes, length);
    b->size += length;
}

static void png_flush_cb(png_structp png) { (void)png; }

// Per-row filter choice for LNC_PNG_FILTER_ADAPTIVE_NONE_UP. Measured on a 2x handwriting
// page (paper, rules, anti-aliased ink): unfiltered rows compress best, because paper and ink
// edges repeat exactly and deflate finds those repeats, while UP/SUB turn anti-aliased edges
// into less repetitive deltas (level 1: NONE 0.94 MB, UP 1.21 MB, SUB 1.23 MB). Photo-like
// rows are the opposite (NONE ~2x UP). A row where at least half of the pixels repeat their
// left neighbour is "paper-like". The threshold was measured (0.3-0.9 tried) on pages with
// 0-100 % photo area; 0.5 kept the plain page at the NONE size and stayed within 10 % of
// libpng level 6 everywhere else.
static int row_prefers_no_filter(const uint8_t *row, uint32_t width) {
    const uint8_t *p = row;
    uint32_t equal = 0;
    for (uint32_t x = 1; x < width; x++) {
        p += 4;
        equal += memcmp(p, p - 4, 4) == 0;
    }
    return equal * 2 >= width;
}

int lnc_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                   int with_alpha, const lnc_png_options *opt,
                   const lnc_png_text *texts, int text_count,
                   uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity) {
    *out = NULL;
    *out_size = 0;
    if (rgba == NULL || width == 0 || height == 0 || stride < (size_t)width * 4 || opt == NULL ||
        text_count < 0 || (text_count > 0 && texts == NULL)) {
        lnc_set_message(msg, msg_capacity, "invalid arguments to PNG encoder");
        return LNC_ERR_ARGUMENT;
    }
    png_error_sink sink = {msg, msg_capacity};
    lnc_buffer *buffer = calloc(1, sizeof *buffer);
    png_bytep *rows = malloc(sizeof(png_bytep) * height);
    png_textp text_chunks = text_count > 0 ? calloc((size_t)text_count, sizeof(png_text)) : NULL;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, png_error_cb, png_warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!buffer || !rows || (text_count > 0 && !text_chunks) || !png || !info) {
        png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
        free(buffer);
        free(rows);
        free(text_chunks);
        lnc_set_message(msg, msg_capacity, "out of memory");
        return LNC_ERR_NOMEM;
    }
    // A first guess at the output size (a third of the raw size) saves most reallocations.
    lnc_buffer_reserve(buffer, (size_t)width * height * (with_alpha ? 4 : 3) / 3 + 1024);
    for (uint32_t y = 0; y < height; y++) rows[y] = (png_bytep)(rgba + (size_t)y * stride);

    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(buffer->data);
        free(buffer);
        free(rows);
        free(text_chunks);
        return LNC_ERR_LIBRARY;
    }

    png_set_write_fn(png, buffer, png_write_cb, png_flush_cb);
    png_set_IHDR(png, info, width, height, 8, with_alpha ? PNG_COLOR_TYPE_RGB_ALPHA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, opt->level);
    if (opt->filters == LNC_PNG_FILTER_ADAPTIVE_NONE_UP)
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE | PNG_FILTER_UP);  // allocates prev_row
    else if (opt->filters >= 0)
        png_set_filter(png, PNG_FILTER_TYPE_BASE, opt->filters);
    if (opt->strategy >= 0) png_set_compression_strategy(png, opt->strategy);
    if (opt->mem_level > 0) png_set_compression_mem_level(png, opt->mem_level);
    if (opt->window_bits > 0) png_set_compression_window_bits(png, opt->window_bits);
    if (opt->buffer_size > 0) png_set_compression_buffer_size(png, (size_t)opt->buffer_size);
    if (opt->srgb_intent >= 0) png_set_sRGB(png, info, opt->srgb_intent);
    if (opt->pixels_per_metre > 0)
        png_set_pHYs(png, info, opt->pixels_per_metre, opt->pixels_per_metre, PNG_RESOLUTION_METER);
    if (text_count > 0) {
        for (int i = 0; i < text_count; i++) {
            text_chunks[i].compression = PNG_TEXT_COMPRESSION_NONE;
            text_chunks[i].key = (png_charp)texts[i].keyword;
            text_chunks[i].text = (png_charp)texts[i].text;
            text_chunks[i].text_length = strlen(texts[i].text);
        }
        png_set_text(png, info, text_chunks, text_count);
    }
    png_write_info(png, info);
    // RGB output from RGBA input: libpng drops the 4th byte while filtering, no copy needed.
    if (!with_alpha) png_set_filler(png, 0, PNG_FILLER_AFTER);
    if (opt->filters == LNC_PNG_FILTER_ADAPTIVE_NONE_UP) {
        for (uint32_t y = 0; y < height; y++) {
            // Row 0 goes out with both filters enabled: libpng allocates prev_row when it
            // writes the first row, and refuses to add UP later if it was not enabled then.
            if (y > 0)
                png_set_filter(png, PNG_FILTER_TYPE_BASE,
                               row_prefers_no_filter(rows[y], width) ? PNG_FILTER_NONE : PNG_FILTER_UP);
            png_write_row(png, rows[y]);
        }
    } else {
        png_write_image(png, rows);
    }
    png_write_end(png, info);

    png_destroy_write_struct(&png, &info);
    free(rows);
    free(text_chunks);
    *out = buffer->data;
    *out_size = buffer->size;
    free(buffer);
    return LNC_OK;
}

// MARK: Decode

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t position;
} png_source;

static void png_read_cb(png_structp png, png_bytep bytes, size_t length) {
    png_source *src = png_get_io_ptr(png);
    if (length > src->size - src->position) png_error(png, "truncated PNG data");
    memcpy(bytes, src->data + src->position, length);
    src->position += length;
}

/// Creates the read struct on an in-memory source that has already passed the signature check.
static int png_open(const uint8_t *data, size_t size, png_error_sink *sink, png_source *src,
                    png_structp *png, png_infop *info) {
    if (size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        lnc_set_message(sink->msg, sink->capacity, size < 8 ? "not a PNG file (too short)" : "not a PNG file (bad signature)");
        return LNC_ERR_LIBRARY;
    }
    src->data = data;
    src->size = size;
    src->position = 8;
    *png = png_create_read_struct(PNG_LIBPNG_VER_STRING, sink, png_error_cb, png_warning_cb);
    *info = *png ? png_create_info_struct(*png) : NULL;
    if (!*png || !*info) {
        png_destroy_read_struct(*png ? png : NULL, *info ? info : NULL, NULL);
        lnc_set_message(sink->msg, sink->capacity, "out of memory");
        return LNC_ERR_NOMEM;
    }
    png_set_read_fn(*png, src, png_read_cb);
    png_set_sig_bytes(*png, 8);
    return LNC_OK;
}

int lnc_png_read_header(const uint8_t *data, size_t size, uint32_t *width, uint32_t *height,
                        char *msg, size_t msg_capacity) {
    *width = 0;
    *height = 0;
    png_error_sink sink = {msg, msg_capacity};
    png_source src;
    png_structp png;
    png_infop info;
    int status = png_open(data, size, &sink, &src, &png, &info);
    if (status != LNC_OK) return status;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return LNC_ERR_LIBRARY;
    }
    // Reads IHDR and every chunk before the first IDAT; no pixel memory is involved.
    png_read_info(png, info);
    *width = png_get_image_width(png, info);
    *height = png_get_image_height(png, info);
    png_destroy_read_struct(&png, &info, NULL);
    return LNC_OK;
}

int lnc_png_decode(const uint8_t *data, size_t size, uint64_t max_pixels,
                   uint8_t *out, size_t out_size, uint32_t width, uint32_t height,
                   char *msg, size_t msg_capacity) {
    if (out == NULL || width == 0 || height == 0 || out_size != (size_t)width * height * 4) {
        lnc_set_message(msg, msg_capacity, "invalid arguments to PNG decoder");
        return LNC_ERR_ARGUMENT;
    }
    png_error_sink sink = {msg, msg_capacity};
    png_source src;
    png_structp png;
    png_infop info;
    png_bytep *rows = malloc(sizeof(png_bytep) * height);
    if (!rows) {
        lnc_set_message(msg, msg_capacity, "out of memory");
        return LNC_ERR_NOMEM;
    }
    for (uint32_t y = 0; y < height; y++) rows[y] = out + (size_t)y * width * 4;
    int status = png_open(data, size, &sink, &src, &png, &info);
    if (status != LNC_OK) {
        free(rows);
        return status;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        return LNC_ERR_LIBRARY;
    }
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if ((uint64_t)w * h > max_pixels) {
        lnc_set_message(msg, msg_capacity, "PNG image is larger than the pixel limit");
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        return LNC_ERR_TOO_LARGE;
    }
    if (w != width || h != height) {
        lnc_set_message(msg, msg_capacity, "PNG size differs from the size given to the decoder");
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        return LNC_ERR_ARGUMENT;
    }
    // Normalise every colour type and depth to 8-bit RGBA. No gamma or colour management:
    // pixels are taken as sRGB, as the format says.
    int color_type = png_get_color_type(png, info);
    png_set_expand(png);            // palette -> RGB, grey < 8 bits -> 8 bits, tRNS -> alpha
    png_set_scale_16(png);          // 16 -> 8 bits, rounded (strip_16 would truncate)
    if (!(color_type & PNG_COLOR_MASK_COLOR)) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);  // Adam7: png_read_image runs all passes over `rows`
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4 || png_get_bit_depth(png, info) != 8 ||
        png_get_channels(png, info) != 4) {
        lnc_set_message(msg, msg_capacity, "PNG could not be normalised to 8-bit RGBA");
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        return LNC_ERR_UNSUPPORTED;
    }
    png_read_image(png, rows);
    // libpng checks the CRC of the last IDAT chunk only here (after zlib's stream end it
    // leaves the chunk open), so skipping png_read_end would accept a corrupt IDAT.
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    return LNC_OK;
}
