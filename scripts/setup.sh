#!/usr/bin/env bash
# Everything a fresh machine needs: a virtual environment with the plugin,
# the lite tasks' ML stack and the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/pip install --quiet --upgrade pip
.venv/bin/pip install --quiet -e '.[test]'
