# Sourced by scripts/setup.sh and scripts/test.sh: `stage NAME COMMAND...` runs COMMAND
# with its output kept in a log and prints one line; when it fails, the line says so and
# the end of the log follows, so the real error is what shows.
stage_logs="${MLAB_SETUP_LOGS:-${TMPDIR:-/tmp}/pytest-mlab-setup}"
mkdir -p "$stage_logs"

stage() {
  local name="$1" log start rc
  shift
  log="$stage_logs/${name// /-}.log"
  start=$SECONDS
  # Not under `if`: there bash would ignore set -e inside the command's functions.
  set +e
  (set -euo pipefail; "$@") >"$log" 2>&1
  rc=$?
  set -e
  if [ "$rc" -eq 0 ]; then
    printf '%s: %-15s ok (%ds)\n' "${stage_prefix:-setup}" "$name" $((SECONDS - start))
    return 0
  fi
  printf '%s: %s FAILED (exit %d); the end of %s:\n' "${stage_prefix:-setup}" "$name" "$rc" "$log" >&2
  tail -n 40 "$log" >&2
  return "$rc"
}
