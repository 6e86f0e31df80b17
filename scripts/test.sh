#!/usr/bin/env bash
# Runs the whole test suite (installing missing Debian packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build --parallel
