#!/usr/bin/env bash
# Images larger than memory: a 20,000×20,000 px image (400 Mpixel) made from a
# real photo, as a baseline JPEG and as an uncompressed 8-bit RGB TIFF, run
# through `gaussianBlur(sigma: 3) | sepia` by `fxc run` (streamed in bands)
# and by libvips (pyvips, sequential access: libvips' own streaming), file to
# file, decode and encode included. Prints wall time and peak memory
# (/usr/bin/time -v) for each, best of REPEAT, and writes
# Benchmarks/stream-results.md.
#
#   Benchmarks/stream.sh                    # builds fxc (release) first
#   FXC=/path/to/fxc SIDE=10000 Benchmarks/stream.sh
#
# The same work for both: a Gaussian of σ 3 cut at r = ceil(3σ) = 9 px
# (vips: `gaussblur` with the min_ampl that stops there; its default integer
# precision, its fastest), then the W3C sepia matrix (vips `recomb`, cast to
# 8 bits), JPEG quality 90 (libjpeg's standard Huffman tables: fxc optimises
# them only up to 50 Mpixel, vips never by default) or an uncompressed TIFF.
# Threads: both use every core (fxc decodes and encodes on threads of their
# own beside the kernel; vips splits its pipeline over threads).
# fxc also fsyncs its output before renaming it into place; vips does not.
set -euo pipefail
cd "$(dirname "$0")/.."
SIDE=${SIDE:-20000}
REPEAT=${REPEAT:-2}
source_photo=../shared/data/large/mate_Elephants_5640x3172.jpg
[ -e "$source_photo" ] || source_photo=examples/rocket.jpg

Benchmarks/peers/setup.sh >/dev/null  # pyvips in Benchmarks/.venv
[ -x /usr/bin/time ] || { sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo; $sudo apt-get update -qq; $sudo apt-get install -y -qq time >/dev/null; }
if [ -z "${FXC:-}" ]; then
  scripts/install-deps.sh >/dev/null
  swift build -c release --product fxc >/dev/null
  FXC=.build/release/fxc
fi
python=Benchmarks/.venv/bin/python

work=$(mktemp -d /tmp/fxc-stream-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/vips_chain.py" <<'EOF'
import math, sys
import pyvips

src, dst = sys.argv[1], sys.argv[2]
s = 3.0
r = math.ceil(3 * s)
image = pyvips.Image.new_from_file(src, access="sequential")
image = image.gaussblur(s, min_ampl=math.exp(-(r + 0.5) ** 2 / (2 * s * s)))
sepia = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
image = image.recomb(pyvips.Image.new_from_list(sepia)).cast("uchar")
image.write_to_file(dst, **({"Q": 90} if dst.endswith(".jpg") else {}))
EOF
cat >"$work/make.py" <<'EOF'
import sys
import pyvips

src, side, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
image = pyvips.Image.new_from_file(src)
big = image.resize(side / image.width, vscale=side / image.height)
big.write_to_file(out + ".jpg", Q=90)
big.write_to_file(out + ".tif", compression="none")
EOF
"$python" "$work/make.py" "$source_photo" "$SIDE" "$work/big"

# measure NAME COMMAND…: best wall seconds and its peak RSS in MiB, "S MIB".
measure() {
  local name=$1 best="" rss=""
  shift
  for ((r = 0; r < REPEAT; r++)); do
    /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.time" || { echo "$name failed:"; tail -5 "$work/$name.out" "$work/$name.time"; exit 1; }
    local s m
    s=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); v = 0; for (i = 1; i <= n; i++) v = v * 60 + t[i]; print v }' "$work/$name.time")
    m=$(awk '/Maximum resident set size/ { printf "%.0f", $6 / 1024 }' "$work/$name.time")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$s" "$best"; then
      best=$s rss=$m
    fi
  done
  echo "$best $rss"
}

declare -A result
for ext in jpg tif; do
  extra=()
  [ "$ext" = tif ] && extra=(--compression 0)
  result[fxc,$ext]=$(measure "fxc-$ext" "$FXC" run -c "gaussianBlur(sigma: 3) | sepia" "$work/big.$ext" \
    -o "$work/out-fxc.$ext" --overwrite --max-pixels $((SIDE * SIDE)) "${extra[@]}" -v)
  grep -h "streamed" "$work/fxc-$ext.out" | sed 's/^/  /' || { echo "fxc did not stream $ext"; exit 1; }
  result[vips,$ext]=$(measure "vips-$ext" "$python" "$work/vips_chain.py" "$work/big.$ext" "$work/out-vips.$ext")
done

report=Benchmarks/stream-results.md
{
  echo "# Streaming a ${SIDE}×${SIDE} image ($(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "\`gaussianBlur(sigma: 3) | sepia\`, file to file, best of $REPEAT; made from $(basename "$source_photo")."
  echo "libvips $("$python" -c 'import pyvips; print(".".join(str(pyvips.version(i)) for i in range(3)))') (pyvips), fxc $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
  echo
  echo "| input → output | fxc s | fxc peak MiB | vips s | vips peak MiB | vips ÷ fxc time |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for ext in jpg tif; do
    read -r fs fm <<<"${result[fxc,$ext]}"
    read -r vs vm <<<"${result[vips,$ext]}"
    name=$([ "$ext" = jpg ] && echo "JPEG q90 → JPEG q90" || echo "TIFF → TIFF, uncompressed")
    python3 -c "import sys; print(f'| {sys.argv[1]} | {float(sys.argv[2]):.2f} | {sys.argv[3]} | {float(sys.argv[4]):.2f} | {sys.argv[5]} | {float(sys.argv[4]) / float(sys.argv[2]):.2f} |')" \
      "$name" "$fs" "$fm" "$vs" "$vm"
  done
} >"$report"
cat "$report"
