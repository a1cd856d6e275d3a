"""Warm score workers: with a pool open, each score runs in a process of its own, forked
from a worker that has only loaded the script, and answers as a fresh worker does; a
timeout kills it; nothing of one score reaches the next; closing the pool ends them."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.data_key import VARIABLE as DATA_KEY
from pytest_mlab.env import warm_workers
from pytest_mlab.env.task_code import WorkerCrash, WorkerTimeout, call_worker, scorer_environ

SCRIPT = """\
import json, os, sys
import numpy as np
from pytest_mlab import InvalidSubmission

KEY = "DATA_KEY"
LOADED_BY = os.getpid()
SEEN = []

def score(submission, private):
    SEEN.append(1)
    verb = (submission / "do.txt").read_text().strip() if (submission / "do.txt").exists() else ""
    if verb == "sleep":
        import time
        time.sleep(600)
    if verb == "print-and-die":
        print("said before dying", flush=True)
        os._exit(3)
    if verb == "invalid":
        raise InvalidSubmission("nothing to score")
    report = {"pid": os.getpid(), "ppid": os.getppid(), "loaded_by": LOADED_BY,
              "seen": len(SEEN), "cwd": os.getcwd(), "key": os.environ.get(KEY),
              "draw": float(np.random.rand()), "sid": os.getsid(0)}
    (private / f"report-{os.getpid()}.json").write_text(json.dumps(report))
    return 1.0
""".replace("DATA_KEY", DATA_KEY)


@pytest.fixture
def pool() -> Iterator[warm_workers.WarmPool]:
    opened = warm_workers.open_pool()
    yield opened
    warm_workers.close_pool(opened)


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "score.py"
    path.write_text(SCRIPT)
    return path


def _score(script: Path, tmp_path: Path, verb: str = "", timeout: float = 60) -> dict[str, Any]:
    """One score of a fresh submission folder; the scorer's own report, or its reply."""
    submission = tmp_path / f"submission-{time.perf_counter_ns()}"
    submission.mkdir()
    private = tmp_path / "private"
    private.mkdir(exist_ok=True)
    if verb:
        (submission / "do.txt").write_text(verb)
    environ = scorer_environ(os.environ | {DATA_KEY: "00" * 32})
    reply = call_worker("score", script, submission, private, timeout=timeout, cwd=submission,
                        env=environ)
    if reply.get("score") != 1.0:
        return reply
    reports = sorted(private.glob("report-*.json"), key=lambda p: p.stat().st_mtime_ns)
    report: dict[str, Any] = json.loads(reports[-1].read_text())
    return report | {"submission": str(submission)}


