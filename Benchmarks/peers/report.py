#!/usr/bin/env python3
"""results.json (bench.py) → results.md (tables) and results.png (bar chart), in this folder or the one given."""
import json, math, os
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

import sys
here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))  # the results' folder
data = json.load(open(os.path.join(here, "results.json")))
meta, rows = data["meta"], data["rows"]
IMPLS = ["fxc interpreter", "fxc JIT", "fxc JIT relaxed", "Halide", "OpenCV", "libvips", "ImageMagick -fx"]
BAR = 1 + 1e-6  # within 1 level of the oracle


def num(v, digits=1):
    if v is None:
        return "—"
    if v == math.inf:
        return "∞"
    return f"{v:.{digits}f}" if v >= 1 or digits == 0 else f"{v:.3g}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "—"


def groups():
    seen = []
    for r in rows:
        if (r["chain"], r["image"]) not in seen:
            seen.append((r["chain"], r["image"]))
    return seen


def find(chain, image, impl):
    return next((r for r in rows if r["chain"] == chain and r["image"] == image and r["impl"] == impl), None)


def levels(r):
    if r is None or r.get("max_levels") is None:
        return "—"
    mark = "" if r["max_levels"] <= BAR else " ✗"
    return f"{r['max_levels']:.2f}{mark}"


images = list(dict.fromkeys(r["image"] for r in rows))
fresh = all(r.get("fresh_output", True) for r in rows if r["impl"].startswith("fxc JIT"))
lines = [
    "# fxc against its peers",
    "",
    f"Measured {meta['date']} on {meta['cores']} cores ({meta['cpu']}), load average "
    f"{meta['load_before'][0]:.2f} before, {meta['load_during'][0]:.2f}…{meta['load_during'][1]:.2f} during "
    f"and {meta['load_after'][0]:.2f} after the run (best of {meta.get('rounds', 1)} round(s), "
    f"{meta.get('seconds', '?')} s a measurement); {' '.join(meta.get('fxc', []))}; "
    f"Halide {meta['versions']['halide']} ({meta.get('halide_lanes', '?')} fp32 lanes), "
    f"OpenCV {meta['versions']['opencv']}, libvips {meta['versions']['libvips']}, "
    f"ImageMagick {meta['versions']['imagemagick']}. Made by `Benchmarks/peers/run.sh`; see Benchmarks/README.md.",
    "",
]
for w in meta.get("warnings", []):
    lines += [f"**Warning:** {w}.", ""]
if meta.get("note"):  # set by hand when rows of another run were merged in
    lines += [f"**Note:** {meta['note']}.", ""]

# 1. fxc ÷ Halide, the headline.
relaxed = any(r["impl"] == "fxc JIT relaxed" for r in rows)
lines += ["## fxc ÷ Halide", "",
          "Mpixel/s of RGBA8 in and out, a fresh output per run" + ("" if fresh else " (fxc: see the warning)") +
          "; **÷**: fxc JIT's rate over Halide's" + ("; **relaxed**: `--float relaxed`" if relaxed else "") + ".", "",
          "| image | chain | fxc 1 thread | Halide 1 thread | ÷ | fxc all threads | Halide all threads | ÷ |"
          + (" relaxed 1 thread | ÷ | relaxed all threads | ÷ |" if relaxed else ""),
          "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |" + (" ---: | ---: | ---: | ---: |" if relaxed else "")]
for chain, image in groups():
    f, h, fr = find(chain, image, "fxc JIT"), find(chain, image, "Halide"), find(chain, image, "fxc JIT relaxed")
    if f and h:
        line = (f"| {image} | {chain} | {num(f['mpix_1'])} | {num(h['mpix_1'])} | {ratio(f['mpix_1'], h['mpix_1'])} | "
                f"{num(f.get('mpix_all'))} | {num(h.get('mpix_all'))} | {ratio(f.get('mpix_all'), h.get('mpix_all'))} |")
        if relaxed:
            fr = fr or {}
            line += (f" {num(fr.get('mpix_1'))} | {ratio(fr.get('mpix_1'), h['mpix_1'])} | {num(fr.get('mpix_all'))} | "
                     f"{ratio(fr.get('mpix_all'), h.get('mpix_all'))} |")
        lines.append(line)

# 2. Every implementation against the oracle.
acc_impls = [m for m in IMPLS if m != "fxc interpreter" and any(r["impl"] == m and r.get("max_levels") is not None
                                                                  for r in rows)]
lines += ["", "## Against the float64 oracle", "",
          "The largest |output − 255·oracle| over all four channels, in 8-bit levels (oracle.py; ≤ 0.5: correctly "
          "rounded, ≤ 1: the bar, ✗: over it); in brackets the same in premultiplied levels (colour·alpha: what "
          "shows over black, a transparent pixel's colour not counting).", "",
          "| image | chain | " + " | ".join(acc_impls) + " |", "| --- | --- |" + " ---: |" * len(acc_impls)]
