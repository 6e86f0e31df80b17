#!/usr/bin/env bash
# A portable fxc for another Linux of the same architecture with a glibc at
# least as new as this one's (Ubuntu 24.04, a GPU server): the release fxc
# with the Swift runtime linked in (--static-swift-stdlib; LLVM's components are
# linked statically in every build, Package.swift), every shared library it
# loads except glibc's own (the image libraries, from this machine's Debian
# packages, their licences in share/doc), and a
# launcher that points the loader at them. Nothing else is needed there.
#
#   scripts/build-portable.sh                 # → out/fxc-portable-x86_64.tar.xz
#   tar xf fxc-portable-x86_64.tar.xz && fxc-portable/bin/fxc version
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product fxc --static-swift-stdlib --scratch-path .build/static
binary=.build/static/release/fxc
arch=$(uname -m)
root=out/fxc-portable
rm -rf "$root" && mkdir -p "$root"/{bin,libexec,lib,share/doc,share/fxc/examples/shaders}
install -m 755 "$binary" "$root/libexec/fxc"
strip "$root/libexec/fxc"  # .symtab only: the JIT resolves through .dynsym
# Every library the loader resolves, but glibc's (the target's own glibc must be at least this one).
glibc='^(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^.]*)\.so'
ldd "$binary" | awk '$3 ~ /^\// {print $3}' | while read -r lib; do
  name=$(basename "$lib")
  [[ $name =~ $glibc ]] && continue
  install -m 644 "$(readlink -f "$lib")" "$root/lib/$name"
  package=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1 || true)
  if [ -n "$package" ] && [ -f "/usr/share/doc/$package/copyright" ]; then
    mkdir -p "$root/share/doc/$package" && cp "/usr/share/doc/$package/copyright" "$root/share/doc/$package/"
  fi
done
# LLVM is linked into the binary (Package.swift): its licence travels too.
mkdir -p "$root/share/doc/llvm-19" && cp /usr/share/doc/llvm-19-dev/copyright "$root/share/doc/llvm-19/"
cat > "$root/bin/fxc" <<'LAUNCHER'
#!/bin/sh
# fxc with the libraries it was built with (scripts/build-portable.sh).
here=$(dirname "$(readlink -f "$0")")
LD_LIBRARY_PATH="$here/../lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/../libexec/fxc" "$@"
LAUNCHER
chmod 755 "$root/bin/fxc"
install -m 644 examples/rocket.jpg examples/README.md "$root/share/fxc/examples/"
install -m 644 examples/shaders/seeds.metal examples/shaders/noise.h "$root/share/fxc/examples/shaders/"
"$root/bin/fxc" version > /dev/null
tarball="out/fxc-portable-$arch.tar.xz"
tar -C out -cf - fxc-portable | xz -T0 -9e > "$tarball"
echo "fxc: $tarball ($(du -h "$tarball" | cut -f1)); $(du -sh "$root" | cut -f1) unpacked"
