#!/usr/bin/env python3
"""Writes Tests/FXTests/Fixtures/resize: a 23×17 RGB input and Pillow's
resizes of it (Image.resize with reducing_gap=None), for GeometryTests.

Run from the repository root with Pillow installed (pip install pillow);
the PNGs are committed, so the tests need neither Python nor Pillow.
"""
import math
from PIL import Image

OUT = "Tests/FXTests/Fixtures/resize"
W, H = 23, 17

def smooth(x, y):
    # Mid-range values (40…215): no filter's overshoot reaches 0 or 255, so
    # Pillow's 8-bit clamp between its passes never acts.
    r = 128 + 80 * math.sin(x * 0.7 + y * 0.3)
    g = 128 + 80 * math.cos(x * 0.25 - y * 0.9)
    b = 128 + 80 * math.sin((x + y) * 0.45)
    return tuple(int(round(v)) for v in (r, g, b))

def hard(x, y):
    # Black and white blocks: Lanczos and Catmull-Rom overshoot past 0 and 255.
    v = 255 if ((x // 3) + (y // 2)) % 2 else 0
    return (v, 255 - v, v)

FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "box": Image.Resampling.BOX,
    "linear": Image.Resampling.BILINEAR,
    "cubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}
SIZES = [(9, 7), (41, 29), (23, 6)]

for name, pattern in (("smooth", smooth), ("hard", hard)):
    img = Image.new("RGB", (W, H))
    img.putdata([pattern(x, y) for y in range(H) for x in range(W)])
    img.save(f"{OUT}/{name}.png")
    for fname, f in FILTERS.items():
        for (w, h) in SIZES:
            img.resize((w, h), resample=f, reducing_gap=None).save(f"{OUT}/{name}-{fname}-{w}x{h}.png")
