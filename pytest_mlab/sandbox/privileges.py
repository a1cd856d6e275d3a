"""Run a program with no capabilities, no way to gain any, and no way to reach beyond
its own processes: ``python -I -S privileges.py PROGRAM [ARG...]``, or with ``--keep``
and no program, a container's first process that only reaps.

Under bubblewrap started by root, a script kept nearly every capability: it could
unmount the hide list or remount read-only binds writable. Dropping capabilities closes
that, but an unprivileged process may still build a user namespace of its own (and be
root in it), or trace a sibling of the same uid. So this launcher, before it executes
the program:

- empties the capability bounding, ambient, inheritable, permitted and effective sets,
  so that not even a uid 0 regains capabilities across ``execve``;
- sets no-new-privileges, so set-uid files and file capabilities grant nothing;
- installs a seccomp filter refusing (EPERM) the calls that reach past the process's
  own descendants or that capabilities do not guard: ``ptrace`` and
  ``process_vm_*``, new namespaces (``unshare``, ``setns``, ``clone`` with a
  ``CLONE_NEW*`` flag; ``clone3``, whose flags a filter cannot read, says ENOSYS so that
  the C library falls back to ``clone``), the mount calls, ``chroot``, key rings, BPF,
  perf events, userfaultfd and module loading.

Then it stays as the program's parent, confined like it and not dumpable, and reaps
every process that ends beneath it: a sandbox's pid 1 is this launcher (bubblewrap's
``--as-pid-1``, the docker keeper), so no process of a sandbox runs outside the filter,
and none can open pid 1's memory (a dumpable pid 1 of the script's own uid was written
into, and as pid 1 it outlived every kill from inside). Not being dumpable does not
survive ``execve``, so the parent cannot exec the program itself and stay protected.

It imports only the standard library and nothing of the workspace (``-I -S``): a sandbox
shows the interpreter, and this file at ``INSIDE``, not the package.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import signal
import struct
import sys
from pathlib import Path

EPERM, ENOSYS = 1, 38
PR_SET_DUMPABLE, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 4, 24, 38, 22
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECCOMP_MODE_FILTER = 2
CAP_LAST_CAP = 63  # PR_CAPBSET_DROP says EINVAL past the kernel's last: harmless
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID and NEWNET
NEW_NAMESPACE_FLAGS = 0x7E020000

# Per machine: its audit arch, and the numbers of the calls the filter looks at.
_REFUSED = ("ptrace", "process_vm_readv", "process_vm_writev", "unshare", "setns", "mount",
            "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
            "fsconfig", "fsmount", "fspick", "mount_setattr", "keyctl", "add_key",
            "request_key", "bpf", "perf_event_open", "userfaultfd", "kexec_load",
            "kexec_file_load", "init_module", "finit_module", "delete_module")
SYSCALLS: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "unshare": 272,
        "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "keyctl": 250, "add_key": 248,
        "request_key": 249, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
        "kexec_load": 246, "kexec_file_load": 320, "init_module": 175, "finit_module": 313,
        "delete_module": 176, "clone": 56, "clone3": 435,
    }),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "unshare": 97,
        "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
        "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
        "fspick": 433, "mount_setattr": 442, "keyctl": 219, "add_key": 217,
        "request_key": 218, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
        "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
        "delete_module": 106, "clone": 220, "clone3": 435,
    }),
}

# Classic BPF over struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6]}.
_LD_ABS, _JEQ, _JSET, _RET = 0x20, 0x15, 0x45, 0x06
_ALLOW, _ERRNO = 0x7FFF0000, 0x00050000
_X32_BIT = 0x40000000


def seccomp_filter(machine: str) -> bytes:
    """The filter program for ``machine`` (``platform.machine()``), as bytes."""
    arch, numbers = SYSCALLS[machine]
    program: list[tuple[int, str | int, str | int, int]] = [
        (_LD_ABS, 0, 0, 4),
        (_JEQ, "next", "eperm", arch),
        (_LD_ABS, 0, 0, 0),
    ]
    if machine == "x86_64":  # the x32 ABI shares the arch value: refuse it whole
        program.append((_JSET, "eperm", "next", _X32_BIT))
    program += [(_JEQ, "eperm", "next", numbers[name]) for name in _REFUSED]
    program += [
        (_JEQ, "enosys", "next", numbers["clone3"]),
        (_JEQ, "clone", "allow", numbers["clone"]),
    ]
    labels = {"clone": len(program)}
    program += [(_LD_ABS, 0, 0, 16), (_JSET, "eperm", "allow", NEW_NAMESPACE_FLAGS)]
    labels |= {"allow": len(program), "eperm": len(program) + 1, "enosys": len(program) + 2}
    program += [(_RET, 0, 0, _ALLOW), (_RET, 0, 0, _ERRNO | EPERM), (_RET, 0, 0, _ERRNO | ENOSYS)]

    def offset(at: int, target: str | int) -> int:
        return 0 if target in (0, "next") else labels[str(target)] - at - 1

    return b"".join(struct.pack("=HBBI", code, offset(i, jt), offset(i, jf), k)
                    for i, (code, jt, jf, k) in enumerate(program))


def _check(result: int, what: str) -> None:
    if result != 0:
        raise OSError(ctypes.get_errno(), f"{what}: {os.strerror(ctypes.get_errno())}")


def drop_privileges(machine: str) -> None:
    """Give up every capability for good, then install the filter."""
    libc = ctypes.CDLL(None, use_errno=True)
    prctl = libc.prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    for cap in range(CAP_LAST_CAP + 1):
        prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)  # EPERM without CAP_SETPCAP: none to drop
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    # capset(v3 header for this process, all three sets empty in both words)
    header = struct.pack("=Ii", 0x20080522, 0)
    _check(libc.capset(header, bytes(24)), "capset")
    _check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    program = seccomp_filter(machine)
    code = ctypes.create_string_buffer(program, len(program))
    fprog = ctypes.create_string_buffer(
        struct.pack("=HxxxxxxQ", len(program) // 8, ctypes.addressof(code)), 16)
    _check(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0),
           "seccomp")
    _check(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "dumpable")


FILE = str(Path(__file__).resolve())
INSIDE = "/run/pytest-mlab/privileges.py"
"""Where a sandbox that hides the host's files shows this one (read-only)."""


