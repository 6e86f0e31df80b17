#!/usr/bin/env bash
# Stages of another size against their peers, side by side in one run, each
# a whole process from file to file with a fresh output, best wall time of
# REPEAT and its peak memory (/usr/bin/time's maximum resident set size):
#
#   vips-bench  libvips' own benchmark ("Speed and memory use",
#               github.com/libvips/vips-bench): a 5000×5000 8-bit RGB TIFF
#               with 128×128 tiles; crop 100 px off every edge, reduce by
#               1/0.9 with a linear kernel, convolve with
#               [[-1 -1 -1] [-1 16 -1] [-1 -1 -1]] / 8, save as an
#               uncompressed TIFF. Peers as vips-bench writes them: pyvips
#               (sequential access), the vips command line (one command per
#               operation through .v files, as its vips.sh), Pillow, OpenCV,
#               ImageMagick.
#   sharp       sharp's benchmark (github.com/lovell/sharp, test/bench): a
#               2725×2225 JPEG to 720×588 with Lanczos 3, JPEG quality 80,
#               over a batch of COUNT files. Peers: vipsthumbnail
#               (shrink-on-load), Pillow (draft mode, then LANCZOS),
#               ImageMagick's mogrify -resize. fxc's thumbnail decodes these
#               at 1/2 (shrink-on-load, sharp's rule: a 2× reduction or more);
#               vipsthumbnail 8.14 and Pillow's draft choose for themselves
#               (vipsthumbnail leaves a 2× reduction, so it decodes them whole).
#
#   Benchmarks/geometry.sh                       # 1 and 2 threads, best of 3
#   THREADS="1 2" REPEAT=5 COUNT=50 Benchmarks/geometry.sh
#   FXC=.build/release/fxc Benchmarks/geometry.sh
#
# Threads: fxc --threads N; libvips VIPS_CONCURRENCY=N; OpenCV
# cv2.setNumThreads(N); ImageMagick MAGICK_THREAD_LIMIT=N; Pillow is single-
# threaded. The sharp batch runs its files N at a time for every tool that
# does not itself use N threads (vipsthumbnail, Pillow: xargs -P N).
# The inputs are made from a bundled photo (examples/rocket.jpg, or
# ../shared/data/large/*.jpg when present) with vips; writes
# Benchmarks/geometry-results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-"1 2"}
REPEAT=${REPEAT:-3}
COUNT=${COUNT:-40}

missing=()
command -v vips >/dev/null || missing+=(libvips-tools)
command -v mogrify >/dev/null || missing+=(imagemagick)
[ -x /usr/bin/time ] || missing+=(time)
python3 -c "import PIL" 2>/dev/null || missing+=(python3-pil)
python3 -c "import cv2" 2>/dev/null || missing+=(python3-opencv)
command -v pip3 >/dev/null || missing+=(python3-pip)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
# pyvips is not packaged in Debian 12: from PyPI (it binds the installed libvips).
python3 -c "import pyvips" 2>/dev/null || pip3 install -q --break-system-packages pyvips
if [ -z "${FXC:-}" ]; then
  scripts/install-deps.sh >/dev/null
  swift build -c release --product fxc >/dev/null
  FXC=.build/release/fxc
fi

