#!/usr/bin/env python3
"""PDFium (Chrome's PDF engine, through pypdfium2) as a judge of lnote-render's PDF export.

    tools/.venv/bin/python tools/judges/pdfium.py render FILE.pdf DPI OUT_PREFIX [PAGE...]
        writes OUT_PREFIX-N.png (RGB, on white) for each 1-based PAGE (default: every page)
    tools/.venv/bin/python tools/judges/pdfium.py info FILE.pdf
        prints one JSON object: page count, page labels, outline titles and their pages,
        and the document information (Title, Producer, CreationDate, ModDate)

tools/install-deps installs pypdfium2 (pinned) into the git-ignored tools/.venv.
The PNG writer is the standard library's zlib: no imaging package is needed.
"""
import json
import struct
import sys
import zlib

import pypdfium2 as pdfium


def write_png(path, width, height, stride, buffer, channels):
    """An 8-bit RGB PNG from rows of `channels` bytes per pixel (RGB or RGBA/RGBX, RGB first)."""
    raw = bytearray()
    data = bytes(buffer)
    for y in range(height):
        row = data[y * stride:y * stride + width * channels]
        raw.append(0)
        if channels == 3:
            raw += row
        else:
            pixels = bytearray(width * 3)
            pixels[0::3] = row[0::channels]
            pixels[1::3] = row[1::channels]
            pixels[2::3] = row[2::channels]
            raw += pixels

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(bytes(raw), 1)))
        f.write(chunk(b"IEND", b""))


def render(path, dpi, prefix, pages):
    pdf = pdfium.PdfDocument(path)
    numbers = pages or list(range(1, len(pdf) + 1))
    for n in numbers:
        page = pdf[n - 1]
        bitmap = page.render(scale=dpi / 72, fill_color=(255, 255, 255, 255), rev_byteorder=True)
        channels = bitmap.n_channels
        write_png(f"{prefix}-{n}.png", bitmap.width, bitmap.height, bitmap.stride, bitmap.buffer, channels)
        page.close()
    pdf.close()


def info(path):
    pdf = pdfium.PdfDocument(path)
    labels = [pdf.get_page_label(i) for i in range(len(pdf))]
    outline = []
    for item in pdf.get_toc():
        outline.append({"title": item.get_title(), "page": item.get_dest().get_index() + 1 if item.get_dest() else None,
                        "level": item.level})
    meta = pdf.get_metadata_dict(skip_empty=True)
    print(json.dumps({"pages": len(pdf), "labels": labels, "outline": outline, "info": meta}))
    pdf.close()


def main(argv):
    if len(argv) >= 4 and argv[0] == "render":
        render(argv[1], float(argv[2]), argv[3], [int(a) for a in argv[4:]])
    elif len(argv) == 2 and argv[0] == "info":
        info(argv[1])
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
