#!/usr/bin/env python3
"""Measures the suite (chains.py) in one run: fxc (`fxc bench --json`: staged
interpreter, JIT on 1 thread and on all threads, memcpy of the same bytes,
compile times), Halide, OpenCV and libvips (best time of repeated runs on 1
thread and on all threads, after a warm-up run), each peer's output checked
against `fxc run`'s by PSNR; and ImageMagick's -fx on the sepia expression
beside fxc's interpreter and JIT. Writes results.json for report.py."""
import argparse, importlib.metadata, json, math, os, re, shutil, subprocess, sys, tempfile, time
import numpy as np
from PIL import Image
import chains
import halide_peer, opencv_peer, vips_peer

PEERS = {"Halide": halide_peer, "OpenCV": opencv_peer, "libvips": vips_peer}
UNSPLIT_TAP_LIMIT = 1000  # fxc bench also compiles the unsplit kernel: minutes for σ 10 (61² taps)
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


def psnr(a, ref):
    d = a[..., :3].astype(np.float64) - ref[..., :3]
    mse = np.mean(d * d)
    return math.inf if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def run_rates(text):
    """Mpixel/s of each file `fxc run` reports, from 'W×H' and '(kernel T ms'."""
    return [int(w) * int(h) / 1e3 / float(t) for w, h, t in re.findall(r": (\d+)×(\d+), .*?\(kernel ([\d.]+) ms", text)]


def load(path):
    return np.array(Image.open(path).convert("RGBA"))


def unsplit_taps(ops):
    sig = [p["sigma"] for n, p in ops if n in ("gaussianBlur", "unsharpMask")]
    return max([(2 * math.ceil(3 * s) + 1) ** 2 for s in sig], default=0)