def test_each_score_is_a_process_of_its_own_from_a_worker_that_never_scored(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    first, second = _score(script, tmp_path), _score(script, tmp_path)
    assert first["pid"] != second["pid"]
    # Both forked from one worker, which loaded the script and scored nothing itself.
    assert first["ppid"] == second["ppid"] == first["loaded_by"] == second["loaded_by"]
    assert first["ppid"] != os.getpid()
    assert first["seen"] == second["seen"] == 1
    # A session of its own, in the submission's folder, without the data key.
    assert first["sid"] == first["pid"]
    assert first["cwd"] == first["submission"] and second["cwd"] == second["submission"]
    assert first["key"] is None and second["key"] is None
    # What a fresh process draws anew, each draws anew.
    assert first["draw"] != second["draw"]


def test_without_a_pool_each_score_starts_a_fresh_worker(script: Path, tmp_path: Path) -> None:
    first, second = _score(script, tmp_path), _score(script, tmp_path)
    assert first["ppid"] == second["ppid"] == os.getpid()
    assert first["loaded_by"] == first["pid"] and second["loaded_by"] == second["pid"]


def test_a_warm_score_answers_as_a_fresh_one(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    assert _score(script, tmp_path, "invalid")["invalid"] == "nothing to score"
    with pytest.raises(WorkerCrash, match=r"score.py score exited 3: said before dying"):
        _score(script, tmp_path, "print-and-die")
    assert _score(script, tmp_path)["seen"] == 1


def test_a_timeout_kills_the_score_and_the_worker_serves_on(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    started = time.monotonic()
    with pytest.raises(WorkerTimeout, match="took longer than 2s"):
        _score(script, tmp_path, "sleep", timeout=2)
    assert time.monotonic() - started < 30
    (worker,) = pool.workers.values()
    assert not worker.broken
    assert _score(script, tmp_path)["ppid"] == worker.proc.pid


def test_a_changed_script_gets_a_worker_of_its_own(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    before = _score(script, tmp_path)
    script.write_text(SCRIPT.replace("return 1.0", "return 1.0  # changed"))
    after = _score(script, tmp_path)
    assert after["loaded_by"] != before["loaded_by"]
    assert len(pool.workers) == 1


def test_a_worker_that_died_is_replaced_and_nothing_is_lost(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    before = _score(script, tmp_path)
    os.kill(before["loaded_by"], signal.SIGKILL)
    _wait_gone(before["loaded_by"])
    # The dead worker took nothing: this score runs in a fresh worker, the next warm again.
    after = _score(script, tmp_path)
    assert after["loaded_by"] == after["pid"] and after["ppid"] == os.getpid()
    again = _score(script, tmp_path)
    assert again["ppid"] == again["loaded_by"] not in (before["loaded_by"], os.getpid())


def _wait_gone(pid: int) -> None:
    """Until ``pid`` has exited (a zombie, as the pool's worker is until it is reaped)."""
    for _ in range(500):
        try:
            if Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z":
                return
        except OSError:
            return
        time.sleep(0.01)
    raise AssertionError(f"{pid} did not exit")


def _children(pid: int) -> list[int]:
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]


def test_a_worker_killed_during_a_score_fails_that_score_and_kills_its_child(
    pool: warm_workers.WarmPool, script: Path, tmp_path: Path,
) -> None:
    worker = _score(script, tmp_path)["loaded_by"]
    outcome: list[BaseException] = []

    def sleeping_score() -> None:
        try:
            _score(script, tmp_path, "sleep", timeout=120)
        except BaseException as exc:
            outcome.append(exc)

    scoring = threading.Thread(target=sleeping_score)
    scoring.start()
    for _ in range(500):
        if children := _children(worker):
            break
        time.sleep(0.01)
    (child,) = children
    started = time.monotonic()
    os.kill(worker, signal.SIGKILL)
    scoring.join(60)
    assert time.monotonic() - started < 30
    (error,) = outcome
    assert isinstance(error, WorkerCrash)
    assert "exited -9" in str(error) and "the warm worker ended during the score" in str(error)
    _wait_gone(child)
    _wait_gone(worker)
    assert _score(script, tmp_path)["seen"] == 1


def test_a_worker_whose_children_could_not_run_refuses_and_fresh_workers_score(
    pool: warm_workers.WarmPool, tmp_path: Path,
) -> None:
    """Loading the script started CUDA, which a fork does not carry: every score of it
    runs in a fresh worker, and the refusing one stays, so that none is started again."""
    score = tmp_path / "score.py"
    score.write_text("import os, sys, types\n"
                     "cuda = types.SimpleNamespace(is_initialized=lambda: True)\n"
                     "sys.modules['torch'] = types.SimpleNamespace(cuda=cuda)\n"
                     "def score(submission, private):\n"
                     "    return float(os.getppid())\n")
    submission = tmp_path / "submission"
    submission.mkdir()
    for _ in range(2):
        reply = call_worker("score", score, submission, tmp_path, timeout=60, cwd=submission,
                            env=scorer_environ(os.environ))
        assert reply["score"] == os.getpid()
    (worker,) = pool.workers.values()
    assert not worker.broken


def test_closing_the_pool_ends_its_workers(script: Path, tmp_path: Path) -> None:
    opened = warm_workers.open_pool()
    try:
        worker_pid = _score(script, tmp_path)["loaded_by"]
    finally:
        warm_workers.close_pool(opened)
    assert not Path(f"/proc/{worker_pid}").exists()


def test_nothing_planted_in_the_submission_runs_in_a_warm_scorer(
    pool: warm_workers.WarmPool, tmp_path: Path,
) -> None:
    """The child changes to the submission's folder after every import of its start-up;
    -I keeps that folder off the import path as for a fresh worker."""
    submission, private = tmp_path / "submission", tmp_path / "private"
    submission.mkdir()
    private.mkdir()
    marker = tmp_path / "marker"
    for name in ("sitecustomize.py", "usercustomize.py", "json.py", "csv.py"):
        (submission / name).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    score = tmp_path / "score.py"
    score.write_text("def score(submission, private):\n"
                     "    import csv, json\n"
                     "    return 1.0\n")
    for _ in range(2):
        reply = call_worker("score", score, submission, private, timeout=60, cwd=submission,
                            env=scorer_environ(os.environ))
        assert reply.get("score") == 1.0, reply
    assert not marker.exists()
    assert pool.workers, "the scores ran warm"


def test_the_child_exits_without_tearing_down_its_modules_but_runs_atexit(
    pool: warm_workers.WarmPool, tmp_path: Path,
) -> None:
    """A scorer's exit runs what its code registered to run at exit, as a fresh one's."""
    done = tmp_path / "atexit-ran"
    score = tmp_path / "score.py"
    score.write_text("import atexit\n"
                     "def score(submission, private):\n"
                     f"    atexit.register(lambda: open({str(done)!r}, 'w').close())\n"
                     "    return 1.0\n")
    submission = tmp_path / "submission"
    submission.mkdir()
    reply = call_worker("score", score, submission, tmp_path, timeout=60, cwd=submission,
                        env=scorer_environ(os.environ))
    assert reply.get("score") == 1.0 and done.exists()
    assert pool.workers, "the score ran warm"
