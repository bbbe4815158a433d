#ifndef LNOTE_CODEC_SHIM_INTERNAL_H
#define LNOTE_CODEC_SHIM_INTERNAL_H
// Not part of the module's public header (it lives outside include/).
#include <stddef.h>
#include <stdint.h>

/// A growable malloc'd output buffer; ownership passes to the caller on success.
typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
} lnc_buffer;

/// Makes room for `extra` more bytes; 0 when out of memory (the buffer is left intact).
int lnc_buffer_reserve(lnc_buffer *b, size_t extra);

/// Copies `text` into `msg`, truncating to `capacity - 1` bytes, always NUL-terminating.
void lnc_set_message(char *msg, size_t capacity, const char *text);

#endif
