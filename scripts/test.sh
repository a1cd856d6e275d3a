#!/usr/bin/env bash
# The plugin's own tests, lint and type checks. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check pytest_mlab agents tests conftest.py tasks
.venv/bin/mypy pytest_mlab agents
# The layers of ARCHITECTURE.md: no cycle, no upward import.
.venv/bin/lint-imports
# A Docker engine of our own for the docker sandbox tests (they skip without one).
if host=$(bash scripts/dockerd.sh start); then
  export DOCKER_HOST="$host"
  trap 'bash scripts/dockerd.sh stop' EXIT
  # The harness image FROM a debootstrap base, no registry; tests/test_images.py uses it.
  bash scripts/build-images.sh
fi
# Ratios of wall times want a quiet machine: the benchmarks run alone, after the rest.
.venv/bin/pytest -n 2 --ignore=tests/benchmarks
.venv/bin/pytest tests/benchmarks -p no:xdist