for chain, image in groups():
    cells = []
    for m in acc_impls:
        r = find(chain, image, m)
        cells.append(levels(r) + (f" ({r['max_premultiplied']:.2f})" if r and r.get("max_premultiplied") is not None else ""))
    if any(c != "—" for c in cells):
        lines.append(f"| {image} | {chain} | " + " | ".join(cells) + " |")
check = meta.get("oracle_check") or []
if check:
    worst = max(check, key=lambda r: r["max_levels"])
    over = [r for r in check if r["max_levels"] > BAR]
    lines += ["", f"**The oracle against fxc's interpreter** (`fxc run --backend interp`, a 64×48 crop of each image, "
              f"centred on partial alpha where there is some): largest difference {worst['max_levels']:.2f} levels"
              + (f" ({worst['chain']}, {worst['image']})" if over else "") + "."]
    for r in over:
        u8 = r.get("max_vs_u8_premultiplied_io")
        lines.append(f"- {r['image']}, {r['chain']}: {r['max_levels']:.2f} levels, {r['over_1']} pixels over 1; "
                     f"worst (x, y, channel, fxc, 255·oracle, input alpha) = {tuple(r['worst'])}"
                     + (f"; against the oracle with 8-bit premultiplied I/O: {u8:.0f} levels" if u8 is not None else ""))

# 3. All rates.
lines += ["", "## All rates", "",
          "Mpixel/s (best of repeated runs); **% of memcpy**: the 1-thread rate against a copy of the same bytes "
          "measured by `fxc bench` in the same run; **fxc JIT ÷**: fxc JIT's 1-thread rate over this one's (on the "
          "interpreter's row: the JIT ÷ interpreter ratio); **faults**: fxc's page faults a run; **compile ms**: "
          "cold (fxc: lowering + LLVM; Halide: `compile_jit`), and fxc's load from its kernel cache.", "",
          "| chain | image | implementation | 1 thread | all threads | % of memcpy | fxc JIT ÷ | faults | compile ms |",
          "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
for chain, image in groups():
    fxc = find(chain, image, "fxc JIT")
    for impl in IMPLS:
        r = find(chain, image, impl)
        if r is None:
            continue
        pct = 100 * r["mpix_1"] / r["memcpy"] if r.get("memcpy") else None
        compile_ms = num(r.get("compile_ms"), 0)
        if r.get("compile_ms_cached") is not None:
            compile_ms = ("" if compile_ms == "—" else compile_ms + " ") + f"(cached {r['compile_ms_cached']:.0f})"
        lines.append(f"| {chain} | {image} | {impl} | {num(r['mpix_1'])} | {num(r.get('mpix_all'))} | {num(pct)} | "
                     f"{ratio(fxc and fxc['mpix_1'], r['mpix_1'])} | {num(r.get('page_faults'), 0)} | {compile_ms} |")

for r in (r for r in rows if r["impl"] == "ImageMagick -fx"):
    interp, jit = find(r["chain"], r["image"], "fxc interpreter"), find(r["chain"], r["image"], "fxc JIT")
    lines += ["", f"**Interpreter baseline** ({r['image']}, `sepia`, 1 thread): fxc's interpreter "
              f"{interp['mpix_1']:.2f} Mpixel/s is {interp['mpix_1'] / r['mpix_1']:.1f}× ImageMagick `-fx` "
              f"({r['mpix_1']:.3f} Mpixel/s, same expression, {levels(r)} levels from the oracle); fxc's JIT is "
              f"{jit['mpix_1'] / interp['mpix_1']:.0f}× its interpreter and {jit['mpix_1'] / r['mpix_1']:.0f}× `-fx`."]
with open(os.path.join(here, "results.md"), "w") as f:
    f.write("\n".join(lines) + "\n")

# The chart: one panel per image, a group of bars per chain, log scale.
colors = dict(zip(IMPLS, ["#bbbbbb", "#d62728", "#ff9896", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]))
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
    memcpy = next((r["memcpy"] for r in rows if r["image"] == image and r.get("memcpy")), None)
    if memcpy:
        ax.axhline(memcpy, color="gray", ls="--", lw=1)
        ax.text(len(chains) - 0.5, memcpy, f"memcpy {memcpy:.0f}", ha="right", va="bottom", fontsize=8, color="gray")
    ax.set_yscale("log")
    ax.set_xticks(range(len(chains)), chains, fontsize=9)
    ax.set_ylabel("Mpixel/s (log)")
    ax.set_title(image)
    ax.grid(axis="y", which="both", alpha=0.3)
handles, labels = [], []
for ax in axes[:, 0]:
    for h, l in zip(*ax.get_legend_handles_labels()):
        if l not in labels:
            handles.append(h)
            labels.append(l)
fig.legend(handles, labels, fontsize=9, ncol=4, loc="lower center")
fig.suptitle(f"fxc vs peers: Mpixel/s, RGBA8 in and out, bars 1 thread, ▲ all {meta['cores']} threads, "
             f"load average {meta['load_during'][0]:.1f}…{meta['load_during'][1]:.1f}", fontsize=11)
fig.tight_layout(rect=(0, 0.06, 1, 1))
fig.savefig(os.path.join(here, "results.png"), dpi=110)
print(open(os.path.join(here, "results.md")).read())
