"""Call ``pytest_mlab.env.task_worker`` in a child process and read back its reply."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_mlab.sandbox.capture import run_captured


class WorkerTimeout(Exception):
    """The child did not finish in time; it has been killed with its process group."""


class WorkerCrash(Exception):
    """The child died without writing a reply."""


def call_worker(
    verb: str, script: Path, first: Path, second: Path, *, timeout: float, cwd: Path
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mlab-worker-") as tmp:
        out = Path(tmp) / "result.json"
        argv = [sys.executable, "-m", "pytest_mlab.env.task_worker", verb, str(script)]
        argv += [str(first), str(second), str(out)]
        result = run_captured(argv, cwd=cwd, env=os.environ, timeout=timeout)
        output = (result.stdout + result.stderr)[-4000:]
        if result.timed_out:
            raise WorkerTimeout(f"{script.name} {verb} took longer than {timeout:g}s")
        if not out.exists():
            raise WorkerCrash(f"{script.name} {verb} exited {result.returncode}: {output}")
        reply: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        reply["output"] = output
        return reply