work=$(mktemp -d /tmp/fxc-geometry-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
source_photo=$(ls ../shared/data/large/*.jpg 2>/dev/null | head -1 || true)
[ -n "$source_photo" ] || source_photo=examples/rocket.jpg

# The inputs: vips-bench's tiled TIFF, sharp's 2725×2225 JPEG (COUNT copies).
vips thumbnail "$source_photo" "$work/big.v" 5000 --height 5000 --size force
vips copy "$work/big.v" "$work/x.tif[tile,tile-width=128,tile-height=128]"
vips thumbnail "$source_photo" "$work/sharp.jpg[Q=92]" 2725 --height 2225 --size force
mkdir -p "$work/photos"
for ((i = 1; i <= COUNT; i++)); do cp "$work/sharp.jpg" "$(printf '%s/photo-%03d.jpg' "$work/photos" "$i")"; done
cat "$work"/x.tif "$work"/photos/* >/dev/null

cat >"$work/vips_bench.py" <<'EOF'
import sys, pyvips
im = pyvips.Image.new_from_file(sys.argv[1], access="sequential")
im = im.crop(100, 100, im.width - 200, im.height - 200)
im = im.reduce(1.0 / 0.9, 1.0 / 0.9, kernel="linear")
mask = pyvips.Image.new_from_array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], scale=8)
im = im.conv(mask, precision="integer")
im.write_to_file(sys.argv[2])
EOF
printf '3 3 8 0\n-1 -1 -1\n-1 16 -1\n-1 -1 -1\n' >"$work/mask.mat"
cat >"$work/vips_bench.sh" <<'EOF'
set -e
vips crop "$1" "$3/t1.v" 100 100 4800 4800
vips reduce "$3/t1.v" "$3/t2.v" 1.1111111111 1.1111111111 --kernel linear
vips conv "$3/t2.v" "$2" "$3/mask.mat" --precision integer
rm -f "$3/t1.v" "$3/t2.v"
EOF
cat >"$work/pillow_bench.py" <<'EOF'
import sys
from PIL import Image, ImageFilter
im = Image.open(sys.argv[1])
im = im.crop((100, 100, im.width - 100, im.height - 100))
im = im.resize((round(im.width * 0.9), round(im.height * 0.9)), Image.Resampling.BILINEAR, reducing_gap=None)
im = im.filter(ImageFilter.Kernel((3, 3), (-1, -1, -1, -1, 16, -1, -1, -1, -1), 8))
im.save(sys.argv[2])
EOF
cat >"$work/opencv_bench.py" <<'EOF'
import sys, cv2, numpy as np
cv2.setNumThreads(int(sys.argv[3]))
im = cv2.imread(sys.argv[1])
im = im[100:-100, 100:-100]
im = cv2.resize(im, (round(im.shape[1] * 0.9), round(im.shape[0] * 0.9)), interpolation=cv2.INTER_LINEAR)
kernel = np.array([[-1, -1, -1], [-1, 16, -1], [-1, -1, -1]], dtype=np.float32) / 8
im = cv2.filter2D(im, -1, kernel)
cv2.imwrite(sys.argv[2], im)
EOF
cat >"$work/pillow_thumb.py" <<'EOF'
import sys
from PIL import Image
for path in sys.argv[2:]:
    im = Image.open(path)
    im.draft("RGB", (720, 588))
    im = im.resize((720, 588), Image.Resampling.LANCZOS)
    im.save(sys.argv[1] + "/" + path.rsplit("/", 1)[1], quality=80)
EOF

now() { date +%s.%N; }
# measure NAME CHECK COMMAND…: best wall time of REPEAT runs (each after removing
# the outputs), with that run's peak RSS in MiB and CPU seconds (user + system,
# children included: a tool that says "1 thread" may still use more cores);
# CHECK is a command that must pass after.
measure() {
  local name=$1 check=$2 best="" rss="" cpu=""
  shift 2
  for ((r = 0; r < REPEAT; r++)); do
    rm -rf "$work/out" && mkdir -p "$work/out"
    local t0 t1
    t0=$(now)
    /usr/bin/time -f "%M %U %S" -o "$work/rss" "$@" >"$work/$name.log" 2>&1 || { echo "$name failed:"; tail -5 "$work/$name.log"; exit 1; }
    t1=$(now)
    eval "$check" || { echo "$name: output check failed"; exit 1; }
    local t
    t=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$t0" "$t1")
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$t" "$best"; then
      best=$t
      rss=$(awk '{ printf "%.0f", $1 / 1024 }' "$work/rss")
      cpu=$(awk '{ printf "%.2f", $2 + $3 }' "$work/rss")
    fi
  done
  echo "$best $rss $cpu"
}

one_tif='[ -s "$work/out/x.tif" ] && vipsheader "$work/out/x.tif" | grep -q "4320x4320"'
all_jpg='[ "$(ls "$work/out" | wc -l)" -eq "$COUNT" ]'
chain='crop(x: 100, y: 100, width: -100, height: -100) | resize(scale: 0.9, filter: linear) | convolve(kernel: [-1, -1, -1, -1, 16, -1, -1, -1, -1], divisor: 8)'

declare -A result
for t in $THREADS; do
  result[vb,fxc,$t]=$(measure fxc "$one_tif" "$FXC" run -j "$t" --compression 0 -c "$chain" "$work/x.tif" -o "$work/out/x.tif")
  result[vb,pyvips,$t]=$(measure pyvips "$one_tif" env VIPS_CONCURRENCY="$t" python3 "$work/vips_bench.py" "$work/x.tif" "$work/out/x.tif")
  result[vb,vips,$t]=$(measure vips "$one_tif" env VIPS_CONCURRENCY="$t" bash "$work/vips_bench.sh" "$work/x.tif" "$work/out/x.tif" "$work")
  result[vb,opencv,$t]=$(measure opencv "$one_tif" python3 "$work/opencv_bench.py" "$work/x.tif" "$work/out/x.tif" "$t")
  result[vb,magick,$t]=$(measure magick "$one_tif" env MAGICK_THREAD_LIMIT="$t" convert "$work/x.tif" -crop 4800x4800+100+100 +repage \
    -filter triangle -resize 4320x4320 -define convolve:scale=0.125 -morphology Convolve "3x3: -1,-1,-1 -1,16,-1 -1,-1,-1" \
    -compress none "$work/out/x.tif")
  result[sh,fxc,$t]=$(measure fxc-thumb "$all_jpg" "$FXC" run -j "$t" --quality 80 -c "thumbnail(720, height: 588)" \
    "$work/photos" --out-dir "$work/out")
  result[sh,vipsthumbnail,$t]=$(measure vipsthumbnail "$all_jpg" env VIPS_CONCURRENCY=1 bash -c \
    "ls '$work'/photos/*.jpg | xargs -P $t -n 8 vipsthumbnail -s 720x588 -o '$work/out/%s.jpg[Q=80]'")
  result[sh,pillow,$t]=$(measure pillow-thumb "$all_jpg" bash -c \
    "ls '$work'/photos/*.jpg | xargs -P $t -n 8 python3 '$work/pillow_thumb.py' '$work/out'")
  result[sh,mogrify,$t]=$(measure mogrify "$all_jpg" env MAGICK_THREAD_LIMIT="$t" mogrify -path "$work/out" \
    -filter Lanczos -resize 720x588 -quality 80 "$work"/photos/*.jpg)
done
pillow_once=$(measure pillow "$one_tif" python3 "$work/pillow_bench.py" "$work/x.tif" "$work/out/x.tif")

report=Benchmarks/geometry-results.md
{
  echo "# Geometry benchmarks ($(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
  echo
  echo "fxc $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(vips --version), pyvips $(python3 -c 'import pyvips; print(pyvips.__version__)'),"
  echo "Pillow $(python3 -c 'import PIL; print(PIL.__version__)'), OpenCV $(python3 -c 'import cv2; print(cv2.__version__)'),"
  echo "$(convert -version | head -1 | cut -d' ' -f2-3). Best of $REPEAT; wall time of the whole process, file to file; peak RSS."
  echo
  echo "## libvips' benchmark (5000×5000 tiled TIFF → crop, reduce 1/0.9 linear, 3×3 convolve → TIFF)"
  echo
  echo "| tool | threads | seconds | CPU seconds | peak MiB | fxc's time ÷ its time |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for t in $THREADS; do
    for tool in fxc pyvips vips opencv magick; do
      read -r s m c <<<"${result[vb,$tool,$t]}"
      read -r f _ <<<"${result[vb,fxc,$t]}"
      echo "| $tool | $t | $s | $c | $m | $(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$f" "$s") |"
    done
  done
  read -r s m c <<<"$pillow_once"
  echo "| Pillow | 1 | $s | $c | $m | $(python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$(cut -d' ' -f1 <<<"${result[vb,fxc,1]:-${result[vb,fxc,$t]}}")" "$s") |"
  echo
  echo "## sharp's benchmark ($COUNT JPEGs 2725×2225 → 720×588 Lanczos 3, quality 80)"
  echo
  echo "| tool | threads | files/s | CPU seconds | peak MiB | fxc's speed ÷ its speed |"
  echo "| --- | ---: | ---: | ---: | ---: | ---: |"
  for t in $THREADS; do
    for tool in fxc vipsthumbnail pillow mogrify; do
      read -r s m c <<<"${result[sh,$tool,$t]}"
      read -r f _ <<<"${result[sh,fxc,$t]}"
      echo "| $tool | $t | $(python3 -c "import sys; print(f'{int(sys.argv[1]) / float(sys.argv[2]):.1f}')" "$COUNT" "$s") | $c | $m | $(python3 -c "import sys; print(f'{float(sys.argv[2]) / float(sys.argv[1]):.2f}')" "$f" "$s") |"
    done
  done
} >"$report"
cat "$report"
