// JPEG encode/decode over libjpeg-turbo's classic libjpeg API, with every ERREXIT turned
// into a status code.
//
// The error manager formats libjpeg's message into the caller's buffer and longjmps to the
// jmp_buf of the entry point on the stack. Warnings (e.g. "Corrupt JPEG data: extraneous
// bytes") are not failures and are never printed, with one exception: image data that stops at
// a marker before the image is complete ("premature end of data segment") fails the decode,
// since libjpeg would pad the rest with grey. Running out of input is an error too: the source
// manager does not insert a fake EOI, so a truncated file is reported, not shown grey.
#include "codec_shim.h"
#include "shim_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr pub;  // first, so a j_common_ptr's err can be cast back
    jmp_buf jump;
    char *msg;
    size_t capacity;
    int data_cut_short;  // JWRN_HIT_MARKER seen: entropy-coded data ended before the image did
} jpeg_error_sink;

static void jpeg_error_exit_cb(j_common_ptr cinfo) {
    jpeg_error_sink *sink = (jpeg_error_sink *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    lnc_set_message(sink->msg, sink->capacity, text);
    longjmp(sink->jump, 1);
}

static void jpeg_emit_message_cb(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    cinfo->err->num_warnings++;  // counted, not printed
    if (cinfo->err->msg_code == JWRN_HIT_MARKER) ((jpeg_error_sink *)cinfo->err)->data_cut_short = 1;
}

static void jpeg_output_message_cb(j_common_ptr cinfo) { (void)cinfo; }

static void jpeg_error_sink_init(jpeg_error_sink *sink, char *msg, size_t capacity) {
    jpeg_std_error(&sink->pub);
    sink->pub.error_exit = jpeg_error_exit_cb;
    sink->pub.emit_message = jpeg_emit_message_cb;
    sink->pub.output_message = jpeg_output_message_cb;
    sink->msg = msg;
    sink->capacity = capacity;
    sink->data_cut_short = 0;
}

// MARK: In-memory destination

typedef struct {
    struct jpeg_destination_mgr pub;
    lnc_buffer buffer;
} memory_destination;

static void dest_init(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    d->pub.next_output_byte = d->buffer.data;
    d->pub.free_in_buffer = d->buffer.capacity;
}

// libjpeg calls this when the whole buffer is full: grow it and continue after the old end.
static boolean dest_empty(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    d->buffer.size = d->buffer.capacity;
    if (!lnc_buffer_reserve(&d->buffer, d->buffer.capacity)) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    d->pub.next_output_byte = d->buffer.data + d->buffer.size;
    d->pub.free_in_buffer = d->buffer.capacity - d->buffer.size;
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    memory_destination *d = (memory_destination *)cinfo->dest;
    d->buffer.size = d->buffer.capacity - d->pub.free_in_buffer;
}

// Both encoders: YCbCr 4:2:0, or one grey component (libjpeg-turbo's RGB -> Y conversion).
static int jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                       int quality, int dots_per_inch, const uint8_t *comment, size_t comment_length,
                       int grayscale, uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity) {
    *out = NULL;
    *out_size = 0;
    if (rgba == NULL || width == 0 || height == 0 || stride < (size_t)width * 4 ||
        quality < 1 || quality > 100 || dots_per_inch < 0 || dots_per_inch > 65535 ||
        (comment != NULL && comment_length > 65533)) {
        lnc_set_message(msg, msg_capacity, "invalid arguments to JPEG encoder");
        return LNC_ERR_ARGUMENT;
    }
    struct jpeg_compress_struct cinfo;
    jpeg_error_sink sink;
    memory_destination dest;
    memset(&dest, 0, sizeof dest);
    // A first guess (an eighth of the raw size) that most photos and pages fit in.
    if (!lnc_buffer_reserve(&dest.buffer, (size_t)width * height / 2 + 4096)) {
        lnc_set_message(msg, msg_capacity, "out of memory");
        return LNC_ERR_NOMEM;
    }
    jpeg_error_sink_init(&sink, msg, msg_capacity);
    cinfo.err = &sink.pub;
    if (setjmp(sink.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(dest.buffer.data);
        return LNC_ERR_LIBRARY;
    }
    jpeg_create_compress(&cinfo);
    dest.pub.init_destination = dest_init;
    dest.pub.empty_output_buffer = dest_empty;
    dest.pub.term_destination = dest_term;
    cinfo.dest = &dest.pub;

    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBX;  // libjpeg-turbo reads RGBA rows directly, skipping the 4th byte
    jpeg_set_defaults(&cinfo);
    if (grayscale) jpeg_set_colorspace(&cinfo, JCS_GRAYSCALE);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (!grayscale) {
        // 4:2:0: luma 2x2, both chroma components 1x1 (jpeg_set_defaults does this; be explicit).
        cinfo.comp_info[0].h_samp_factor = 2;
        cinfo.comp_info[0].v_samp_factor = 2;
        cinfo.comp_info[1].h_samp_factor = cinfo.comp_info[1].v_samp_factor = 1;
        cinfo.comp_info[2].h_samp_factor = cinfo.comp_info[2].v_samp_factor = 1;
    }
    cinfo.write_JFIF_header = TRUE;
    if (dots_per_inch > 0) {
        cinfo.density_unit = 1;  // dots per inch
        cinfo.X_density = cinfo.Y_density = (UINT16)dots_per_inch;
    }  // 0: jpeg_set_defaults' JFIF density, no unit and a 1:1 aspect ratio

    jpeg_start_compress(&cinfo, TRUE);
    if (comment != NULL) jpeg_write_marker(&cinfo, JPEG_COM, comment, (unsigned int)comment_length);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[16];
        JDIMENSION n = 0;
        while (n < 16 && cinfo.next_scanline + n < cinfo.image_height) {
            rows[n] = (JSAMPROW)(rgba + (size_t)(cinfo.next_scanline + n) * stride);
            n++;
        }
        jpeg_write_scanlines(&cinfo, rows, n);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = dest.buffer.data;
    *out_size = dest.buffer.size;
    return LNC_OK;
}

int lnc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                    int quality, int dots_per_inch, const uint8_t *comment, size_t comment_length,
                    uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity) {
    return jpeg_encode(rgba, width, height, stride, quality, dots_per_inch, comment, comment_length, 0,
                       out, out_size, msg, msg_capacity);
}

