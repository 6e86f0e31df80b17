#!/usr/bin/env bash
# Makes the README's pictures with fxc itself, from the bundled photo:
#   docs/images/before-after.jpg   the photo and a graded, vignetted copy side by side
#   docs/images/contact-sheet.jpg  every effect of the catalogue (fxc effects --sheet)
# Run after a change to the catalogue or the grade; uses the fxc on the PATH,
# else the release build.
set -euo pipefail
cd "$(dirname "$0")/.."
fxc="$(command -v fxc || echo .build/release/fxc)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
grade='exposure(0.2) | contrast(1.15) | saturation(1.25) | vignette(intensity: 0.7)'
"$fxc" run -q -c "$grade" examples/rocket.jpg -o "$tmp/graded.png"
"$fxc" run -q -c "extend(right: 656, color: #ffffff) | composite(\"$tmp/graded.png\", x: 656, y: 0)" \
  examples/rocket.jpg -o docs/images/before-after.jpg --quality 85 --overwrite
"$fxc" effects --sheet "$tmp/sheet.png" --cell 160 --columns 8 > /dev/null
# A chain that changes nothing: fxc as a converter, PNG to JPEG.
"$fxc" run -q -c 'sepia(amount: 0)' "$tmp/sheet.png" -o docs/images/contact-sheet.jpg --quality 80 --overwrite
ls -l docs/images
