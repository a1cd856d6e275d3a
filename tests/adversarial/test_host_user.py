"""No sandbox user is a privileged host user. As root, bubblewrap mapped the sandbox's
``nobody`` to host uid 0, and Docker ran scripts as uid 0: every check the kernel makes by
owner and mode treated the script as root, and ``/proc/sys/kernel/core_pattern`` opened
for writing. A script must run as a host uid that owns nothing but the trial's files.

The /proc/sys files are only ever opened (and closed at once), never written; the file
the script must not read is the test's own.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from conftest import SandboxFactory

PROBE = r'''
import json, os

def opens_for_writing(path):
    try:
        os.close(os.open(path, os.O_WRONLY))
        return True
    except OSError:
        return False

def readable(path):
    try:
        open(path, "rb").close()
        return True
    except OSError:
        return False

status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
with open("harness-made.txt", "a") as made:
    made.write("changed by the script\n")
open("script-made.txt", "w").write("mine\n")
print(json.dumps({
    "uid_map": open("/proc/self/uid_map").read(),
    "uid": int(status["Uid"].split()[0]),
    "writable /proc/sys": [path for path in (
        "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname",
        "/proc/sys/vm/drop_caches", "/proc/sys/kernel/randomize_va_space",
        "/proc/sys/fs/protected_symlinks", "/proc/sys/kernel/perf_event_paranoid")
        if opens_for_writing(path) or os.access(path, os.W_OK)],
    "read the harness's private file": readable("private.txt"),
}))
'''


def host_uid(uid_map: str, inside: int) -> int | None:
    """The host uid that ``inside`` maps to, by a ``/proc/self/uid_map``'s lines."""
    for line in uid_map.splitlines():
        first, host, count = map(int, line.split())
        if first <= inside < first + count:
            return host + inside - first
    return None


def _probe(make_sandbox: SandboxFactory, tmp_path: Path) -> tuple[dict[str, Any], Path]:
    workspace = tmp_path / "ws"
    workspace.mkdir(parents=True)
    sandbox = make_sandbox(workspace)
    (workspace / "probe.py").write_text(PROBE)
    # Made by the harness after the sandbox: the script may change it all the same.
    (workspace / "harness-made.txt").write_text("made by the harness\n")
    # A private file of the harness's uid that the workspace also shows: its second name
    # (outside) keeps it from being handed to the sandbox's user, so only its mode guards it.
    private = tmp_path / "private.txt"
    private.write_text("the harness's own\n")
    private.chmod(0o600)
    os.link(private, workspace / "private.txt")
    result = sandbox.run([sys.executable, "probe.py"], timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report, workspace


def test_the_script_is_no_privileged_host_user(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    report, workspace = _probe(make_sandbox, tmp_path)
    host = host_uid(report["uid_map"], report["uid"])
    assert host is not None, report["uid_map"]
    assert host != 0, report["uid_map"]
    if os.geteuid() == 0:
        # Nor any uid that owns what a root harness made: a uid of the sandbox's own.
        assert host != os.geteuid()
    assert report["writable /proc/sys"] == []
    assert report["read the harness's private file"] is False
    # What the script made is its user's, and what the harness made was handed over to it.
    assert (workspace / "script-made.txt").stat().st_uid == host
    assert "changed by the script" in (workspace / "harness-made.txt").read_text()
    assert (workspace / "private.txt").stat().st_uid == os.geteuid()


def test_two_sandboxes_are_two_users_under_a_root_harness(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    """A trial's files are out of reach of another trial's scripts by their owner too."""
    first, _ = _probe(make_sandbox, tmp_path / "a")
    second, _ = _probe(make_sandbox, tmp_path / "b")
    hosts = {host_uid(report["uid_map"], report["uid"]) for report in (first, second)}
    assert len(hosts) == (2 if os.geteuid() == 0 else 1), (first, second)
