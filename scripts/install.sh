#!/usr/bin/env bash
# Installs fxc like a Linux tool.
#
#   scripts/install.sh [--prefix DIR] [--binary PATH] [--uninstall]
#
# Builds fxc in release mode with the Swift standard library and Foundation
# linked in (--static-swift-stdlib), so the installed fxc needs no Swift
# toolchain, only the Debian libraries of scripts/install-deps.sh; --binary
# installs an fxc already built instead. Installs, under PREFIX (default
# /usr/local; sudo is used when PREFIX is not writable):
#
#   bin/fxc
#   share/man/man1/fxc.1.gz                  (fxc manpage)
#   share/bash-completion/completions/fxc    (fxc completions bash)
#   share/zsh/site-functions/_fxc            (fxc completions zsh; vendor-completions/ under /usr)
#   share/fish/vendor_completions.d/fxc.fish (fxc completions fish)
#   share/fxc/examples/                      (the bundled photo and example shaders)
#
# DESTDIR=/some/dir stages the same tree under /some/dir (scripts/build-deb.sh
# does). --uninstall removes exactly these files.
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
binary=""
uninstall=false
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --prefix=*) prefix="${1#--prefix=}"; shift ;;
    --binary) binary="$2"; shift 2 ;;
    --binary=*) binary="${1#--binary=}"; shift ;;
    --uninstall) uninstall=true; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown argument '$1' (see scripts/install.sh --help)" >&2; exit 2 ;;
  esac
done

root="${DESTDIR:-}$prefix"
# Where zsh looks: Debian's own packages use vendor-completions, local installs site-functions.
zshdir=share/zsh/site-functions
[ "$prefix" = /usr ] && zshdir=share/zsh/vendor-completions
files=(
  bin/fxc
  share/man/man1/fxc.1.gz
  share/bash-completion/completions/fxc
  $zshdir/_fxc
  share/fish/vendor_completions.d/fxc.fish
  share/fxc/examples/rocket.jpg
  share/fxc/examples/README.md
  share/fxc/examples/shaders/seeds.metal
  share/fxc/examples/shaders/noise.h
)

# sudo only where the prefix cannot be written as we are.
sudo=""
probe="$root"
while [ ! -e "$probe" ]; do probe="$(dirname "$probe")"; done
if [ ! -w "$probe" ] && [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if $uninstall; then
  for f in "${files[@]}"; do $sudo rm -f "$root/$f"; done
  $sudo rmdir --ignore-fail-on-non-empty "$root/share/fxc/examples/shaders" "$root/share/fxc/examples" "$root/share/fxc" 2>/dev/null || true
  echo "fxc: removed from $root"
  exit 0
fi

if [ -z "$binary" ]; then
  scripts/install-deps.sh
  swift build -c release --product fxc --static-swift-stdlib --scratch-path .build/static
  binary=".build/static/release/fxc"
fi
[ -x "$binary" ] || { echo "install.sh: no executable at $binary" >&2; exit 1; }

staging="$(mktemp -d)"
trap 'rm -rf "$staging"' EXIT
mkdir -p "$staging"/{bin,share/man/man1,share/bash-completion/completions,$zshdir,share/fish/vendor_completions.d,share/fxc/examples/shaders}
install -m 755 "$binary" "$staging/bin/fxc"
# The generated files come from the binary being installed, so they match its commands.
"$binary" manpage | gzip -9n > "$staging/share/man/man1/fxc.1.gz"
"$binary" completions bash > "$staging/share/bash-completion/completions/fxc"
"$binary" completions zsh > "$staging/$zshdir/_fxc"
"$binary" completions fish > "$staging/share/fish/vendor_completions.d/fxc.fish"
install -m 644 examples/rocket.jpg examples/README.md "$staging/share/fxc/examples/"
install -m 644 examples/shaders/seeds.metal examples/shaders/noise.h "$staging/share/fxc/examples/shaders/"

for f in "${files[@]}"; do
  $sudo mkdir -p "$(dirname "$root/$f")"
  mode=644
  [ "$f" = bin/fxc ] && mode=755
  $sudo install -m "$mode" "$staging/$f" "$root/$f"
done
echo "fxc: installed in $root (bin/fxc, its man page, bash/zsh/fish completions, share/fxc/examples)"
