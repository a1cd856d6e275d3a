"""Scripts in one Docker container per trial: no network, memory and pids limits.

The container's first process is the launcher, which only reaps, as the trial's own
unprivileged host user (``SandboxUser``); each script is an exec in it through the
launcher, which kills it at its timeout, followed by a kill of every process it left.
The container is removed when the trial ends, also on failure; what an interrupt leaves
is removed by label. A container that goes while a script runs (removed, stopped from
outside) is the harness's error: the script's kill is not the agent's doing.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Sequence

from pytest_mlab.core.errors import SandboxError
from pytest_mlab.sandbox import privileges, python_bin
from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.sandbox.bwrap import SANDBOX_WORKSPACE
from pytest_mlab.sandbox.capture import Stream, wait_watching
from pytest_mlab.sandbox.docker_image import ensure_skeleton_image
from pytest_mlab.sandbox.docker_processes import (
    alive,
    container_events,
    container_processes,
    exec_running,
)
from pytest_mlab.sandbox.docker_setup import (
    engine_client,
    host_mounts,
    open_folders_above,
    shown_folders,
)
from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.harness_code import refuse_code_in
from pytest_mlab.sandbox.privileges import KEEP, launcher_argv
from pytest_mlab.sandbox.process import Check, LocalProcess
from pytest_mlab.sandbox.resources import DiskQuota, broken_limit, tmpfs_inodes
from pytest_mlab.sandbox.sandbox_user import SandboxUser
from pytest_mlab.sandbox.spec import SKELETON_IMAGE, SandboxSpec
from pytest_mlab.sandbox.tmp_files import TmpFiles

LABEL = "pytest-mlab.run"
SESSION_LABEL = "pytest-mlab.session"
SESSION = uuid.uuid4().hex
"""This process's containers: a Ray node runs several trials of one run side by side, each
in a session of its own, and one session's end must not remove the others' containers."""
CONTAINER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
# Beyond the script's own timeout, how long to wait for the exec to report back.
_GRACE_SECONDS = 30.0
_POLL_SECONDS = 0.25  # how often the engine is asked whether a script still runs
_SETTLE_SECONDS = 3.0  # a removed container's processes die before the engine says so
_KILL_SECONDS = 10.0
"""How long the leftovers of a script may take to go."""


class DockerSandbox:
    isolation = "docker"

    def __init__(self, spec: SandboxSpec) -> None:
        import docker.types

        self.client = engine_client()
        limits, workspace, image = spec.resources, spec.workspace, spec.image
        refuse_code_in(workspace)
        skeleton = image == SKELETON_IMAGE
        # The skeleton borrows the host's interpreter: its `python` first on PATH.
        shown = python_bin.INSIDE if skeleton and spec.python_bin else None
        self.environment = sandbox_environ(os.environ | CONTAINER_ENV, spec.environment,
                                           home="/tmp", python_bin=shown)
        self.limits = limits
        self.workspace = workspace
        self.user = SandboxUser.for_harness()
        self._interrupted: str | None = None
        self.quota = DiskQuota(workspace, limits.disk_bytes, limits.files, TmpFiles(workspace))
        volumes = shown_folders(spec)
        self.python = "python3"
        if skeleton:
            ensure_skeleton_image(self.client)
            volumes |= host_mounts()
            self.python = spec.python or sys.executable
        else:
            # The image's own PATH finds its Python (a virtual environment, say).
            del self.environment["PATH"]
        # Installed data the answers could be read from: folders covered by empty ones,
        # files by /dev/null.
        tmpfs = {"/tmp": f"size={limits.memory_bytes},nr_inodes={tmpfs_inodes(limits)}"}
        tmpfs |= {str(path): "ro" for path in spec.hidden if path.is_dir()}
        blanks = [
            docker.types.Mount(str(path), "/dev/null", type="bind", read_only=True)
            for path in spec.hidden if path.is_file()
        ]
        gpus = list(spec.gpus)
        requests = [docker.types.DeviceRequest(device_ids=gpus, capabilities=[["gpu"]])]
        # The container's first process, which the kill after each script spares: the
        # launcher reaping the orphans of killed scripts, which would stay zombies and hold
        # the trial's process slots, confined and not dumpable like every other process.
        keeper = launcher_argv(self.python, [KEEP], privileges.INSIDE)
        self.user.hand_over(workspace)
        try:
            self.container = self.client.containers.run(
                image, keeper, detach=True, network_mode="none",
                user=f"{self.user.uid}:{self.user.gid}",
                mem_limit=limits.memory_bytes, memswap_limit=limits.memory_bytes,
                pids_limit=limits.processes, volumes=volumes, working_dir=SANDBOX_WORKSPACE,
                environment=self.environment, read_only=True,
                labels={LABEL: spec.run_id, SESSION_LABEL: SESSION},
                tmpfs=tmpfs, mounts=blanks, cap_drop=["ALL"], security_opt=["no-new-privileges"],
                ulimits=[
                    docker.types.Ulimit(name=name, soft=value, hard=value)
                    for name, value in (("fsize", limits.file_bytes), ("cpu", limits.cpu_seconds))
                ],
                device_requests=requests if gpus else None,
                cpuset_cpus=",".join(map(str, spec.cpus)) or None,
            )
        except Exception as exc:
            raise SandboxError(f"could not start a container from {image}: {exc}") from None
        open_folders_above(self.container, (inside for _, inside in spec.mounts))

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        seconds = max(1, int(timeout))
        command = self._inside(argv, timeout=seconds)
        self.user.hand_over(self.workspace)
        started = time.monotonic()
        api = self.client.api
        before = container_events(self.container.id)
        try:
            exec_id = api.exec_create(
                self.container.id, command, workdir=SANDBOX_WORKSPACE,
                environment=self.environment,
            )["Id"]
            chunks = api.exec_start(exec_id, stream=True, demux=True)
        except Exception as exc:
            raise SandboxError(f"could not run {argv[0]} in the container: {exc}") from None
        streams = (Stream(bytearray(), deque()), Stream(bytearray(), deque()))

        def pump() -> None:
            with contextlib.suppress(Exception):
                for out, err in chunks:
                    if out:
                        streams[0].add(out)
                    if err:
                        streams[1].add(err)

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()

        def done(wait: float) -> bool:
            # The program's end, not its output's: a process it left running may hold the
            # pipes open, and must be stopped then, not waited for.
            end = time.monotonic() + wait
            while True:
                reader.join(min(_POLL_SECONDS, max(0.0, end - time.monotonic())))
                if not reader.is_alive() or not exec_running(api, exec_id):
                    return True
                if time.monotonic() >= end:
                    return False

        broken = self._limits_since(before)
        _, stopped_by = wait_watching(done, seconds + _GRACE_SECONDS, broken)
        left = self._left_running()
        self._kill_leftovers()
        reader.join(5)
        elapsed = time.monotonic() - started
        try:
            code = api.exec_inspect(exec_id).get("ExitCode")
        except Exception as exc:  # the container went, and the exec with it
            self._still_running(argv[0])
            raise SandboxError(f"could not read how {argv[0]} ended: {exc}") from None
        returncode = -9 if code is None else int(code)
        killed = returncode in (137, -9) and elapsed < seconds  # not by its timeout
        self._still_running(argv[0], _SETTLE_SECONDS if killed else 0.0)
        stopped_by = stopped_by or broken()
        return ExecResult(
            stdout=streams[0].text(), stderr=streams[1].text(), returncode=returncode,
            seconds=elapsed, timed_out=returncode in (137, -9) and elapsed >= seconds,
            stopped_by=stopped_by, left_running=left,
        )

    def start(self, argv: Sequence[str]) -> LocalProcess:
        """The docker client relays the pipes; killing it and every process in the
        container ends the program."""
        self.user.hand_over(self.workspace)
        command = ["docker", "exec", "-i", "-w", SANDBOX_WORKSPACE]
        for name, value in self.environment.items():
            command += ["-e", f"{name}={value}"]
        try:
            proc = subprocess.Popen(
                [*command, self.container.id, *self._inside(argv)], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            raise SandboxError(f"could not start the docker client: {exc}") from None
        before = container_events(self.container.id)
        return LocalProcess(proc, self._kill_leftovers, self._limits_since(before))

    def _still_running(self, program: str, settle: float = 0.0) -> None:
        """Raise if the container went while ``program`` ran: what killed it was not the
        trial's doing, so it must not read as the agent's failure; it must run on for
        ``settle`` seconds to count as there."""
        deadline = time.monotonic() + settle
        while (status := self._status()) == "running" and time.monotonic() < deadline:
            time.sleep(0.2)
        if status != "running":
            raise SandboxError(f"the trial's container {self.container.short_id} went while "
                               f"{program} ran ({status}): something outside the trial "
                               "removed or stopped it")

    def _status(self) -> str:
        try:
            self.container.reload()
            return str(self.container.status)
        except Exception as exc:
            return "removed" if getattr(exc, "status_code", None) == 404 else f"unknown: {exc}"

    def _limits_since(self, before: tuple[int, int]) -> Check:
        """What says, in words, that a program started when the container's cgroup
        counted ``before`` (memory kills, refused forks) broke a limit of the trial."""

        def broken() -> str | None:
            if self._interrupted is not None:
                return self._interrupted
            after = container_events(self.container.id)
            return broken_limit(self.limits, before, after) or self.quota()

        return broken

    def _inside(self, argv: Sequence[str], timeout: int | None = None) -> list[str]:
        # The launcher adds to the container's own confinement what Docker's default
        # seccomp profile allows: ptrace of another process of the container.
        mapped = [self.python if arg == sys.executable else arg for arg in argv]
        return launcher_argv(self.python, mapped, privileges.INSIDE, timeout)

    def interrupt(self, reason: str) -> None:
        """Stop the running script, and any later one within a second (another thread
        calls this: the trial's timeout)."""
        self._interrupted = reason
        self._kill_leftovers()

    def _kill_leftovers(self) -> None:
        """Every process but the keeper (the container's first process, which ``kill -1``
        spares) goes. After a flood the kill itself may find no free process slot, so it
        is tried again until only the keeper is left."""
        deadline = time.monotonic() + _KILL_SECONDS
        while True:
            with contextlib.suppress(Exception):
                self.container.exec_run(self._inside(["kill", "-9", "-1"]))
            if len(container_processes(self.container.id)) <= 1 or time.monotonic() > deadline:
                return
            time.sleep(0.1)

    def stop_all(self) -> None:
        """Stop every process of the trial but the keeper, and check that none is left."""
        self._kill_leftovers()
        if len(left := container_processes(self.container.id)) > 1:
            raise SandboxError(f"{len(left) - 1} processes of the trial's container "
                               f"{self.container.short_id} could not be stopped")

    def _left_running(self) -> int:
        """How many processes besides the keeper a script left running in the container."""
        running = [pid for pid in container_processes(self.container.id) if alive(pid)]
        return max(0, len(running) - 1)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.container.remove(force=True)


def remove_containers(run_id: str, own_only: bool = False) -> None:
    """Remove what an interrupted session left behind: every container of the run, or with
    ``own_only`` those this process made (a node's session, whose siblings may still run)."""
    labels = [f"{LABEL}={run_id}"] + ([f"{SESSION_LABEL}={SESSION}"] if own_only else [])
    with contextlib.suppress(Exception):
        client = engine_client()
        for container in client.containers.list(all=True, filters={"label": labels}):
            container.remove(force=True)


