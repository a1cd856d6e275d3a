"""The attestation's probe: run as ``python -c SOURCE ARGS_JSON`` inside a sandbox, it
looks at the sandbox from within and prints one JSON object of checks (name, passed,
seen) and the facts a result records (uid map, seccomp, network).

Standard library only, and nothing of the package: a sandbox shows the interpreter, not
pytest-mlab. It only ever looks and opens: a file opened for writing is closed unwritten,
a mount that succeeds is undone at once, and a trace is taken with ``PTRACE_SEIZE``,
which, unlike ``PTRACE_ATTACH``, never stops the process (the kernel's permission check
is the same), and is dropped when the probe exits.

Where the sandbox shares the host's processes and ``/proc`` (the local sandbox's level
``none``), those would be the host's own: the probe then aims at nothing outside its own
process, and each check that needs another target fails, saying it was not probed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

PROC_SYS = ("kernel/core_pattern", "kernel/hostname", "vm/drop_caches")
CGROUP_FILES = ("cgroup.procs", "memory.max", "memory.limit_in_bytes", "pids.max")
_PTRACE_SEIZE, _MNT_DETACH = 0x4206, 2
_SHOWN = 5
"""Processes named in a check's ``seen``; the rest are counted."""

Check = dict[str, Any]


def check(name: str, passed: bool, seen: str) -> Check:
    return {"name": name, "passed": passed, "seen": seen}


def _errno_name(code: int) -> str:
    return errno.errorcode.get(code, str(code))


def refused_for_writing(path: Path) -> tuple[bool, str]:
    """Whether ``path`` can be neither reported writable nor opened for writing (it is
    closed unwritten if it opens), and what was seen."""
    writable = os.access(path, os.W_OK)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError as exc:
        opened = f"open for writing: {_errno_name(exc.errno or 0)}"
        return not writable, f"{path}: access W_OK {'yes' if writable else 'no'}, {opened}"
    os.close(fd)
    return False, f"{path}: access W_OK {'yes' if writable else 'no'}, opened for writing"


def parse_map(text: str) -> list[tuple[int, int, int]]:
    """The (inside, outside, count) lines of a uid_map."""
    lines = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 3 and all(p.isdigit() for p in parts):
            lines.append((int(parts[0]), int(parts[1]), int(parts[2])))
    return lines


def host_uid(uid: int, mapping: list[tuple[int, int, int]]) -> int | None:
    """The host uid ``uid`` stands for under ``mapping``; None where it is unmapped."""
    for inside, outside, count in mapping:
        if inside <= uid < inside + count:
            return outside + uid - inside
    return None


def status_fields(text: str) -> dict[str, str]:
    fields = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def uid_check(proc: Path) -> tuple[Check, dict[str, Any]]:
    """Every uid of this process (real, effective, saved, file system) maps to a host uid
    other than 0."""
    mapping_text = (proc / "self/uid_map").read_text()
    mapping = parse_map(mapping_text)
    uids = [int(u) for u in status_fields((proc / "self/status").read_text())["Uid"].split()]
    hosts = [host_uid(uid, mapping) for uid in uids]
    passed = all(h is not None and h != 0 for h in hosts)
    shown = " ".join(str(u) for u in uids)
    seen = (f"Uid {shown} -> host {' '.join(str(h) for h in hosts)} "
            f"(uid_map: {'; '.join(' '.join(map(str, line)) for line in mapping)})")
    identity = mapping == [(0, 0, 4294967295)]
    facts = {"uid_map": mapping_text, "uid": uids[0], "host_uid": hosts[0],
             "user_namespace": not identity}
    return check("uid_map", passed, seen), facts


def processes(proc: Path) -> list[tuple[int, dict[str, str]]]:
    """Every process visible in ``proc`` with the fields of its status (those that ended
    while being read are left out)."""
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            found.append((int(entry.name), status_fields((entry / "status").read_text())))
    return sorted(found)


