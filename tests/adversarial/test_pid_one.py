"""Every process in a sandbox is confined, pid 1 included. bubblewrap's init and the
keeper shell of a container ran outside the launcher, dumpable and of the script's uid:
a script wrote code into pid 1's memory, and from there did what the filter refuses,
raised the trial's limits and left the group the harness kills.

Each attempt aims at the sandbox's own processes; nothing is written into any of them
(a memory file opened for writing is closed at once).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from conftest import SandboxFactory

PROBE = r'''
import ctypes, errno, glob, json, os, time

libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]

def fields(pid):
    try:
        lines = open(f"/proc/{pid}/status").read().splitlines()
    except OSError:
        return None
    status = dict(line.split(":", 1) for line in lines)
    return {key: status[key].strip() for key in ("Name", "Seccomp", "CapEff", "NoNewPrivs")}

def open_memory(pid):
    try:
        os.close(os.open(f"/proc/{pid}/mem", os.O_RDWR))
        return "OK"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))

def attach(pid):
    if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
        return "OK"
    return errno.errorcode.get(ctypes.get_errno(), "?")

def mount_cgroup():
    os.makedirs("cgroup-here", exist_ok=True)
    if libc.mount(b"cgroup", b"cgroup-here", b"cgroup", 0, b"pids") == 0:
        libc.umount2(b"cgroup-here", 0)
        return "OK"
    return errno.errorcode.get(ctypes.get_errno(), "?")

def writable_cgroup_files():
    found = []
    for line in open("/proc/self/cgroup").read().splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") or [""]:
            folder = os.path.join("/sys/fs/cgroup", name.replace("name=", ""), path.lstrip("/"))
            for file in glob.glob(folder + "/*"):
                if os.path.isfile(file) and os.access(file, os.W_OK):
                    found.append(file)
    return found

me = os.getpid()
pids = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
print(json.dumps({
    "me": me,
    "processes": {pid: fields(pid) for pid in pids},
    "memory": {pid: open_memory(pid) for pid in pids if pid != me},
    "attach pid 1": attach(1),
    "mount cgroup": mount_cgroup(),
    "writable cgroup files": writable_cgroup_files(),
    "descriptors": {fd: os.readlink(f"/proc/self/fd/{fd}") for fd in range(3, 64)
                    if os.path.lexists(f"/proc/self/fd/{fd}")},
}))
'''


def _probe(make_sandbox: SandboxFactory, tmp_path: Path) -> dict[str, Any]:
    sandbox = make_sandbox(tmp_path)
    (tmp_path / "probe.py").write_text(PROBE)
    result = sandbox.run([sys.executable, "probe.py"], timeout=120)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def test_every_process_of_the_sandbox_is_confined(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    report = _probe(make_sandbox, tmp_path)
    processes = report["processes"]
    assert "1" in processes, processes
    unconfined = {pid: seen for pid, seen in processes.items() if seen is not None and (
        seen["Seccomp"] != "2" or seen["CapEff"] != "0000000000000000"
        or seen["NoNewPrivs"] != "1")}
    assert unconfined == {}


def test_no_process_can_open_another_ones_memory_or_trace_pid_1(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    report = _probe(make_sandbox, tmp_path)
    assert report["memory"], report
    opened = {pid: got for pid, got in report["memory"].items() if got == "OK"}
    assert opened == {}, report["memory"]
    assert report["attach pid 1"] in ("EPERM", "EACCES"), report


def test_a_script_holds_no_descriptor_beyond_its_streams(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    """Nothing the harness passed to the sandbox (a user namespace, a report pipe)."""
    assert _probe(make_sandbox, tmp_path)["descriptors"] == {}


def test_the_trials_cgroup_can_be_neither_mounted_nor_written(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    report = _probe(make_sandbox, tmp_path)
    assert report["mount cgroup"] == "EPERM", report
    assert report["writable cgroup files"] == []
