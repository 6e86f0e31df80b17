#!/usr/bin/env python3
"""results.json (bench.py) → results.md (tables) and results.png (bar chart)."""
import json, math, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

here = os.path.dirname(os.path.abspath(__file__))
data = json.load(open(os.path.join(here, "results.json")))
meta, rows = data["meta"], data["rows"]
IMPLS = ["fxc interpreter", "fxc JIT", "Halide", "OpenCV", "libvips", "ImageMagick -fx"]


def num(v, digits=1):
    if v is None:
        return "—"
    if v == math.inf:
        return "=" if digits is None else "∞"
    return f"{v:.{digits}f}" if v >= 1 or digits == 0 else f"{v:.3g}"


def groups():
    seen = []
    for r in rows:
        if (r["chain"], r["image"]) not in seen:
            seen.append((r["chain"], r["image"]))
    return seen


def find(chain, image, impl):
    return next((r for r in rows if r["chain"] == chain and r["image"] == image and r["impl"] == impl), None)


lines = [
    "# fxc against its peers",
    "",
    f"Measured {meta['date']} on {meta['cores']} cores ({meta['cpu']}), load average "
    f"{meta['load_before'][0]:.2f} before, {meta['load_during'][0]:.2f}…{meta['load_during'][1]:.2f} during "
    f"and {meta['load_after'][0]:.2f} after the run "
    f"(best of {meta.get('rounds', 1)} round(s)); "
    f"Halide {meta['versions']['halide']}, OpenCV {meta['versions']['opencv']}, libvips {meta['versions']['libvips']}, "
    f"ImageMagick {meta['versions']['imagemagick']}. Made by `Benchmarks/peers/run.sh`; see Benchmarks/README.md.",
    "",
    "Mpixel/s of RGBA8 in and out (best of repeated runs); **% of memcpy**: the 1-thread rate against a copy of "
    "the same bytes measured by `fxc bench` in the same run; **PSNR** of the peer's output against `fxc run`'s "
    "(RGB, 8-bit; ≥ 40 dB: the same picture, ∞: identical); **fxc JIT ÷**: fxc JIT's 1-thread rate over this "
    "one's (on the interpreter's row: the JIT ÷ interpreter ratio); **compile ms**: cold (fxc: lowering + LLVM; "
    "Halide: `compile_jit`), and fxc's load from its kernel cache.",
    "",
    "| chain | image | implementation | 1 thread | all threads | % of memcpy | PSNR dB | fxc JIT ÷ | compile ms |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
]
notes = []
for chain, image in groups():
    fxc = find(chain, image, "fxc JIT")
    for impl in IMPLS:
        r = find(chain, image, impl)
        if r is None:
            continue
        pct = 100 * r["mpix_1"] / r["memcpy"] if r.get("memcpy") else None
        ratio = fxc["mpix_1"] / r["mpix_1"] if fxc and r["mpix_1"] else None
        psnr = "—" if impl.startswith("fxc") else num(r["psnr"])
        compile_ms = num(r.get("compile_ms"), 0)
        if r.get("compile_ms_cached") is not None:
            compile_ms = ("" if compile_ms == "—" else compile_ms + " ") + f"(cached {r['compile_ms_cached']:.0f})"
        mark = ""
        if r.get("note"):
            if r["note"] not in notes:
                notes.append(r["note"])
            mark = f" [{notes.index(r['note']) + 1}]"
        lines.append(f"| {chain} | {image} | {impl}{mark} | {num(r['mpix_1'])} | {num(r.get('mpix_all'))} | "
                     f"{num(pct)} | {psnr} | {num(ratio, 2)}× | {compile_ms} |")
lines += [""] + [f"[{i + 1}] {n}" for i, n in enumerate(notes)]

fx = [r for r in rows if r["impl"] == "ImageMagick -fx"]
for r in fx:
    interp, jit = find(r["chain"], r["image"], "fxc interpreter"), find(r["chain"], r["image"], "fxc JIT")
    lines += ["", f"**Interpreter baseline** ({r['image']}, `sepia`, 1 thread): fxc's interpreter "
              f"{interp['mpix_1']:.2f} Mpixel/s is {interp['mpix_1'] / r['mpix_1']:.1f}× ImageMagick `-fx` "
              f"({r['mpix_1']:.3f} Mpixel/s, same expression, PSNR {num(r['psnr'])} dB); fxc's JIT is "
              f"{jit['mpix_1'] / interp['mpix_1']:.0f}× its interpreter and {jit['mpix_1'] / r['mpix_1']:.0f}× `-fx`."]
with open(os.path.join(here, "results.md"), "w") as f:
    f.write("\n".join(lines) + "\n")

# The chart: one panel per image, a group of bars per chain, log scale.
images = list(dict.fromkeys(r["image"] for r in rows))
colors = dict(zip(IMPLS, ["#bbbbbb", "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]))
fig, axes = plt.subplots(len(images), 1, figsize=(13, 4.6 * len(images)), squeeze=False)
for ax, image in zip(axes[:, 0], images):
    chains = [c for c, i in groups() if i == image]
    impls = [m for m in IMPLS if any(find(c, image, m) for c in chains)]
    width = 0.8 / len(impls)
    for k, impl in enumerate(impls):
        xs = [i + (k - (len(impls) - 1) / 2) * width for i in range(len(chains))]
        one = [(find(c, image, impl) or {}).get("mpix_1") or 0 for c in chains]
        allt = [(find(c, image, impl) or {}).get("mpix_all") for c in chains]
        ax.bar(xs, one, width, color=colors[impl], label=impl)
        ax.scatter([x for x, a in zip(xs, allt) if a], [a for a in allt if a], marker="^", color="black", s=14, zorder=3)
    memcpy = next(r["memcpy"] for r in rows if r["image"] == image and r.get("memcpy"))
    ax.axhline(memcpy, color="gray", ls="--", lw=1)
    ax.text(len(chains) - 0.5, memcpy, f"memcpy {memcpy:.0f}", ha="right", va="bottom", fontsize=8, color="gray")
    ax.set_yscale("log")
    ax.set_xticks(range(len(chains)), chains, fontsize=9)
    ax.set_ylabel("Mpixel/s (log)")
    ax.set_title(image)
    ax.grid(axis="y", which="both", alpha=0.3)
handles, labels = axes[0, 0].get_legend_handles_labels()
fig.legend(handles, labels, fontsize=9, ncol=3, loc="lower center")
fig.suptitle(f"fxc vs peers: Mpixel/s, RGBA8 in and out, bars 1 thread, ▲ all {meta['cores']} threads, "
             f"load average {meta['load_during'][0]:.1f}…{meta['load_during'][1]:.1f}", fontsize=11)
fig.tight_layout(rect=(0, 0.06, 1, 1))
fig.savefig(os.path.join(here, "results.png"), dpi=110)
print(open(os.path.join(here, "results.md")).read())
