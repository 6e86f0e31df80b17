#!/usr/bin/env bash
# One command for the whole comparison: fxc (interpreter, JIT on 1 thread and
# all threads, and its relaxed float mode when it has one) beside Halide,
# OpenCV, libvips and ImageMagick -fx on the suite of chains in chains.py, every
# output checked against the float64 oracle (oracle.py), on the bundled photo,
# the 17.9 MP photo of ../shared/data (when present) and a 512×256 crop of a
# transparent PNG of ../shared/data (when present). Prints and writes
# Benchmarks/peers/results.{json,md,png}: fxc ÷ Halide per chain at 1 thread and
# all threads, each implementation's largest difference from the oracle.
#   FXC=path/to/fxc   use that fxc instead of building one (swift build -c release)
#   SECONDS_PER=0.5   time budget of each measurement
#   ROUNDS=1          repeat the whole suite, keep each figure's best (a busy machine)
#   IMAGES="a.jpg b.png@X0,Y0,X1,Y1"   other images (a crop: @box)
#   ONLY=blur,unsharp only the chains whose label contains one of these
# A partial run (ONLY or IMAGES set) writes its results to a temporary folder,
# not over the committed Benchmarks/peers/results.*; OUT=DIR puts them there.
# Timings are only as good as the machine is quiet: check the load it prints.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=Benchmarks/peers
py=Benchmarks/.venv/bin/python
if ! "$py" -c 'import halide, cv2, pyvips, numpy, matplotlib, PIL' 2>/dev/null \
   || ! convert -version 2>/dev/null | grep -q ImageMagick; then
  "$here/setup.sh"
fi
if [ -z "${FXC:-}" ]; then
  scripts/install-deps.sh >/dev/null
  swift build -c release --product fxc >/dev/null
  FXC=.build/release/fxc
fi
if [ -n "${IMAGES:-}" ]; then
  read -r -a images <<<"$IMAGES"
else
  data=../shared/data
  images=(examples/rocket.jpg)
  [ -f $data/large/mate_Elephants_5640x3172.jpg ] && images+=($data/large/mate_Elephants_5640x3172.jpg)
  # the horizon of a Mars landscape: 54 % transparent sky, 451 partly transparent pixels
  [ -f $data/alpha/stellarium_mars_2048x1024_rgba.png ] && images+=($data/alpha/stellarium_mars_2048x1024_rgba.png@0,368,512,624)
fi
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
out=${OUT:-$here}
if [ -z "${OUT:-}" ] && [ -n "${ONLY:-}${IMAGES:-}" ]; then out=$(mktemp -d /tmp/fxc-peers-XXXXXX); fi
"$py" "$here/bench.py" --fxc "$(realpath -e "$FXC")" --seconds "${SECONDS_PER:-0.5}" --rounds "${ROUNDS:-1}" \
  ${ONLY:+--only "$ONLY"} --out "$out" "${images[@]}"
"$py" "$here/report.py" "$out"
echo "results: $out"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
