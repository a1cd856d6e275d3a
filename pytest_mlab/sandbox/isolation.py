"""Which isolation this machine can give a script, best first."""

from __future__ import annotations

import functools
import shutil
import subprocess
import time
from typing import Literal

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox.bwrap import DROP

Isolation = Literal["bwrap", "netns", "none"]
# The namespace level: no network, a pid namespace (when unshare's child ends, so does
# every process it left behind), and the harness's user seen as nobody, not as root.
NETNS = ["unshare", "--user", "--map-user=65534", "--map-group=65534", "--net", "--pid",
         "--fork", "--kill-child", "--mount-proc"]
CHOICES: tuple[str, ...] = ("auto", "bwrap", "netns", "none")
PROBE_PAUSE_SECONDS = 1.0
DESCRIPTIONS: dict[Isolation, str] = {
    "bwrap": "bubblewrap: only the workspace writable, no network, hidden home and answers",
    "netns": "user, network and pid namespaces: no network and no daemons, but the file "
             "system, the harness's files and other processes' environments are visible",
    "none": "none: scripts see and may change the file system, reach the network and read "
            "other processes' environments",
}


def _works(argv: list[str], tries: int = 3) -> bool:
    """Whether ``argv`` succeeds here. A failure is tried again after a pause: one probe
    of bwrap failed once on a machine busy with other sandboxes, and its session took the
    weaker level (for the whole session, as the answer is kept)."""
    for attempt in range(tries):
        if attempt:
            time.sleep(PROBE_PAUSE_SECONDS)
        try:
            if subprocess.run(argv, capture_output=True, timeout=30).returncode == 0:
                return True
        except (OSError, subprocess.TimeoutExpired):
            pass
    return False


@functools.cache
def available(level: Isolation) -> bool:
    if level == "none":
        return True
    if level == "bwrap":
        # The namespaces and mounts every sandbox asks for: in a container that allows
        # namespaces but masks /proc, as Docker does by default, bwrap starts but cannot
        # mount /proc; a probe without it passed while every script then failed, read as
        # the agent's failure.
        bwrap = shutil.which("bwrap")
        return bwrap is not None and _works(
            [bwrap, "--die-with-parent", "--new-session", "--unshare-all", *DROP, "--ro-bind",
             "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "true"]
        )
    return shutil.which("unshare") is not None and _works([*NETNS, "true"])


ORDER: tuple[Isolation, ...] = ("bwrap", "netns", "none")
FIXES: dict[Isolation, str] = {
    "bwrap": "apt-get install bubblewrap; in a container, also give it namespaces and /proc "
             "(docker run --security-opt seccomp=unconfined --security-opt "
             "apparmor=unconfined --security-opt systempaths=unconfined)",
    "netns": "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)",
    "none": "",
}


def isolation_in_force(requested: str) -> Isolation:
    """The level a sandbox gets for ``requested``; probed on first use, not at start-up."""
    level = best_available(requested)
    if level is None:
        raise SandboxError(
            f"isolation {requested!r} does not work here: {FIXES[requested]}"  # type: ignore[index]
        )
    return level


def best_available(requested: str) -> Isolation | None:
    """``auto``: the strongest level that works here. A named level: itself, if it works."""
    for level in ORDER:
        if requested in ("auto", level) and available(level):
            return level
    return None
