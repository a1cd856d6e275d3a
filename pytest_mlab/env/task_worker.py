"""Runs a task's ``prepare()`` or ``score()`` in a process of its own.

Usage: ``python -m pytest_mlab.env.task_worker VERB TASK_SCRIPT DIR_A DIR_B RESULT_JSON
[SANDBOX_JSON]``, VERB being prepare or score (env/worker_template.py keeps one warm).
The outcome goes to RESULT_JSON, not stdout, because task code may print freely. With
SANDBOX_JSON, a ``score`` that takes a third argument gets a ``SubmissionRunner`` to run
the workspace's code in that sandbox.
Only ``prepare`` may read the data key (``MLAB_DATA_KEY``, which env/data.py sets for its
process alone); a ``score`` never holds it.
"""

from __future__ import annotations

import atexit
import inspect
import json
import os
import sys
import threading
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

from pytest_mlab.core.data_key import VARIABLE as DATA_KEY
from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.core.module_file import load_file
from pytest_mlab.env.submission_runner import SubmissionRunner
from pytest_mlab.sandbox.spec import spec_from_json


def _score(module: ModuleType, first: Path, second: Path, sandbox: Path | None) -> float:
    if len(inspect.signature(module.score).parameters) < 3:
        return float(module.score(first, second))
    if sandbox is None:
        raise RuntimeError("score() takes a runner, but no sandbox was given to run it in")
    runner = SubmissionRunner(*spec_from_json(sandbox.read_text(encoding="utf-8")))
    try:
        return float(module.score(first, second, runner))
    finally:
        runner.close()


def _run(verb: str, script: Path, first: Path, second: Path,
         sandbox: Path | None, loaded: ModuleType | None) -> dict[str, Any]:
    module = loaded or load_file(script, f"mlab_task_{script.stem}")
    if verb == "prepare":
        module.prepare(first, second)
        return {"ok": True}
    return {"score": _score(module, first, second, sandbox)}


def main(argv: list[str], loaded: ModuleType | None = None) -> int:
    """Run one verb; ``loaded`` is the score script already loaded (a warm worker's child,
    env/worker_template.py), else it is loaded here."""
    verb, script, first, second, out, *rest = argv
    if verb != "prepare":
        os.environ.pop(DATA_KEY, None)
    sandbox = Path(rest[0]) if rest else None
    result: dict[str, Any]
    try:
        result = _run(verb, Path(script), Path(first), Path(second), sandbox,
                      loaded if verb == "score" else None)
    except InvalidSubmission as exc:
        result = {"invalid": str(exc) or type(exc).__name__}
    except TaskUnavailable as exc:
        result = {"unavailable": str(exc) or type(exc).__name__}
    except BaseException as exc:  # a crash of task code is reported, never hidden
        tail = traceback.format_exc(limit=-3)
        result = {"crash": f"{type(exc).__name__}: {exc}", "traceback": tail}
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


def leave(verb: str, code: int) -> NoReturn:
    """Exit. A scorer ends as Python promises a process ends (its threads joined, its
    atexit functions run, its output flushed) but leaves its modules standing: tearing
    down pandas alone takes longer than scoring. A ``prepare``, whose task code may leave
    a file for that teardown to flush, and a scorer with threads left, go the whole way."""
    if verb != "score" or threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    leave(sys.argv[1], main(sys.argv[1:]))
