#!/usr/bin/env bash
# Installs what Benchmarks/peers/run.sh needs: a virtualenv in Benchmarks/.venv
# with Halide, OpenCV, libvips (pyvips + its binary wheel), numpy, matplotlib
# and Pillow from PyPI, and Debian's ImageMagick for the `-fx` baseline.
# Fails loudly: any missing piece stops the script with a non-zero status.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv

if ! magick -version 2>/dev/null | grep -q ImageMagick && ! /usr/bin/convert -version 2>/dev/null | grep -q ImageMagick; then
  echo "installing Debian's imagemagick…" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq imagemagick >/dev/null
fi

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q halide opencv-python-headless pyvips pyvips-binary numpy matplotlib Pillow
# Every import must work now, or the benchmarks would fail half-way.
"$venv/bin/python" - <<'PY'
import halide, cv2, pyvips, numpy, matplotlib, PIL
print(f"halide {getattr(halide, '__version__', '?')}, opencv {cv2.__version__}, "
      f"libvips {pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}, numpy {numpy.__version__}, "
      f"matplotlib {matplotlib.__version__}, Pillow {PIL.__version__}")
PY
