#!/usr/bin/env bash
# Makes the Debian 13 (trixie) root the Fast DDS 3 test peers build and
# run in (test/ddspeers, docs/fastdds3.md): debootstrap from Debian's
# packages, with Fast DDS 3.1 (libfastdds-dev), fastddsgen 4 (and the Java
# it runs on) and g++. Built once per machine into the cache and reused:
# exits at once when the root is there. Prints the root's path.
#
#   ACTBRIDGE_DEBIAN13_ROOT  where the root goes (default
#                            ${XDG_CACHE_HOME:-$HOME/.cache}/actbridge/debian13,
#                            what ddspeers.Debian13Root reads)
#   ACTBRIDGE_DEBIAN_MIRROR  the mirror (default http://deb.debian.org/debian)
#
# Needs root (debootstrap, chroot) and debootstrap (scripts/deps.sh).
set -euo pipefail

root="${ACTBRIDGE_DEBIAN13_ROOT:-${XDG_CACHE_HOME:-$HOME/.cache}/actbridge/debian13}"
mirror="${ACTBRIDGE_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
packages=libfastdds-dev,fastddsgen,g++

# The stamp is written last: a root without it is half made.
stamp="$root/.actbridge-root"
if [ -e "$stamp" ]; then
  echo "$root"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "debian13-root: debootstrap needs root; run as root to make $root" >&2
  exit 1
fi
command -v debootstrap >/dev/null || { echo "debian13-root: debootstrap missing (scripts/deps.sh installs it)" >&2; exit 1; }

mkdir -p "$(dirname "$root")"
# One builder at a time; whoever waited finds the root made.
exec 9>"$root.lock"
flock 9
if [ -e "$stamp" ]; then
  echo "$root"
  exit 0
fi
tmp="$root.building"
rm -rf "$tmp" "$root"
start=$(date +%s)
echo "debian13-root: debootstrap trixie into $root (once per machine; about a minute on a fast link)" >&2
if ! debootstrap --variant=minbase --include="$packages" trixie "$tmp" "$mirror" >"$tmp.log" 2>&1; then
  tail -20 "$tmp.log" >&2
  echo "debian13-root: debootstrap failed; full log in $tmp.log" >&2
  exit 1
fi
rm -f "$tmp.log"
# The package cache is not needed once installed.
rm -rf "$tmp"/var/cache/apt/archives/*.deb
mv "$tmp" "$root"
{
  echo "built $(date -u +%FT%TZ) in $(( $(date +%s) - start )) s from $mirror"
  chroot "$root" dpkg-query -W libfastdds-dev fastddsgen libfastcdr-dev g++
} >"$stamp"
cat "$stamp" >&2
echo "$root"
