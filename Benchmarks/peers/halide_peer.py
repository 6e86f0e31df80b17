"""Halide (Python bindings, JIT, Halide's default float semantics: no
strict_float) versions of the suite's chains, written as a Halide user who
knows the machine writes them, for straight-alpha RGBA8 in and out.

Data layout. An RGBA8 pixel is one uint32 (the numpy array viewed as
uint32[H, W]): a vector of V pixels is one dense load, unpacked with shifts and
masks, and the result packed back into one dense store — no deinterleaving
shuffles. Inside, a pixel is a Tuple (r, g, b, a) of fp32, premultiplied right
after the load (c·a) and un-premultiplied right before the store
(c·(1/a) where a > 0, else 0), as DESIGN §1 says fxc does; a
materialised Func of Tuples is stored planar, so the taps of a blur are dense
vector loads. Clamp-to-edge is a boundary condition on the input (Halide then
runs the interior without clamps); a later stage that is sampled clamps its
indices. For an opaque image (bench.py checks once per image, as `fxc bench`
compiles for an opaque input) a second pipeline is compiled in which alpha is
the constant 1: rgb only, no premultiplying — what fxc's opaque kernels do.

Vector width: natural_vector_size(Float(32)) of the host JIT target (16
with AVX-512, 8 with AVX2) times `unroll`; sums of taps are ACCUMULATORS
interleaved running sums. The output is split into strips of rows; `parallel`
runs the strips (at most PARALLEL_STRIP = 16 rows) or tiles across Halide's
thread pool (all cores), so that even the 640×427 photo makes enough tasks
for 16 cores. The schedule of each
chain is the fastest of the variants tried (`VARIANTS`, timed interleaved,
best of repeated runs: `python3 halide_peer.py IMAGE [CHAIN]`), on the
2560×1600 centre of the 17.9 MP photo and the 640×427 one, on a 16-lane
AVX-512 host (a busy one: differences under ~10 % were noise):
  * colour: everything inlined into the output, one native vector a step,
    strips of 64 rows (pointwise: nothing to share; 2 or 4 vectors a step
    were no faster).
  * Gaussian blurs (σ 3 + grade, σ 10) and the unsharp mask's blur: separable,
    vertical pass first, in tiles of 256 columns × 64 rows, 2 native vectors a
    step: per tile, the premultiplied input with its halo is computed into a
    planar buffer, then the vertical pass in column order (for each vector of
    columns, down the tile, so its 2r+1-row window stays in L1), then the
    horizontal pass and the grade fused into the output. Slower: one vector a
    step (σ 3: 0.7×); the vertical pass per output row over whole rows with
    the input in a sliding window (store_at the strip, compute_at the row: each
    input row unpacked once, but the rows it reads come from L2; σ 10 on
    2560×1600: 0.5×, σ 3 on 5640×3172: 0.7×); the horizontal pass first with a
    sliding window (as fast on 640×427, 0.9× on 5640×3172); the input inlined
    into the vertical pass (unpacks each pixel 2r+1 times); tiles of 512
    columns; fast_pow for the gamma (3 % faster, less exact than pow).
  * pixelate + vignette: strips of one block row; the block colours (one
    bilinear sample each) computed once per strip (compute_at the strip), the
    output reads them and applies the vignette per pixel.
  * wave + chromatic aberration: the per-column shift a·sin(2π(x+½)/λ) computed
    once (compute_root); the wave samples at a whole-pixel x, so its bilinear
    sample is the vertical lerp of two rows (gathers of packed pixels); the
    wave is materialised per strip of 32 rows (planar, with the halo the
    aberration reads); the aberration gathers r and b (and their alphas)
    bilinearly from it; 2 native vectors a step (1.2× one).
"""
import math
import sys
import time
import warnings
import numpy as np
import halide as hl
from chains import color_matrix, gaussian_weights, pixelate_side

# Python floats become fp32 constants, as fxc's are: that is intended.
warnings.filterwarnings("ignore", message="The floating-point value")
x, y = hl.Var("x"), hl.Var("y")
TARGET = hl.get_jit_target_from_environment()
LANES = TARGET.natural_vector_size(hl.Float(32))
ACCUMULATORS = 4
PARALLEL_STRIP = 16

