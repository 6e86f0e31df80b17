#!/usr/bin/env python3
"""Writes the small PNG and JPEG fixtures of FXImageTests with known pixels.

Uses only the standard library (zlib, struct), so the files do not depend on
the libpng / libjpeg code under test. Run from this directory:
    python3 make_fixtures.py
The expected values in ImageFileReadTests.swift are worked out by hand from
the pixel values below.
"""
import os
import struct
import zlib

# ------------------------------------------------------------------ PNG


def chunk(kind, body):
    crc = zlib.crc32(kind + body) & 0xFFFFFFFF
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)


def pack_row(samples, bit_depth):
    """Samples (ints) of one row → bytes, MSB first for depths below 8."""
    if bit_depth == 8:
        return bytes(samples)
    if bit_depth == 16:
        return b"".join(struct.pack(">H", s) for s in samples)
    out, acc, nbits = bytearray(), 0, 0
    for s in samples:
        acc = (acc << bit_depth) | s
        nbits += bit_depth
        if nbits == 8:
            out.append(acc)
            acc, nbits = 0, 0
    if nbits:
        out.append(acc << (8 - nbits))
    return bytes(out)


# Adam7 passes: (x0, y0, dx, dy)
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png(path, width, height, color_type, bit_depth, rows, extra=b"", interlaced=False):
    """rows: list of rows, each a list of samples (channels interleaved)."""
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[color_type]
    raw = bytearray()
    if not interlaced:
        for r in rows:
            raw += b"\x00" + pack_row(r, bit_depth)  # filter type 0 (None)
    else:
        for x0, y0, dx, dy in ADAM7:
            for y in range(y0, height, dy):
                sub = []
                for x in range(x0, width, dx):
                    sub += rows[y][x * channels:(x + 1) * channels]
                if sub:
                    raw += b"\x00" + pack_row(sub, bit_depth)
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 1 if interlaced else 0)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)


def flat(pixels):
    return [s for p in pixels for s in p]


def make_pngs():
    png("gray8.png", 3, 2, 0, 8, [[0, 128, 255], [10, 20, 30]])
    png("gray4.png", 4, 1, 0, 4, [[0, 5, 10, 15]])
    png("graya8.png", 2, 2, 4, 8, [flat([(200, 255), (200, 128)]), flat([(200, 0), (51, 64)])])
    png("rgb8.png", 2, 2, 2, 8, [flat([(255, 0, 0), (0, 255, 0)]), flat([(0, 0, 255), (12, 34, 56)])])
    png("rgba8.png", 2, 2, 6, 8,
        [flat([(255, 255, 255, 255), (200, 100, 50, 128)]), flat([(10, 20, 30, 0), (255, 128, 0, 51)])])
    # 2-bit palette; entries 0 and 1 are translucent through tRNS.
    palette = struct.pack("12B", 200, 100, 50, 0, 0, 255, 255, 255, 0, 9, 8, 7)
    trns = bytes([128, 0])
    png("palette_trns.png", 3, 2, 3, 2, [[0, 1, 2], [3, 0, 3]],
        extra=chunk(b"PLTE", palette) + chunk(b"tRNS", trns))
    png("palette8.png", 2, 1, 3, 8, [[1, 0]], extra=chunk(b"PLTE", struct.pack("6B", 1, 2, 3, 4, 5, 6)))
    # Gray with tRNS: gray value 50 is fully transparent.
    png("gray_trns.png", 2, 1, 0, 8, [[50, 51]], extra=chunk(b"tRNS", struct.pack(">H", 50)))
    # Adam7-interlaced RGB; pixel (x, y) = (20x, 30y, 7(x + y)).
    w, h = 9, 7
    rows = [flat([(20 * x, 30 * y, 7 * (x + y)) for x in range(w)]) for y in range(h)]
    png("rgb_interlaced.png", w, h, 2, 8, rows, interlaced=True)


# ----------------------------------------------------------------- JPEG
# Baseline JPEGs whose 8×8 blocks are flat: only DC coefficients, all
# quantisation steps 1, so a flat block of value v has DC = 8 (v - 128) and
# decodes back to exactly v.

DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]  # JPEG Annex K.3 luminance DC
DC_VALS = list(range(12))
AC_BITS = [1] + [0] * 15  # one code, "0", for EOB
AC_VALS = [0x00]


