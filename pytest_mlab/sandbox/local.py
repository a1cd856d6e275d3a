"""Scripts on this machine: bubblewrap where it works, else namespaces, else plain.

Every level runs the script in a session of its own, killed whole at the end, with a
scrubbed environment and resource limits. What each level hides is in ``isolation.py``.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.sandbox.capture import run_captured
from pytest_mlab.sandbox.isolation import Isolation, isolation_in_force
from pytest_mlab.sandbox.resources import pids_cgroup, preexec
from pytest_mlab.sandbox.spec import SandboxSpec

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH", re.IGNORECASE)
# Variables of the harness itself: where the cache and its answers live.
_HARNESS = re.compile(r"^MLAB_(CACHE|REPORT)")
# What programs commonly read from /etc; the rest (shadow, keys, configs) stays hidden.
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts",
    "localtime", "timezone", "alternatives", "ssl", "ca-certificates", "mime.types", "fonts",
    "matplotlibrc", "xdg/pip",
)
SANDBOX_WORKSPACE = "/workspace"
"""Where the workspace appears inside a sandbox: host paths are not shown."""
# OMP_WAIT_POLICY: busy-waiting OpenMP threads slow torch and sklearn many times over
# when trials share the cores.
SANDBOX_ENV = {
    "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONDONTWRITEBYTECODE": "1",
    "OMP_WAIT_POLICY": "PASSIVE",
}


def scrubbed_environ(environ: Mapping[str, str]) -> dict[str, str]:
    """``environ`` without credentials or the harness's own settings."""
    return {
        name: value
        for name, value in environ.items()
        if not _SECRET.search(name) and not _HARNESS.match(name)
    }


def interpreter_roots() -> list[Path]:
    """Folders the Python interpreter and its libraries live in (shown read-only)."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    return sorted(roots)


def bwrap_argv(
    workspace: Path,
    protected: Sequence[str],
    extra_env: Mapping[str, str],
    hidden: Sequence[Path] = (),
) -> list[str]:
    argv = [
        "bwrap", "--die-with-parent", "--new-session", "--unshare-all",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
    ]
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    for root in interpreter_roots():
        if not root.is_relative_to("/usr"):
            argv += ["--ro-bind", str(root), str(root)]
    argv += ["--bind", str(workspace), SANDBOX_WORKSPACE]
    for rel in protected:
        if (workspace / rel).exists():
            argv += ["--ro-bind", str(workspace / rel), f"{SANDBOX_WORKSPACE}/{rel}"]
    for path in hidden:
        argv += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    # Nothing but the workspace and a scratch /tmp may be written, not even the root.
    argv += ["--remount-ro", "/", "--chdir", SANDBOX_WORKSPACE, "--clearenv"]
    for name, value in extra_env.items():
        argv += ["--setenv", name, value]
    return [*argv, "--"]


class LocalSandbox:
    """Runs programs in the workspace with the strongest isolation asked for."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.workspace = spec.workspace.resolve()
        self.hidden = spec.hidden
        """Installed data the answers could be read from; only bubblewrap can hide it."""
        self.isolation: Isolation = isolation_in_force(spec.isolation)
        self.protected = spec.protected
        self.limits = spec.resources
        self.environ = scrubbed_environ(os.environ) | SANDBOX_ENV | dict(spec.environment)
        if self.isolation == "bwrap":
            self.environ |= {"HOME": "/tmp", "TMPDIR": "/tmp"}

    def _wrap(self, argv: Sequence[str]) -> list[str]:
        if self.isolation == "bwrap":
            prefix = bwrap_argv(self.workspace, self.protected, self.environ, self.hidden)
            return prefix + list(argv)
        if self.isolation == "netns":
            return ["unshare", "--user", "--map-root-user", "--net", "--", *argv]
        return list(argv)

    def close(self) -> None:
        """Nothing outlives a run: each script's processes are killed when it ends."""

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        with pids_cgroup(self.limits.processes) as cgroup:
            return run_captured(
                self._wrap(argv), cwd=self.workspace, env=self.environ, timeout=timeout,
                preexec=preexec(self.limits, cgroup),
            )
