#!/usr/bin/env bash
# Builds fxc and its tests with AddressSanitizer (with LeakSanitizer; Swift
# and C) and UndefinedBehaviorSanitizer (the C shims: Swift has no UBSan and
# traps on overflow and bad indices itself) into .build/sanitize, leaving the
# normal build alone, and runs the image-file, kernel/JIT, loop and batch
# tests under them, and `fxc fuzz`'s crash report (whose replay must exit
# cleanly). JIT-compiled kernels are not instrumented.
#
#   scripts/sanitize.sh           the file, kernel, batch and fuzz-report tests (~3 min once built)
#   scripts/sanitize.sh --all     the whole suite (~20 min once built)
#   scripts/sanitize.sh REGEX     the tests `swift test --filter REGEX` selects
#
# Every sanitizer report, in the test process or in an `fxc` it starts, goes
# to a log file; any log fails the run (exit 1) even where a test expected
# fxc to fail. Leaks inside the Swift runtime, Foundation and XCTest, which
# are not ours, are suppressed by scripts/lsan-suppressions.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

subset='FXImageTests|FXLLVMTests|FXIRTests\.LoopLifetimeTests|FXTests\.(JITTests|KernelCache|PipelineApplyTests|LoopTests|CallerMemoryPipelineTests|ReductionTests)'
subset+='|CLITests\.(Batch|SpecialInput|FuzzCrashReport|ShrinkOnLoad)'
filter=(--filter "$subset")
case "${1:-}" in
  "") ;;
  --all) filter=() ;;
  -*) echo "usage: scripts/sanitize.sh [--all | REGEX]" >&2; exit 2 ;;
  *) filter=(--filter "$1") ;;
esac

flags=(--scratch-path .build/sanitize --sanitize address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined)
# ld.gold warns once per ASan register thunk ("Cannot export local symbol"): noise.
swift build --build-tests "${flags[@]}" 2>&1 | sed '/Cannot export local symbol/d'

logs=$(mktemp -d "${TMPDIR:-/tmp}/fxc-sanitize.XXXXXX")
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$logs/report"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$logs/report"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-suppressions.txt:print_suppressions=0"

status=0
swift test --skip-build "${flags[@]}" "${filter[@]}" || status=$?
reports=("$logs"/report.*)
if [ -e "${reports[0]}" ]; then
  echo "sanitize: ${#reports[@]} sanitizer report(s):" >&2
  for report in "${reports[@]}"; do
    echo "---- $report" >&2
    cat "$report" >&2
  done
  exit 1
fi
rm -rf "$logs"
if [ "$status" -ne 0 ]; then
  echo "sanitize: tests failed (exit $status), no sanitizer report" >&2
  exit "$status"
fi
echo "sanitize: clean (no ASan, LSan or UBSan report)"
