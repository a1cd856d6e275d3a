"""What a trial's container is made of: the engine it runs on and the folders it shows."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox import privileges, python_bin
from pytest_mlab.sandbox.bwrap import ETC_FILES, SANDBOX_WORKSPACE, interpreter_roots
from pytest_mlab.sandbox.spec import SKELETON_IMAGE, SandboxSpec

Volumes = dict[str, dict[str, str]]


def engine_client() -> Any:
    try:
        import docker
    except ImportError:
        raise SandboxError("the docker sandbox needs the docker SDK: pip install docker") from None
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:
        raise SandboxError(f"no Docker engine answers (DOCKER_HOST or the socket): {exc}") from None
    return client


def host_mounts() -> dict[str, dict[str, str]]:
    """What the skeleton image borrows from the host, read-only."""
    mounts = {"/usr": {"bind": "/usr", "mode": "ro"}}
    for root in interpreter_roots():
        if not root.is_relative_to("/usr"):
            mounts[str(root)] = {"bind": str(root), "mode": "ro"}
    for name in ETC_FILES:
        path = Path("/etc") / name
        if path.exists():
            mounts[str(path)] = {"bind": str(path), "mode": "ro"}
    return mounts


def shown_folders(spec: SandboxSpec) -> Volumes:
    """The workspace (its protected files read-only), the task's mounts and the launcher;
    with the skeleton image, the trial's ``python`` as well."""
    workspace = spec.workspace
    volumes = {str(workspace.resolve()): {"bind": SANDBOX_WORKSPACE, "mode": "rw"}}
    for rel in spec.protected:
        if (workspace / rel).exists():
            volumes[str((workspace / rel).resolve())] = {
                "bind": f"{SANDBOX_WORKSPACE}/{rel}", "mode": "ro"
            }
    volumes |= {host: {"bind": inside, "mode": "ro"} for host, inside in spec.mounts}
    volumes[privileges.FILE] = {"bind": privileges.INSIDE, "mode": "ro"}
    if spec.image == SKELETON_IMAGE and spec.python_bin is not None:
        volumes[str(spec.python_bin)] = {"bind": python_bin.INSIDE, "mode": "ro"}
    return volumes


def open_folders_above(container: Any, paths: Iterable[str]) -> None:
    """Let the sandbox's user write beside what is shown in /tmp, as in the rest of it:
    the engine makes the folders above a mount point as root. Done before any script
    runs, by a root exec with no capability, which may change only root's own folders."""
    folders = {str(parent) for path in paths for parent in PurePosixPath(path).parents
               if parent.is_relative_to("/tmp") and parent != PurePosixPath("/tmp")}
    if folders:
        with contextlib.suppress(Exception):
            container.exec_run(["chmod", "1777", *sorted(folders)], user="0")
