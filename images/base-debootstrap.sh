#!/usr/bin/env bash
# The images' base where no image registry is reachable: a Debian root file system made
# by debootstrap from the package mirror apt already uses, imported into the engine.
#   bash images/base-debootstrap.sh [TAG]      (default: pytest-mlab-base:bookworm)
# Then: docker build --build-arg BASE=pytest-mlab-base:bookworm -f images/Dockerfile .
set -euo pipefail
tag="${1:-pytest-mlab-base:bookworm}"
suite="${SUITE:-bookworm}"
mirror="${MIRROR:-$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources \
  2>/dev/null || echo http://deb.debian.org/debian)}"
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap; }
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=ca-certificates "$suite" "$root" "$mirror"
# The image resolves packages from the same mirror as the machine that built it.
cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
tar -C "$root" -c . | docker import - "$tag"
echo "$tag"
