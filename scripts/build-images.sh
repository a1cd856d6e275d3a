#!/usr/bin/env bash
# Build the harness image (images/Dockerfile) FROM a Debian base that debootstrap makes
# from the package mirror (images/base-debootstrap.sh), so no image registry is needed;
# then check that the image runs the harness, torch and Ray with no network.
#   bash scripts/build-images.sh [TAG [DOCKERFILE]]
# (default: pytest-mlab:cpu from images/Dockerfile; the CUDA variant:
#   bash scripts/build-images.sh pytest-mlab:cuda images/Dockerfile.cuda)
# Needs a running docker engine (DOCKER_HOST) and pip's index on the host network.
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${1:-pytest-mlab:cpu}"
dockerfile="${2:-images/Dockerfile}"
base="pytest-mlab-base:bookworm"
python="${PYTHON:-.venv/bin/python}"
docker image inspect "$base" >/dev/null 2>&1 || bash images/base-debootstrap.sh "$base" >/dev/null
# torch's CPU wheel from wherever this machine's pip finds it, served to the build on
# loopback; the build runs on the host network.
mkdir -p build/wheels images/host
"$python" -m pip download --quiet --no-deps --dest build/wheels "torch==2.13.0"
port="$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$python" -m http.server --bind 127.0.0.1 --directory build/wheels "$port" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
# The CA bundle the host's pip trusts: a proxy in between signs with its own.
cert="$("$python" -m pip config get global.cert 2>/dev/null || true)"
cert="${PIP_CERT:-${cert:-/etc/ssl/certs/ca-certificates.crt}}"
rm -f images/host/ca-certificates.crt
[ -f "$cert" ] && cp "$cert" images/host/ca-certificates.crt
old="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
docker build --quiet --network host --build-arg BASE="$base" \
  --build-arg WHEELS="http://127.0.0.1:$port/" -t "$tag" -f "$dockerfile" . >/dev/null
# The image this build replaced would stay behind untagged, gigabytes for each run.
if [ -n "$old" ] && [ "$old" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]; then
  docker image rm "$old" >/dev/null 2>&1 || true
fi
docker run --rm --network none "$tag" python -c '
import sys, pytest_mlab, ray, torch
print(f"{sys.argv[1]}: python {sys.version.split()[0]}, torch {torch.__version__}, ray {ray.__version__}")' "$tag"