# Per chain kind: the schedule kept (see the docstring) and the variants tried.
DEFAULT = {"pointwise": dict(unroll=1, strip=64),
           "blur": dict(unroll=2, strip=64, blur="columns", tx=256),
           "pixelate": dict(unroll=1),
           "warp": dict(unroll=2, strip=32)}
VARIANTS = {
    "pointwise": [dict(unroll=1, strip=64), dict(unroll=2, strip=64), dict(unroll=1, strip=16)],
    "blur": [dict(unroll=2, strip=64, blur="columns", tx=256), dict(unroll=1, strip=64, blur="columns", tx=256),
             dict(unroll=3, strip=64, blur="columns", tx=256), dict(unroll=2, strip=128, blur="columns", tx=256),
             dict(unroll=2, strip=64, blur="columns", tx=512), dict(unroll=2, strip=64, blur="sliding"),
             dict(unroll=2, strip=64, blur="horizontal-first"), dict(unroll=2, strip=64, blur="inline")],
    "pixelate": [dict(unroll=1), dict(unroll=2)],
    "warp": [dict(unroll=2, strip=32), dict(unroll=1, strip=32), dict(unroll=2, strip=64)],
}


def tree_sum(terms, k=None):
    """terms[0] + terms[1] + … as `k` interleaved running sums (ACCUMULATORS), added
    at the end: Halide keeps the order of float additions, so one left-to-right
    sum of 2r+1 taps would be a chain of dependent fused multiply-adds."""
    terms = list(terms)
    k = min(k or ACCUMULATORS, len(terms))
    parts = []
    for i in range(k):
        acc = terms[i]
        for t in terms[i + k::k]:
            acc = acc + t
        parts.append(acc)
    while len(parts) > 1:
        parts = [parts[i] + parts[i + 1] if i + 1 < len(parts) else parts[i] for i in range(0, len(parts), 2)]
    return parts[0]


def kind(ops):
    names = [n for n, _ in ops]
    if any(n in ("gaussianBlur", "unsharpMask") for n in names):
        return "blur"
    if "pixelate" in names:
        return "pixelate"
    if any(n in ("wave", "chromaticAberration") for n in names):
        return "warp"
    return "pointwise"


class Stage:
    """A stage of the chain: `at(xx, yy)` gives its premultiplied [r, g, b, a] there,
    as Exprs (inlined) or reads of the Func it was materialised in; in an opaque
    pipeline a is the Python float 1.0 and the Func holds only (r, g, b)."""

    def __init__(self, at, func=None):
        self.at, self.func = at, func


