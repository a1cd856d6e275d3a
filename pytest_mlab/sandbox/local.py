"""Scripts on this machine: bubblewrap where it works, else namespaces, else plain.

Every level runs the script in a session of its own with an allowlisted environment,
inside the trial's cgroup where one can be made (memory and processes of the whole
trial; every process it started is killed when the script ends), under a disk quota on
the workspace. What each level hides is in ``isolation.py``.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import weakref
from collections.abc import Sequence

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox import privileges, python_bin
from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.sandbox.bwrap import bwrap_argv
from pytest_mlab.sandbox.capture import run_captured
from pytest_mlab.sandbox.cgroups import TrialCgroup
from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.harness_code import refuse_code_in
from pytest_mlab.sandbox.isolation import NETNS, Isolation, isolation_in_force
from pytest_mlab.sandbox.privileges import launcher_argv
from pytest_mlab.sandbox.process import LocalProcess
from pytest_mlab.sandbox.resources import DiskQuota, broken_limit, preexec
from pytest_mlab.sandbox.sandbox_user import SandboxUser
from pytest_mlab.sandbox.spec import SandboxSpec
from pytest_mlab.sandbox.tmp_files import TmpFiles

# The launcher needs only the standard library: the interpreter itself, not a virtual
# environment's link to it (which a sandbox may not show under the same path).
LAUNCHER_PYTHON = os.path.realpath(sys.executable)


class LocalSandbox:
    """Runs programs in the workspace with the strongest isolation asked for."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.workspace = spec.workspace.resolve()
        refuse_code_in(self.workspace)
        self.hidden = spec.hidden
        """Installed data the answers could be read from; only bubblewrap can hide it."""
        self.isolation: Isolation = isolation_in_force(spec.isolation)
        # What runs the scripts, whatever label a subclass gives ``isolation`` later.
        self._level = self.isolation
        self.protected = spec.protected
        self.mounts = spec.mounts
        self.limits = spec.resources
        home = "/tmp" if self.isolation == "bwrap" else os.environ.get("HOME", "/tmp")
        self.python_bin = spec.python_bin
        self.python = spec.python
        # Without a mount namespace (netns, none) the folder is seen at its own path.
        shown = python_bin.INSIDE if self.isolation == "bwrap" else str(spec.python_bin)
        self.environ = sandbox_environ(os.environ, spec.environment, home=home,
                                       python_bin=shown if spec.python_bin else None)
        self.cpus = spec.cpus
        # Only bubblewrap runs a script as a user of the harness's choosing; the weaker
        # levels run it as the harness's own uid (and say so in the attestation).
        self.user = (SandboxUser.for_harness() if self.isolation == "bwrap"
                     else SandboxUser(os.getuid(), os.getgid(), own=False))
        self.cgroup = TrialCgroup.create(self.limits.memory_bytes, self.limits.processes,
                                         self.cpus)
        self._userns = self.user.user_namespace() if self.user.own else None
        # A sandbox nobody closed still gives its cgroup and namespace back when it is
        # collected.
        self._release = weakref.finalize(self, _release, self.cgroup, self._userns)
        # Only bubblewrap gives scripts a /tmp of their own; the weaker levels share the host's.
        tmp = (TmpFiles(self.workspace, self.cgroup.pids if self.cgroup else None)
               if self.isolation == "bwrap" else None)
        self.quota = DiskQuota(self.workspace, self.limits.disk_bytes, self.limits.files, tmp)
        self._events = self.cgroup.events() if self.cgroup else (0, 0)
        self._interrupted: str | None = None

    def _wrap(self, argv: Sequence[str], report: int | None = None) -> list[str]:
        # Every level ends in the launcher: no capabilities, no new privileges, and a
        # seccomp filter, whoever runs the harness.
        if argv and argv[0] == sys.executable and self.python:
            argv = [self.python, *argv[1:]]
        if self._level == "bwrap":
            mounts = (*self.mounts, (privileges.FILE, privileges.INSIDE))
            if self.python_bin is not None:
                mounts += ((str(self.python_bin), python_bin.INSIDE),)
            prefix = bwrap_argv(self.workspace, self.protected, self.environ, self.hidden,
                                tmp_bytes=self.limits.memory_bytes, mounts=mounts,
                                userns=self._userns)
            return prefix + launcher_argv(LAUNCHER_PYTHON, list(argv), privileges.INSIDE,
                                          report=report)
        confined = launcher_argv(LAUNCHER_PYTHON, list(argv))
        if self._level == "netns":
            return [*NETNS, "--", *confined]
        return confined

    def _broken_limit(self) -> str | None:
        """The trial limit the running script broke, in words, if any."""
        if self._interrupted is not None:
            return self._interrupted
        if self.cgroup is not None:
            before, self._events = self._events, self.cgroup.events()
            if (broken := broken_limit(self.limits, before, self._events)) is not None:
                return broken
        return self.quota()

    def _kill_rest(self) -> None:
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def interrupt(self, reason: str) -> None:
        """Stop the running script, and any later one within a second (another thread
        calls this: the trial's timeout)."""
        self._interrupted = reason
        self._kill_rest()

    def _fds(self) -> tuple[int, ...]:
        return () if self._userns is None else (self._userns,)

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        self.user.hand_over(self.workspace)
        # Where the launcher, as pid 1, says how many processes the script left running.
        report, report_end = os.pipe()
        try:
            result = run_captured(
                self._wrap(argv, report_end), cwd=self.workspace, env=self.environ,
                timeout=timeout, preexec=preexec(self.limits, self.cgroup, self.cpus),
                check=self._broken_limit, kill=self._kill_rest,
                pass_fds=(*self._fds(), report_end),
            )
        finally:
            os.close(report_end)
            left = _read_count(report)
        # The memory limit may have struck in the last moments, after the last check.
        late = None if result.stopped_by else self._broken_limit()
        return dataclasses.replace(result, stopped_by=result.stopped_by or late,
                                   left_running=left)

    def start(self, argv: Sequence[str]) -> LocalProcess:
        self.user.hand_over(self.workspace)
        try:
            proc = subprocess.Popen(
                self._wrap(argv), cwd=self.workspace, env=self.environ,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, preexec_fn=preexec(self.limits, self.cgroup, self.cpus),
                pass_fds=self._fds(),
            )
        except OSError as exc:
            raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
        return LocalProcess(proc, self._kill_rest, self._broken_limit)

    def stop_all(self) -> None:
        """Stop every process of the trial and check that none is left. Under bubblewrap
        each script's processes end with it (its pid 1, the launcher); the cgroup catches
        what the other isolations leave."""
        if self.cgroup is None:
            return
        self.cgroup.kill_all()
        if left := self.cgroup.pids():
            raise SandboxError(f"{len(left)} processes of the trial could not be stopped "
                               f"(pids {', '.join(map(str, left[:5]))})")

    def close(self) -> None:
        """Kill whatever is left and release the trial's cgroup."""
        self._release()


def _read_count(fd: int) -> int:
    """The count a launcher wrote to the pipe ``fd`` (0 if none), closing it."""
    os.set_blocking(fd, False)
    try:
        text = os.read(fd, 32)
    except BlockingIOError:
        text = b""
    finally:
        os.close(fd)
    return int(text) if text.isdigit() else 0


def _release(cgroup: TrialCgroup | None, userns: int | None) -> None:
    if cgroup is not None:
        cgroup.close()
    if userns is not None:
        os.close(userns)
