"""OpenCV (opencv-python-headless) + numpy versions of the suite's chains, the
way an OpenCV user writes them: RGBA8 in and out of every call (each call
rounds and saturates to 8 bits, which is also fxc's clamp to 0…alpha for an
opaque image), color effects as one cv2.transform (a 4×5 float matrix) each,
cv2.GaussianBlur (kernel 2r+1, r = ceil(3σ), BORDER_REPLICATE = clamp-to-edge),
cv2.remap (INTER_LINEAR, BORDER_REPLICATE) for wave and the block centers of
pixelate, numpy for the per-pixel vignette factor. Maps and masks are computed
inside every run: they are part of the work (fxc computes them per pixel)."""
import math
import os
import cv2
import numpy as np
from chains import color_matrix, block_centers, pixelate_side


class Chain:
    def __init__(self, ops, parallel):
        self.ops, self.threads = ops, (os.cpu_count() if parallel else 1)

    def run(self, img, dst):
        cv2.setNumThreads(self.threads)
        for name, p in self.ops:
            img = self.effect(name, p, img)
        np.copyto(dst, img)

    @staticmethod
    def effect(name, p, img):
        h, w = img.shape[:2]
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m
            t = np.zeros((4, 5), np.float32)
            t[:3, :3], t[:3, 4], t[3, 3] = mat, np.array(off) * 255, 1
            return cv2.transform(img, t)
        if name == "vignette":
            dx = ((np.arange(w, dtype=np.float32) + 0.5) / w - 0.5) ** 2
            dy = ((np.arange(h, dtype=np.float32) + 0.5) / h - 0.5) ** 2
            d = np.sqrt(np.add.outer(dy, dx)) * np.float32(1.41421356)
            e0, e1 = p["radius"] - 0.25, p["radius"] + 0.25
            t = np.clip((d - e0) / (e1 - e0), 0, 1, out=d)
            k = 1 - p["intensity"] * t * t * (3 - 2 * t)
            return cv2.multiply(img, cv2.merge([k, k, k, np.ones_like(k)]), dtype=cv2.CV_8U)
        if name in ("gaussianBlur", "unsharpMask"):
            r = math.ceil(3 * p["sigma"])
            b = cv2.GaussianBlur(img, (2 * r + 1, 2 * r + 1), p["sigma"], borderType=cv2.BORDER_REPLICATE)
            if name == "gaussianBlur":
                return b
            return cv2.addWeighted(img, 1 + p["amount"], b, -p["amount"], 0)
        if name == "pixelate":
            s = int(pixelate_side(p))
            cx = np.array(block_centers(w, s), np.float32)
            cy = np.array(block_centers(h, s), np.float32)
            mx, my = np.meshgrid(cx, cy)
            small = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            big = cv2.resize(small, (small.shape[1] * s, small.shape[0] * s), interpolation=cv2.INTER_NEAREST)
            return big[:h, :w]
        if name == "wave":
            shift = p["amplitude"] * np.sin((np.arange(w) + 0.5) * (2 * math.pi / p["wavelength"]))
            mx = np.broadcast_to(np.arange(w, dtype=np.float32), (h, w))
            my = np.add.outer(np.arange(h, dtype=np.float32), shift.astype(np.float32))
            return cv2.remap(img, np.ascontiguousarray(mx), my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if name == "chromaticAberration":
            diag = math.hypot(w, h)
            amt = min(p["amount"], diag)
            xs = np.arange(w, dtype=np.float32)
            ys = np.arange(h, dtype=np.float32)
            sx = ((xs + 0.5 - w / 2) / (diag / 2) * amt).astype(np.float32)
            sy = ((ys + 0.5 - h / 2) / (diag / 2) * amt).astype(np.float32)
            out = img.copy()
            for ch, sign in ((0, 1), (2, -1)):
                mx = np.ascontiguousarray(np.broadcast_to(xs + sign * sx, (h, w)))
                my = np.ascontiguousarray(np.broadcast_to((ys + sign * sy)[:, None], (h, w)))
                out[..., ch] = cv2.remap(img[..., ch].copy(), mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            return out
        raise ValueError(name)
