"""What runs on the node that holds a trial: one pytest session for that one item.

The node prepares the task's data in its own cache, runs the trial as a local run would
(its own cores leased and pinned, its GPUs those the cluster gave it), and hands back the
trial's record and its files (traces, snapshots, the kept workspace) as one tar archive,
to be unpacked into the controller's run folder. No Ray here: ``dispatch_ray`` wraps it.
"""

from __future__ import annotations

import io
import json
import os
import socket
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.trial.cpus import CORES_VARIABLE

# What a trial leaves in its run folder (run_files.py); the session's summary files are
# the controller's to write.
_TRIAL_FOLDERS = ("traces", "snapshots", "workspaces")
RUN_ID_VARIABLE = "MLAB_RUN_ID"


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
    return {name: value for name, value in os.environ.items()
            if name == "PYTHONPATH" or name.startswith(("MLAB_", "LITELLM_"))}


def node_name(node_id: str, address: str) -> str:
    return f"node {node_id[:12]} ({socket.gethostname()}, {address})"


def _command(job: RemoteJob, report_dir: Path, gpus: list[str]) -> list[str]:
    path, _, name = job.nodeid.partition("::")
    return [
        sys.executable, "-m", "pytest", f"{Path(job.rootdir) / path}::{name}", *job.args,
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


def _pack(run_dir: Path) -> bytes:
    buffer = io.BytesIO()
    # Links (the snapshot store's alternates into the node's data cache) travel as the
    # files they name: the cache stays on the node.
    with tarfile.open(fileobj=buffer, mode="w:gz", dereference=True) as tar:
        for folder in _TRIAL_FOLDERS:
            if (run_dir / folder).exists():
                tar.add(run_dir / folder, arcname=folder)
    return buffer.getvalue()


def run_job(job: RemoteJob, gpus: list[str]) -> RemoteOutcome:
    """Run the job's one trial here; the record and files come back, never raised."""
    with tempfile.TemporaryDirectory(prefix="mlab-remote-") as tmp:
        reports = Path(tmp) / "reports"
        environ = os.environ | job.environ | {RUN_ID_VARIABLE: job.run_id,
                                              CORES_VARIABLE: str(job.cpus)}
        environ.pop("PYTEST_XDIST_WORKER", None)
        run = subprocess.run(_command(job, reports, gpus), cwd=job.invocation_dir,
                             env=environ, capture_output=True, text=True, check=False)
        run_dir = reports / job.run_id
        output = (run.stdout + run.stderr)[-4000:]
        return RemoteOutcome(_record(run_dir, job.nodeid), _pack(run_dir), output,
                             str(run_dir))


def unpack(files: bytes, run_dir: Path) -> None:
    """Put a trial's files into the controller's run folder."""
    with tarfile.open(fileobj=io.BytesIO(files), mode="r:gz") as tar:
        tar.extractall(run_dir, filter="tar")


def moved_record(outcome: RemoteOutcome, run_dir: Path) -> str:
    """The record with the node's run folder replaced by the controller's in its paths."""
    assert outcome.record is not None
    fields = json.loads(outcome.record)
    for key in ("trace", "workspace", "traceback"):
        if isinstance(fields.get(key), str):
            fields[key] = fields[key].replace(outcome.run_dir, str(run_dir), 1)
    return json.dumps(fields)
