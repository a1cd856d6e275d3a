"""What runs on the node that holds a trial: one pytest session for that one item.

The node prepares the task's data in its own cache, runs the trial as a local run would
(its own cores leased and pinned, its GPUs those the cluster gave it), and hands back the
trial's record and its files (traces, snapshots, the kept workspace) as one tar archive,
to be unpacked into the controller's run folder. No Ray here: ``dispatch_ray`` wraps it.
"""

from __future__ import annotations

import contextlib
import ctypes
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pytest_mlab.core.run_files import RUN_ID_VARIABLE, RunFiles
from pytest_mlab.core.safe_tar import extract
from pytest_mlab.core.snapshots import ALTERNATES
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.plugin.dispatch.remote_scratch import scratch_folder
from pytest_mlab.trial.cpus import CORES_VARIABLE

# What a trial leaves in its run folder (run_files.py); the session's summary files are
# the controller's to write.
_TRIAL_FOLDERS = ("traces", "snapshots", "workspaces")
_SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
WORKER_VARIABLE = "MLAB_NODE_WORKER"
"""The process id of the Ray worker that started a node's trial session."""
_PR_SET_PDEATHSIG = 1
_TEARDOWN_SECONDS = 120.0
"""How long a session whose worker died may take to remove its sandbox and containers."""
_SHARE_SECONDS = 1.0
"""How often a running trial sends the session what it spent and its latest step."""


@dataclass(frozen=True)
class RemoteJob:
    nodeid: str
    """As the controller collected it, relative to ``rootdir``."""
    args: tuple[str, ...]
    """The controller's trial options (agents, models, limits, sandbox, ...)."""
    rootdir: str
    invocation_dir: str
    run_id: str
    cpus: int
    environ: dict[str, str]
    """The controller's variables a session here needs (PYTHONPATH, MLAB_*); provider
    keys are the node's own, never sent."""


@dataclass(frozen=True)
class RemoteOutcome:
    record: str | None
    """The trial's record as JSON; None when the session reported none."""
    files: bytes
    """The trial's files, a tar archive relative to the run folder."""
    output: str
    """The end of the session's output, for an error that left no record."""
    run_dir: str
    """Where the node kept the run, which the record's paths name."""


def passed_environ() -> dict[str, str]:
    """The controller's variables a trial's session on a node gets; never a secret, not
    even one under litellm's prefix (LITELLM_MASTER_KEY): the nodes have their own."""
    return {name: value for name, value in os.environ.items()
            if (name == "PYTHONPATH" or name.startswith(("MLAB_", "LITELLM_")))
            and not any(word in name for word in _SECRET_WORDS)}


def node_name(node_id: str, address: str) -> str:
    return f"node {node_id[:12]} ({socket.gethostname()}, {address})"


def _command(job: RemoteJob, report_dir: Path, gpus: list[str]) -> list[str]:
    path, _, name = job.nodeid.partition("::")
    return [
        sys.executable, "-B", "-m", "pytest", f"{Path(job.rootdir) / path}::{name}", *job.args,
        f"--rootdir={job.rootdir}", f"--mlab-report-dir={report_dir}",
        f"--mlab-gpus={','.join(gpus) or 'none'}", "-p", "no:xdist", "-p", "no:cacheprovider",
        "-q",
    ]


def _record(run_dir: Path, nodeid: str) -> str | None:
    results = run_dir / "results.json"
    if not results.exists():
        return None
    for record in json.loads(results.read_text(encoding="utf-8"))["results"]:
        if record["nodeid"] == nodeid:
            return json.dumps(record)
    return None


