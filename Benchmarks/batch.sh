#!/usr/bin/env bash
# Batch throughput: `fxc run` against libvips' `vips` and ImageMagick's
# `mogrify` on the same folder of real photos, decode and encode included,
# measured in one run; then fxc's peak memory on a 50- and a 500-file batch of
# the same images (/usr/bin/time -v). Prints a table and writes
# Benchmarks/batch-results.md.
#
#   Benchmarks/batch.sh                 # 200 photos, 2 threads
#   COUNT=400 THREADS=2 REPEAT=3 Benchmarks/batch.sh
#   FXC=/tmp/build/release/fxc Benchmarks/batch.sh   # an fxc already built
#
# The photos are copies of ../shared/data/photos/*.jpg (or examples/rocket.jpg)
# under distinct names in a temporary directory, removed at the end.
#
# The work, the same for all three, per file: decode the JPEG, apply it, encode
# a JPEG at quality 90 with 4:2:0 chroma.
#   sepia  the W3C sepia colour matrix (fxc `sepia`, vips `recomb`, mogrify `-color-matrix`)
#   blur   a Gaussian blur, sigma 2 (fxc `gaussianBlur(sigma: 2)`, vips `gaussblur`, mogrify `-blur 0x2`)
#   webp   sepia, as above, encoded as lossy WebP at quality 90 instead of JPEG
#   thumb  resize to 1,200 px wide (Lanczos 3) and sharpen, as lossy WebP at quality 90,
#          the JPEG decoded reduced where the reduction allows (fxc `resize(width: 1200,
#          shrinkOnLoad: on) | sharpen`; vips `vipsthumbnail -s 1200x…`, which shrinks on
#          load too and does not sharpen: less work than the others; mogrify `-resize 1200x
#          -sharpen 0x1`, which decodes whole)
#   thumbwhole  the same, fxc and mogrify decoding whole (fxc `resize(width: 1200) | sharpen`;
#          vips and mogrify as for thumb)
# Threads: fxc `--threads N`; vips one process per file, N at a time (xargs -P N,
# VIPS_CONCURRENCY=1); mogrify one process over all files with N OpenMP threads.
# fxc also fsyncs every output before renaming it into place; the others do not.
set -euo pipefail
cd "$(dirname "$0")/.."
COUNT=${COUNT:-200}
THREADS=${THREADS:-2}
REPEAT=${REPEAT:-1}
WORKLOADS=${WORKLOADS:-"sepia blur webp thumb"}

# Tools: Debian's libvips-tools, imagemagick and time, installed when missing.
missing=()
command -v vips >/dev/null || missing+=(libvips-tools)
command -v mogrify >/dev/null || missing+=(imagemagick)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -z "${FXC:-}" ]; then
  scripts/install-deps.sh >/dev/null
  swift build -c release --product fxc >/dev/null
  FXC=.build/release/fxc
fi

