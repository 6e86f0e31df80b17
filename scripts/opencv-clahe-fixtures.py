#!/usr/bin/env python3
"""Writes Tests/FXTests/Fixtures/reductions/clahe-T-C.png: OpenCV's CLAHE
(cv2.createCLAHE(clipLimit=C, tileGridSize=(T, T)).apply) of each channel of
input.png (31×19: neither side divides by 8 or 4, so OpenCV's reflected
border is exercised), for ReductionTests.

Run from the repository root with OpenCV installed (pip install
opencv-python-headless); the PNGs are committed, so the tests need neither.
"""
import cv2

OUT = "Tests/FXTests/Fixtures/reductions"


def main():
    src = cv2.imread(f"{OUT}/input.png", cv2.IMREAD_COLOR)  # B, G, R
    for tiles, clip in [(8, 2.0), (4, 0.0), (3, 4.0), (1, 2.0)]:
        clahe = cv2.createCLAHE(clipLimit=clip, tileGridSize=(tiles, tiles))
        out = cv2.merge([clahe.apply(c) for c in cv2.split(src)])
        cv2.imwrite(f"{OUT}/clahe-{tiles}-{int(clip)}.png", out)


if __name__ == "__main__":
    main()
