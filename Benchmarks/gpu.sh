#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and its driver (nothing else: no Swift, no
# CUDA toolkit), with the portable fxc (scripts/build-portable.sh): what issue
# 40 asks to be shown there, in one run, into OUT (default ./gpu-results):
#   bench.txt     fxc bench --device cuda on the suite's six chains (a 6× copy
#                 of the bundled photo): launches as % of a device copy, the
#                 rates with copies, a 4-thread batch as % of the link, compile ms;
#   chains.txt    each chain as a 16-bit PNG from the GPU and from the CPU:
#                 the same bytes (strict floats), and --check's difference;
#   shaders.txt   fxc fuzz --shaders --device cuda over the Metal files of the
#                 tests, the examples and the benchmarks;
#   catalogue.txt fxc fuzz --catalogue --device cuda;
#   fuzz.txt      random graphs on the GPU for the seconds left of SECONDS_FOR
#                 (default 540), while a strict CPU fuzz runs on the other cores.
#
#   tar xf fxc-portable-x86_64.tar.xz && FXC=fxc-portable/bin/fxc Benchmarks/gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
F=${FXC:-fxc-portable/bin/fxc}
OUT=${OUT:-gpu-results}
BUDGET=${SECONDS_FOR:-540}
JOBS=$(( $(nproc) > 4 ? $(nproc) - 4 : 1 ))
mkdir -p "$OUT"
{ date -u; nvidia-smi -L; nproc; "$F" version | tail -3; } > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
( timeout $((BUDGET - 20)) "$F" fuzz -n 100000000 --seed "${SEED:-1}" -j "$JOBS" --keep-going > "$OUT/cpu-fuzz.txt" 2>&1 ) &
photo=examples/rocket.jpg
big=$(mktemp -d)/big.png
"$F" run -q -c "resize(scale: 6)" "$photo" -o "$big" || exit 1
C=('contrast(amount: 1.2) | saturation(amount: 1.2) | sepia(amount: 1) | vignette(intensity: 1, radius: 0.75)'
  'gaussianBlur(sigma: 3) | contrast(amount: 1.2) | gamma(power: 0.8)'
  'pixelate(amount: 1, blockSize: 16) | vignette(intensity: 1, radius: 0.75)'
  'wave(amplitude: 10, wavelength: 60) | chromaticAberration(amount: 6)'
  'gaussianBlur(sigma: 10)' 'unsharpMask(sigma: 1.5, amount: 0.8)')
args=(); for c in "${C[@]}"; do args+=(-c "$c"); done
timeout 200 "$F" bench --device cuda --image "$big" --seconds 0.3 "${args[@]}" > "$OUT/bench.txt" 2>&1; cat "$OUT/bench.txt"
tmp=$(dirname "$big"); i=0
for c in "${C[@]}"; do
  i=$((i + 1))
  "$F" run -q -c "$c" "$photo" -o "$tmp/cpu$i.png" --depth 16 --device cpu
  "$F" run -q -c "$c" "$photo" -o "$tmp/gpu$i.png" --depth 16 --device cuda --check > "$tmp/check$i.txt" 2>&1
  cmp -s "$tmp/cpu$i.png" "$tmp/gpu$i.png" && same=same || same=DIFFERENT
  echo "$c: $same bytes; $(tail -1 "$tmp/check$i.txt")"
done | tee "$OUT/chains.txt"
for f in Tests/FXTests/Fixtures/metal/idioms.metal Tests/FXTests/Fixtures/metal/coverage.metal \
  Tests/FXTests/Fixtures/metal/constructs.metal examples/shaders/seeds.metal Benchmarks/metal-pairs.metal; do
  echo "== $f"; timeout 120 "$F" fuzz --shaders "$f" -j 4 --device cuda 2>&1 | tail -4
done | tee "$OUT/shaders.txt"
timeout 120 "$F" fuzz --catalogue --device cuda -j 4 > "$OUT/catalogue.txt" 2>&1; tail -3 "$OUT/catalogue.txt"
left=$((BUDGET - 30 - SECONDS))
[ "$left" -gt 10 ] && timeout "$left" "$F" fuzz -n 1000000 --seed "${SEED:-1}" -j 4 --keep-going --device cuda > "$OUT/fuzz.txt" 2>&1
grep -v '^\[' "$OUT/fuzz.txt" | head -20; grep '^\[' "$OUT/fuzz.txt" | tail -1
wait
grep -v '^\[' "$OUT/cpu-fuzz.txt" | head -20; grep '^\[' "$OUT/cpu-fuzz.txt" | tail -1
rm -rf "$tmp"
