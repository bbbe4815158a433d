#ifndef LNOTE_CODEC_SHIM_H
#define LNOTE_CODEC_SHIM_H
// C entry points that own libpng's and libjpeg's setjmp error handling.
#endif
