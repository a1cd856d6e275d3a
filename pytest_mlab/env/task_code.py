"""Call ``pytest_mlab.env.task_worker`` in a child process and read back its reply."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_mlab.env.warm_workers import Finished, call_warm
from pytest_mlab.sandbox.capture import run_captured
from pytest_mlab.sandbox.environ import sandbox_environ
from pytest_mlab.sandbox.spec import SandboxSpec, spec_to_json

# What a scorer's own process keeps of the harness's environment: the engine to start
# scoring containers in, where to import from, and nothing else off the allowlist.
# The Hugging Face cache folders: an original eval.py loads its labels from there.
_SCORER_KEEPS = ("DOCKER_HOST", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_CONFIG",
                 "PYTHONPATH", "XDG_CACHE_HOME", "HF_HOME", "HF_HUB_CACHE",
                 "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE", "TRANSFORMERS_CACHE")


# -I: the working directory (the submission's copy) is not on the import path, so its
# files cannot stand in for the modules task code imports, and neither the user site
# nor PYTHON* variables apply. The harness's own PYTHONPATH (a user's, never a
# sandbox's) is put back by hand where Python puts it: before the site folders, but
# after the standard library, so that it cannot shadow that.
_BOOT = ("import runpy, site, sys; extra = [p for p in sys.argv.pop(1).split(':') if p]; "
         "sites = set(site.getsitepackages()); "
         "at = next((i for i, p in enumerate(sys.path) if p in sites), len(sys.path)); "
         "sys.path[at:at] = extra; "
         "runpy.run_module(MODULE, run_name='__main__', alter_sys=True)")
TASK_WORKER = "pytest_mlab.env.task_worker"
WARM_WORKER = "pytest_mlab.env.worker_template"


def isolated_python(
    env: Mapping[str, str], python: str = sys.executable, module: str = TASK_WORKER
) -> list[str]:
    """The command line of a task worker (or, with ``module``, a warm one) started with
    ``env`` by ``python`` (the task's interpreter), less its arguments. -B: it imports the
    harness's own modules, and would write their bytecode into the installed package (-I
    ignores PYTHONDONTWRITEBYTECODE)."""
    boot = _BOOT.replace("MODULE", repr(module))
    return [python, "-I", "-B", "-c", boot, env.get("PYTHONPATH", "")]


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
    python: str = sys.executable,
) -> dict[str, Any]:
    """Run ``verb`` of ``script`` on the two folders with ``python``; ``env`` defaults to
    the harness's own (``prepare`` may need credentials to download); ``sandbox`` is where
    ``score`` may run the workspace's code, and its interpreter, where it names one (a
    task's own environment), is the scorer's too. A ``score`` runs in a child of the
    session's warm worker for the script where one is open (env/warm_workers.py)."""
    with tempfile.TemporaryDirectory(prefix="mlab-worker-") as tmp:
        out = Path(tmp) / "result.json"
        env = os.environ if env is None else env
        if sandbox is not None and sandbox[1].python:
            python = sandbox[1].python
        args = [verb, str(script), str(first), str(second), str(out)]
        if sandbox is not None:
            spec_file = Path(tmp) / "sandbox.json"
            spec_file.write_text(spec_to_json(*sandbox), encoding="utf-8")
            args.append(str(spec_file))
        warm = isolated_python(env, python, WARM_WORKER)
        ended = call_warm(warm, script, env, args, cwd, timeout) if verb == "score" else None
        if ended is None:
            result = run_captured([*isolated_python(env, python), *args], cwd=cwd, env=env,
                                  timeout=timeout)
            ended = Finished(result.returncode, (result.stdout + result.stderr)[-4000:],
                             result.timed_out)
        output = ended.output
        if ended.timed_out:
            raise WorkerTimeout(f"{script.name} {verb} took longer than {timeout:g}s")
        if not out.exists():
            raise WorkerCrash(f"{script.name} {verb} exited {ended.returncode}: {output}")
        reply: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
        reply["output"] = output
        return reply
