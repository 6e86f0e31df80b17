#!/usr/bin/env bash
# Builds one libFuzzer target of Fuzz/ (a package of its own, so the normal
# build never sees it) with `--sanitize fuzzer --sanitize address`, and runs
# it for a fixed time.
#
#   scripts/fuzz.sh image [SECONDS] [FLAGS…]  image decoding, every format (ImageFile.read(bytes:))
#   scripts/fuzz.sh chain [SECONDS] [FLAGS…]  --chain text: parse, resolve, lower, interpret
#   scripts/fuzz.sh inputs [SECONDS] [FLAGS…] directory trees of any names, globs and manifests: fxc run's input listing
#
# SECONDS defaults to 600; FLAGS go to libFuzzer (`-help=1` lists them). The
# corpus is kept in .build/fuzz/corpus/TARGET and grows from run to run; the
# seeds are made afresh each run (image: the test fixtures, examples/ and a
# small file of each other format;
# chain: the catalogue's examples and extreme arguments, and a dictionary of
# its names). A crash, leak, timeout or out-of-memory input is written to
# .build/fuzz/crashes/TARGET/ and fails the run; it then belongs in the test
# suite as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/fuzz.sh image|chain|inputs [SECONDS] [libFuzzer flags…]" >&2
  exit 2
}
target=${1:-}
case "$target" in
  image) product=FuzzImage ;;
  chain) product=FuzzChain ;;
  inputs) product=FuzzInputs ;;
  *) usage ;;
esac
shift
seconds=${1:-600}
[ $# -gt 0 ] && shift
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
scripts/install-deps.sh
# Leaks in libraries that are not fxc's (x265's encoder) are suppressed.
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"

# Release: the optimised code runs far more inputs a second, and Swift keeps
# its overflow, bounds and precondition checks at -O.
scratch=$PWD/.build/fuzz
swift build -c release --package-path Fuzz --scratch-path "$scratch" --sanitize fuzzer --sanitize address \
  --product "$product" 2>&1 | sed '/Cannot export local symbol/d'
binary=$scratch/release/$product

corpus=$scratch/corpus/$target
seeds=$scratch/seeds/$target
crashes=$scratch/crashes/$target
rm -rf "$seeds"
mkdir -p "$corpus" "$seeds" "$crashes"
flags=(-max_total_time="$seconds" -artifact_prefix="$crashes/" -print_final_stats=1)
case "$target" in
  image)
    cp Tests/FXImageTests/Fixtures/*.png Tests/FXImageTests/Fixtures/*.jpg "$seeds/"
    find examples -maxdepth 1 \( -name '*.png' -o -name '*.jpg' -o -name '*.jpeg' \) -exec cp {} "$seeds/" \;
    # Small TIFF, WebP, HEIC, AVIF and GIF files, written by the target itself.
    FXC_FUZZ_SEEDS=$seeds "$binary" -runs=0 >/dev/null 2>&1
    # The fixtures are under 4 KiB; examples/ holds a 110 KiB photo, which is
    # decoded whole as a seed, and fuzzed in its first 32 KiB (truncated).
    flags+=(-max_len=32768)
    ;;
  chain)
    FXC_FUZZ_SEEDS=$seeds FXC_FUZZ_DICT=$scratch/seeds/chain.dict "$binary" -runs=0 >/dev/null 2>&1
    flags+=(-dict="$scratch/seeds/chain.dict" -max_len=512)
    ;;
  inputs)
    # Glob, manifest, then paths, NUL-separated.
    printf '*.png\0in/a.png\n../x\n/abs.png\0a.png\0b/c.jpg\0b/.hidden.png\0new\nline.png\0back\\xE9.png\0' >"$seeds/tree"
    printf '**/*.jpg\0\0deep/er/x.jpg\0\xe9\xff.png\0' >"$seeds/bytes"
    flags+=(-max_len=1024)
    ;;
esac

log=$scratch/$target.log
before=$(find "$crashes" -type f | wc -l)
status=0
# libFuzzer writes new inputs to the first directory and reads them all.
"$binary" "${flags[@]}" "$@" "$corpus" "$seeds" 2>&1 | tee "$log" || status=$?
after=$(find "$crashes" -type f | wc -l)

stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
# The corpus libFuzzer kept in memory at the end ("corp: entries/bytes"), and the files on disk.
kept=$(sed -n 's/.*DONE .* corp: \([^ ]*\) .*/\1/p' "$log" | tail -1)
echo "fuzz $target: ${seconds} s, $(stat number_of_executed_units) executions," \
  "$(stat average_exec_per_sec) exec/s, corpus ${kept:-?} (entries/size; $(find "$corpus" -type f | wc -l) files kept)," \
  "peak RSS $(stat peak_rss_mb) MB, $((after - before)) new crash file(s)"
if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
  echo "fuzz $target: FAILED (libFuzzer exit $status); inputs in $crashes/, log in $log" >&2
  exit 1
fi