int lnc_jpeg_encode_gray(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                         int quality, int dots_per_inch, uint8_t **out, size_t *out_size, char *msg, size_t msg_capacity) {
    return jpeg_encode(rgba, width, height, stride, quality, dots_per_inch, NULL, 0, 1, out, out_size, msg, msg_capacity);
}

// MARK: In-memory source

static void src_init(j_decompress_ptr cinfo) { (void)cinfo; }

// The whole file is in the buffer from the start, so being asked for more means truncation.
static boolean src_fill(j_decompress_ptr cinfo) {
    ERREXIT(cinfo, JERR_INPUT_EOF);
    return FALSE;
}

static void src_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    if (count <= 0) return;
    if ((size_t)count > src->bytes_in_buffer) ERREXIT(cinfo, JERR_INPUT_EOF);
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static void src_term(j_decompress_ptr cinfo) { (void)cinfo; }

static void source_init(struct jpeg_source_mgr *src, const uint8_t *data, size_t size) {
    src->init_source = src_init;
    src->fill_input_buffer = src_fill;
    src->skip_input_data = src_skip;
    src->resync_to_restart = jpeg_resync_to_restart;
    src->term_source = src_term;
    src->next_input_byte = data;
    src->bytes_in_buffer = size;
}

/// Common start of the three readers: signature check, then libjpeg reads up to the first SOS.
static int check_signature(const uint8_t *data, size_t size, char *msg, size_t msg_capacity) {
    if (data == NULL || size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
        lnc_set_message(msg, msg_capacity, "not a JPEG file (bad signature)");
        return LNC_ERR_LIBRARY;
    }
    return LNC_OK;
}

