#!/usr/bin/env bash
# Start (or stop) a Docker engine of our own for the docker sandbox tests:
# its own state folder, no iptables, no bridge. Prints the DOCKER_HOST to use.
set -euo pipefail
state="${MLAB_DOCKERD_DIR:-/tmp/pytest-mlab-dockerd}"
socket="unix://$state/docker.sock"
case "${1:-start}" in
  start)
    if DOCKER_HOST="$socket" docker version >/dev/null 2>&1; then echo "$socket"; exit 0; fi
    command -v dockerd >/dev/null || { echo "dockerd not found: apt-get install docker.io" >&2; exit 1; }
    mkdir -p "$state"
    nohup dockerd --data-root "$state/data" --exec-root "$state/exec" --pidfile "$state/docker.pid" \
      -H "$socket" --iptables=false --ip6tables=false --bridge=none >"$state/dockerd.log" 2>&1 &
    for _ in $(seq 1 60); do
      if DOCKER_HOST="$socket" docker version >/dev/null 2>&1; then echo "$socket"; exit 0; fi
      sleep 1
    done
    echo "dockerd did not come up; see $state/dockerd.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$state/docker.pid" ]; then kill "$(cat "$state/docker.pid")" 2>/dev/null || true; fi
    ;;
esac