class Chain:
    def __init__(self, ops, parallel, opaque=False, schedule=None):
        self.kind = kind(ops)
        s = dict(DEFAULT[self.kind], **(schedule or {}))
        self.schedule, self.parallel, self.opaque = s, parallel, opaque
        self.V = LANES * s["unroll"]
        self.input = hl.ImageParam(hl.UInt(32), 2, "input")  # packed RGBA8, x then y
        self.W, self.H = self.input.width(), self.input.height()
        # all threads: strips of PARALLEL_STRIP rows at most, so that even a 640×427
        # image makes enough tasks for 16 cores
        self.strip = min(s.get("strip", 32), PARALLEL_STRIP) if parallel and s.get("blur") != "columns" else s.get("strip", 32)
        self.strip_funcs, self.row_funcs, self.sliding, self.root_funcs, self.hfirst = [], [], [], [], []
        edge = hl.BoundaryConditions.repeat_edge(self.input)
        pre = hl.Func("pre")
        pre[x, y] = self.tuple(self.unpack(edge[x, y]))
        self.pre = pre
        st = Stage(self.reader(pre), pre)
        for name, p in ops:
            st = self.effect(name, p, st)
        out = hl.Func("out")
        out[x, y] = self.pack(st.at(x, y))
        self.out = out
        self.apply_schedule()
        t = time.perf_counter()
        out.compile_jit(TARGET)
        self.compile_ms = (time.perf_counter() - t) * 1e3

    def run(self, img):
        """RGBA8 (H, W, 4) → a fresh RGBA8 array, as a library user gets it."""
        h, w = img.shape[:2]
        dst = np.empty((h, w, 4), np.uint8)
        self.input.set(hl.Buffer(img.view(np.uint32)[..., 0]))
        self.out.realize(hl.Buffer(dst.view(np.uint32)[..., 0]))
        return dst

    # ---- pixels in and out, and stages

    def unpack(self, v):
        """A packed straight RGBA8 pixel → premultiplied fp32 [r, g, b, a]."""
        ch = [hl.f32(hl.i32((v >> (8 * i)) & 255)) for i in range(4)]
        if self.opaque:
            return [c * (1 / 255.0) for c in ch[:3]] + [1.0]
        k = ch[3] * (1 / (255.0 * 255.0))
        return [ch[0] * k, ch[1] * k, ch[2] * k, ch[3] * (1 / 255.0)]

    def pack(self, px):
        """Premultiplied fp32 [r, g, b, a] → un-premultiplied, clamped, rounded, packed."""
        r, g, b, a = px
        if self.opaque:
            chans = [r, g, b]
        else:
            inv = hl.select(a > 0, 1 / a, 0)
            chans = [r * inv, g * inv, b * inv, a]
        q = [hl.u32(hl.clamp(c * 255 + 0.5, 0, 255)) for c in chans]
        alpha = hl.u32(255) if self.opaque else q[3]
        return q[0] | (q[1] << 8) | (q[2] << 16) | (alpha << 24)

    def channels(self):
        return range(3) if self.opaque else range(4)

    def tuple(self, px):
        return tuple(px[c] for c in self.channels())

    def reader(self, f):
        if self.opaque:
            return lambda xx, yy: [f[xx, yy][i] for i in range(3)] + [1.0]
        return lambda xx, yy: [f[xx, yy][i] for i in range(4)]

    def materialise(self, st, name):
        if st.func is not None:
            return st
        f = hl.Func(name)
        f[x, y] = self.tuple(st.at(x, y))
        return Stage(self.reader(f), f)

    # ---- the effects

    def effect(self, name, p, st):
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m

            def at(xx, yy, prev=st.at):
                r, g, b, a = prev(xx, yy)
                return [hl.clamp(mat[i][0] * r + mat[i][1] * g + mat[i][2] * b + off[i] * a, 0, a)
                        for i in range(3)] + [a]
            return Stage(at)
        if name == "gamma":
            def at(xx, yy, prev=st.at):
                r, g, b, a = prev(xx, yy)
                if self.opaque:
                    return [hl.clamp(hl.pow(c, p["power"]), 0, 1) for c in (r, g, b)] + [a]
                inv = hl.select(a > 0, 1 / a, 0)
                return [hl.clamp(hl.pow(c * inv, p["power"]), 0, 1) * a for c in (r, g, b)] + [a]
            return Stage(at)
        if name == "vignette":
            W, H = hl.f32(self.W), hl.f32(self.H)
            e0, e1 = p["radius"] - 0.25, p["radius"] + 0.25

            def at(xx, yy, prev=st.at):
                r, g, b, a = prev(xx, yy)
                dx = (hl.f32(xx) + 0.5) / W - 0.5
                dy = (hl.f32(yy) + 0.5) / H - 0.5
                d = hl.sqrt(dx * dx + dy * dy) * 1.41421356
                t = hl.clamp((d - e0) / (e1 - e0), 0, 1)
                k = 1 - p["intensity"] * (t * t * (3 - 2 * t))
                return [r * k, g * k, b * k, a]
            return Stage(at)
        if name == "gaussianBlur":
            return self.blur(st, p["sigma"])
        if name == "unsharpMask":
            src = self.materialise(st, "unsharp_in")
            bl = self.blur(src, p["sigma"])
            k = p["amount"]

            def at(xx, yy):
                c, b = src.at(xx, yy), bl.at(xx, yy)
                # colour clamped to 0…alpha, alpha kept (fxc's unsharpMask)
                return [hl.clamp(c[i] + k * (c[i] - b[i]), 0, c[3]) for i in range(3)] + [c[3]]
            return Stage(at)
        if name == "pixelate":
            s = pixelate_side(p)
            assert s == int(s) and s > 1, "integer block sides only"
            s = int(s)
            src = self.materialise(st, "pixelate_in")
            blocks = hl.Func("blocks")
            cx = hl.min((hl.f32(x) + 0.5) * s, hl.f32(self.W) - 0.5)
            cy = hl.min((hl.f32(y) + 0.5) * s, hl.f32(self.H) - 0.5)
            blocks[x, y] = self.tuple(self.bilinear(src, cx, cy))
            self.strip_funcs.append(blocks)
            self.strip = s
            read = self.reader(blocks)
            return Stage(lambda xx, yy: read(xx / s, yy / s))
        if name == "wave":
            src = self.materialise(st, "wave_in")
            shift = hl.Func("shift")
            shift[x] = p["amplitude"] * hl.sin((hl.f32(x) + 0.5) * (2 * math.pi / p["wavelength"]))
            self.root_funcs.append(shift)
            # sample at (x + ½, y + ½ + shift): x is a pixel centre, so only rows blend
            fy = hl.f32(y) + shift[x]
            y0f = hl.floor(fy)
            t = fy - y0f
            y0 = hl.clamp(hl.i32(y0f), 0, self.H - 1)
            y1 = hl.clamp(hl.i32(y0f) + 1, 0, self.H - 1)
            wv = hl.Func("wave")
            top, bot = src.at(x, y0), src.at(x, y1)
            wv[x, y] = tuple(top[i] + (bot[i] - top[i]) * t for i in self.channels())
            return Stage(self.reader(wv), wv)
        if name == "chromaticAberration":
            src = self.materialise(st, "aberration_in")
            if src.func is not self.pre:
                self.strip_funcs.append(src.func)  # the previous stage, per strip (with its halo)
            W, H = hl.f32(self.W), hl.f32(self.H)
            diag = hl.sqrt(W * W + H * H)
            amt = hl.min(min(max(p["amount"], 0), 100), diag)
            sx = ((hl.f32(x) + 0.5) - W * 0.5) / (diag * 0.5) * amt
            sy = ((hl.f32(y) + 0.5) - H * 0.5) / (diag * 0.5) * amt
            px, py = hl.f32(x) + 0.5, hl.f32(y) + 0.5
            alpha = () if self.opaque else (3,)
            r = self.bilinear(src, px + sx, py + sy, (0,) + alpha)
            b = self.bilinear(src, px - sx, py - sy, (2,) + alpha)
            g = src.at(x, y)
            ca = hl.Func("aberration")
            a = None if self.opaque else hl.max(hl.max(r[3], g[3]), b[3])
            ca[x, y] = self.tuple([r[0], g[1], b[2], a])
            return Stage(self.reader(ca))
        raise ValueError(name)

    def blur(self, st, sigma):
        w = gaussian_weights(sigma)
        r = len(w) // 2
        src = self.materialise(st, "blur_in")
        clamp = src.func is not self.pre  # the input has its boundary condition already
        vert, horiz = hl.Func("blur_v"), hl.Func("blur_h")

        def rows(yy):
            return hl.clamp(yy, 0, self.H - 1) if clamp else yy

        def cols(xx):
            return hl.clamp(xx, 0, self.W - 1) if clamp else xx
        chans = self.channels()
        if self.schedule.get("blur") == "horizontal-first":
            horiz[x, y] = tuple(tree_sum(w[i + r] * src.at(cols(x + i), rows(y))[c] for i in range(-r, r + 1)) for c in chans)
            vert[x, y] = tuple(tree_sum(w[j + r] * horiz[x, y + j][c] for j in range(-r, r + 1)) for c in chans)
            self.hfirst.append((src.func, horiz))
            return Stage(self.reader(vert))
        vert[x, y] = tuple(tree_sum(w[j + r] * src.at(cols(x), rows(y + j))[c] for j in range(-r, r + 1)) for c in chans)
        # vert at x outside the image already equals vert at the nearest edge column
        horiz[x, y] = tuple(tree_sum(w[i + r] * vert[x + i, y][c] for i in range(-r, r + 1)) for c in chans)
        self.row_funcs.append(vert)
        if self.schedule.get("blur") != "inline":
            self.sliding.append(src.func)
        return Stage(self.reader(horiz))

    def bilinear(self, src, px, py, channels=None):
        """Bilinear sample of `src` at continuous (px, py) (pixel centres at +½),
        clamp-to-edge: [r, g, b, a], or a dict of the given channels."""
        qx, qy = px - 0.5, py - 0.5
        x0f, y0f = hl.floor(qx), hl.floor(qy)
        tx, ty = qx - x0f, qy - y0f
        x0 = hl.clamp(hl.i32(x0f), 0, self.W - 1)
        x1 = hl.clamp(hl.i32(x0f) + 1, 0, self.W - 1)
        y0 = hl.clamp(hl.i32(y0f), 0, self.H - 1)
        y1 = hl.clamp(hl.i32(y0f) + 1, 0, self.H - 1)
        a, b, c, d = src.at(x0, y0), src.at(x1, y0), src.at(x0, y1), src.at(x1, y1)
        out = {}
        for k in (self.channels() if channels is None else channels):
            top = a[k] + (b[k] - a[k]) * tx
            bot = c[k] + (d[k] - c[k]) * tx
            out[k] = top + (bot - top) * ty
        if channels is not None:
            return out
        return [out[k] for k in range(3)] + [1.0 if self.opaque else out[3]]

    # ---- the schedule

    def apply_schedule(self):
        out, V, s = self.out, self.V, self.schedule
        yo, yi, xo, xi = hl.Var("yo"), hl.Var("yi"), hl.Var("xo"), hl.Var("xi")
        if s.get("blur") == "columns":
            # tiles of tx × strip; per tile, the premultiplied input (with its halo)
            # and the vertical pass, the latter in column order: for each vector of
            # columns down the tile, so that its 2r+1-row window stays in L1
            out.tile(x, y, xo, yo, xi, yi, s["tx"], self.strip, hl.TailStrategy.GuardWithIf).vectorize(xi, V)
            if self.parallel:  # every tile a task
                t = hl.Var("t")
                out.fuse(xo, yo, t).parallel(t)
                xo = t
            for f in self.sliding:
                f.compute_at(out, xo).vectorize(x, V)
            for f in self.row_funcs:
                vx, vxi = hl.Var("vx"), hl.Var("vxi")
                f.compute_at(out, xo).split(x, vx, vxi, V).vectorize(vxi).reorder(vxi, y, vx)
            return
        out.split(y, yo, yi, self.strip, hl.TailStrategy.GuardWithIf).vectorize(x, V)
        if self.parallel:
            out.parallel(yo)
        for f in self.root_funcs:
            f.compute_root().vectorize(x, V)
        for f in self.strip_funcs:
            f.compute_at(out, yo).vectorize(x, V)
        for f in self.row_funcs:
            f.compute_at(out, yi).vectorize(x, V)
        for f in self.sliding:  # a ring of rows, each computed once per strip
            f.store_at(out, yo).compute_at(out, yi).vectorize(x, V)
        for src, horiz in self.hfirst:
            horiz.store_at(out, yo).compute_at(out, yi).vectorize(x, V)
            src.store_at(out, yo).compute_at(out, yi).vectorize(x, V)


