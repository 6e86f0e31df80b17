#!/usr/bin/env python3
"""Writes Tests/FXTests/Fixtures/reductions: a 31×19 RGB input with uneven
histograms and Pillow's autocontrast (cutoff 0, and 2 % / 1 %) and equalize
of it, for ReductionTests.

Run from the repository root with Pillow installed (pip install pillow);
the PNGs are committed, so the tests need neither Python nor Pillow.
"""
import math
import os
from PIL import Image, ImageOps

OUT = "Tests/FXTests/Fixtures/reductions"
W, H = 31, 19


def pixel(x, y):
    # Each channel in a narrow, skewed band, with a few outliers: levels
    # stretch it, a cutoff clips the outliers, equalize spreads it.
    r = 60 + int(40 * (x / (W - 1)) ** 2) + (y % 3)
    g = 100 + int(30 * math.sin(x * 0.4 + y * 0.7) ** 2)
    b = 20 + (x * y) % 90
    if (x, y) in [(3, 4), (17, 11)]:
        r, g, b = 250, 5, 240
    return (r, g, b)


def main():
    os.makedirs(OUT, exist_ok=True)
    src = Image.new("RGB", (W, H))
    src.putdata([pixel(x, y) for y in range(H) for x in range(W)])
    src.save(f"{OUT}/input.png")
    ImageOps.autocontrast(src).save(f"{OUT}/autocontrast.png")
    ImageOps.autocontrast(src, cutoff=(2, 1)).save(f"{OUT}/autocontrast-2-1.png")
    ImageOps.equalize(src).save(f"{OUT}/equalize.png")


if __name__ == "__main__":
    main()
