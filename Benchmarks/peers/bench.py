#!/usr/bin/env python3
"""Measures the suite (chains.py) in one run: fxc (`fxc bench --json`: staged
interpreter, JIT on 1 thread and on all threads with a fresh output per run,
memcpy of the same bytes, compile times; and the relaxed float mode when this
fxc has `--float`: from the strict run's jit_relaxed_* figures, or a second run), Halide, OpenCV and libvips (best time of repeated runs on 1 thread
and on all threads, after a warm-up run, a fresh output array per run), and
ImageMagick's -fx on the sepia expression. Every implementation's output is
compared with the float64 oracle (oracle.py): the largest difference in 8-bit
levels over all four channels (the bar: ≤ 1) and the PSNR. Before that, the
oracle itself is checked against fxc's interpreter on a 64×48 crop of each
image. Writes results.json for report.py.

An image is a path, or PATH@X0,Y0,X1,Y1 for a crop of it (made with Pillow).
A JPEG is decoded once by fxc (written as PNG) and a PNG read with Pillow, so
that every implementation gets the same straight-alpha RGBA8 pixels. Whether
an image is opaque is decided once, before the timings, as `fxc bench`
compiles for an opaque input: the peers then skip alpha as fxc's kernel does."""
import argparse, importlib.metadata, json, math, os, re, shutil, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image
import chains
import oracle
import halide_peer, opencv_peer, vips_peer

PEERS = {"Halide": halide_peer, "OpenCV": opencv_peer, "libvips": vips_peer}
# -fx evaluates its expression once per channel; ImageMagick 6.9's channel(r, g, b, a)
# returns 0 for any non-constant argument, so the channel index is taken from
# channel(0,1,2,3) and the sepia row chosen with ?: (rgb ≥ 0, so clamp = min(1, ·)).
SEPIA_FX = ("chan=channel(0,1,2,3); chan==0 ? min(1,0.393*r+0.769*g+0.189*b) : "
            "(chan==1 ? min(1,0.349*r+0.686*g+0.168*b) : min(1,0.272*r+0.534*g+0.131*b))")


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def best_time(fn, budget, min_runs=3, warm_up=True):
    if warm_up:
        fn()  # page faults, thread pools, lazy initialisation
    best, total, runs = math.inf, 0.0, 0
    while runs < min_runs or total < budget:
        t = time.perf_counter(); fn(); t = time.perf_counter() - t
        best, total, runs = min(best, t), total + t, runs + 1
    return best


def load(path):
    return np.array(Image.open(path).convert("RGBA"))


def accuracy(out, ref):
    """The figures of an output against the oracle, for a row."""
    m, p, n = oracle.compare(out, ref)
    return {"max_levels": m, "psnr": p, "over_1": n, "max_premultiplied": oracle.premultiplied_max(out, ref)}


