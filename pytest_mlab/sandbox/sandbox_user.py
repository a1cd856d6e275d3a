"""The host user a trial's scripts run as.

A script is ``nobody`` (uid 65534) in a user namespace of its own, and the kernel checks
every file owner and mode by the host uid that 65534 maps to. bubblewrap maps it to
whoever started it, so under a harness run as root a script was host root to every such
check: it could open ``/proc/sys/kernel/core_pattern`` for writing, and write its own
cgroup's limits. A harness run as root therefore gives each sandbox a host uid of its
own, from a range no account uses, that owns nothing on the host but the trial's
workspace (handed over before every program starts), and makes the user namespace itself
with that mapping. An unprivileged harness cannot switch uids: its scripts run as its own
uid, which holds no privilege either; the attestation records which.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.core.tree import Walk

INSIDE_UID = 65534
"""Who a script is inside its sandbox (``nobody``), whatever it maps to."""
HOST_ROOT_INSIDE = 65533
"""Where host root appears in a namespace the harness makes (see ``user_namespace``)."""
RANGE_START, RANGE_SIZE = 0x70000000, 1 << 24
"""The host uids (and gids) a root harness draws its sandboxes' users from."""
_UNSHARE_SECONDS = 10.0


@dataclass(frozen=True)
class SandboxUser:
    """A host uid and gid for one sandbox's programs."""

    uid: int
    gid: int
    own: bool
    """True: a uid of the harness's range, owning only the trial's files. False: the
    harness's own (an unprivileged harness, which cannot give a script another)."""

    @classmethod
    def for_harness(cls) -> SandboxUser:
        if os.geteuid() != 0:
            return cls(os.getuid(), os.getgid(), own=False)
        uid = RANGE_START + secrets.randbelow(RANGE_SIZE)
        return cls(uid, uid, own=True)

    def hand_over(self, root: Path) -> None:
        """Make ``root`` and everything in it the sandbox user's, so that its programs may
        change what the harness put there. Only while none of them runs (a swap of a
        folder for a link mid-walk is then impossible); links are never followed, and a
        file with a second name is left as it is, since that name may be outside."""
        if not self.own:
            return
        with contextlib.suppress(OSError):
            os.chown(root, self.uid, self.gid, follow_symlinks=False)
        for entry in Walk(root, folders=True):
            info = entry.info
            if info.st_uid == self.uid and info.st_gid == self.gid:
                continue
            if not stat.S_ISDIR(info.st_mode) and info.st_nlink > 1:
                continue
            with contextlib.suppress(OSError):
                os.chown(entry.name, self.uid, self.gid, dir_fd=entry.folder,
                         follow_symlinks=False)

    def uid_map(self, host: int | None = None) -> str:
        """The uid map a script of this user reads in ``/proc/self/uid_map`` (with
        ``host``, the gid map)."""
        lines = [(INSIDE_UID, self.uid if host is None else host)]
        if self.own:
            lines.insert(0, (HOST_ROOT_INSIDE, 0))
        return "".join(f"{inside} {host} 1\n" for inside, host in lines)

    def user_namespace(self) -> int:
        """A descriptor of a new user namespace where ``INSIDE_UID`` is this user (a root
        harness only), for ``bwrap --userns``; the caller closes it.

        bubblewrap enters it as host root to make its mounts, and resolves every folder
        it binds by path, the interpreter under /root included, before it becomes
        ``INSIDE_UID``; host root is mapped (as ``HOST_ROOT_INSIDE``, not 0, or the switch
        of uid would drop the capabilities bubblewrap still needs) for that alone. No
        program of the sandbox holds that uid or any capability to take it.
        """
        # A process of its own holds the namespace while it is mapped and opened: a fork
        # of this (threaded) process would have to run Python between fork and exit.
        holder = subprocess.Popen(["unshare", "--user", "cat"], stdin=subprocess.PIPE,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            ns = f"/proc/{holder.pid}/ns/user"
            own, deadline = _namespace("/proc/self/ns/user"), time.monotonic() + _UNSHARE_SECONDS
            while _namespace(ns) == own:
                if holder.poll() is not None or time.monotonic() > deadline:
                    raise SandboxError("could not make a user namespace for the sandbox: "
                                       "`unshare --user` did not (util-linux's unshare)")
                time.sleep(0.001)
            Path(f"/proc/{holder.pid}/uid_map").write_text(self.uid_map())
            Path(f"/proc/{holder.pid}/gid_map").write_text(self.uid_map(self.gid))
            return os.open(ns, os.O_RDONLY | os.O_CLOEXEC)
        finally:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait()


def _namespace(link: str) -> str:
    """Which namespace ``link`` (a /proc/PID/ns/ entry) names; '' once the process is gone."""
    try:
        return os.readlink(link)
    except OSError:
        return ""
