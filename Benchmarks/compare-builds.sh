#!/usr/bin/env bash
# Two fxc builds side by side on the peer suite's chains (Benchmarks/peers/chains.py):
# the JIT on one thread, rounds interleaved (A, B, A, B, …), the best of each
# kept, so a change is judged against its parent in one run on one machine.
#   Benchmarks/compare-builds.sh OLD_FXC NEW_FXC [IMAGE] [ROUNDS]
# Prints one line per chain: old and new Mpix/s and new ÷ old; KEY=jit_relaxed_mpix_s
# compares the relaxed float mode's figures instead of the default's.
set -euo pipefail
old=$1 new=$2
image=${3:-examples/rocket.jpg}
rounds=${4:-3}
cd "$(dirname "$0")/.."
chains=$(python3 -c 'import sys; sys.path.insert(0, "Benchmarks/peers"); import chains
for name, ops in chains.SUITE: print(chains.fxc_chain(ops))')
args=()
while IFS= read -r c; do args+=(--chain "$c"); done <<<"$chains"
args+=(--chain "wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)")
run() { "$1" bench "${args[@]}" --image "$image" --threads 1 --clock cpu --no-unsplit --json --seconds 0.4; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq "$rounds"); do
  run "$old" >"$tmp/old.$r"
  run "$new" >"$tmp/new.$r"
done
echo "image: $image, $rounds rounds interleaved, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp" "$rounds" "${KEY:-jit_mpix_s}" <<'EOF'
import json, sys, glob
tmp, rounds, key = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def best(which):
    out = {}
    for f in glob.glob(f"{tmp}/{which}.*"):
        for line in open(f):
            line = line.strip()
            if not line.startswith("{"):
                continue
            d = json.loads(line)
            out[d["chain"]] = max(out.get(d["chain"], 0), float(d[key]))
    return out
old, new = best("old"), best("new")
for chain in old:
    print(f"{old[chain]:8.1f} {new.get(chain, 0):8.1f}  {new.get(chain, 0) / old[chain]:5.2f}  {chain}")
EOF
