"""Scripts on this machine: bubblewrap where it works, else namespaces, else plain.

Every level runs the script in a session of its own with an allowlisted environment,
inside the trial's cgroup where one can be made (memory and processes of the whole
trial; every process it started is killed when the script ends), under a disk quota on
the workspace. What each level hides is in ``isolation.py``.
"""

from __future__ import annotations

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
from pytest_mlab.sandbox.spec import SandboxSpec

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
        self.protected = spec.protected
        self.mounts = spec.mounts
        self.limits = spec.resources
        home = "/tmp" if self.isolation == "bwrap" else os.environ.get("HOME", "/tmp")
        self.python_bin = spec.python_bin
        # Without a mount namespace (netns, none) the folder is seen at its own path.
        shown = python_bin.INSIDE if self.isolation == "bwrap" else str(spec.python_bin)
        self.environ = sandbox_environ(os.environ, spec.environment, home=home,
                                       python_bin=shown if spec.python_bin else None)
        self.cpus = spec.cpus
        self.cgroup = TrialCgroup.create(self.limits.memory_bytes, self.limits.processes,
                                         self.cpus)
        # A sandbox nobody closed still gives its cgroup back when it is collected.
        self._release = weakref.finalize(self, self.cgroup.close) if self.cgroup else None
        self.quota = DiskQuota(self.workspace, self.limits.disk_bytes)
        self._events = self.cgroup.events() if self.cgroup else (0, 0)
        self._interrupted: str | None = None

    def _wrap(self, argv: Sequence[str]) -> list[str]:
        # Every level ends in the launcher: no capabilities, no new privileges, and a
        # seccomp filter, whoever runs the harness.
        if self.isolation == "bwrap":
            mounts = (*self.mounts, (privileges.FILE, privileges.INSIDE))
            if self.python_bin is not None:
                mounts += ((str(self.python_bin), python_bin.INSIDE),)
            prefix = bwrap_argv(self.workspace, self.protected, self.environ, self.hidden,
                                tmp_bytes=self.limits.memory_bytes, mounts=mounts)
            return prefix + launcher_argv(LAUNCHER_PYTHON, list(argv), privileges.INSIDE)
        confined = launcher_argv(LAUNCHER_PYTHON, list(argv))
        if self.isolation == "netns":
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

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        result = run_captured(
            self._wrap(argv), cwd=self.workspace, env=self.environ, timeout=timeout,
            preexec=preexec(self.limits, self.cgroup, self.cpus), check=self._broken_limit,
            kill=self._kill_rest,
        )
        # The memory limit may have struck in the last moments, after the last check.
        late = None if result.stopped_by else self._broken_limit()
        if late is not None:
            return ExecResult(result.stdout, result.stderr, result.returncode,
                              result.seconds, result.timed_out, late)
        return result

    def start(self, argv: Sequence[str]) -> LocalProcess:
        try:
            proc = subprocess.Popen(
                self._wrap(argv), cwd=self.workspace, env=self.environ,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                start_new_session=True, preexec_fn=preexec(self.limits, self.cgroup, self.cpus),
            )
        except OSError as exc:
            raise SandboxError(f"could not start {argv[0]}: {exc}") from exc
        return LocalProcess(proc, self._kill_rest, self._broken_limit)

    def close(self) -> None:
        """Kill whatever is left and release the trial's cgroup."""
        if self._release is not None:
            self._release()
