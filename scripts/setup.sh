#!/usr/bin/env bash
# Everything a fresh machine needs: Debian packages (sandboxes, task data), then a
# virtual environment with the plugin, the lite tasks' ML stack and the test tools, then
# the external agents' environments (`bash scripts/setup.sh [system] [venv] [agents]`: the
# stages named, all by default). One line per stage; each stage's output (resolver
# warnings, debconf) goes to a log whose end is printed if the stage fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/stage.sh

debian=(bubblewrap docker.io debootstrap dataset-fashion-mnist bible-kjv chromium)
missing=()
for package in "${debian[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done

system_packages() {
  [ "${#missing[@]}" -gt 0 ] || { echo "all installed"; return 0; }
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  if [ -n "$sudo" ] && ! command -v sudo >/dev/null; then
    echo "setup: cannot install ${missing[*]} without root: apt-get install ${missing[*]}" >&3
    return 0
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
}

venv() {
  python3 -m venv .venv
  venv_by_uv || {
    echo "uv could not install the environment; pip does it instead"
    .venv/bin/pip install --quiet --upgrade pip
    # The CPU build first: asked for unpinned, pip would fetch a multi-GB CUDA build.
    .venv/bin/pip install --quiet torch==2.13.0
    .venv/bin/pip install --quiet -c scripts/constraints.txt -e '.[test]'
  }
}

# uv installs the same packages from pip's own sources (its indexes, wheel folders and
# constraints) in less than half the time: 32 s against pip's 77 s on a 2-core machine.
# Called under `||`, where bash ignores set -e: each step says whether it failed.
venv_by_uv() {
  local listed sources
  .venv/bin/pip install --quiet uv || return 1
  listed=$(.venv/bin/python -B -m pytest_mlab.core.pip_sources) || return 1
  mapfile -t sources <<<"$listed"
  [ -n "$listed" ] || sources=()
  # Compiled as pip compiles: where no bytecode is written (PYTHONDONTWRITEBYTECODE), an
  # environment without it compiled every import anew, and the tests took half as long again.
  local uv=(.venv/bin/uv pip install --quiet --compile-bytecode --python .venv/bin/python
            "${sources[@]}")
  "${uv[@]}" torch==2.13.0 || return 1
  "${uv[@]}" -c scripts/constraints.txt -e '.[test]' || return 1
}

# The external agents' own environments, which their end-to-end tests run (they skip
# without them). Made once: a check that each imports is all a later run costs.
agent_venvs() {
  local cache="${MLAB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pytest-mlab}"
  local agent name module python
  for agent in mini-swe-agent:minisweagent aide:aide aider:aider; do
    name="${agent%%:*}" module="${agent#*:}"
    python="$cache/agent-venvs/$name/bin/python"
    if ! { [ -x "$python" ] && "$python" -c "import $module" >/dev/null 2>&1; }; then
      .venv/bin/python -m pytest_mlab agent-venv "$name" ||
        echo "setup: could not make $name's environment; its tests will skip" >&3
    fi
  done
}

# Every stage by default; scripts/test.sh names them to run the agents' apart.
if [ "$#" -eq 0 ]; then set -- system venv agents; fi
for name in "$@"; do
  case "$name" in
    system) stage "system packages" system_packages 3>&2 ;;
    venv) stage venv venv ;;
    agents) stage "agent venvs" agent_venvs 3>&2 ;;
    *) echo "setup: no stage $name (system, venv, agents)" >&2; exit 2 ;;
  esac
done
