#!/usr/bin/env bash
# Runs the whole test suite (installing missing Debian packages first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
# Formatting and lint rules of .swift-format (swift-format ships with the toolchain).
swift format lint --strict --recursive Sources Tests Plugins Package.swift Fuzz
swift build --build-tests
swift test --skip-build --parallel
