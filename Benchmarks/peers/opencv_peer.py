"""OpenCV (opencv-python-headless) + numpy versions of the suite's chains, in
fp32 as fxc computes them, the way an OpenCV user who wants fxc's result writes
them: the RGBA8 image converted once to float32 (cv2.multiply … dtype CV_32F),
every call in float32, one conversion back to RGBA8 at the end
(cv2.multiply … dtype CV_8U: scale, round, saturate).

Alpha. An opaque image (bench.py checks once per image, as `fxc bench` compiles
for an opaque input) is processed as it is, straight colour being
premultiplied colour when alpha is 1. Otherwise: premultiplied in fp32 after the conversion and
un-premultiplied in fp32 before the store (c / a where a > 0, else 0),
with
numpy (OpenCV has no broadcasting multiply by one channel); colour effects run
on straight colour (un-premultiplied first when a spatial effect came before),
where fxc's `clamp to 0…alpha` of premultiplied colour is a clamp to 0…1; the
spatial effects (blurs, sampling) run on premultiplied colour.

The calls: colour effects are one cv2.transform (a 4×5 float matrix) each and
a clamp (numpy), gamma cv2.pow, the vignette one cv2.multiply by its factor
(computed in numpy in every run, as fxc computes it per pixel),
cv2.GaussianBlur (kernel 2r+1, r = ceil(3σ), BORDER_REPLICATE =
clamp-to-edge; float weights), cv2.addWeighted for the unsharp mask,
cv2.remap (INTER_LINEAR, BORDER_REPLICATE) for pixelate's block centres, wave
and chromatic aberration (of a float32 image with one or four channels: with
two, OpenCV 5.0's remap rounds the positions to 1/32 pixel, its INTER_TAB_SIZE,
which put the aberration 3–4 levels off at sharp edges). Threads:
cv2.setNumThreads."""
import math
import os
import cv2
import numpy as np
from chains import color_matrix, block_centers, pixelate_side

SPATIAL = {"gaussianBlur", "unsharpMask", "pixelate", "wave", "chromaticAberration"}


class Chain:
    def __init__(self, ops, parallel, opaque=False):
        self.ops, self.threads, self.opaque = ops, (os.cpu_count() if parallel else 1), opaque

    def run(self, img):
        """RGBA8 (H, W, 4) → a fresh RGBA8 array."""
        cv2.setNumThreads(self.threads)
        opaque = self.opaque
        f = cv2.multiply(img, (1 / 255,) * 4, dtype=cv2.CV_32F)
        straight = True
        for name, p in self.ops:
            spatial = name in SPATIAL
            if not opaque and spatial and straight:
                f[..., :3] *= f[..., 3:4]  # premultiply
                straight = False
            elif not opaque and not spatial and not straight:
                unpremultiply(f)
                straight = True
            f = self.effect(name, p, f, opaque)
        if not opaque:
            if straight:
                f[..., :3] *= f[..., 3:4] > 0  # a transparent pixel's colour is 0
            else:
                unpremultiply(f)
        return cv2.multiply(f, (255.0,) * 4, dtype=cv2.CV_8U)

    @staticmethod
    def effect(name, p, f, opaque):
        h, w = f.shape[:2]
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m
            t = np.zeros((4, 5), np.float32)
            t[:3, :3], t[:3, 4], t[3, 3] = mat, off, 1
            out = cv2.transform(f, t)
            return np.clip(out, 0, 1, out=out)
        if name == "gamma":
            g = cv2.pow(f, p["power"])
            g[..., 3] = f[..., 3]
            return g
        if name == "vignette":
            dx = ((np.arange(w, dtype=np.float32) + 0.5) / w - 0.5) ** 2
            dy = ((np.arange(h, dtype=np.float32) + 0.5) / h - 0.5) ** 2
            d = np.sqrt(np.add.outer(dy, dx)) * np.float32(1.41421356)
            e0, e1 = p["radius"] - 0.25, p["radius"] + 0.25
            t = np.clip((d - e0) / np.float32(e1 - e0), 0, 1, out=d)
            k = 1 - p["intensity"] * t * t * (3 - 2 * t)
            return cv2.multiply(f, cv2.merge([k, k, k, np.ones_like(k)]))
        if name in ("gaussianBlur", "unsharpMask"):
            r = math.ceil(3 * p["sigma"])
            b = cv2.GaussianBlur(f, (2 * r + 1, 2 * r + 1), p["sigma"], borderType=cv2.BORDER_REPLICATE)
            if name == "gaussianBlur":
                return b
            out = cv2.addWeighted(f, 1 + p["amount"], b, -p["amount"], 0)
            out[..., 3] = f[..., 3]  # colour clamped to 0…alpha, alpha kept (fxc's unsharpMask)
            out[..., :3] = np.minimum(np.maximum(out[..., :3], 0), f[..., 3:4])
            return out
        if name == "pixelate":
            s = int(pixelate_side(p))
            cx = np.array(block_centers(w, s), np.float32)
            cy = np.array(block_centers(h, s), np.float32)
            mx, my = np.meshgrid(cx, cy)
            small = cv2.remap(f, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            big = cv2.resize(small, (small.shape[1] * s, small.shape[0] * s), interpolation=cv2.INTER_NEAREST)
            return big[:h, :w]
        if name == "wave":
            shift = p["amplitude"] * np.sin((np.arange(w) + 0.5) * (2 * math.pi / p["wavelength"]))
            mx = np.broadcast_to(np.arange(w, dtype=np.float32), (h, w))
            my = np.add.outer(np.arange(h, dtype=np.float32), shift.astype(np.float32))
            return cv2.remap(f, np.ascontiguousarray(mx), my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        if name == "chromaticAberration":
            diag = math.hypot(w, h)
            amt = min(max(p["amount"], 0), 100, diag)
            xs = np.arange(w, dtype=np.float32)
            ys = np.arange(h, dtype=np.float32)
            sx = ((xs + 0.5 - w / 2) / (diag / 2) * amt).astype(np.float32)
            sy = ((ys + 0.5 - h / 2) / (diag / 2) * amt).astype(np.float32)
            out = f.copy()
            alphas = [f[..., 3]]
            for ch, sign in ((0, 1), (2, -1)):
                mx = np.ascontiguousarray(np.broadcast_to(xs + sign * sx, (h, w)))
                my = np.ascontiguousarray(np.broadcast_to((ys + sign * sy)[:, None], (h, w)))
                # alpha 1 is not sampled; with alpha, the four channels are (cv2.remap of a
                # two-channel image rounds positions to 1/32 pixel, of one or four it does not)
                src = f[..., ch].copy() if opaque else f
                s = cv2.remap(src, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                out[..., ch] = s if opaque else s[..., ch]
                if not opaque:
                    alphas.append(s[..., 3])
            if not opaque:
                out[..., 3] = np.maximum(np.maximum(alphas[0], alphas[1]), alphas[2])
            return out
        raise ValueError(name)


def unpremultiply(f):
    """c / a where a > 0, else 0, in place (an alpha above 1 is stored as 1)."""
    a = f[..., 3:4]
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(f[..., :3], a, out=f[..., :3], where=a > 0)
    f[..., :3] *= a > 0
