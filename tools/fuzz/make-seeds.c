// Writes the binary seed inputs of tools/fuzz/seeds/ (tiny PNGs and JPEGs of every kind the
// decoder normalises, and journals with valid CRCs). Run by `tools/fuzz/run seeds`; the output
// is committed, so this only needs to run again when the seeds should change.
//   cc make-seeds.c -I/usr/include/libpng16 -lpng16 -ljpeg -lz -o make-seeds && ./make-seeds DIR
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <jpeglib.h>
#include <zlib.h>

static const char *dir;

static FILE *out(const char *sub, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    return f;
}

static void png(const char *name, int w, int h, int depth, int color, int interlace) {
    FILE *f = out("image", name);
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(p);
    png_init_io(p, f);
    png_set_IHDR(p, info, w, h, depth, color, interlace, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[4] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {9, 9, 9}};
        png_byte trans[2] = {0, 128};
        png_set_PLTE(p, info, pal, 4);
        png_set_tRNS(p, info, trans, 2, NULL);
    }
    png_write_info(p, info);
    int channels = color == PNG_COLOR_TYPE_RGB ? 3 : color == PNG_COLOR_TYPE_RGBA ? 4 :
                   color == PNG_COLOR_TYPE_GRAY_ALPHA ? 2 : 1;
    size_t rowbytes = ((size_t)w * channels * depth + 7) / 8;
    png_bytep row = malloc(rowbytes);
    int passes = png_set_interlace_handling(p);
    for (int pass = 0; pass < passes; pass++)
        for (int y = 0; y < h; y++) {
            for (size_t i = 0; i < rowbytes; i++) row[i] = (png_byte)(i * 37 + y * 11);
            if (color == PNG_COLOR_TYPE_PALETTE && depth == 8)
                for (size_t i = 0; i < rowbytes; i++) row[i] &= 3;
            png_write_row(p, row);
        }
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    free(row);
    fclose(f);
}

static void jpeg(const char *name, int w, int h, J_COLOR_SPACE space, int comps, int progressive, int arith, int restart) {
    FILE *f = out("image", name);
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr err;
    c.err = jpeg_std_error(&err);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, f);
    c.image_width = w;
    c.image_height = h;
    c.input_components = comps;
    c.in_color_space = space;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, 50, TRUE);
    if (progressive) jpeg_simple_progression(&c);
    c.arith_code = arith;
    c.restart_interval = restart;
    if (space == JCS_CMYK) c.write_Adobe_marker = TRUE;
    jpeg_start_compress(&c, TRUE);
    const char *comment = "lnote-render-fingerprint 1\ninputs 0123";
    jpeg_write_marker(&c, JPEG_COM, (const JOCTET *)comment, (unsigned)strlen(comment));
    JSAMPLE *row = malloc((size_t)w * comps);
    while (c.next_scanline < c.image_height) {
        for (int i = 0; i < w * comps; i++) row[i] = (JSAMPLE)(i * 29 + c.next_scanline * 13);
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(row);
    fclose(f);
}

// One journal seed: a mode byte (odd: the harness recomputes CRCs) then frames.
static void frame(FILE *f, unsigned char type, const char *payload) {
    unsigned len = (unsigned)strlen(payload);
    unsigned long crc = crc32(0, &type, 1);
    crc = crc32(crc, (const Bytef *)payload, len);
    unsigned char h[9] = {len & 255, (len >> 8) & 255, (len >> 16) & 255, len >> 24,
                          crc & 255, (crc >> 8) & 255, (crc >> 16) & 255, (crc >> 24) & 255, type};
    fwrite(h, 1, 9, f);
    fwrite(payload, 1, len, f);
}

int main(int argc, char **argv) {
    dir = argc > 1 ? argv[1] : "seeds";
    png("rgb8.png", 8, 8, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE);
    png("rgba8-adam7.png", 7, 5, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_ADAM7);
    png("palette-trns.png", 5, 5, 8, PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE);
    png("gray16.png", 6, 6, 16, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE);
    png("gray1.png", 9, 4, 1, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE);
    png("grayalpha8.png", 3, 3, 8, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_INTERLACE_NONE);
    jpeg("rgb-baseline.jpg", 8, 6, JCS_RGB, 3, 0, 0, 0);
    jpeg("gray.jpg", 16, 16, JCS_GRAYSCALE, 1, 0, 0, 0);
    jpeg("rgb-progressive.jpg", 17, 9, JCS_RGB, 3, 1, 0, 0);
    jpeg("cmyk-adobe.jpg", 9, 7, JCS_CMYK, 4, 0, 0, 0);
    jpeg("rgb-arith-restart.jpg", 24, 10, JCS_RGB, 3, 0, 1, 1);

    FILE *j = out("journal", "add-replace-delete.bin");
    fputc(0, j);
    frame(j, 1, "{\"type\":\"stroke\",\"id\":\"N1\",\"color\":\"#112233\",\"points\":[1,2,3,4,5]}");
    frame(j, 2, "{\"type\":\"stroke\",\"id\":\"a\",\"color\":\"#11223344\",\"tool\":\"highlighter\",\"points\":[1,2,3,4,5,6,7,8,9,10]}");
    frame(j, 3, "B");
    frame(j, 1, "{\"type\":\"image\",\"id\":\"n2\",\"asset\":\"C0A80101-0000-4000-8000-00000000A001.jpg\",\"frame\":[1,2,3,4],\"rotation\":-45000,\"opacity\":500}");
    fclose(j);
    j = out("journal", "discarded-and-torn.bin");
    fputc(0, j);
    frame(j, 9, "{\"type\":\"x\"}");
    frame(j, 1, "");
    frame(j, 1, "{\"type\":\"stroke\",\"color\":\"#000\",\"points\":[1]}");
    frame(j, 3, "\xff\xfe");
    fwrite("\x40\0\0\0\1\2\3\4\1{\"ty", 1, 13, j);
    fclose(j);
    j = out("journal", "crc-fixed-mode.bin");
    fputc(1, j);
    frame(j, 2, "{\"type\":\"mystery\",\"id\":\"A\",\"x\":[[[]]]}");
    frame(j, 1, "{\"type\":\"stroke\",\"id\":\"z\",\"color\":\"#abcdef\",\"tool\":\"pencil\",\"points\":[-2147483648,2147483647,100000,1000,0]}");
    fclose(j);
    return 0;
}
