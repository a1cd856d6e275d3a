#!/usr/bin/env bash
# The main job: the offline lite suite with an agent that needs no API key.
# Extra arguments go to pytest, e.g. --agent=baseline or -n 2.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "$#" -eq 0 ]; then set -- --agent=oracle -n 2; fi
# pytest-benchmark comes with the test tools and is no part of the benchmark run.
exec .venv/bin/pytest -p no:benchmark tasks/lite "$@"
