// Helpers shared by the PNG and JPEG halves of the shim.
#include "codec_shim.h"
#include "shim_internal.h"

#include <stdlib.h>
#include <string.h>

void lnc_free(void *p) { free(p); }

void lnc_set_message(char *msg, size_t capacity, const char *text) {
    if (msg == NULL || capacity == 0) return;
    size_t n = strlen(text);
    if (n >= capacity) n = capacity - 1;
    memcpy(msg, text, n);
    msg[n] = '\0';
}

int lnc_buffer_reserve(lnc_buffer *b, size_t extra) {
    if (extra <= b->capacity - b->size) return 1;
    size_t want = b->capacity ? b->capacity : 4096;
    while (want - b->size < extra) {
        if (want > SIZE_MAX / 2) return 0;
        want *= 2;
    }
    uint8_t *grown = realloc(b->data, want);
    if (grown == NULL) return 0;
    b->data = grown;
    b->capacity = want;
    return 1;
}
