"""Halide (Python bindings, JIT) versions of the suite's chains, in fp32 on
interleaved RGBA8, indexed f[c, x, y].

The hand schedule (the same for every chain; `parallel` only adds threads):
  * the output: channels innermost and unrolled, 8 × fp32 lanes across x
    (AVX2), rows in strips of 32 (one block row for pixelate), strips
    across threads when parallel;
  * a Gaussian blur: separable, two Funcs; the vertical pass is computed per
    output row into a one-row buffer (vectorised), the horizontal pass is
    fused into the output — no whole-image intermediate, no recomputation but
    the 2r-pixel halo of each row;
  * pixelate: the block colors are a Func computed per strip (one block row);
  * wave: the per-column shift a·sin(2πx/λ) is a Func computed once
    (compute_root); bilinear sampling is hand-written (four gathers).
"""
import math
import time
import warnings
import halide as hl
from chains import color_matrix, gaussian_weights, pixelate_side

# Python floats become fp32 constants, as fxc's are: that is intended.
warnings.filterwarnings("ignore", message="The floating-point value")
c, x, y = hl.Var("c"), hl.Var("x"), hl.Var("y")
LANES = 8


class Chain:
    def __init__(self, ops, parallel):
        self.input = hl.ImageParam(hl.UInt(8), 3, "input")
        # interleaved RGBA8 (c has stride 1, x stride 4): dense vector loads and stores
        self.input.dim(0).set_stride(1).set_bounds(0, 4)
        self.input.dim(1).set_stride(4)
        self.W, self.H = self.input.dim(1).extent(), self.input.dim(2).extent()
        self.row_funcs = []  # Funcs computed per output row
        self.strip_funcs = []  # Funcs computed per strip
        self.strip = 32
        # clamp-to-edge on the input itself: Halide partitions the loops so that
        # the interior runs without clamps (a boundary on a computed Func was 5× slower)
        f = self.base = self.as_float(hl.BoundaryConditions.repeat_edge(self.input))
        for name, p in ops:
            f = self.effect(name, p, f)
        out = hl.Func("out")
        out[c, x, y] = hl.u8(hl.clamp(f[c, x, y] * 255 + 0.5, 0, 255))  # clamp, round to nearest
        out.output_buffer().dim(0).set_stride(1).set_bounds(0, 4)
        out.output_buffer().dim(1).set_stride(4)
        yo, yi = hl.Var("yo"), hl.Var("yi")
        out.bound(c, 0, 4).reorder(c, x, y).unroll(c).vectorize(x, LANES)
        out.split(y, yo, yi, self.strip, hl.TailStrategy.GuardWithIf)
        if parallel:
            out.parallel(yo)
        for g in self.row_funcs:
            g.compute_at(out, yi).reorder(c, x, y).unroll(c).vectorize(x, LANES)
        for g in self.strip_funcs:
            g.compute_at(out, yo).reorder(c, x, y).unroll(c).vectorize(x, LANES)
        self.out = out
        target = hl.get_jit_target_from_environment()
        t = time.perf_counter()
        out.compile_jit(target)
        self.compile_ms = (time.perf_counter() - t) * 1e3

    def run(self, img, dst):
        self.input.set(hl.Buffer(img))
        self.out.realize(hl.Buffer(dst))

    @staticmethod
    def as_float(src):
        f = hl.Func("in_f")
        f[c, x, y] = hl.f32(src[c, x, y]) / 255
        return f

    def rgba(self, f, xx, yy):
        return [f[i, xx, yy] for i in range(4)]

    def effect(self, name, p, f):
        g = hl.Func(name)
        m = color_matrix(name, p)
        if m is not None:
            mat, off = m
            r, gg, b, a = self.rgba(f, x, y)
            ch = [hl.clamp(mat[i][0] * r + mat[i][1] * gg + mat[i][2] * b + off[i] * a, 0, a) for i in range(3)]
            g[c, x, y] = hl.mux(c, ch + [a])
        elif name == "vignette":
            dx = (hl.f32(x) + 0.5) / hl.f32(self.W) - 0.5
            dy = (hl.f32(y) + 0.5) / hl.f32(self.H) - 0.5
            d = hl.sqrt(dx * dx + dy * dy) * 1.41421356
            e0, e1 = p["radius"] - 0.25, p["radius"] + 0.25
            t = hl.clamp((d - e0) / (e1 - e0), 0, 1)
            k = 1 - p["intensity"] * t * t * (3 - 2 * t)
            g[c, x, y] = hl.select(c < 3, f[c, x, y] * k, f[c, x, y])
        elif name == "gaussianBlur":
            g = self.blur(f, p["sigma"])
        elif name == "unsharpMask":
            b = self.blur(f, p["sigma"])
            g[c, x, y] = f[c, x, y] + p["amount"] * (f[c, x, y] - b[c, x, y])
        elif name == "pixelate":
            s = pixelate_side(p)
            assert s == int(s) and s > 1, "integer block sides only"
            s = int(s)
            blocks = hl.Func("blocks")
            cx = hl.min((hl.f32(x) + 0.5) * s, hl.f32(self.W) - 0.5) - 0.5
            cy = hl.min((hl.f32(y) + 0.5) * s, hl.f32(self.H) - 0.5) - 0.5
            blocks[c, x, y] = self.bilinear(f, cx, cy)
            g[c, x, y] = blocks[c, x / s, y / s]
            self.strip_funcs.append(blocks)
            self.strip = s
        elif name == "wave":
            shift = hl.Func("shift")
            shift[x] = p["amplitude"] * hl.sin((hl.f32(x) + 0.5) * (2 * math.pi / p["wavelength"]))
            shift.compute_root().vectorize(x, LANES)
            g[c, x, y] = self.bilinear(f, hl.f32(x), hl.f32(y) + shift[x])
        elif name == "chromaticAberration":
            # d = (p − size/2)/(|size|/2); r from p + amount·d, b from p − amount·d
            diag = hl.sqrt(hl.f32(self.W) * hl.f32(self.W) + hl.f32(self.H) * hl.f32(self.H))
            amt = hl.min(p["amount"], diag)
            sx = ((hl.f32(x) + 0.5) - hl.f32(self.W) * 0.5) / (diag * 0.5) * amt
            sy = ((hl.f32(y) + 0.5) - hl.f32(self.H) * 0.5) / (diag * 0.5) * amt
            mat = hl.Func("wave_out")
            mat[c, x, y] = f[c, x, y]
            self.strip_funcs.append(mat)  # the wave, materialised per strip
            r = self.bilinear(mat, hl.f32(x) + sx, hl.f32(y) + sy, ch=0)
            gg = mat[1, x, y]
            b = self.bilinear(mat, hl.f32(x) - sx, hl.f32(y) - sy, ch=2)
            g[c, x, y] = hl.mux(c, [r, gg, b, mat[3, x, y]])
        else:
            raise ValueError(name)
        return g

    def blur(self, f, sigma):
        w = gaussian_weights(sigma)
        r = len(w) // 2
        vert, horiz = hl.Func("blur_v"), hl.Func("blur_h")
        edge = f if f is self.base else hl.BoundaryConditions.repeat_edge(f, [(0, 4), (0, self.W), (0, self.H)])
        vert[c, x, y] = sum(w[j + r] * edge[c, x, y + j] for j in range(-r, r + 1))
        # vert at x outside the image already equals vert at the nearest edge column
        horiz[c, x, y] = sum(w[i + r] * vert[c, x + i, y] for i in range(-r, r + 1))
        self.row_funcs.append(vert)
        return horiz

    def bilinear(self, f, qx, qy, ch=None):
        """Bilinear sample of f at pixel-center coordinates (qx, qy) (= p − 0.5), clamp-to-edge."""
        x0f, y0f = hl.floor(qx), hl.floor(qy)
        fx, fy = qx - x0f, qy - y0f
        x0 = hl.clamp(hl.i32(x0f), 0, self.W - 1)
        x1 = hl.clamp(hl.i32(x0f) + 1, 0, self.W - 1)
        y0 = hl.clamp(hl.i32(y0f), 0, self.H - 1)
        y1 = hl.clamp(hl.i32(y0f) + 1, 0, self.H - 1)
        k = c if ch is None else ch
        top = f[k, x0, y0] + (f[k, x1, y0] - f[k, x0, y0]) * fx
        bot = f[k, x0, y1] + (f[k, x1, y1] - f[k, x0, y1]) * fx
        return top + (bot - top) * fy
