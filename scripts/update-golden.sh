#!/usr/bin/env bash
# Rewrites the golden files of Tests/CLITests/Golden/ (every --help, fxc --version,
# fxc dump --passes of three chains) from the current build, after a deliberate
# change; review the diff before committing. scripts/test.sh checks them.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
FXC_UPDATE_GOLDEN=1 swift test --skip-build --filter 'HelpTests|DumpGoldenTests|DocSnippetTests'
git status --short Tests/CLITests/Golden
