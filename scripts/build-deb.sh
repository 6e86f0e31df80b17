#!/usr/bin/env bash
# Builds a Debian package of fxc: out/fxc_VERSION_ARCH.deb.
#
#   scripts/build-deb.sh [--binary PATH]
#
# The tree is scripts/install.sh's under /usr (the binary with the Swift
# standard library linked in, its man page, the completions, the bundled
# photo). Depends lists the Debian package of every shared library the
# binary names (its NEEDED entries, found by ldd, then dpkg -S; their own
# dependencies come with them), each at least at the version it was built
# against. Install it with:  sudo apt install ./out/fxc_VERSION_ARCH.deb
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
case "${1:-}" in
  --binary) binary="$2" ;;
  --binary=*) binary="${1#--binary=}" ;;
  "") ;;
  *) echo "build-deb.sh: unknown argument '$1'" >&2; exit 2 ;;
esac

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" scripts/install.sh --prefix /usr ${binary:+--binary "$binary"}
fxc="$stage/usr/bin/fxc"

version="$("$fxc" --version | head -1 | cut -d' ' -f2)"
arch="$(dpkg --print-architecture)"

# Each shared library's package, at least the version installed here.
depends=()
missing=()
while read -r lib; do
  owner="$(dpkg -S "$(realpath "$lib")" 2>/dev/null | head -1 | cut -d: -f1)" \
    || owner="$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1)" || owner=""
  if [ -z "$owner" ]; then missing+=("$lib"); continue; fi
  installed="$(dpkg-query -W -f='${Version}' "$owner")"
  depends+=("$owner (>= ${installed%%-*})")
done < <(
  needed="$(readelf -d "$fxc" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
  ldd "$fxc" | awk -v needed="$needed" 'BEGIN { n = split(needed, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    $2 == "=>" && ($1 in want) && $3 ~ /^\// { print $3 }'
)
if [ ${#missing[@]} -gt 0 ]; then
  echo "build-deb.sh: no Debian package provides ${missing[*]}: is fxc linked against a Swift toolchain's libraries? (build with --static-swift-stdlib)" >&2
  exit 1
fi
depends_line="$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')"

mkdir -p "$stage/DEBIAN" "$stage/usr/share/doc/fxc"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: fxc
Version: $version
Architecture: $arch
Maintainer: fxc developers <fxc@localhost>
Depends: $depends_line
Section: graphics
Priority: optional
Installed-Size: $(du -sk "$stage/usr" | cut -f1)
Description: effect-graph compiler for images
 fxc fuses a chain of image effects (colour, distortions, layer effects,
 resize, blurs, SwiftUI Metal shaders) into per-pixel kernels, compiles them
 through LLVM into vectorised machine code for the CPU it runs on, and applies
 them to batches of image files.
CONTROL
cat > "$stage/usr/share/doc/fxc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: fxc

Files: *
Copyright: the fxc developers
License: none declared
 The fxc repository does not yet declare a licence.

Files: usr/bin/fxc
Copyright: the fxc developers; the LLVM project (components of LLVM 19 are
 linked in statically, from Debian's llvm-19-dev)
License: Apache-2.0 WITH LLVM-exception
 LLVM's licence: /usr/share/common-licenses/Apache-2.0, with the LLVM
 exception; the full text is in Debian's llvm-19-dev copyright file.

Files: usr/share/fxc/examples/rocket.jpg
Copyright: SpaceX
License: public-domain
 From the scikit-image data set (skimage.data.rocket); see examples/README.md.
COPYRIGHT
chmod 644 "$stage/usr/share/doc/fxc/copyright"

mkdir -p out
deb="out/fxc_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group "$stage" "$deb" > /dev/null
echo "fxc: $deb ($(du -h "$deb" | cut -f1)); Depends: $depends_line"
