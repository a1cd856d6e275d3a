#!/usr/bin/env bash
# The plugin's own tests, lint and type checks. .ci/run calls exactly this.
# Nothing here depends on the machine's speed or CPU: the wall-time benchmarks run apart
# (scripts/bench-harness.sh), and the lite suite is validated again only where a task's
# validation fingerprint moved (all of it, on any machine: python -m pytest_mlab validate-suite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage.sh
step() { printf 'test: %s (%s)\n' "$1" "$(date +%T)"; }
step setup
bash scripts/setup.sh system venv
# The external agents' environments and the harness image wait mostly on downloads and
# disk, lint and types on the CPU: all three at once.
bash scripts/setup.sh agents &
agents=$!
# A Docker engine of our own for the docker sandbox tests (they skip without one).
images=""
if host=$(bash scripts/dockerd.sh start); then
  export DOCKER_HOST="$host"
  trap 'bash scripts/dockerd.sh stop' EXIT
  # The harness image FROM a debootstrap base, no registry; tests/test_images.py uses it.
  stage images bash scripts/build-images.sh &
  images=$!
fi
step "lint, types, layers"
.venv/bin/ruff check pytest_mlab agents tests conftest.py tasks
.venv/bin/mypy pytest_mlab agents
# The layers of ARCHITECTURE.md: no cycle, no upward import.
.venv/bin/lint-imports
wait "$agents"
if [ -n "$images" ]; then wait "$images"; fi
step tests
# The slowest 30 tests are named at the end, for the budget of issue 44. Tests marked
# expensive run apart (scripts/test-expensive.sh).
.venv/bin/pytest -n 2 --ignore=tests/benchmarks -m "not expensive" --durations=30
# The lite tasks whose task files, task helpers, scoring path or pinned libraries changed
# since their row of tasks/lite/validation.json, validated with this machine's figures, on
# copies, so the suite is left as it is (the path itself is tested on a task of the tests'
# own; scripts/test-expensive.sh validates a real one as a smoke).
step "lite tasks changed since validation.json"
.venv/bin/python -m pytest_mlab validate-suite tasks/lite --changed --scratch
step done
