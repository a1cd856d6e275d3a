"""A task worker kept warm for one score script: ``python -m
pytest_mlab.env.worker_template SCORE_SCRIPT FD``, started as a task worker is.

It loads the script once, as a fresh worker would before scoring, and then forks one
child per request on the socket at FD. The child leaves the template's session, takes the
request's stdout, stderr, folder and arguments, scores with ``task_worker.main`` and
exits as a fresh worker's process does. The template itself never scores and never
reads a submission: every child starts from the state a fresh worker has once its script
has loaded, and no child's state reaches another.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from pytest_mlab.core.data_key import VARIABLE as DATA_KEY
from pytest_mlab.core.module_file import load_file
from pytest_mlab.env import task_worker
from pytest_mlab.env.task_worker import leave, main

MESSAGE_BYTES = 1 << 16


def _load(script: Path) -> ModuleType | None:
    try:
        return load_file(script, f"mlab_task_{script.stem}")
    except BaseException:  # each child loads it again, and reports what it raises
        return None


def _forks_badly() -> bool:
    """CUDA, once started, does not survive a fork: such a template serves nothing."""
    cuda = getattr(sys.modules.get("torch"), "cuda", None)
    return bool(cuda is not None and cuda.is_initialized())


def serve(script: Path, fd: int) -> int:
    """Fork a child per request until the caller closes the socket; a child never
    returns from here."""
    os.environ.pop(DATA_KEY, None)
    module = _load(script)
    channel = socket.socket(fileno=fd)
    refusing = _forks_badly()  # the caller starts a fresh worker for each of its calls
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(channel, MESSAGE_BYTES, 2)
        except OSError:
            return 0
        if not message:
            return 0
        request: dict[str, Any] = json.loads(message)
        own = Path(request["argv"][1]) == script
        sys.stdout.flush()
        sys.stderr.flush()
        pid = -1 if refusing else os.fork()
        if pid == 0:
            _child(channel, request, fds, module if own else None)
        for descriptor in fds:
            os.close(descriptor)
        if refusing:
            channel.send(b'{"refused": true}')
            continue
        _, status = os.waitpid(pid, 0)
        channel.send(json.dumps({"pid": pid, "status": status}).encode())


def _child(
    channel: socket.socket, request: dict[str, Any], fds: list[int], module: ModuleType | None,
) -> NoReturn:
    """Score as a fresh worker: a session of its own (killed as a group), the caller's
    pipes and folder, and a fresh worker's exit, which runs what the task code left to
    run. Its pid goes to the caller first, which can then kill it whatever befalls the
    warm worker."""
    os.setsid()
    channel.send(json.dumps({"pid": os.getpid()}).encode())
    channel.close()
    for target, descriptor in zip((1, 2), fds, strict=True):
        os.dup2(descriptor, target)
        os.close(descriptor)
    os.chdir(request["cwd"])
    argv: list[str] = request["argv"]
    sys.argv = [task_worker.__file__, *argv]
    # What a fresh process draws anew; random reseeds itself after a fork.
    if (generator := sys.modules.get("numpy.random")) is not None:
        generator.seed()
    leave(argv[0], main(argv, module))


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1]), int(sys.argv[2])))