// The readers' setjmp must stay in each entry point's own frame (a longjmp into a returned
// frame is undefined), so only the steps around it are shared: errors first, then, once the
// jump target is set, the decompressor over the in-memory source.
static void reader_errors(struct jpeg_decompress_struct *cinfo, jpeg_error_sink *sink, char *msg, size_t msg_capacity) {
    jpeg_error_sink_init(sink, msg, msg_capacity);
    cinfo->err = &sink->pub;
}

static void reader_open(struct jpeg_decompress_struct *cinfo, struct jpeg_source_mgr *src, const uint8_t *data, size_t size) {
    jpeg_create_decompress(cinfo);
    source_init(src, data, size);
    cinfo->src = src;
}

static int valid_scale(int d) { return d == 1 || d == 2 || d == 4 || d == 8; }

int lnc_jpeg_read_header(const uint8_t *data, size_t size, int scale_denom, lnc_jpeg_info *info,
                         char *msg, size_t msg_capacity) {
    memset(info, 0, sizeof *info);
    if (!valid_scale(scale_denom)) {
        lnc_set_message(msg, msg_capacity, "JPEG scale denominator must be 1, 2, 4 or 8");
        return LNC_ERR_ARGUMENT;
    }
    int status = check_signature(data, size, msg, msg_capacity);
    if (status != LNC_OK) return status;
    struct jpeg_decompress_struct cinfo;
    struct jpeg_source_mgr src;
    jpeg_error_sink sink;
    reader_errors(&cinfo, &sink, msg, msg_capacity);
    if (setjmp(sink.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_LIBRARY;
    }
    reader_open(&cinfo, &src, data, size);
    jpeg_read_header(&cinfo, TRUE);  // errors on zero width/height (JERR_EMPTY_IMAGE)
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    jpeg_calc_output_dimensions(&cinfo);  // arithmetic only, allocates nothing
    info->image_width = cinfo.image_width;
    info->image_height = cinfo.image_height;
    info->output_width = cinfo.output_width;
    info->output_height = cinfo.output_height;
    info->components = cinfo.num_components;
    info->color_space = (int)cinfo.jpeg_color_space;
    int min_h = cinfo.max_h_samp_factor, min_v = cinfo.max_v_samp_factor;
    for (int ci = 0; ci < cinfo.num_components; ci++) {
        if (cinfo.comp_info[ci].h_samp_factor < min_h) min_h = cinfo.comp_info[ci].h_samp_factor;
        if (cinfo.comp_info[ci].v_samp_factor < min_v) min_v = cinfo.comp_info[ci].v_samp_factor;
    }
    info->chroma_scale_x = min_h > 0 ? cinfo.max_h_samp_factor / min_h : 1;
    info->chroma_scale_y = min_v > 0 ? cinfo.max_v_samp_factor / min_v : 1;
    jpeg_destroy_decompress(&cinfo);
    return LNC_OK;
}

int lnc_jpeg_decode(const uint8_t *data, size_t size, int scale_denom, uint64_t max_pixels,
                    uint8_t *out, size_t out_size, uint32_t output_width, uint32_t output_height,
                    char *msg, size_t msg_capacity) {
    if (!valid_scale(scale_denom) || out == NULL || output_width == 0 || output_height == 0 ||
        out_size != (size_t)output_width * output_height * 4) {
        lnc_set_message(msg, msg_capacity, "invalid arguments to JPEG decoder");
        return LNC_ERR_ARGUMENT;
    }
    int status = check_signature(data, size, msg, msg_capacity);
    if (status != LNC_OK) return status;
    struct jpeg_decompress_struct cinfo;
    struct jpeg_source_mgr src;
    jpeg_error_sink sink;
    reader_errors(&cinfo, &sink, msg, msg_capacity);
    if (setjmp(sink.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_LIBRARY;
    }
    reader_open(&cinfo, &src, data, size);
    jpeg_read_header(&cinfo, TRUE);
    // The limit applies to the stored size even when decoding scaled: libjpeg's own buffers
    // (a progressive file keeps every coefficient) grow with it, not with the output.
    if ((uint64_t)cinfo.image_width * cinfo.image_height > max_pixels) {
        lnc_set_message(msg, msg_capacity, "JPEG image is larger than the pixel limit");
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_TOO_LARGE;
    }
    int cmyk = 0;
    switch (cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo.out_color_space = JCS_EXT_RGBA;  // libjpeg-turbo writes alpha 255 itself
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo.out_color_space = JCS_CMYK;  // 4 bytes per pixel too; converted below in place
        cmyk = 1;
        break;
    default:
        lnc_set_message(msg, msg_capacity, "unsupported JPEG colour space");
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_UNSUPPORTED;
    }
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)scale_denom;
    jpeg_calc_output_dimensions(&cinfo);
    if (cinfo.output_width != output_width || cinfo.output_height != output_height ||
        cinfo.output_components != 4) {
        lnc_set_message(msg, msg_capacity, "JPEG output size differs from the size given to the decoder");
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_ARGUMENT;
    }
    jpeg_start_decompress(&cinfo);
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[16];
        JDIMENSION n = 0;
        while (n < 16 && cinfo.output_scanline + n < cinfo.output_height) {
            rows[n] = out + (size_t)(cinfo.output_scanline + n) * output_width * 4;
            n++;
        }
        jpeg_read_scanlines(&cinfo, rows, n);
    }
    if (sink.data_cut_short) {
        lnc_set_message(msg, msg_capacity, "image data ends before the image does (premature end of data segment)");
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_LIBRARY;
    }
    // Adobe (Photoshop) CMYK JPEGs store inverted values; others store plain CMYK.
    int inverted = cinfo.saw_Adobe_marker;
    // Every row is decoded: skip jpeg_finish_decompress, so trailing junk after the last scan
    // (or a missing EOI) does not fail an image that is already complete.
    jpeg_destroy_decompress(&cinfo);
    if (cmyk) {
        size_t count = (size_t)output_width * output_height;
        for (size_t i = 0; i < count; i++) {
            uint8_t *p = out + i * 4;
            unsigned c = p[0], m = p[1], y = p[2], k = p[3];
            if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
            // Now c, m, y, k are "amount of white left" (255 - ink): multiply.
            p[0] = (uint8_t)((c * k + 127) / 255);
            p[1] = (uint8_t)((m * k + 127) / 255);
            p[2] = (uint8_t)((y * k + 127) / 255);
            p[3] = 255;
        }
    }
    return LNC_OK;
}

