"""A float64 numpy oracle of the suite's chains (chains.py): the same formulas
as fxc's effects (Sources/FXEffects/*.swift) and the same staged meaning
(DESIGN §1, §3, §4), written from the formulas alone, independently of fxc and
of every peer.

  * input: decoded RGBA8 with straight alpha, as the file holds it; converted to
    float64 and premultiplied (rgb·a);
  * every effect is a stage producing a full float64 raster; a layer effect
    samples the previous stage: pixel (i, j) has its centre at (i + ½, j + ½),
    bilinear between the four nearest centres, clamp-to-edge (indices clamped);
  * the result is un-premultiplied (c / a where a > 0, else 0: an alpha
    above 1 is stored as 1, so the colour is divided by what is stored), then
    NaN → 0 and clamped to 0…1: `run` returns these unrounded floats, `quantise`
    rounds them to RGBA8.

`compare(impl_u8, oracle_float)` gives the figures bench.py reports: the largest
|impl − 255·oracle| over all four channels (≤ 0.5 for a correctly rounded
result, ≤ 1 is the acceptance bar) and the PSNR against the rounded oracle.

`python3 oracle.py --verify FXC IMAGE...` checks the oracle against fxc's
interpreter (`fxc run --backend interp`) on a 64×48 crop of each image."""
import math
import numpy as np
from chains import SEPIA_MATRIX, LUMA, gaussian_weights, pixelate_side

F64 = np.float64


def premultiply(img_u8):
    f = img_u8.astype(F64) / 255
    f[..., :3] *= f[..., 3:4]
    return f


