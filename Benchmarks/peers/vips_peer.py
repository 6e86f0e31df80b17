"""libvips (pyvips + pyvips-binary) versions of the suite's chains: libvips
builds a lazy, demand-driven pipeline and evaluates it in tiles across its
worker threads when the result is written to memory (a fresh buffer each run);
the operation cache is off, so every run recomputes.

Everything is float (0…255 scale), as fxc computes in fp32. Alpha: an opaque
image (bench.py checks once per image, as `fxc bench` compiles for an opaque
input) is processed as it is;
otherwise libvips' own `premultiply` (c·a/255, in float) comes before a spatial
effect and `unpremultiply` (c·255/a where a > 0, else 0) after it, in the
pipeline. Colour effects run on straight colour, where fxc's clamp of
premultiplied colour to 0…alpha is a clamp to 0…1 (every step works on all
four bands: an image used twice, as im[0:3] and im[3], is computed twice by
libvips, and a chain of such splits grows exponentially).

The operations: recomb/linear/clamp for colour matrices, pow for gamma, the
vignette factor is arithmetic on Image.xyz, gaussblur with
precision=float (its default integer mask rounds the weights) and min_ampl
chosen so that the mask has exactly 2r+1 taps (r = ceil(3σ); its default 0.2
would cut it at ≈1.8σ), mapim (bilinear) for pixelate's block centres, wave and
chromatic aberration (the edges are copied out with embed first: libvips 8.18's
mapim reads black outside whatever `extend` says), zoom to fill the blocks.
Threads: pyvips.concurrency_set."""
import math
import os
import numpy as np
import pyvips
from chains import color_matrix, block_centers, pixelate_side

pyvips.cache_set_max(0)
BILINEAR = pyvips.Interpolate.new("bilinear")
SPATIAL = {"gaussianBlur", "unsharpMask", "pixelate", "wave", "chromaticAberration"}


class Chain:
    def __init__(self, ops, parallel, opaque=False):
        self.ops, self.threads, self.opaque = ops, (os.cpu_count() if parallel else 1), opaque

    def run(self, img):
        """RGBA8 (H, W, 4) → a fresh RGBA8 array."""
        pyvips.concurrency_set(self.threads)
        h, w = img.shape[:2]
        im = pyvips.Image.new_from_memory(img.data, w, h, 4, "uchar")
        opaque = self.opaque
        im = im.cast("float")
        straight = True
        for name, p in self.ops:
            spatial = name in SPATIAL
            if not opaque and spatial and straight:
                im, straight = im.premultiply(), False
            elif not opaque and not spatial and not straight:
                im, straight = im.unpremultiply(), True
            im = self.effect(name, p, im, opaque)
        if not opaque:
            # straight colour of a transparent pixel is 0: premultiplying zeroes it
            # (and so is it where a ≤ 0: unpremultiply divides by any a ≠ 0, hence the clamp,
            # which also makes it c / min(a, 1): clamping c too changes nothing once stored)
            im = (im.premultiply() if straight else im).clamp(min=0, max=255).unpremultiply()
        out = (im + 0.5).cast("uchar")  # cast clips to 0…255
        return np.frombuffer(out.write_to_memory(), np.uint8).reshape(h, w, 4)

    @staticmethod
    def effect(name, p, im, opaque):
        w, h = im.width, im.height
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m
            mat4 = [list(row) + [0] for row in mat] + [[0, 0, 0, 1]]
            out = im.recomb(pyvips.Image.new_from_list(mat4))
            if any(off):
                out = out.linear([1] * 4, [o * 255 for o in off] + [0])
            return out.clamp(min=0, max=255)
        if name == "gamma":
            return gamma(im, p["power"])
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
            b = im.gaussblur(s, min_ampl=math.exp(-(r + 0.5) ** 2 / (2 * s * s)), precision="float")
            if name == "gaussianBlur":
                return b
            sharp = (im * (1 + p["amount"]) - b * p["amount"]).extract_band(0, n=3)
            alpha = im.extract_band(3)  # colour clamped to 0…alpha, alpha kept (fxc's unsharpMask)
            sharp = (sharp < 0).ifthenelse(0, sharp)
            sharp = (sharp > alpha.bandjoin([alpha, alpha])).ifthenelse(alpha.bandjoin([alpha, alpha]), sharp)
            return sharp.bandjoin(alpha)
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
            amt = min(max(p["amount"], 0), 100, diag)
            xy = pyvips.Image.xyz(w, h)
            shift = ((xy + 0.5) - [w / 2, h / 2]) * (amt / (diag / 2))
            rs, bs = remap(im, xy + shift, amt), remap(im, xy - shift, amt)
            if opaque:
                return rs[0].bandjoin([im[1], bs[2], im[3]])
            return rs[0].bandjoin([im[1], bs[2], rs[3].bandrank([im[3], bs[3]], index=2)])
        raise ValueError(name)


def gamma(im, power):
    """pow of the straight colour (0…1) on rgb, alpha unchanged."""
    return (im / 255) ** [power, power, power, 1] * 255


def remap(im, index, reach):
    """Bilinear samples of im at index (pixel-center coordinates), clamp-to-edge
    for positions up to `reach` pixels outside: mapim's own extend="copy" is not
    honoured here (libvips 8.18 reads black outside), so the edges are copied
    out first with embed."""
    m = math.ceil(reach) + 2
    wide = im.embed(m, m, im.width + 2 * m, im.height + 2 * m, extend="copy")
    return wide.mapim(index + m, interpolate=BILINEAR)
