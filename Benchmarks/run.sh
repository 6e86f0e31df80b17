#!/usr/bin/env bash
# Benchmarks: fxc's interpreter vs its JIT (and split vs unsplit convolutions),
# measured side by side in one run, on the bundled photo and, where present,
# the larger photos of ../shared/data. Writes Benchmarks/results.md.
# Peers (Halide, OpenCV, libvips) are not wired in yet.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh >/dev/null
swift build -c release --product fxc >/dev/null
fxc=.build/release/fxc
images=(examples/rocket.jpg)
[ -f ../shared/data/photos/kde_Path_2560x1600.jpg ] && images+=(../shared/data/photos/kde_Path_2560x1600.jpg)
chains=(
  "sepia | vignette"
  "sepia | brightness(amount: 0.1) | saturation(amount: 1.2) | vignette"
  "wave | pixelate(amount: 1, blockSize: 12)"
  "gaussianBlur(sigma: 3) | sepia"
  "unsharpMask(sigma: 1.5, amount: 0.8)"
)
out=Benchmarks/results.md
{
  echo "# fxc benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores)"
  echo
  echo "| image | chain | interpreter Mpix/s | JIT 1 thread Mpix/s | JIT ÷ interp | unsplit Mpix/s | compile ms |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
  for img in "${images[@]}"; do
    args=()
    for c in "${chains[@]}"; do args+=(--chain "$c"); done
    $fxc bench --image "$img" --threads 1 --json --seconds 0.3 "${args[@]}" | python3 -c '
import json, sys
img = sys.argv[1]
for line in sys.stdin:
    r = json.loads(line)
    print(f"| {img.split(\"/\")[-1]} ({r[\"width\"]}×{r[\"height\"]}) | `{r[\"chain\"]}` | {r[\"interp_mpix_s\"]:.2f} | {r[\"jit_mpix_s\"]:.1f} | {r[\"ratio\"]:.0f}× | {r.get(\"unsplit_mpix_s\", \"\")} | {r[\"compile_ms\"]:.0f} |")
' "$img"
  done
} > "$out"
cat "$out"
