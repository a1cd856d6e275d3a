"""Call ``pytest_mlab._worker`` in a child process and read back its verdict."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any


class WorkerTimeout(Exception):
    """The child did not finish in time; it has been killed with its process group."""


class WorkerCrash(Exception):
    """The child died without writing a verdict."""


def call_worker(
    verb: str, script: Path, first: Path, second: Path, *, timeout: float, cwd: Path
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mlab-worker-") as tmp:
        out = Path(tmp) / "result.json"
        argv = [sys.executable, "-m", "pytest_mlab._worker", verb, str(script)]
        argv += [str(first), str(second), str(out)]
        proc = subprocess.Popen(
            argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            start_new_session=True, env=os.environ.copy(),
        )
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise WorkerTimeout(f"{script.name} {verb} took longer than {timeout:g}s") from None
        if not out.exists():
            text = output.decode(errors="replace")[-2000:]
            raise WorkerCrash(f"{script.name} {verb} exited {proc.returncode}: {text}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        result["output"] = output.decode(errors="replace")[-4000:]
        return result