def _listed(bad: list[str], total: int, good: str) -> str:
    if not bad:
        return f"all {total} processes: {good}"
    more = f" and {len(bad) - _SHOWN} more" if len(bad) > _SHOWN else ""
    return f"{len(bad)} of {total} processes: " + "; ".join(bad[:_SHOWN]) + more


def process_checks(found: list[tuple[int, dict[str, str]]]) -> list[Check]:
    """Seccomp 2, no effective capability and no new privileges in every process."""
    wanted = (("seccomp", "Seccomp", lambda v: v == "2", "Seccomp 2"),
              ("capabilities", "CapEff", lambda v: int(v or "1", 16) == 0, "CapEff 0"),
              ("no_new_privs", "NoNewPrivs", lambda v: v == "1", "NoNewPrivs 1"))
    checks = []
    for name, field, good, text in wanted:
        bad = [f"pid {pid} ({fields.get('Name', '?')}): {field} {fields.get(field, 'absent')}"
               for pid, fields in found if not good(fields.get(field, ""))]
        checks.append(check(name, not bad and bool(found), _listed(bad, len(found), text)))
    return checks


def proc_sys_check(proc: Path) -> Check:
    seen, passed = [], True
    for name in PROC_SYS:
        refused, text = refused_for_writing(proc / "sys" / name)
        passed = passed and refused
        seen.append(text)
    return check("proc_sys", passed, "; ".join(seen))


def cgroup_folders(proc: Path, root: Path) -> list[Path]:
    """This process's own groups (``/proc/self/cgroup``), as folders under ``root``."""
    folders = []
    for line in (proc / "self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        hierarchy = controllers.removeprefix("name=")
        base = root / hierarchy if hierarchy else root
        folders.append(base / path.lstrip("/"))
    return folders


def cgroup_check(proc: Path, root: Path) -> Check:
    refused: list[str] = []
    writable: list[str] = []
    for folder in cgroup_folders(proc, root):
        for name in CGROUP_FILES:
            path = folder / name
            if path.exists():
                ok, text = refused_for_writing(path)
                (refused if ok else writable).append(text)
    if writable:
        more = f" and {len(writable) - _SHOWN} more" if len(writable) > _SHOWN else ""
        return check("cgroup", False, "; ".join(writable[:_SHOWN]) + more)
    if not refused:
        return check("cgroup", True, "no file of its own groups is visible")
    return check("cgroup", True, f"all {len(refused)} files of its own groups refused "
                 f"writing: {'; '.join(refused[:_SHOWN])}")


def mount_check(scratch_parent: str) -> Check:
    """A tmpfs over a folder of the probe's own must be refused."""
    libc = ctypes.CDLL(None, use_errno=True)
    scratch = tempfile.mkdtemp(prefix="mlab-attest-", dir=scratch_parent)
    try:
        if libc.mount(b"none", scratch.encode(), b"tmpfs", 0, None) == 0:
            libc.umount2(scratch.encode(), _MNT_DETACH)
            return check("mount", False, f"mount of a tmpfs over {scratch} succeeded")
        code = ctypes.get_errno()
        return check("mount", True, f"mount of a tmpfs over {scratch}: {_errno_name(code)}")
    finally:
        with contextlib.suppress(OSError):
            os.rmdir(scratch)


def interfaces(proc: Path) -> list[str]:
    lines = (proc / "net/dev").read_text().splitlines()[2:]
    return sorted(line.split(":", 1)[0].strip() for line in lines if ":" in line)


def network_checks(proc: Path, port: int) -> tuple[list[Check], str]:
    names = interfaces(proc)
    only_lo = names == ["lo"]
    reached = False
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3):
            reached = True
        seen = f"connected to the harness's 127.0.0.1:{port}"
    except TimeoutError:
        seen = f"connect to the harness's 127.0.0.1:{port}: timed out"
    except OSError as exc:
        seen = f"connect to the harness's 127.0.0.1:{port}: {_errno_name(exc.errno or 0)}"
    summary = ("lo only" if only_lo else ", ".join(names) or "no interface") + (
        "; the host's loopback reached" if reached else "")
    return [check("network_interfaces", only_lo, f"/proc/net/dev: {', '.join(names)}"),
            check("network_reach", not reached, seen)], summary