class Run:
    def __init__(self, args):
        self.args, self.fxc, self.rows = args, args.fxc, []
        self.tmp = tempfile.mkdtemp(prefix="fxc-peers-")
        os.environ["FXC_CACHE_DIR"] = os.path.join(self.tmp, "kernel-cache")  # cold compiles first
        self.peer_chains, self.loads = {}, []  # (peer, chain, parallel) → compiled once, run on every image

    def record(self, **row):
        """Adds a row; a later round of the same measurement keeps the best rates."""
        print("  " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)
        same = [r for r in self.rows if (r["chain"], r["image"], r["impl"]) == (row["chain"], row["image"], row["impl"])]
        if not same:
            self.rows.append(row)
            return
        for k in ("mpix_1", "mpix_all", "memcpy", "unsplit_mpix"):
            if row.get(k) is not None:
                same[0][k] = max(same[0].get(k) or 0, row[k])

    def fxc_run(self, chain, image, out, *extra):
        """`fxc run`: its rate (from the kernel time) and compile ms."""
        line = sh(self.fxc, "run", "--chain", chain, image, "-o", out, "--overwrite", *extra).strip().splitlines()[-1]
        compile_ms = re.search(r"compile ([\d.]+) ms", line)
        return run_rates(line)[0], float(compile_ms.group(1)) if compile_ms else 0.0

    def fxc_bench(self, chain, image, seconds, *extra):
        out = sh(self.fxc, "bench", "--json", "--threads", "1", "--seconds", str(seconds), "--image", image, "--chain", chain, *extra)
        return json.loads(out.strip().splitlines()[-1])

    def measure_image(self, image, suite, seconds):
        name = os.path.basename(image)
        tmp = tempfile.mkdtemp(dir=self.tmp)
        decoded = os.path.join(tmp, "input.png")  # the pixels fxc decodes, for every peer
        self.fxc_run("brightness(amount: 0)", image, decoded)
        img = load(decoded)
        h, w = img.shape[:2]
        print(f"{name}: {w}×{h}", flush=True)
        memcpy = None
        for label, ops in suite:
            chain = chains.fxc_chain(ops)
            ref_path = os.path.join(tmp, re.sub(r"\W+", "_", label) + ".png")
            _, run_compile = self.fxc_run(chain, image, ref_path)
            ref = load(ref_path)
            self.loads.append(os.getloadavg()[0])
            print(f" {label}: {chain} (load {self.loads[-1]:.2f})", flush=True)
            # Above the limit, skip fxc bench's unsplit timing (LLVM takes minutes on 61² taps).
            extra = () if unsplit_taps(ops) <= UNSPLIT_TAP_LIMIT else ("--no-unsplit",)
            b = self.fxc_bench(chain, image, seconds, *extra)
            memcpy = b["memcpy_mpix_s"]
            self.record(chain=label, image=name, impl="fxc interpreter", mpix_1=b["interp_mpix_s"], memcpy=memcpy, psnr=math.inf)
            self.record(chain=label, image=name, impl="fxc JIT", mpix_1=b["jit_mpix_s"], mpix_all=b["jit_mpix_s_all_threads"],
                        memcpy=memcpy, psnr=math.inf, compile_ms=b.get("compile_ms_cold", b["compile_ms"]),
                        compile_ms_cached=b.get("compile_ms_cached"), unsplit_mpix=b.get("unsplit_mpix_s"))
            for peer, module in PEERS.items():
                rates, psnrs, compile_ms = [], [], []
                for parallel in (False, True):
                    key = (peer, label, parallel)
                    if key not in self.peer_chains:
                        self.peer_chains[key] = module.Chain(ops, parallel)
                    impl = self.peer_chains[key]
                    out = np.empty_like(img)
                    rates.append(w * h / 1e6 / best_time(lambda: impl.run(img, out), seconds))
                    psnrs.append(psnr(out, ref))
                    compile_ms.append(getattr(impl, "compile_ms", None))
                self.record(chain=label, image=name, impl=peer, mpix_1=rates[0], mpix_all=rates[1], memcpy=memcpy,
                            psnr=min(psnrs), compile_ms=compile_ms[0])
        return tmp, decoded

    def imagemagick(self, image, seconds):
        """ImageMagick -fx on the sepia expression vs fxc's interpreter and JIT on `sepia`."""
        label, ops = chains.FX_BASELINE
        tmp, decoded = tempfile.mkdtemp(dir=self.tmp), None
        decoded = os.path.join(tmp, "input.png")
        self.fxc_run("brightness(amount: 0)", image, decoded)
        h, w = load(decoded).shape[:2]
        ref_path = os.path.join(tmp, "fxc.png")
        self.fxc_run(chains.fxc_chain(ops), image, ref_path)
        b = self.fxc_bench(chains.fxc_chain(ops), image, seconds)
        name = os.path.basename(image)
        print(f" {label}: {name}", flush=True)
        self.record(chain=label, image=name, impl="fxc interpreter", mpix_1=b["interp_mpix_s"], memcpy=b["memcpy_mpix_s"], psnr=math.inf)
        self.record(chain=label, image=name, impl="fxc JIT", mpix_1=b["jit_mpix_s"], mpix_all=b["jit_mpix_s_all_threads"],
                    memcpy=b["memcpy_mpix_s"], psnr=math.inf, compile_ms=b.get("compile_ms_cold", b["compile_ms"]))
        convert = shutil.which("convert")
        miff, out = os.path.join(tmp, "in.miff"), os.path.join(tmp, "out.miff")
        sh(convert, decoded, miff)
        rates = []
        for threads in (1, os.cpu_count()):
            lim = ["-limit", "thread", str(threads)]
            # the -fx time alone: a plain read + write of the same files is subtracted
            t_fx = best_time(lambda: sh(convert, *lim, miff, "-fx", SEPIA_FX, "-depth", "8", out), 0, 2, False)
            t_io = best_time(lambda: sh(convert, *lim, miff, "-depth", "8", out + ".copy.miff"), 0, 3)
            rates.append(w * h / 1e6 / max(t_fx - t_io, 1e-9))
        sh(convert, out, os.path.join(tmp, "fx.png"))
        self.record(chain=label, image=name, impl="ImageMagick -fx", mpix_1=rates[0], mpix_all=rates[1],
                    memcpy=b["memcpy_mpix_s"], psnr=psnr(load(os.path.join(tmp, "fx.png")), load(ref_path)))


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fxc", required=True)
    ap.add_argument("--seconds", type=float, default=0.5, help="time budget of each measurement")
    ap.add_argument("--rounds", type=int, default=1, help="repeat everything, keep each figure's best")
    ap.add_argument("--only", help="run only the chains whose label contains this text")
    ap.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("images", nargs="+")
    args = ap.parse_args()
    suite = list(chains.SUITE)
    if "chromaticAberration" in sh(args.fxc, "effects"):
        suite = [("wave + chromatic aberration", [chains.WAVE, chains.CHROMATIC]) if label == "wave" else (label, ops)
                 for label, ops in suite]
    suite = [(label, ops) for label, ops in suite if not args.only or args.only in label]
    run = Run(args)
    load_before = os.getloadavg()
    try:
        for _ in range(args.rounds):
            for image in args.images:
                run.measure_image(image, suite, args.seconds)
        run.imagemagick(args.images[0], args.seconds)
    finally:
        shutil.rmtree(run.tmp, ignore_errors=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count(),
            "cpu": json.loads(sh(args.fxc, "bench", "--json", "--seconds", "0.01", "--chain", "sepia",
                                 "--image", args.images[0]).splitlines()[-1])["cpu"],
            "load_before": load_before, "load_after": os.getloadavg(), "rounds": args.rounds,
            "load_during": [min(run.loads), max(run.loads)],
            "versions": {"halide": importlib.metadata.version("halide"), "opencv": opencv_peer.cv2.__version__,
                         "libvips": "%d.%d.%d" % tuple(vips_peer.pyvips.version(i) for i in range(3)),
                         "imagemagick": sh("convert", "-version").split()[2]}}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump({"meta": meta, "rows": run.rows}, f, indent=1, default=lambda v: None)


if __name__ == "__main__":
    main()