class Run:
    def __init__(self, args):
        self.args, self.fxc, self.rows, self.loads, self.warnings = args, args.fxc, [], [], []
        self.tmp = tempfile.mkdtemp(prefix="fxc-peers-")
        os.environ["FXC_CACHE_DIR"] = os.path.join(self.tmp, "kernel-cache")  # cold compiles first
        self.peer_chains = {}  # (peer, chain, parallel) → compiled once, run on every image
        bench_help, run_help = sh(self.fxc, "bench", "--help"), sh(self.fxc, "run", "--help")
        self.relaxed = "--float" in bench_help
        self.relaxed_run = "--float" in run_help
        self.prepared = {}

    def warn(self, text):
        if text not in self.warnings:
            self.warnings.append(text)
            print("warning: " + text, flush=True)

    def record(self, **row):
        """Adds a row; a later round of the same measurement keeps the best rates."""
        print("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()
                               if v is not None), flush=True)
        same = [r for r in self.rows if (r["chain"], r["image"], r["impl"]) == (row["chain"], row["image"], row["impl"])]
        if not same:
            self.rows.append(row)
            return
        for k in ("mpix_1", "mpix_all", "memcpy"):
            if row.get(k) is not None:
                same[0][k] = max(same[0].get(k) or 0, row[k])
        for k, v in row.items():
            if k not in same[0] or same[0][k] is None:
                same[0][k] = v

    def prepare(self, spec):
        """The image as the PNG every implementation reads, and its name in the tables."""
        if spec in self.prepared:
            return self.prepared[spec]
        path, _, box = spec.partition("@")
        stem = os.path.splitext(os.path.basename(path))[0]
        out = os.path.join(self.tmp, re.sub(r"\W+", "_", stem) + (f"_crop" if box else "") + ".png")
        if box:
            x0, y0, x1, y1 = (int(v) for v in box.split(","))
            Image.open(path).convert("RGBA").crop((x0, y0, x1, y1)).save(out)
            name = f"{stem} crop ({x0},{y0})–({x1},{y1})"
        elif path.lower().endswith((".jpg", ".jpeg")):
            sh(self.fxc, "run", "--chain", "brightness(amount: 0)", path, "-o", out)  # fxc's decoding
            name = os.path.basename(path)
        else:
            Image.open(path).convert("RGBA").save(out)
            name = os.path.basename(path)
        self.prepared[spec] = (out, name)
        return out, name

    def fxc_output(self, chain, image, *extra):
        out = os.path.join(self.tmp, "fxc-out.png")
        sh(self.fxc, "run", "--chain", chain, image, "-o", out, "--overwrite", *extra)
        return load(out)

    def fxc_bench(self, chain, image, seconds, *extra):
        out = sh(self.fxc, "bench", "--json", "--threads", "1", "--seconds", str(seconds), "--image", image,
                 "--chain", chain, "--no-unsplit", *extra)
        return json.loads(out.strip().splitlines()[-1])

    def fresh_rates(self, b):
        """The JIT's rates with a fresh output per run, or (older fxc) the reused-buffer ones."""
        if "jit_fresh_mpix_s" in b:
            return b["jit_fresh_mpix_s"], b.get("jit_fresh_mpix_s_all_threads", b["jit_mpix_s_all_threads"]), True
        self.warn("this fxc bench reports no jit_fresh_mpix_s: its JIT figures reuse one output buffer "
                  "(jit_mpix_s); the peers allocate a fresh output per run")
        return b["jit_mpix_s"], b["jit_mpix_s_all_threads"], False

    def measure_image(self, spec, suite, seconds, first_round):
        path, name = self.prepare(spec)
        img = load(path)
        h, w = img.shape[:2]
        alpha = img[..., 3]
        # decided once per image, as fxc bench compiles for an opaque input (outside its timing)
        opaque = bool((alpha == 255).all())
        print(f"{name}: {w}×{h}, {100 * np.mean(alpha == 0):.1f} % transparent, "
              f"{100 * np.mean((alpha > 0) & (alpha < 255)):.2f} % partly", flush=True)
        for label, ops in suite:
            chain = chains.fxc_chain(ops)
            self.loads.append(os.getloadavg()[0])
            print(f" {label}: {chain} (load {self.loads[-1]:.2f})", flush=True)
            ref = oracle.run(ops, img) if first_round else None
            b = self.fxc_bench(chain, path, seconds)
            one, allt, fresh = self.fresh_rates(b)
            self.record(chain=label, image=name, impl="fxc interpreter", mpix_1=b["interp_mpix_s"], memcpy=b["memcpy_mpix_s"])
            self.record(chain=label, image=name, impl="fxc JIT", mpix_1=one, mpix_all=allt, memcpy=b["memcpy_mpix_s"],
                        fresh_output=fresh, page_faults=b.get("page_faults_per_run"),
                        compile_ms=b.get("compile_ms_cold", b["compile_ms"]), compile_ms_cached=b.get("compile_ms_cached"),
                        **(accuracy(self.fxc_output(chain, path), ref) if ref is not None else {}))
            if self.relaxed:
                row = dict(chain=label, image=name, impl="fxc JIT relaxed", memcpy=b["memcpy_mpix_s"])
                if "jit_relaxed_mpix_s" in b:  # a strict run times the relaxed kernel too (fresh outputs)
                    row.update(mpix_1=b["jit_relaxed_mpix_s"], mpix_all=b.get("jit_relaxed_mpix_s_all_threads"),
                               fresh_output=True)
                else:
                    r = self.fxc_bench(chain, path, seconds, "--float", "relaxed")
                    one, allt, fresh = self.fresh_rates(r)
                    row.update(mpix_1=one, mpix_all=allt, fresh_output=fresh, page_faults=r.get("page_faults_per_run"),
                               compile_ms=r.get("compile_ms_cold", r["compile_ms"]), compile_ms_cached=r.get("compile_ms_cached"))
                if ref is not None and self.relaxed_run:
                    row.update(accuracy(self.fxc_output(chain, path, "--float", "relaxed"), ref))
                self.record(**row)
            for peer, module in PEERS.items():
                rates, acc, compile_ms = [], None, None
                for parallel in (False, True):
                    key = (peer, label, parallel, opaque)
                    if key not in self.peer_chains:
                        self.peer_chains[key] = module.Chain(ops, parallel, opaque)
                    impl = self.peer_chains[key]
                    rates.append(w * h / 1e6 / best_time(lambda: impl.run(img), seconds))
                    if ref is not None:
                        a = accuracy(impl.run(img), ref)
                        acc = a if acc is None or a["max_levels"] > acc["max_levels"] else acc
                    compile_ms = compile_ms or getattr(impl, "compile_ms", None)
                self.record(chain=label, image=name, impl=peer, mpix_1=rates[0], mpix_all=rates[1],
                            compile_ms=compile_ms, **(acc or {}))
            del ref

    def imagemagick(self, spec, seconds):
        """ImageMagick -fx on the sepia expression, beside fxc's interpreter and JIT on `sepia`."""
        label, ops = chains.FX_BASELINE
        path, name = self.prepare(spec)
        img = load(path)
        h, w = img.shape[:2]
        print(f" {label}: {name}", flush=True)
        b = self.fxc_bench(chains.fxc_chain(ops), path, seconds)
        one, allt, fresh = self.fresh_rates(b)
        ref = oracle.run(ops, img)
        self.record(chain=label, image=name, impl="fxc interpreter", mpix_1=b["interp_mpix_s"], memcpy=b["memcpy_mpix_s"])
        self.record(chain=label, image=name, impl="fxc JIT", mpix_1=one, mpix_all=allt, memcpy=b["memcpy_mpix_s"],
                    fresh_output=fresh, compile_ms=b.get("compile_ms_cold", b["compile_ms"]),
                    **accuracy(self.fxc_output(chains.fxc_chain(ops), path), ref))
        convert = shutil.which("convert")
        miff, out = os.path.join(self.tmp, "in.miff"), os.path.join(self.tmp, "out.miff")
        sh(convert, path, miff)
        rates = []
        for threads in (1, os.cpu_count()):
            lim = ["-limit", "thread", str(threads)]
            # the -fx time alone: a plain read + write of the same files is subtracted
            t_fx = best_time(lambda: sh(convert, *lim, miff, "-fx", SEPIA_FX, "-depth", "8", out), 0, 2, False)
            t_io = best_time(lambda: sh(convert, *lim, miff, "-depth", "8", out + ".copy.miff"), 0, 3)
            rates.append(w * h / 1e6 / max(t_fx - t_io, 1e-9))
        fx_png = os.path.join(self.tmp, "fx.png")
        sh(convert, out, fx_png)
        self.record(chain=label, image=name, impl="ImageMagick -fx", mpix_1=rates[0], mpix_all=rates[1],
                    memcpy=b["memcpy_mpix_s"], **accuracy(load(fx_png), ref))

    def verify_oracle(self, specs):
        """oracle.py's check against fxc's interpreter on a 64×48 crop of each image."""
        print("the oracle against fxc's interpreter (64×48 crops):", flush=True)
        found = []
        for spec in specs:
            path, name = self.prepare(spec)
            for r in oracle.verify(self.fxc, [path]):
                found.append(dict(r, image=name))
        return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fxc", required=True)
    ap.add_argument("--seconds", type=float, default=0.5, help="time budget of each measurement")
    ap.add_argument("--rounds", type=int, default=1, help="repeat everything, keep each figure's best")
    ap.add_argument("--only", help="run only the chains whose label contains this text (several: a,b)")
    ap.add_argument("--no-imagemagick", action="store_true", help="leave out the ImageMagick -fx baseline")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("images", nargs="+", help="PATH or PATH@X0,Y0,X1,Y1 (a crop)")
    args = ap.parse_args()
    wanted = args.only.split(",") if args.only else None
    suite = [(label, ops) for label, ops in chains.suite(args.fxc) if not wanted or any(w in label for w in wanted)]
    if not suite:  # a typo must not overwrite results.json with an empty run
        ap.error(f"--only {args.only!r} matches no chain of the suite")
    # made now, not after the measurements: a missing folder must not cost a whole run
    os.makedirs(args.out, exist_ok=True)
    run = Run(args)
    load_before = os.getloadavg()
    try:
        verification = run.verify_oracle(args.images)
        for k in range(args.rounds):
            for image in args.images:
                run.measure_image(image, suite, args.seconds, first_round=k == 0)
        # on the smallest image, if it has at most 1 Mpixel: -fx does some 0.02 Mpixel/s
        small = min(args.images, key=lambda i: math.prod(Image.open(run.prepare(i)[0]).size))
        if not args.no_imagemagick and shutil.which("convert") and math.prod(Image.open(run.prepare(small)[0]).size) <= 1e6:
            run.imagemagick(small, args.seconds)
    finally:
        shutil.rmtree(run.tmp, ignore_errors=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
            "cpu": json.loads(sh(args.fxc, "bench", "--json", "--seconds", "0.01", "--chain", "sepia",
                                 "--image", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                                         "examples", "rocket.jpg")).splitlines()[-1])["cpu"],
            "fxc": sh(args.fxc, "--version").splitlines()[:2],
            "halide_target": str(halide_peer.TARGET), "halide_lanes": halide_peer.LANES,
            "load_before": load_before, "load_after": os.getloadavg(), "rounds": args.rounds,
            "seconds": args.seconds, "load_during": [min(run.loads), max(run.loads)], "warnings": run.warnings,
            "oracle_check": verification,
            "versions": {"halide": importlib.metadata.version("halide"), "opencv": opencv_peer.cv2.__version__,
                         "libvips": "%d.%d.%d" % tuple(vips_peer.pyvips.version(i) for i in range(3)),
                         "imagemagick": sh("convert", "-version").split()[2] if shutil.which("convert") else None}}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": run.rows}, f, indent=1, default=lambda v: None)


if __name__ == "__main__":
    main()