work=$(mktemp -d /tmp/fxc-batch-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
sources=(../shared/data/photos/*.jpg)
[ -e "${sources[0]}" ] || sources=(examples/rocket.jpg)

# make DIR N: N copies of the photos, in turn, as DIR/photo-0001.jpg …
make_photos() {
  mkdir -p "$1"
  for ((i = 0; i < $2; i++)); do
    cp "${sources[i % ${#sources[@]}]}" "$(printf '%s/photo-%04d.jpg' "$1" $((i + 1)))"
  done
}
make_photos "$work/photos" "$COUNT"
cat "$work"/photos/* >/dev/null  # warm the page cache for every tool alike
megapixels=$(python3 - "$work/photos" <<'EOF'
import os, struct, sys
total = 0
for name in os.listdir(sys.argv[1]):
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    i = 2
    while i < len(data):
        marker, length = data[i + 1], int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9]); total += w * h; break
        i += 2 + length
print(f"{total / 1e6:.1f}")
EOF
)
printf '3 3\n0.393 0.769 0.189\n0.349 0.686 0.168\n0.272 0.534 0.131\n' >"$work/sepia.mat"

now() { date +%s.%N; }
# time_it NAME OUTDIR EXT COMMAND…: runs the command REPEAT times into a fresh OUTDIR, which must then
# hold COUNT files *.EXT; the best wall time.
time_it() {
  local name=$1 out=$2 ext=$3 best=""
  shift 3
  for ((r = 0; r < REPEAT; r++)); do
    rm -rf "$out" && mkdir -p "$out"
    local t0 t1
    t0=$(now)
    "$@" >"$work/$name.log" 2>&1 || { echo "$name failed:"; tail -5 "$work/$name.log"; exit 1; }
    t1=$(now)
    local n
    n=$(find "$out" -name "*.$ext" | wc -l)
    [ "$n" -eq "$COUNT" ] || { echo "$name wrote $n of $COUNT files"; exit 1; }
    best=$(python3 -c "import sys; a = float(sys.argv[2]) - float(sys.argv[1]); print(min(a, float(sys.argv[3])) if sys.argv[3] else a)" "$t0" "$t1" "$best")
  done
  echo "$best"
}

vips_one() {  # vips_one WORK IN OUTDIR
  local out="$3/$(basename "$2")[Q=90,subsample_mode=on]"
  case $1 in
    sepia) vips recomb "$2" "$out" "$work/sepia.mat" ;;
    blur) vips gaussblur "$2" "$out" 2 ;;
    webp) vips recomb "$2" "$3/$(basename "$2" .jpg).webp[Q=90]" "$work/sepia.mat" ;;
    thumb | thumbwhole) vipsthumbnail "$2" -s 1200x100000 -o "$3/%s.webp[Q=90]" ;;
  esac
}
export -f vips_one
export work

declare -A seconds
sepia_matrix=(-color-matrix "0.393 0.769 0.189 0.349 0.686 0.168 0.272 0.534 0.131")
for w in $WORKLOADS; do
  ext=jpg format=jpeg im_format=()
  case $w in
    sepia) chain="sepia"; im=("${sepia_matrix[@]}" -sampling-factor 2x2) ;;
    blur) chain="gaussianBlur(sigma: 2)"; im=(-blur 0x2 -sampling-factor 2x2) ;;
    webp) chain="sepia"; im=("${sepia_matrix[@]}"); ext=webp format=webp im_format=(-format webp) ;;
    thumb) chain="resize(width: 1200, shrinkOnLoad: on) | sharpen"; im=(-resize 1200x -sharpen 0x1); ext=webp format=webp im_format=(-format webp) ;;
    thumbwhole) chain="resize(width: 1200) | sharpen"; im=(-resize 1200x -sharpen 0x1); ext=webp format=webp im_format=(-format webp) ;;
  esac
  seconds[fxc,$w]=$(time_it "fxc-$w" "$work/out-fxc" "$ext" \
    "$FXC" run -c "$chain" "$work/photos" --out-dir "$work/out-fxc" --name "{stem}.$ext" --threads "$THREADS" \
    --quality 90 --format "$format")
  grep -h "written" "$work/fxc-$w.log" | sed "s/^/  fxc $w: /"
  seconds[vips,$w]=$(time_it "vips-$w" "$work/out-vips" "$ext" env VIPS_CONCURRENCY=1 bash -c \
    "ls '$work'/photos/*.jpg | xargs -P '$THREADS' -I{} bash -c 'vips_one $w \"\$1\" \"$work/out-vips\"' _ {}")
  seconds[mogrify,$w]=$(time_it "mogrify-$w" "$work/out-im" "$ext" env MAGICK_THREAD_LIMIT="$THREADS" \
    mogrify -path "$work/out-im" -limit thread "$THREADS" "${im_format[@]}" "${im[@]}" -quality 90 "$work"/photos/*.jpg)
done

# Peak memory of fxc: 50 and 500 files of the same photos.
peak() {  # peak N: maximum resident set size in MiB of a batch of N photos
  local dir="$work/mem$1"
  make_photos "$dir" "$1"
  rm -rf "$work/mem-out"
  /usr/bin/time -v "$FXC" run -c "sepia | vignette" "$dir" --out-dir "$work/mem-out" --threads "$THREADS" \
    >/dev/null 2>"$work/time$1.log"
  rm -rf "$dir" "$work/mem-out"
  awk '/Maximum resident set size/ { printf "%.1f", $6 / 1024 }' "$work/time$1.log"
}
peak50=$(peak 50)
peak500=$(peak 500)

report=Benchmarks/batch-results.md
{
  echo "# Batch throughput ($(date -u +%Y-%m-%d), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg))"
  echo
  echo "$COUNT JPEG photos ($megapixels Mpixel in all), $THREADS threads, JPEG quality 90, 4:2:0 (webp: lossy WebP, quality 90); best of $REPEAT."
  echo "$(vips --version), $(mogrify -version | head -1 | cut -d' ' -f2-3), fxc $(git rev-parse --short HEAD 2>/dev/null || echo '?')."
  echo
  echo "| work | fxc run files/s | vips files/s | mogrify files/s | fxc Mpixel/s |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for w in $WORKLOADS; do
    python3 -c "
import sys
n, mp, w = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
f, v, m = map(float, sys.argv[4:7])
print(f'| {w} | {n / f:.1f} | {n / v:.1f} | {n / m:.1f} | {mp / f:.0f} |')" \
      "$COUNT" "$megapixels" "$w" "${seconds[fxc,$w]}" "${seconds[vips,$w]}" "${seconds[mogrify,$w]}"
  done
  echo
  echo "fxc peak memory (maximum resident set size, \`sepia | vignette\`, $THREADS threads):"
  echo "50 files $peak50 MiB, 500 files $peak500 MiB ($(python3 -c "import sys; print(f'{(float(sys.argv[2]) / float(sys.argv[1]) - 1) * 100:+.1f}%')" "$peak50" "$peak500"))."
} >"$report"
cat "$report"
