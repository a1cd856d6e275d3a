"""The bubblewrap command line: only the workspace and a capped /tmp writable, no network,
a pid namespace, and nothing of the host but /usr, the interpreter and a few /etc files."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_mlab.sandbox.sandbox_user import INSIDE_UID

# What programs commonly read from /etc; the rest (shadow, keys, configs) stays hidden.
ETC_FILES = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "passwd", "group", "nsswitch.conf", "hosts",
    "localtime", "timezone", "alternatives", "ssl", "ca-certificates", "mime.types", "fonts",
    "matplotlibrc", "xdg/pip",
)
SANDBOX_WORKSPACE = "/workspace"
"""Where the workspace appears inside a sandbox: host paths are not shown."""
SANDBOX_UID = INSIDE_UID
"""Who a script is inside (``nobody``, whatever uid runs the harness, root included)."""
_AS_NOBODY = ["--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID), "--cap-drop", "ALL"]
# A user namespace of its own with a non-root uid and no capability: a script of a
# harness run as root kept nearly all of them, and could unmount the hide list.
DROP = ["--unshare-user", *_AS_NOBODY]
_NAMESPACES = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
               "--unshare-cgroup-try"]


def namespaces(userns: int | None) -> list[str]:
    """bubblewrap's namespaces: all new, the user namespace made by bubblewrap (mapping
    nobody to whoever runs it) or, with ``userns``, the one open at that descriptor
    (``SandboxUser.user_namespace``)."""
    if userns is None:
        return ["--unshare-all", *DROP]
    return ["--userns", str(userns), *_NAMESPACES, *_AS_NOBODY]


def interpreter_roots() -> list[Path]:
    """Folders the Python interpreter and its libraries live in (shown read-only): with
    a task's own environment, the harness's environment its ``.pth`` file adds as well."""
    roots = {Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    roots.add(Path(sys.executable).resolve().parent.parent)
    roots |= {Path(entry).resolve().parents[2] for entry in sys.path
              if Path(entry).name == "site-packages" and Path(entry).is_dir()}
    return sorted(roots)


def bwrap_argv(
    workspace: Path,
    protected: Sequence[str],
    environ: Mapping[str, str],
    hidden: Sequence[Path] = (),
    tmp_bytes: int | None = None,
    mounts: Sequence[tuple[str, str]] = (),
    userns: int | None = None,
) -> list[str]:
    # A pid namespace whose pid 1 is the launcher (--as-pid-1): when it ends, the kernel
    # kills every process left in it, daemons included, and no process of the sandbox
    # runs outside the launcher's confinement (bubblewrap's own reaper would).
    argv = [
        "bwrap", "--die-with-parent", "--new-session", *namespaces(userns), "--as-pid-1",
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
        "--dev", "/dev", "--proc", "/proc",
        *(["--size", str(tmp_bytes)] if tmp_bytes else []), "--perms", "1777", "--tmpfs", "/tmp",
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
    for host, inside in mounts:
        argv += ["--ro-bind", host, inside]
    for path in hidden:
        argv += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    # Nothing but the workspace and a scratch /tmp may be written, not even the root.
    argv += ["--remount-ro", "/", "--chdir", SANDBOX_WORKSPACE, "--clearenv"]
    for name, value in environ.items():
        argv += ["--setenv", name, value]
    return [*argv, "--"]
