#!/usr/bin/env bash
# The tests CI leaves out (marked expensive in tests/): re-checks of what other tests
# cover (the issues' acceptance runs, the mixed corners of a matrix, the gate's error
# rates on simulated runs) and rare paths that cost a cluster's node (a Ray node lost mid
# run); and, without arguments, one lite task validated as a smoke. Run before a release, or
# after a change to what they cover. Extra arguments go to pytest instead, e.g.
# tests/test_dispatch_ray.py.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if host=$(bash scripts/dockerd.sh start); then
  export DOCKER_HOST="$host"
  trap 'bash scripts/dockerd.sh stop' EXIT
  bash scripts/build-images.sh
fi
if [ "$#" -eq 0 ]; then
  # A real lite task validated end to end on a copy: the path CI takes when a task's
  # fingerprint moves.
  .venv/bin/python -m pytest_mlab validate-suite tasks/lite --changed --smoke essay-scoring --scratch
  set -- tests
fi
exec .venv/bin/pytest -n 2 -m expensive --ignore=tests/benchmarks "$@"