def memory_check(proc: Path, pids: list[int]) -> Check:
    """No other process's memory (pid 1's first) opens for reading and writing."""
    own = os.getpid()
    opened, refused = [], []
    for pid in sorted(pids, key=lambda p: (p != 1, p)):
        if pid == own:
            continue
        try:
            fd = os.open(proc / str(pid) / "mem", os.O_RDWR)
        except OSError as exc:
            refused.append(f"pid {pid}: {_errno_name(exc.errno or 0)}")
            continue
        os.close(fd)
        opened.append(f"pid {pid}")
    if opened:
        return check("process_memory", False, "opened read-write: " + ", ".join(opened[:_SHOWN])
                     + (f" and {len(opened) - _SHOWN} more" if len(opened) > _SHOWN else ""))
    return check("process_memory", bool(refused), "; ".join(refused[:_SHOWN])
                 or "no other process is visible")


def ptrace_check() -> Check:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    if libc.ptrace(_PTRACE_SEIZE, 1, None, None) == 0:
        return check("ptrace", False, "PTRACE_SEIZE of pid 1 succeeded")
    return check("ptrace", True, f"PTRACE_SEIZE of pid 1: {_errno_name(ctypes.get_errno())}")


def _guarded(name: str, probe: Any, *args: Any) -> Any:
    """A probe's result; one that raised is a failed check saying why."""
    try:
        return probe(*args)
    except Exception as exc:  # the probe reports, whatever it meets
        return check(name, False, f"the probe could not look: {type(exc).__name__}: {exc}")


def own_process(proc: Path) -> list[tuple[int, dict[str, str]]]:
    """The probe's own process, as ``processes`` lists it."""
    return [(os.getpid(), status_fields((proc / "self/status").read_text()))]


def not_probed(name: str) -> Check:
    return check(name, False, "not probed: the sandbox shares the host's processes and "
                 "/proc, and nothing keeps a script from them")


def probe(port: int, proc: Path = Path("/proc"), cgroups: Path = Path("/sys/fs/cgroup"),
          scratch: str | None = None, host: bool = False) -> dict[str, Any]:
    """Every check, and the facts the result records; with ``host`` (a sandbox that shares
    the host's processes) no check looks beyond the probe's own process and groups."""
    checks: list[Check] = []
    facts: dict[str, Any] = {}
    try:
        uid, facts = uid_check(proc)
        checks.append(uid)
    except Exception as exc:
        checks.append(check("uid_map", False, f"the probe could not look: {exc}"))
    found = own_process(proc) if host else processes(proc)
    checks += process_checks(found)
    checks.append(not_probed("proc_sys") if host else _guarded("proc_sys", proc_sys_check, proc))
    checks.append(_guarded("cgroup", cgroup_check, proc, cgroups))
    checks.append(not_probed("mount") if host
                  else _guarded("mount", mount_check, scratch or tempfile.gettempdir()))
    try:
        network, facts["network"] = network_checks(proc, port)
        checks += network
    except Exception as exc:
        checks.append(check("network_interfaces", False, f"the probe could not look: {exc}"))
        facts["network"] = "unknown"
    checks.append(not_probed("process_memory") if host else _guarded(
        "process_memory", memory_check, proc, [pid for pid, _ in found]))
    checks.append(not_probed("ptrace") if host else _guarded("ptrace", ptrace_check))
    facts["seccomp"] = sorted({fields.get("Seccomp", "?") for _, fields in found})
    facts["processes"] = len(found)
    return {"checks": checks, **facts}


if __name__ == "__main__":
    arguments = json.loads(sys.argv[1])
    print(json.dumps(probe(int(arguments["port"]), host=bool(arguments.get("host")))))
