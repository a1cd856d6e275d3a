"""A stand-in for the Docker engine: it keeps what a sandbox asks ``containers.run`` for
(device requests, environment, mounts) and runs each exec as a local process in the
workspace the container binds, so a GPU task's path runs with neither engine nor GPU."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pytest_mlab.sandbox.privileges import FILE

_ids = itertools.count()


class FakeContainer:
    def __init__(self, image: str, kwargs: dict[str, Any]) -> None:
        self.id = f"fake-{next(_ids)}"
        self.image = image
        self.kwargs = kwargs
        self.removed = False

    def host_path(self, inside: str) -> Path:
        """The host folder bound at ``inside``."""
        for host, bind in self.kwargs["volumes"].items():
            if bind["bind"] == inside:
                return Path(host)
        raise AssertionError(f"nothing is bound at {inside}")

    @property
    def short_id(self) -> str:
        return self.id[:12]

    @property
    def status(self) -> str:
        return "removed" if self.removed else "running"

    def reload(self) -> None:
        """Docker's fetches the container's state again; the fake's is always current."""

    def exec_run(self, argv: list[str]) -> tuple[int, bytes]:
        return 0, b""  # the kill of leftovers: each exec below ends with its process

    def remove(self, force: bool = False) -> None:
        self.removed = True


class FakeContainers:
    def __init__(self) -> None:
        self.started: list[FakeContainer] = []

    def run(self, image: str, command: list[str], **kwargs: Any) -> FakeContainer:
        container = FakeContainer(image, kwargs)
        self.started.append(container)
        return container

    def list(self, **kwargs: Any) -> list[FakeContainer]:
        return [c for c in self.started if not c.removed]


class FakeAPI:
    def __init__(self, containers: FakeContainers) -> None:
        self.containers = containers
        self.execs: dict[str, dict[str, Any]] = {}

    def exec_create(self, container_id: str, command: list[str], *, workdir: str,
                    environment: dict[str, str]) -> dict[str, str]:
        (container,) = [c for c in self.containers.started if c.id == container_id]
        exec_id = f"exec-{next(_ids)}"
        # It runs on the host: an argument naming a path bound in the container (the
        # sandbox's launcher) names the host's file instead.
        binds = {bind["bind"]: host for host, bind in container.kwargs["volumes"].items()}
        command = [binds.get(arg, arg) for arg in command]
        self.execs[exec_id] = {"argv": _program(command), "cwd": container.host_path(workdir),
                               "env": environment, "code": None}
        return {"Id": exec_id}

    def exec_start(self, exec_id: str, *, stream: bool,
                   demux: bool) -> Iterator[tuple[bytes, bytes]]:
        run = self.execs[exec_id]
        done = subprocess.run(run["argv"], cwd=run["cwd"], env=run["env"],
                              capture_output=True, check=False)
        run["code"] = done.returncode
        return iter([(done.stdout, done.stderr)])

    def exec_inspect(self, exec_id: str) -> dict[str, Any]:
        return {"ExitCode": self.execs[exec_id]["code"]}


def _program(command: list[str]) -> list[str]:
    """The program without the sandbox's launcher: on the host it would run, as root
    without a capability, as the container's user (whose workspace files root then cannot
    write) in folders that user could not reach; a real engine binds them instead."""
    if FILE not in command:
        return command
    rest = command[command.index(FILE) + 1:]
    while rest and rest[0].startswith(("--timeout=", "--report=")):
        rest = rest[1:]
    return rest


class FakeDocker:
    """What ``pytest_mlab.sandbox.docker`` uses of a ``docker.DockerClient``."""

    def __init__(self) -> None:
        self.containers = FakeContainers()
        self.api = FakeAPI(self.containers)

    def ping(self) -> bool:
        return True