def launcher_argv(python: str, argv: list[str], launcher: str = FILE,
                  timeout: int | None = None, report: int | None = None) -> list[str]:
    """``argv`` run through this launcher, found at ``launcher``, by ``python`` (both as
    the program will see them), killed after ``timeout`` seconds if given."""
    flags = [] if timeout is None else [f"{TIMEOUT}{timeout}"]
    flags += [] if report is None else [f"{REPORT}{report}"]
    return [python, "-I", "-S", "-B", launcher, *flags, *argv]


def _flag(argv: list[str], name: str) -> int | None:
    """The value of the leading flag ``name`` (taken off ``argv``), if there."""
    if argv and argv[0].startswith(name) and argv[0][len(name):].isdigit():
        return int(argv.pop(0)[len(name):])
    return None


KEEP = "--keep"
"""The launcher's flag for a first process that runs no program: it only reaps."""
REPORT = "--report="
"""The launcher's flag (``--report=FD``) naming a descriptor, kept from the program, on
which a pid 1 launcher writes how many processes the program left running."""
TIMEOUT = "--timeout="
"""The launcher's flag (``--timeout=SECONDS``) to kill the program after that long, as
``timeout --signal=KILL`` would; ``timeout`` itself would be a dumpable process of the
script's uid, whose memory the script could write."""


def _exit_like(status: int) -> None:
    """End as the program ended: its exit code, or its signal (128 + the signal where the
    kernel spares this process, as it spares a namespace's pid 1)."""
    code = os.waitstatus_to_exitcode(status)
    if code >= 0:
        os._exit(code)
    if -code not in (signal.SIGKILL, signal.SIGSTOP):
        signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
    os._exit(128 - code)


def _others() -> int:
    """How many live processes this pid namespace holds besides this one."""
    count = 0
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                state = stat.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        count += state not in (b"Z", b"X")
    return count


def _reap_until(program: int | None, report: int | None = None) -> None:
    """Reap every child and orphan; return when ``program`` ends (never without one).
    As a namespace's pid 1, whose end takes every other process of it along, first write
    to ``report`` how many were still running."""
    # Blocked, the signal of an orphan's end waits for sigtimedwait instead of being lost
    # between a wait that found no child and the sleep after it: a zombie holds a slot.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    while True:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == program:
                if report is not None and os.getpid() == 1 and (count := _others()):
                    with contextlib.suppress(OSError):
                        os.write(report, str(count).encode())
                _exit_like(status)
        signal.sigtimedwait({signal.SIGCHLD}, 1.0)


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(f"usage: python -I -S privileges.py [{TIMEOUT}SECONDS] [{REPORT}FD] "
                 f"PROGRAM [ARG...] | {KEEP}")
    machine = platform.machine()
    if machine not in SYSCALLS:
        sys.exit(f"pytest-mlab: no seccomp filter for {machine}; refusing to run unconfined")
    drop_privileges(machine)
    if argv == [KEEP]:
        _reap_until(None)
    seconds, report = _flag(argv, TIMEOUT), _flag(argv, REPORT)
    if report is not None:
        os.set_inheritable(report, False)
    if not argv:
        sys.exit("pytest-mlab: the launcher was given no program")
    program = os.fork()
    if program == 0:
        # The program gets its three streams and nothing else the harness passed on (the
        # user namespace bubblewrap entered, the report pipe).
        os.closerange(3, os.sysconf("SC_OPEN_MAX"))
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            sys.stderr.write(f"{argv[0]}: {exc.strerror}\n")
        os._exit(127)
    # Hold none of the program's pipes, so that they close when the program ends.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if seconds:
        signal.signal(signal.SIGALRM, lambda *_: os.kill(program, signal.SIGKILL))
        signal.alarm(seconds)
    _reap_until(program, report)


if __name__ == "__main__":
    main(sys.argv[1:])