def unpremultiply(f):
    """c / a where a > 0, else 0 (DESIGN §1; fxc's LowerToKernel.unpremultiply),
    alpha as it is; then NaN → 0, clamp to 0…1."""
    a = f[..., 3:4]
    out = np.empty_like(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[..., :3] = np.where(a > 0, f[..., :3] / np.where(a > 0, a, 1), 0)
    out[..., 3:4] = a
    out[np.isnan(out)] = 0
    return np.clip(out, 0, 1, out=out)


def quantise(straight):
    return np.floor(straight * 255 + 0.5).astype(np.uint8)


def centres(h, w):
    """Pixel-centre coordinates (x + ½, y + ½) as (H, 1) and (1, W) arrays."""
    return (np.arange(w, dtype=F64) + 0.5)[None, :], (np.arange(h, dtype=F64) + 0.5)[:, None]


def sample(f, px, py):
    """DESIGN §3: bilinear, clamp-to-edge, at continuous positions (px, py) (broadcastable)."""
    h, w = f.shape[:2]
    px, py = np.broadcast_arrays(px, py)
    fx, fy = px - 0.5, py - 0.5
    x0, y0 = np.floor(fx), np.floor(fy)
    tx, ty = (fx - x0)[..., None], (fy - y0)[..., None]
    i0 = np.clip(x0, 0, w - 1).astype(np.intp)
    i1 = np.clip(x0 + 1, 0, w - 1).astype(np.intp)
    j0 = np.clip(y0, 0, h - 1).astype(np.intp)
    j1 = np.clip(y0 + 1, 0, h - 1).astype(np.intp)
    top = f[j0, i0] * (1 - tx) + f[j0, i1] * tx
    bot = f[j1, i0] * (1 - tx) + f[j1, i1] * tx
    return top * (1 - ty) + bot * ty


def color(f, rgb):
    """A new stage with rgb replaced and alpha kept."""
    out = np.empty_like(f)
    out[..., :3], out[..., 3] = rgb, f[..., 3]
    return out


def clamp_alpha(rgb, a):
    return np.minimum(np.maximum(rgb, 0), a[..., None])


def smoothstep(e0, e1, x):
    t = np.clip((x - e0) / (e1 - e0), 0, 1)
    return t * t * (3 - 2 * t)


def blur(f, sigma):
    """gaussianBlur: Σ w(i)·w(j)·sample(p + (i, j)) over (2r+1)² taps; a sample at a
    pixel centre plus whole pixels is that (clamped) pixel, so it separates exactly."""
    w = np.array(gaussian_weights(sigma), F64)
    r = len(w) // 2
    h, wd = f.shape[:2]
    v = np.zeros_like(f)
    for j in range(-r, r + 1):
        v += w[j + r] * f[np.clip(np.arange(h) + j, 0, h - 1)]
    out = np.zeros_like(f)
    for i in range(-r, r + 1):
        out += w[i + r] * v[:, np.clip(np.arange(wd) + i, 0, wd - 1)]
    return out


def effect(name, p, f):
    h, w = f.shape[:2]
    rgb, a = f[..., :3], f[..., 3]
    if name == "sepia":
        toned = rgb @ np.array(SEPIA_MATRIX, F64).T
        return color(f, clamp_alpha(rgb + (toned - rgb) * p["amount"], a))
    if name == "brightness":
        return color(f, clamp_alpha(rgb + p["amount"] * a[..., None], a))
    if name == "contrast":
        k = p["amount"]
        return color(f, clamp_alpha(rgb * k + 0.5 * a[..., None] * (1 - k), a))
    if name == "saturation":
        luma = (rgb @ np.array(LUMA, F64))[..., None]
        return color(f, clamp_alpha(rgb + (luma - rgb) * (1 - p["amount"]), a))
    if name == "exposure":
        return color(f, clamp_alpha(rgb * 2.0 ** p["ev"], a))
    if name == "gamma":  # on straight colour, clamped to 0…1, re-multiplied
        s = np.where(a[..., None] > 0, rgb / np.where(a > 0, a, 1)[..., None], 0)
        return color(f, np.clip(np.power(s, p["power"]), 0, 1) * a[..., None])
    if name == "vignette":
        px, py = centres(h, w)
        d = np.sqrt((px / w - 0.5) ** 2 + (py / h - 0.5) ** 2) * 1.41421356
        k = 1 - p["intensity"] * smoothstep(p["radius"] - 0.25, p["radius"] + 0.25, d)
        return color(f, rgb * k[..., None])
    if name == "gaussianBlur":
        return blur(f, p["sigma"])
    if name == "unsharpMask":  # colour sharpened and clamped to 0…alpha, alpha kept (issue 16)
        return color(f, clamp_alpha(rgb + p["amount"] * (rgb - blur(f, p["sigma"])[..., :3]), a))
    if name == "pixelate":
        s = pixelate_side(p)
        if s <= 1:
            return f.copy()
        px, py = centres(h, w)
        cx = np.minimum((np.floor(px / s) + 0.5) * s, w - 0.5)
        cy = np.minimum((np.floor(py / s) + 0.5) * s, h - 0.5)
        return sample(f, cx, cy)
    if name == "wave":
        px, py = centres(h, w)
        shift = p["amplitude"] * np.sin(px * 2 * math.pi / p["wavelength"])
        return sample(f, px, py + shift)
    if name == "chromaticAberration":
        px, py = centres(h, w)
        diag = math.hypot(w, h)
        amt = min(max(p["amount"], 0), 100, diag)
        sx, sy = (px - w / 2) / (diag / 2) * amt, (py - h / 2) / (diag / 2) * amt
        r, b = sample(f, px + sx, py + sy), sample(f, px - sx, py - sy)
        out = np.empty_like(f)
        out[..., 0], out[..., 1], out[..., 2] = r[..., 0], f[..., 1], b[..., 2]
        out[..., 3] = np.maximum(np.maximum(r[..., 3], f[..., 3]), b[..., 3])
        return out
    raise ValueError(f"oracle: no formula for {name}")


def run(ops, img_u8):
    """The chain on straight RGBA8 → straight float64 in 0…1 (unrounded)."""
    f = premultiply(img_u8)
    for name, p in ops:
        f = effect(name, p, f)
    return unpremultiply(f)


def run_u8_premultiplied(ops, img_u8):
    """The chain as an implementation that keeps 8-bit *premultiplied* buffers
    computes it (fxc before DESIGN §1's 2026-12-01 amendment): integer
    premultiply on load, (c·a + 127)/255; the float result quantised
    premultiplied; integer un-premultiply, a = 0 ? 0 : min(255, (c·255 + a/2)/a).
    Returns RGBA8 — a diagnostic for `verify`, not the oracle."""
    c = img_u8.astype(np.int64)
    pre = c.copy()
    pre[..., :3] = (c[..., :3] * c[..., 3:4] + 127) // 255
    f = pre.astype(F64) / 255
    for name, p in ops:
        f = effect(name, p, f)
    f[np.isnan(f)] = 0
    q = np.floor(np.clip(f, 0, 1) * 255 + 0.5).astype(np.int64)
    a = q[..., 3:4]
    out = q.copy()
    out[..., :3] = np.where(a == 0, 0, np.minimum(255, (q[..., :3] * 255 + a // 2) // np.maximum(a, 1)))
    return out.astype(np.uint8)


def compare(impl_u8, straight):
    """(max |impl − 255·oracle| over all channels, PSNR in dB against the rounded oracle,
    pixels more than 1 level off)."""
    ref = straight * 255
    d = np.abs(impl_u8.astype(F64) - ref)
    q = impl_u8.astype(F64) - quantise(straight)
    mse = np.mean(q * q)
    return float(d.max()), (math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)), int((d.max(axis=-1) > 1 + 1e-6).sum())


def premultiplied_max(impl_u8, straight):
    """The largest difference in premultiplied 8-bit levels (colour·alpha, alpha): what
    shows over black; a transparent pixel's colour does not count."""
    got = impl_u8.astype(F64)
    got[..., :3] *= got[..., 3:4] / 255
    ref = straight * 255
    ref[..., :3] *= straight[..., 3:4]
    return float(np.abs(got - ref).max())


def worst(impl_u8, straight, img_u8):
    """Where the largest difference is: (x, y, channel, impl, 255·oracle, input alpha)."""
    d = np.abs(impl_u8.astype(F64) - straight * 255)
    y, x, c = np.unravel_index(np.argmax(d), d.shape)
    return int(x), int(y), int(c), int(impl_u8[y, x, c]), float(straight[y, x, c] * 255), int(img_u8[y, x, 3])


def verify(fxc, images, size=(64, 48), quiet=False):
    """The oracle against fxc's interpreter on a crop of each image (centred on a
    partly transparent pixel where the image has one); a list of findings, one
    per image and chain."""
    import os, subprocess, tempfile
    from PIL import Image
    import chains
    tmp = tempfile.mkdtemp(prefix="fxc-oracle-")
    found = []
    for image in images:
        img = np.array(Image.open(image).convert("RGBA"))
        h, w = img.shape[:2]
        a = img[..., 3]
        partial = np.argwhere((a > 0) & (a < 255))
        if len(partial):
            y0, x0 = partial[len(partial) // 2]
            x0, y0 = min(max(x0 - size[0] // 2, 0), w - size[0]), min(max(y0 - size[1] // 2, 0), h - size[1])
        else:
            x0, y0 = (w - size[0]) // 2, (h - size[1]) // 2
        crop = img[y0:y0 + size[1], x0:x0 + size[0]]
        src = os.path.join(tmp, "crop.png")
        Image.fromarray(crop).save(src)
        if not quiet:
            print(f"{os.path.basename(image)}: crop {size[0]}×{size[1]} at ({x0}, {y0}), "
                  f"{int(((crop[..., 3] > 0) & (crop[..., 3] < 255)).sum())} partly transparent, "
                  f"{int((crop[..., 3] == 0).sum())} transparent pixels")
        for label, ops in chains.suite(fxc):
            out = os.path.join(tmp, "interp.png")
            subprocess.run([fxc, "run", "--backend", "interp", "--chain", chains.fxc_chain(ops), src, "-o", out,
                            "--overwrite"], check=True, capture_output=True)
            got = np.array(Image.open(out).convert("RGBA"))
            ref = run(ops, crop)
            m, p, n = compare(got, ref)
            r = dict(chain=label, crop=[int(x0), int(y0), size[0], size[1]], max_levels=m, over_1=n,
                     max_premultiplied=premultiplied_max(got, ref))
            where = ""
            if m > 1 + 1e-6:  # is it the 8-bit premultiplied storage (DESIGN §1 before its amendment)?
                r["worst"] = worst(got, ref, crop)
                r["max_vs_u8_premultiplied_io"] = float(np.abs(got.astype(F64) - run_u8_premultiplied(ops, crop)).max())
                where = (" worst (x, y, c, fxc, 255·oracle, input alpha) = %s; against 8-bit premultiplied I/O: "
                         "max %.0f levels" % (r["worst"], r["max_vs_u8_premultiplied_io"]))
            if not quiet:
                print(f"  {label}: max {m:.3f} levels ({r['max_premultiplied']:.3f} premultiplied), "
                      f"{n} pixels > 1 level{where}", flush=True)
            found.append(r)
    return found


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--verify", metavar="FXC", required=True, help="fxc binary whose interpreter is checked")
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()
    m = max(r["max_levels"] for r in verify(args.verify, args.images))
    print(f"largest difference, interpreter vs oracle: {m:.3f} levels ({'within' if m <= 1 + 1e-6 else 'OVER'} 1)")