def huffman_codes(bits, vals):
    codes, code, k = {}, 0, 0
    for length in range(1, 17):
        for _ in range(bits[length - 1]):
            codes[vals[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return codes


class BitWriter:
    def __init__(self):
        self.out, self.acc, self.n = bytearray(), 0, 0

    def put(self, value, length):
        for i in range(length - 1, -1, -1):
            self.acc = (self.acc << 1) | ((value >> i) & 1)
            self.n += 1
            if self.n == 8:
                self.out.append(self.acc)
                if self.acc == 0xFF:
                    self.out.append(0)  # byte stuffing
                self.acc, self.n = 0, 0

    def flush(self):
        while self.n:
            self.put(1, 1)  # pad with 1-bits
        return bytes(self.out)


def marker(code, body):
    return struct.pack(">BBH", 0xFF, code, len(body) + 2) + body


def jpeg(path, blocks):
    """blocks: rows of block values; each an int (gray) or a tuple of 3 (Y, Cb, Cr)
    or 4 components (which libjpeg takes for CMYK)."""
    ncomp = 1 if isinstance(blocks[0][0], int) else len(blocks[0][0])
    height, width = 8 * len(blocks), 8 * len(blocks[0])
    dc, ac = huffman_codes(DC_BITS, DC_VALS), huffman_codes(AC_BITS, AC_VALS)
    bw, previous = BitWriter(), [0] * ncomp
    for row in blocks:
        for value in row:
            comps = [value] if ncomp == 1 else list(value)
            for c in range(ncomp):  # one MCU: one block of each component
                coef = 8 * (comps[c] - 128)
                diff = coef - previous[c]
                previous[c] = coef
                size = abs(diff).bit_length()
                bw.put(*dc[size])
                if size:
                    bw.put(diff if diff > 0 else diff + (1 << size) - 1, size)
                bw.put(*ac[0x00])
    sof = struct.pack(">BHHB", 8, height, width, ncomp)
    sos = struct.pack(">B", ncomp)
    for c in range(ncomp):
        sof += struct.pack(">BBB", c + 1, 0x11, 0)
        sos += struct.pack(">BB", c + 1, 0x00)
    sos += struct.pack(">BBB", 0, 63, 0)
    data = b"\xff\xd8"
    data += marker(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    data += marker(0xDB, b"\x00" + bytes([1] * 64))
    data += marker(0xC0, sof)
    data += marker(0xC4, b"\x00" + bytes(DC_BITS) + bytes(DC_VALS) + b"\x10" + bytes(AC_BITS) + bytes(AC_VALS))
    data += marker(0xDA, sos) + bw.flush() + b"\xff\xd9"
    with open(path, "wb") as f:
        f.write(data)


def ycbcr(r, g, b):
    """JFIF RGB → YCbCr, rounded."""
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    return tuple(int(round(v)) for v in (y, cb, cr))


def make_jpegs():
    jpeg("gray_dc.jpg", [[16, 64], [192, 240]])
    jpeg("color_dc.jpg", [[ycbcr(200, 100, 50), ycbcr(30, 160, 220)]])
    jpeg("cmyk_dc.jpg", [[(10, 20, 30, 40)]])


def make_progressive_jpeg():
    """progressive.jpg: examples/rocket.jpg (public domain) at 96×64, a
    progressive JPEG of quality 85 — the one fixture made by Pillow, whose
    encoder writes progressive files (ImageRowReader streams it from
    libjpeg's buffered coefficients)."""
    from PIL import Image

    here = os.path.dirname(os.path.abspath(__file__))
    rocket = Image.open(os.path.join(here, "../../../examples/rocket.jpg"))
    rocket.resize((96, 64)).save("progressive.jpg", quality=85, progressive=True)


# incorrect_srgb.png and incorrect_srgb.jpg: a 32×20 crop (100, 100)–(132, 120)
# of scikit-image's astronaut.png (NASA, public domain) with its ICC profile,
# the 3144-byte "sRGB IEC61966-2.1" that libpng calls a known incorrect sRGB
# profile (saved with Pillow, PNG and JPEG quality 90).


if __name__ == "__main__":
    make_pngs()
    make_jpegs()
    make_progressive_jpeg()
