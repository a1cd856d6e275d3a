"""Run a program with no capabilities, no way to gain any, and no way to reach beyond
its own processes: ``python -I -S privileges.py PROGRAM [ARG...]``.

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

It imports only the standard library and nothing of the workspace (``-I -S``): a sandbox
shows the interpreter, and this file at ``INSIDE``, not the package.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from pathlib import Path

EPERM, ENOSYS = 1, 38
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 24, 38, 22
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


FILE = str(Path(__file__).resolve())
INSIDE = "/run/pytest-mlab/privileges.py"
"""Where a sandbox that hides the host's files shows this one (read-only)."""


def launcher_argv(python: str, argv: list[str], launcher: str = FILE) -> list[str]:
    """``argv`` run through this launcher, found at ``launcher``, by ``python`` (both as
    the program will see them)."""
    return [python, "-I", "-S", launcher, *argv]


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -I -S privileges.py PROGRAM [ARG...]")
    machine = platform.machine()
    if machine not in SYSCALLS:
        sys.exit(f"pytest-mlab: no seccomp filter for {machine}; refusing to run unconfined")
    drop_privileges(machine)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"{argv[0]}: {exc.strerror}\n")
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
