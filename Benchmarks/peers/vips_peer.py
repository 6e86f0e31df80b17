"""libvips (pyvips + pyvips-binary) versions of the suite's chains: libvips
builds a lazy, demand-driven pipeline and evaluates it in tiles across its
worker threads when the result is written to memory. Color effects are
recomb/linear in float plus clamp, the vignette factor is arithmetic on
Image.xyz, gaussblur with min_ampl chosen so that the mask has exactly
2r+1 taps (r = ceil(3σ); its default 0.2 would cut it at ≈1.8σ) and its
default integer precision, mapim (bilinear, extend copy = clamp-to-edge) for
wave and the pixelate block centers, zoom to fill the blocks. The operation
cache is off, so every run recomputes."""
import math
import os
import numpy as np
import pyvips
from chains import color_matrix, block_centers, pixelate_side

pyvips.cache_set_max(0)
BILINEAR = pyvips.Interpolate.new("bilinear")


class Chain:
    def __init__(self, ops, parallel):
        self.ops, self.threads = ops, (os.cpu_count() if parallel else 1)

    def run(self, img, dst):
        pyvips.concurrency_set(self.threads)
        h, w = img.shape[:2]
        im = pyvips.Image.new_from_memory(img.data, w, h, 4, "uchar")
        for name, p in self.ops:
            im = self.effect(name, p, im)
        out = (im + 0.5).cast("uchar") if im.format != "uchar" else im  # cast clips to 0…255
        dst[...] = np.frombuffer(out.write_to_memory(), np.uint8).reshape(h, w, 4)

    @staticmethod
    def effect(name, p, im):
        # Every step works on all four bands: an image used twice (im[0:3] and
        # im[3]) is computed twice by libvips, and a chain of such splits grows
        # exponentially. Alpha (255) passes through the matrices and clamps.
        w, h = im.width, im.height
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m
            mat4 = [row + [0] for row in mat] + [[0, 0, 0, 1]]
            out = im.recomb(pyvips.Image.new_from_list(mat4)).linear([1] * 4, [o * 255 for o in off] + [0])
            return out.clamp(min=0, max=255)
        if name == "vignette":
            q = (pyvips.Image.xyz(w, h) + 0.5) / [w, h] - 0.5
            d = ((q ** 2).recomb(pyvips.Image.new_from_list([[1, 1]])) ** 0.5) * 1.41421356
            e0, e1 = p["radius"] - 0.25, p["radius"] + 0.25
            t = ((d - e0) / (e1 - e0)).clamp(min=0, max=1)
            k = 1 - p["intensity"] * t * t * (3 - 2 * t)
            k4 = k.recomb(pyvips.Image.new_from_list([[1], [1], [1], [0]])).linear([1] * 4, [0, 0, 0, 1])
            return im * k4
        if name in ("gaussianBlur", "unsharpMask"):
            s = p["sigma"]
            r = math.ceil(3 * s)
            b = im.gaussblur(s, min_ampl=math.exp(-(r + 0.5) ** 2 / (2 * s * s)))
            if name == "gaussianBlur":
                return b
            return im * (1 + p["amount"]) - b * p["amount"]
        if name == "pixelate":
            s = int(pixelate_side(p))
            cx, cy = block_centers(w, s), block_centers(h, s)
            grid = np.stack(np.meshgrid(np.float32(cx), np.float32(cy)), axis=-1)
            index = pyvips.Image.new_from_array(np.ascontiguousarray(grid))
            small = remap(im, index, 0)
            return small.zoom(s, s).crop(0, 0, w, h)
        if name == "wave":
            xy = pyvips.Image.xyz(w, h)
            # vips' sin takes degrees: sin(2π(x+0.5)/λ rad) = sin(360(x+0.5)/λ °)
            shift = ((xy[0] + 0.5) * (360 / p["wavelength"])).sin() * p["amplitude"]
            return remap(im, xy[0].bandjoin(xy[1] + shift), p["amplitude"])
        if name == "chromaticAberration":
            diag = math.hypot(w, h)
            amt = min(p["amount"], diag)
            xy = pyvips.Image.xyz(w, h)
            shift = ((xy + 0.5) - [w / 2, h / 2]) * (amt / (diag / 2))
            r, b = remap(im, xy + shift, amt)[0], remap(im, xy - shift, amt)[2]
            return r.bandjoin([im[1], b, im[3]])
        raise ValueError(name)


def remap(im, index, reach):
    """Bilinear samples of im at index (pixel-center coordinates), clamp-to-edge
    for positions up to `reach` pixels outside: mapim's own extend="copy" is not
    honoured here (libvips 8.18 reads black outside), so the edges are copied
    out first with embed."""
    m = math.ceil(reach) + 2
    wide = im.embed(m, m, im.width + 2 * m, im.height + 2 * m, extend="copy")
    return wide.mapim(index + m, interpolate=BILINEAR)
