#!/usr/bin/env python3
"""Where a chain's JIT kernel spends its time, pass by pass and instruction by
instruction: `perf record` of `fxc bench` (with FXC_PERF_MAP=1, so perf names
the JIT's functions), its samples mapped onto the machine code that `fxc dump
--asm` prints for the same chain (assembled again here, so every sample lands
on an instruction).

  Benchmarks/profile.py [--fxc PATH] [--image IMG] [--opaque] [--target NAME] [--top N] CHAIN

Prints each pass's share of all samples, then its hottest instructions. Shares
of single instructions are smeared by skid: a long-latency instruction's cost
often shows on the one after it. Needs `perf` (Debian: linux-perf) and clang.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("chain")
ap.add_argument("--fxc", default=".build/release/fxc")
ap.add_argument("--image", default="examples/rocket.jpg")
ap.add_argument("--opaque", action="store_true", help="the image is opaque (as fxc bench compiles for it)")
ap.add_argument("--top", type=int, default=25)
ap.add_argument("--seconds", default="3")
ap.add_argument("--target", default="host", help="the target to compile for (x86-64-v3: what an AVX2 machine runs)")
args = ap.parse_args()
tmp = tempfile.mkdtemp()

# The samples: instruction addresses, and the perf map naming the JIT's functions.
proc = subprocess.run(["perf", "record", "-o", f"{tmp}/perf.data", "-F", "5000", "--", args.fxc, "bench", "--chain",
                       args.chain, "--image", args.image, "--threads", "1", "--seconds", args.seconds, "--no-unsplit",
                       "--target", args.target],
                      env=dict(os.environ, FXC_PERF_MAP="1"), capture_output=True, text=True)
if proc.returncode != 0:
    sys.exit(proc.stderr)
samples = [line.split() for line in subprocess.run(["perf", "script", "-i", f"{tmp}/perf.data", "-F", "pid,ip"],
                                                   capture_output=True, text=True).stdout.split("\n") if line.strip()]
pid = collections.Counter(p for p, _ in samples).most_common(1)[0][0]
ips = collections.Counter(int(ip, 16) for _, ip in samples)
total = sum(ips.values())
mapfile = f"/tmp/perf-{pid}.map"
entries = [line.split(maxsplit=2) for line in open(mapfile)]

# The machine code: `fxc dump --asm`, one object per pass function.
dump = subprocess.run([args.fxc, "dump", "--asm", "--chain", args.chain, "--target", args.target]
                      + (["--opaque"] if args.opaque else []),
                      capture_output=True, text=True, check=True).stdout
asm = dump.split("## assembly", 1)[1].split("\n", 1)[1].split("\n")
starts = [i for i, line in enumerate(asm) if line.startswith("\t.file")] + [len(asm)]
objects = {}
for k in range(len(starts) - 1):
    text = "\n".join(asm[starts[k]:starts[k + 1]]) + "\n"
    name = re.search(r"\.file\s+\"(\w+)\"", text).group(1)
    with open(f"{tmp}/{name}.s", "w") as f:
        f.write("\t.text\n" + text)
    subprocess.run(["clang", "-c", f"{tmp}/{name}.s", "-o", f"{tmp}/{name}.o"], check=True)
    objects[name] = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"{tmp}/{name}.o"],
                                   capture_output=True, text=True).stdout

# Each sample belongs to the last mapped function that covers its address (a
# warm-up kernel's code may be freed and its addresses reused); the timed
# kernel's passes are the last instances of fxc_pass0, 1, …, and earlier
# instances of the same size hold the same code (the bench compiles the chain
# more than once), so their samples count too, by offset.
spans = [(int(a, 16), int(n, 16), name.strip()) for a, n, name in entries]
last = {}
for base, size, name in spans:
    last[name.split()[0]] = (size, name)
per_offset = collections.defaultdict(collections.Counter)
for ip, n in ips.items():
    owner = next(((b, sz, nm) for b, sz, nm in reversed(spans) if b <= ip < b + sz), None)
    if owner and last.get(owner[2].split()[0], (None,))[0] == owner[1]:
        per_offset[owner[2].split()[0]][ip - owner[0]] += n
print(f"{args.chain}: {total} samples")
for fn, (size, name) in sorted(last.items()):
    here = per_offset[fn]
    share = sum(here.values())
    print(f"\n{name}: {100 * share / total:.1f} % of all samples")
    lines = []
    for line in objects.get(fn, "").split("\n"):
        m = re.match(r"\s*([0-9a-f]+):\s*(.*)", line)
        if m and share:
            lines.append((here.get(int(m.group(1), 16), 0), m.group(1), m.group(2)))
    for n, off, text in sorted(lines, reverse=True)[:args.top]:
        print(f"  {100 * n / share:5.1f} %  {off:>5}: {text}")
