#!/usr/bin/env bash
# The plugin's own tests, lint and type checks. .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check pytest_mlab agents tests conftest.py
.venv/bin/mypy pytest_mlab
exec .venv/bin/pytest -n 2