def race(img, ops, variants, parallel, opaque, rounds=4, seconds=0.15):
    """Best time of each variant, the variants interleaved round by round."""
    h, w = img.shape[:2]
    chains = [Chain(ops, parallel, opaque, v) for v in variants]
    best = [math.inf] * len(chains)
    n = max(3, int(seconds / (w * h / 100e6)))
    for _ in range(rounds):
        for i, c in enumerate(chains):
            c.run(img)
            for _ in range(n):
                t = time.perf_counter(); c.run(img); best[i] = min(best[i], time.perf_counter() - t)
    return [w * h / 1e6 / b for b in best]


if __name__ == "__main__":
    # Times every variant of every chain (1 thread and all threads) on an image.
    from PIL import Image
    import chains
    import oracle
    img = np.array(Image.open(sys.argv[1]).convert("RGBA"))
    only = sys.argv[2] if len(sys.argv) > 2 else ""
    opaque = bool((img[..., 3] == 255).all())
    h, w = img.shape[:2]
    print(f"{w}×{h}{', opaque' if opaque else ''}, {TARGET}, {LANES} lanes")
    for label, ops in chains.SUITE:
        if only not in label:
            continue
        ref = oracle.run(ops, img)
        vs = VARIANTS[kind(ops)]
        one, allt = race(img, ops, vs, False, opaque), race(img, ops, vs, True, opaque)
        for v, a, b in zip(vs, one, allt):
            m = oracle.compare(Chain(ops, False, opaque, v).run(img), ref)[0]
            print(f"{label:28s} {str(v):62s} 1 thread {a:7.1f}  all {b:7.1f} Mpix/s  max {m:.3f} levels", flush=True)
