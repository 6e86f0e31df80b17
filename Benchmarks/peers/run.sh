#!/usr/bin/env bash
# One command for the whole comparison: fxc (interpreter, JIT on 1 thread and
# all threads) beside Halide, OpenCV, libvips and ImageMagick -fx on the suite
# of chains in chains.py, on the bundled photo and, where present, a 2560×1600
# photo of ../shared/data. Writes Benchmarks/peers/results.{json,md,png}.
#   FXC=path/to/fxc   use that fxc instead of building one (swift build -c release)
#   SECONDS_PER=0.5   time budget of each measurement
#   ROUNDS=1          repeat the whole suite, keep each figure's best (a busy machine)
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
images=(examples/rocket.jpg)
[ -f ../shared/data/photos/kde_Path_2560x1600.jpg ] && images+=(../shared/data/photos/kde_Path_2560x1600.jpg)
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
"$py" "$here/bench.py" --fxc "$(realpath -e "$FXC")" --seconds "${SECONDS_PER:-0.5}" --rounds "${ROUNDS:-1}" "${images[@]}"
"$py" "$here/report.py"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
