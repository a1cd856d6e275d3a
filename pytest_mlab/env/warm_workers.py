"""Score workers kept warm across a session's trials: one per score script.

A fresh worker per score spends most of its time importing (the harness's modules, the
scorer's pandas) before it reads the submission. A warm worker (env/worker_template.py)
has loaded the script once and forks a child per score: a process of its own, in a
session of its own, given this call's folder, arguments and output pipes, which ends when
it has scored, as a fresh worker does. Timeouts kill the child's process group, as they
kill a fresh worker's.

A session opens a pool (``open_pool``) and closes it, which ends its workers; with no pool
open, or where a warm worker cannot take a call, the caller starts a fresh worker.
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mlab.core.tree import remove_tree
from pytest_mlab.sandbox.capture import Readers, kill_group

POOL_SIZE = 2
"""Warm workers a pool keeps (each holds its scorer's imports: with pandas, about 100 MB
resident, half of it its own)."""
_MESSAGE_BYTES = 1 << 16
_AFTER_KILL_SECONDS = 5.0
_ENDED = "\n(the warm worker ended during the score)"


@dataclass(frozen=True)
class Finished:
    """How a worker's process ended: its exit code, output's tail and whether it ran out
    of time (and was killed)."""

    returncode: int
    output: str
    timed_out: bool


class Unserved(Exception):
    """The warm worker took nothing of the call: the caller starts a fresh one."""


class _Gone(Exception):
    """The warm worker closed its end."""


def _signature(script: Path) -> tuple[int, ...]:
    info = script.stat()
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class WarmWorker:
    """One warm worker: ``boot`` is its command line less its arguments, started as a
    fresh worker is (env/task_code.py)."""

    def __init__(self, boot: Sequence[str], script: Path, env: Mapping[str, str]) -> None:
        self.signature = _signature(script)
        self.folder = Path(tempfile.mkdtemp(prefix="mlab-warm-"))
        self.lock = threading.Lock()
        self.broken = False
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = subprocess.Popen(
                [*boot, str(script), str(theirs.fileno())], cwd=self.folder,
                env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, pass_fds=(theirs.fileno(),),
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self.channel = ours

    def _receive(self, deadline: float) -> dict[str, Any]:
        """The next message; TimeoutError at ``deadline``, _Gone if the worker ended."""
        poll = select.poll()
        poll.register(self.channel, select.POLLIN)
        while not poll.poll(max(0, int((deadline - time.monotonic()) * 1000)) + 1):
            if time.monotonic() >= deadline:
                raise TimeoutError
        try:
            message = self.channel.recv(_MESSAGE_BYTES)
        except OSError:
            message = b""
        if not message:
            self.broken = True
            raise _Gone
        reply: dict[str, Any] = json.loads(message)
        return reply

    def _send(self, argv: Sequence[str], cwd: Path) -> Readers:
        """Hand the call to the worker with two fresh pipes; Unserved where it cannot."""
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        try:
            request = json.dumps({"argv": list(argv), "cwd": str(cwd)}).encode()
            socket.send_fds(self.channel, [request], [out_write, err_write])
        except OSError:
            os.close(out_read)
            os.close(err_read)
            self.broken = True
            raise Unserved from None
        finally:
            os.close(out_write)
            os.close(err_write)
        return Readers.start(os.fdopen(out_read, "rb"), os.fdopen(err_read, "rb"))

    def call(self, argv: Sequence[str], cwd: Path, timeout: float) -> Finished:
        """Run ``task_worker main`` with ``argv`` in ``cwd`` in a child of the worker;
        Unserved where the worker took nothing (a fresh worker does the call)."""
        deadline = time.monotonic() + timeout
        readers = self._send(argv, cwd)
        pid = status = None
        timed_out = False
        try:
            # The child says its pid as it starts; the worker, its wait status as it ends.
            first = self._receive(deadline)
            if first.get("refused"):
                readers.finish()
                raise Unserved
            pid, status = first["pid"], first.get("status")
            if status is None:
                status = self._receive(deadline)["status"]
        except _Gone:  # the worker was killed: so is what is left of the child, below
            pass
        except TimeoutError:
            timed_out = True
            status = self._after_kill(pid)
        if pid is not None:
            kill_group(pid)  # what the child left in its session, as for a fresh worker
        stdout, stderr = readers.finish()
        if status is None:
            return Finished(-9, (stdout + stderr + _ENDED)[-4000:], timed_out)
        code = os.waitstatus_to_exitcode(status)
        return Finished(code, (stdout + stderr)[-4000:], timed_out)

    def _after_kill(self, pid: int | None) -> int | None:
        """Kill the child at its deadline and take its wait status; without a child yet
        (the worker still loading the script), end the worker."""
        if pid is not None:
            kill_group(pid)
            try:
                status: int = self._receive(time.monotonic() + _AFTER_KILL_SECONDS)["status"]
                return status
            except (_Gone, TimeoutError):
                pass
        self.close()
        return None

    def close(self) -> None:
        """End the worker: it exits when it finds the socket closed, or is killed."""
        self.broken = True
        if self.channel.fileno() == -1:
            return  # closed already
        self.channel.close()
        try:
            self.proc.wait(_AFTER_KILL_SECONDS)
        except subprocess.TimeoutExpired:
            kill_group(self.proc.pid)
            self.proc.wait()
        remove_tree(self.folder)


class WarmPool:
    """The warm workers of one session, the most recently used kept."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self.size = size
        self.workers: OrderedDict[tuple[object, ...], WarmWorker] = OrderedDict()
        self.lock = threading.Lock()

    def worker(self, boot: Sequence[str], script: Path, env: Mapping[str, str]) -> WarmWorker:
        """The worker for ``script`` started by ``boot`` with ``env``: one started anew
        where the script changed or the last one broke."""
        key = (tuple(boot), str(script), tuple(sorted(env.items())))
        with self.lock:
            worker = self.workers.pop(key, None)
            if worker is not None and (worker.broken or worker.signature != _signature(script)):
                _retire(worker)
                worker = None
            if worker is None:
                worker = WarmWorker(boot, script, env)
            self.workers[key] = worker
            while len(self.workers) > self.size:
                _retire(self.workers.popitem(last=False)[1])
            return worker

    def close(self) -> None:
        with self.lock:
            while self.workers:
                _retire(self.workers.popitem()[1])


def _retire(worker: WarmWorker) -> None:
    """End a worker once no call of another thread is using it."""
    with worker.lock:
        worker.close()


_OPEN: list[WarmPool] = []
"""The pools open in this process, the newest last (a session inside a session, as a
test's pytester run, has its own)."""


def open_pool() -> WarmPool:
    pool = WarmPool()
    _OPEN.append(pool)
    return pool


def close_pool(pool: WarmPool) -> None:
    _OPEN.remove(pool)
    pool.close()


def call_warm(
    boot: Sequence[str], script: Path, env: Mapping[str, str], argv: Sequence[str], cwd: Path,
    timeout: float,
) -> Finished | None:
    """Score through the newest open pool's warm worker; None where there is none or it
    cannot take the call (busy with another thread's, or ended), nothing having run."""
    if not _OPEN:
        return None
    try:
        worker = _OPEN[-1].worker(boot, script, env)
    except OSError:
        return None
    if not worker.lock.acquire(blocking=False):
        return None
    try:
        return worker.call(argv, cwd, timeout)
    except Unserved:
        return None
    finally:
        worker.lock.release()
