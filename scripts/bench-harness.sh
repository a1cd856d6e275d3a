#!/usr/bin/env bash
# Benchmarks of the harness itself: per-step overhead, provisioning, a trial's own cost
# against the floor, -n 2 against serial, Ray against xdist. They compare wall times, so
# they want a quiet machine and stay out of CI (scripts/test.sh), where a busy or slow
# machine would fail them by chance.
# Extra arguments go to pytest, e.g. tests/benchmarks/test_overhead.py --benchmark-only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "$#" -eq 0 ]; then set -- tests/benchmarks; fi
exec .venv/bin/pytest -p no:xdist -p no:cacheprovider -s "$@"