int lnc_jpeg_read_comment(const uint8_t *data, size_t size, uint8_t **out, size_t *out_size,
                          char *msg, size_t msg_capacity) {
    *out = NULL;
    *out_size = 0;
    int status = check_signature(data, size, msg, msg_capacity);
    if (status != LNC_OK) return status;
    struct jpeg_decompress_struct cinfo;
    struct jpeg_source_mgr src;
    jpeg_error_sink sink;
    reader_errors(&cinfo, &sink, msg, msg_capacity);
    if (setjmp(sink.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return LNC_ERR_LIBRARY;
    }
    reader_open(&cinfo, &src, data, size);
    jpeg_save_markers(&cinfo, JPEG_COM, 0xFFFF);  // keep COM markers whole; others are skipped
    jpeg_read_header(&cinfo, TRUE);               // stops at the first SOS: no pixel decoding
    for (jpeg_saved_marker_ptr m = cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_COM) continue;
        uint8_t *copy = malloc(m->data_length ? m->data_length : 1);
        if (!copy) {
            lnc_set_message(msg, msg_capacity, "out of memory");
            jpeg_destroy_decompress(&cinfo);
            return LNC_ERR_NOMEM;
        }
        memcpy(copy, m->data, m->data_length);
        *out = copy;
        *out_size = m->data_length;
        break;
    }
    jpeg_destroy_decompress(&cinfo);
    return LNC_OK;
}
