#!/usr/bin/env bash
# Installs the Debian packages fxc builds against, if any is missing:
# LLVM 19 (C API, ORC JIT), libpng, libjpeg-turbo, libwebp, libtiff, giflib, libheif,
# LittleCMS 2 (colour profiles) and libexif (EXIF orientation). Needs root or sudo.
# With --test, also what the tests use: zsh and fish (the completion scripts
# parse in them) and groff (the manual page formats without a warning).
set -euo pipefail
packages=(llvm-19-dev libpng-dev libjpeg62-turbo-dev liblcms2-dev libexif-dev libwebp-dev libtiff-dev libgif-dev libheif-dev libxxhash-dev)
if [ "${1:-}" = "--test" ]; then packages+=(zsh fish groff-base); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "fxc: dependencies present (${packages[*]})"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "fxc: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
