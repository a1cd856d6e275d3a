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
# Ratios of wall times, and the suite's re-validation (the noise rule of its timing
# tasks), want a quiet machine: they run alone, after the rest.
revalidation="tests/test_lite_suite.py::test_validating_the_suite_again_passes_and_reproduces_its_baselines"
.venv/bin/pytest -n 2 --ignore=tests/benchmarks --deselect "$revalidation"
.venv/bin/pytest "$revalidation" tests/benchmarks -p no:xdist
