#!/usr/bin/env bash
# README's first command, timed from a fresh Debian 12: a minimal root made by debootstrap (as
# root; Debian's debootstrap package), a clone of this repository inside it, then
# `cmake/install_deps.sh run && ... && distspmv --check` in a chroot, packages included (issue 40).
# git (and ca-certificates) are installed first, untimed: the user needed them to clone.
#
#   jobs/fresh_debian_first_command.sh [ROOT]      (ROOT default /tmp/fresh-debian; removed first)
#
# 2026-11-28, 2 cores: 153 s (git installed by the first command) and 161 s (git installed before, as
# here; 151 MB of packages fetched in about 1 s from deb.debian.org); at e58e712 (dpkg without fsync,
# the command line's own code at -O1) 143 and 137 s, of which the build 110 s.
set -euo pipefail
root=${1:-/tmp/fresh-debian}
repo=$(cd "$(dirname "$0")/.." && pwd)
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap
for m in dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done
rm -rf "$root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" 2>/dev/null ||
  echo "deb http://deb.debian.org/debian bookworm main" > "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
git clone -q "$repo" "$root/root/distspmv"
mount -t proc proc "$root/proc"
mount --bind /sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
trap 'for m in dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done' EXIT
in_root() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
in_root /bin/bash -c "apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git ca-certificates >/dev/null"
# The README's first command, word for word.
first=$(grep -A1 '^# set up, build, and run the main job' "$repo/README.md" | tail -n 1)
in_root /bin/bash -c "cd /root/distspmv && SECONDS=0 && $first && echo \"first command: \$SECONDS s\""
