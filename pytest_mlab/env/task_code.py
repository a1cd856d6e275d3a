"""Call ``pytest_mlab.env.task_worker`` in a child process and read back its reply."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_mlab.sandbox.capture import run_captured
from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.spec import SandboxSpec, spec_to_json

# What a scorer's own process keeps of the harness's environment: the engine to start
# scoring containers in, where to import from, and nothing else off the allowlist.
# The Hugging Face cache folders: an original eval.py loads its labels from there.
_SCORER_KEEPS = ("DOCKER_HOST", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_CONFIG",
                 "PYTHONPATH", "XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE",
                 "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE", "TRANSFORMERS_CACHE")


class WorkerTimeout(Exception):
    """The child did not finish in time; it has been killed with its process group."""


class WorkerCrash(Exception):
    """The child died without writing a reply."""


def scorer_environ(host: Mapping[str, str]) -> dict[str, str]:
    """A scorer reads answers and runs no agent code itself, yet it needs no secrets."""
    kept = {name: host[name] for name in _SCORER_KEEPS if name in host}
    return sandbox_environ(host, kept, home=host.get("HOME", "/tmp"))


def call_worker(
    verb: str, script: Path, first: Path, second: Path, *, timeout: float, cwd: Path,
    env: Mapping[str, str] | None = None, sandbox: tuple[str, SandboxSpec] | None = None,
) -> dict[str, Any]:
    """Run ``verb`` of ``script`` on the two folders; ``env`` defaults to the harness's own
    (``prepare`` may need credentials to download); ``sandbox`` is where ``score`` may
    run the workspace's code."""
    with tempfile.TemporaryDirectory(prefix="mlab-worker-") as tmp:
        out = Path(tmp) / "result.json"
        # -P: the working directory is the submission's copy, whose files must not stand
        # in for the modules the task code imports (a json.py would run unsandboxed).
        argv = [sys.executable, "-P", "-m", "pytest_mlab.env.task_worker", verb, str(script)]
        argv += [str(first), str(second), str(out)]
        if sandbox is not None:
            spec_file = Path(tmp) / "sandbox.json"
            spec_file.write_text(spec_to_json(*sandbox), encoding="utf-8")
            argv.append(str(spec_file))
        result = run_captured(argv, cwd=cwd, env=os.environ if env is None else env,
                              timeout=timeout)
        output = (result.stdout + result.stderr)[-4000:]
        if result.timed_out:
            raise WorkerTimeout(f"{script.name} {verb} took longer than {timeout:g}s")
        if not out.exists():
            raise WorkerCrash(f"{script.name} {verb} exited {result.returncode}: {output}")
        reply: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        reply["output"] = output
        return reply
