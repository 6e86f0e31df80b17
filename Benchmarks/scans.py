#!/usr/bin/env python3
"""Blurs whose cost does not grow with the radius (issue 38), side by side in
one run on one photo, one thread each where the tool allows it:

- fxc: `fxc bench --json` (rgba8 in memory → premultiplied float → rgba8 in
  memory, a reused output; the JIT column, one thread);
- Pillow: `Image.filter(ImageFilter.GaussianBlur(σ))` and `BoxBlur(r)`
  (extended box passes; single-threaded);
- libvips (pyvips): `gaussblur(σ)` (its default: an integer mask cut at
  min_ampl 0.2), the image in memory, the result written to memory, its
  operation cache off; one thread, and beside it two (the issue's table);
- OpenCV: `cv2.GaussianBlur(img, (0, 0), σ, borderType=BORDER_REPLICATE)`
  and `cv2.blur` (box), `cv2.setNumThreads(1)`.

Each figure is the best of REPEAT runs, in Mpix/s of the whole image.

Accuracy: fxc's 8-bit output (`fxc run`, PNG) against the sampled Gaussian
of infinite support (cut at 8σ, float64, edges replicated: OpenCV's
sepFilter2D on float64 data), on a 2560×1600 photo: the largest difference
in 8-bit levels (0.5 of it is the output's own rounding) and the share of
samples whose rounding differs.

    python3 Benchmarks/scans.py --fxc .build/release/fxc --image PHOTO --accuracy PHOTO2
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402
import pyvips  # noqa: E402
from PIL import Image, ImageFilter  # noqa: E402

SIGMAS = [3, 10, 30, 100]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def fxc_rates(fxc, image, chains, seconds):
    args = [fxc, "bench", "--json", "--image", image, "--no-unsplit", "--seconds", str(seconds)]
    for c in chains:
        args += ["-c", c]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    rates = {}
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("{"):
            r = json.loads(line)
            if "chain" in r and "jit_mpix_s" in r:
                rates[r["chain"]] = float(r["jit_mpix_s"])
    return rates


def peers(path, repeat):
    cv2.setNumThreads(1)
    pil = Image.open(path).convert("RGB")
    pil.load()
    arr = np.asarray(pil)
    mpix = pil.width * pil.height / 1e6
    pyvips.cache_set_max(0)
    vimg = pyvips.Image.new_from_memory(arr.tobytes(), pil.width, pil.height, 3, "uchar")
    rows = {}
    for s in SIGMAS:
        rows[("gauss", s, "Pillow")] = mpix / best(lambda: pil.filter(ImageFilter.GaussianBlur(s)), repeat)
        for threads, key in [(1, "libvips"), (2, "libvips 2")]:
            pyvips.vips_lib.vips_concurrency_set(threads)
            rows[("gauss", s, key)] = mpix / best(lambda: vimg.gaussblur(s).write_to_memory(), repeat)
        rows[("gauss", s, "OpenCV")] = mpix / best(
            lambda: cv2.GaussianBlur(arr, (0, 0), s, borderType=cv2.BORDER_REPLICATE), repeat)
    for r in [3, 300]:
        rows[("box", r, "Pillow")] = mpix / best(lambda: pil.filter(ImageFilter.BoxBlur(r)), repeat)
        rows[("box", r, "OpenCV")] = mpix / best(
            lambda: cv2.blur(arr, (2 * r + 1, 2 * r + 1), borderType=cv2.BORDER_REPLICATE), repeat)
    return rows


def accuracy(fxc, path, sigma):
    """Largest |fxc − exact| in 8-bit levels, and the share of samples whose rounding differs."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.png")
        subprocess.run([fxc, "run", "-c", f"gaussianBlur(sigma: {sigma})", path, "-o", out],
                       check=True, capture_output=True)
        ours = np.asarray(Image.open(out).convert("RGB")).astype(np.float64)
    src = np.asarray(Image.open(path).convert("RGB")).astype(np.float64)
    r = math.ceil(8 * sigma)
    k = np.exp(-np.arange(-r, r + 1, dtype=np.float64) ** 2 / (2 * sigma * sigma))
    k /= k.sum()
    exact = cv2.sepFilter2D(src, cv2.CV_64F, k, k, borderType=cv2.BORDER_REPLICATE)
    diff = np.abs(ours - exact)
    return diff.max(), float(np.mean(np.round(exact) != ours))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fxc", default=".build/release/fxc")
    ap.add_argument("--image", required=True)
    ap.add_argument("--accuracy", help="a smaller photo for the accuracy columns")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=1.0)
    a = ap.parse_args()

    chains = [f"gaussianBlur(sigma: {s})" for s in SIGMAS]
    chains += [f"gaussianBlur(sigma: {s}, method: exact)" for s in SIGMAS]
    chains += ["boxBlur(radius: 3)", "boxBlur(radius: 300)",
               "boxBlur(radius: 3, method: recursive)", "boxBlur(radius: 300, method: recursive)"]
    ours = fxc_rates(a.fxc, a.image, chains, a.seconds)
    theirs = peers(a.image, a.repeat)
    w, h = Image.open(a.image).size
    print(f"Photo: {os.path.basename(a.image)} ({w}×{h}); one thread; Mpix/s, best of {a.repeat}.\n")
    print("| σ | fxc auto | fxc exact loop | Pillow | libvips | libvips, 2 threads | OpenCV | auto vs best one-thread peer |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in SIGMAS:
        auto = ours.get(f"gaussianBlur(sigma: {s})", float("nan"))
        exact = ours.get(f"gaussianBlur(sigma: {s}, method: exact)", float("nan"))
        p = [theirs[("gauss", s, t)] for t in ["Pillow", "libvips", "libvips 2", "OpenCV"]]
        one = max(p[0], p[1], p[3])
        print(f"| {s} | {auto:.1f} | {exact:.1f} | {p[0]:.1f} | {p[1]:.1f} | {p[2]:.1f} | {p[3]:.1f} | {auto / one:.2f}× |")
    print("\n| box r | fxc auto | fxc running sums | Pillow | OpenCV |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for r in [3, 300]:
        auto = ours.get(f"boxBlur(radius: {r})", float("nan"))
        rec = ours.get(f"boxBlur(radius: {r}, method: recursive)", float("nan"))
        print(f"| {r} | {auto:.1f} | {rec:.1f} | {theirs[('box', r, 'Pillow')]:.1f} | {theirs[('box', r, 'OpenCV')]:.1f} |")
    if a.accuracy:
        w, h = Image.open(a.accuracy).size
        print(f"\nAccuracy on {os.path.basename(a.accuracy)} ({w}×{h}), 8-bit output against the sampled Gaussian (float64, cut at 8σ):\n")
        print("| σ | fxc auto's form | largest difference, levels | samples rounded differently |")
        print("| ---: | --- | ---: | ---: |")
        for s in SIGMAS:
            worst, share = accuracy(a.fxc, a.accuracy, s)
            form = "recursive" if 2 * math.ceil(3 * s) + 1 > 55 else "loop (3σ)"
            print(f"| {s} | {form} | {worst:.3f} | {100 * share:.3f} % |")


if __name__ == "__main__":
    sys.exit(main())