def pack(run_dir: Path) -> bytes:
    """The trial's files in its run folder here, as one archive for the controller."""
    buffer = io.BytesIO()
    alternates = Path("snapshots", "objects", ALTERNATES)

    def skip_alternates(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        return None if info.issym() and Path(info.name).parent == alternates else info

    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for folder in _TRIAL_FOLDERS:
            if (run_dir / folder).exists():
                tar.add(run_dir / folder, arcname=folder, filter=skip_alternates)
        # The snapshot store's alternates, links into the node's data cache, travel as
        # the stores they name: the cache stays on the node. Every other link travels as
        # a link: those in a kept workspace are the agent's, and followed they would ship
        # whatever the node's files they name (its keys, the cache's answers, all of /).
        for link in sorted((run_dir / alternates).glob("*")):
            tar.add(link.resolve(), arcname=str(alternates / link.name))
    return buffer.getvalue()


class SessionLink(Protocol):
    """Where a trial on a node sends, as it runs, what the controller's session tallies
    (on Ray, an actor): what the trial spent on LLM calls, and its latest step. Neither
    call waits for an answer."""

    def add(self, cost: float) -> None: ...

    def show(self, name: str, progress: str) -> None: ...


@dataclass
class _Shared:
    """What the trial has sent the session so far."""

    link: SessionLink
    run: RunFiles
    spent: float = 0.0
    progress: dict[str, str] = field(default_factory=dict)

    def pass_on(self) -> None:
        spent = CostLedger(self.run.spend_ledger).total()
        if spent > self.spent:
            self.link.add(spent - self.spent)
            self.spent = spent
        for files in self.run.running():
            try:
                text = files.progress.read_text(encoding="utf-8")
            except OSError:
                continue
            if self.progress.get(files.progress.name) != text:
                self.link.show(files.progress.name, text)
                self.progress[files.progress.name] = text


def run_job(job: RemoteJob, gpus: list[str], link: SessionLink | None = None) -> RemoteOutcome:
    """Run the job's one trial here; the record and files come back, never raised. With
    ``link``, what the trial spends and each step it takes go to the session as it runs."""
    with scratch_folder() as scratch:
        reports = scratch.folder / "reports"
        run_dir = reports / job.run_id
        shared = _Shared(link, RunFiles(run_dir)) if link is not None else None
        environ = os.environ | job.environ | {RUN_ID_VARIABLE: job.run_id,
                                              CORES_VARIABLE: str(job.cpus),
                                              WORKER_VARIABLE: str(os.getpid())}
        environ.pop("PYTEST_XDIST_WORKER", None)
        with subprocess.Popen(_command(job, reports, gpus), cwd=job.invocation_dir, env=environ,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              pass_fds=(scratch.lock_fd,), start_new_session=True) as run:
            try:
                while True:
                    try:
                        output, _ = run.communicate(timeout=_SHARE_SECONDS)
                        break
                    except subprocess.TimeoutExpired:
                        if shared is not None:
                            shared.pass_on()
            except BaseException:
                # Cancelled here (Ray interrupts the worker, which lives on): the session
                # ends too, as when its worker dies, and is waited for.
                run.terminate()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    run.communicate(timeout=_TEARDOWN_SECONDS)
                run.kill()
                raise
        if shared is not None:
            shared.pass_on()
        return RemoteOutcome(_record(run_dir, job.nodeid), pack(run_dir), output[-4000:],
                             str(run_dir))


def end_with_worker() -> None:
    """In a node's trial session: end it, as an interrupt (the trial's sandbox and
    containers are removed on the way out), once the Ray worker that started it dies.
    Otherwise a killed worker's trial would run on, unseen, on the CPUs and GPUs the
    cluster gives the next trial, and spend on LLM calls no one counts. (Ray may kill the
    worker's process group too, but with SIGKILL, a while later, and only where its
    cleanup is enabled: the session has a group of its own.)"""
    worker = os.environ.get(WORKER_VARIABLE, "")
    if not worker.isdigit() or not sys.platform.startswith("linux"):
        return
    signal.signal(signal.SIGTERM, _worker_died)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != int(worker):  # it died before the signal was asked for
        _worker_died(signal.SIGTERM, None)


def _worker_died(signum: int, frame: object) -> None:
    # No one waits for this session any more: a teardown that hangs is cut short.
    deadline = threading.Timer(_TEARDOWN_SECONDS, os.kill, (os.getpid(), signal.SIGKILL))
    deadline.daemon = True
    deadline.start()
    raise KeyboardInterrupt("the Ray worker that started this trial's session is gone")


def unpack(files: bytes, run_dir: Path) -> None:
    """Put a trial's files into the controller's run folder."""
    with tarfile.open(fileobj=io.BytesIO(files), mode="r:gz") as tar:
        # The agent's links in a kept workspace come back as links, wherever they point.
        extract(tar, run_dir, links_out=True)


def moved_record(outcome: RemoteOutcome, run_dir: Path) -> str:
    """The record with the node's run folder replaced by the controller's in its paths."""
    assert outcome.record is not None
    fields = json.loads(outcome.record)
    for key in ("trace", "workspace", "traceback"):
        if isinstance(fields.get(key), str):
            fields[key] = fields[key].replace(outcome.run_dir, str(run_dir), 1)
    return json.dumps(fields)
