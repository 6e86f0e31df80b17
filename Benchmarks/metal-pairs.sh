#!/usr/bin/env bash
# Issue 35's speed pairs: a Metal shader that computes what a catalogue
# effect computes should run as fast as the effect (the same IR, the same
# kernel). Each catalogue effect is timed beside its Metal twin in one
# `fxc bench` run (single thread, best of repeated runs, fresh outputs):
# pixelate beside the seeds' pixelateBlocks and Benchmarks/metal-pairs.metal's
# metalPixelate; chromaticAberration, wave and vignette beside their twins.
#
#   Benchmarks/metal-pairs.sh [IMAGE]     # default: the bundled examples/rocket.jpg
#   FXC=.build/release/fxc Benchmarks/metal-pairs.sh photo.jpg
set -euo pipefail
cd "$(dirname "$0")/.."
FXC=${FXC:-.build/release/fxc}
[ -x "$FXC" ] || swift build -c release --product fxc
IMAGE=${1:-examples/rocket.jpg}
cat examples/shaders/seeds.metal > /tmp/fxc-metal-pairs.metal
grep -v '^#include' Benchmarks/metal-pairs.metal >> /tmp/fxc-metal-pairs.metal
cp examples/shaders/noise.h /tmp/noise.h
"$FXC" bench --shaders /tmp/fxc-metal-pairs.metal --image "$IMAGE" --no-unsplit --seconds 1 \
  -c 'pixelate(amount: 1, blockSize: 22)' \
  -c 'pixelateBlocks(amount: 1, blockSize: 22, bounds: auto)' \
  -c 'metalPixelate(blockSize: 22, size: auto)' \
  -c 'chromaticAberration(amount: 6)' \
  -c 'metalChromaticAberration(amount: 6, size: auto)' \
  -c 'wave(amplitude: 10, wavelength: 60)' \
  -c 'metalWave(amplitude: 10, wavelength: 60)' \
  -c 'vignette(intensity: 1, radius: 0.75)' \
  -c 'metalVignette(intensity: 1, radius: 0.75, size: auto)'
