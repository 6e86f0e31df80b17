#!/usr/bin/env bash
# The main job, from a fresh clone: install what is missing, build in release
# mode, and run a fused chain (a distortion, color effects and a layer effect)
# on the bundled photo, checking the JIT's output against the interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product fxc
fxc=.build/release/fxc
chain='wave(amplitude: 6, wavelength: 80) | sepia(amount: 0.8) | pixelate(amount: 1, blockSize: 6) | vignette(intensity: 0.9)'
echo
$fxc run --chain "$chain" examples/rocket.jpg -o examples/rocket-fxc.png --overwrite --check --threads 1
echo
$fxc bench --chain 'sepia | vignette' --threads 1
