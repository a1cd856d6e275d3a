"""Runs written the way the plugin writes them (results.json, traces, snapshots, tracebacks,
LLM call logs), with numbers a test can check by hand."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pytest_mlab.core.results import RunInfo, RunResults, StepScore, TrialResult
from pytest_mlab.core.run_files import RunFiles
from pytest_mlab.core.snapshots import store_object, write_manifest
from pytest_mlab.core.trace import Step, Trace

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>'


def trial_result(task: str, agent: str, trial: int, *, success: bool, improvement: float,
                 outcome: str = "", cost: float = 0.0, steps: int = 3) -> TrialResult:
    return TrialResult(
        nodeid=f"tasks/{task}/task.toml::{task}[{agent}-{trial}]", task=task, agent=agent,
        llm=None, trial=trial, metric="mae", direction="lower",
        outcome=outcome or ("passed" if success else "failed"), success=success,
        score=50.0 * (1 - improvement), baseline_mean=50.0, baseline_sd=1.0, baseline_n=3,
        improvement=improvement, threshold=0.1, message=f"{task}: {agent} trial {trial}",
        steps=steps, seconds=1.5, cost=cost, tokens_in=100 * steps, tokens_out=10 * steps,
    )


def _snapshot(files_dir: Path, objects: Path, step: int, content: str) -> None:
    data = content.encode()
    digest = hashlib.sha256(data).hexdigest()
    source = files_dir / f"{digest}.src"
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(data)
    store_object(objects, source, digest)
    write_manifest(files_dir.parent, step, {"train.py": digest})


def write_steps(run_dir: Path, result: TrialResult, count: int, observation: str = "",
                snapshots: bool = True) -> None:
    """``count`` steps in the trial's trace, a snapshot per step that rewrites train.py."""
    files = RunFiles(run_dir).trial(result.nodeid)
    trace = Trace(files.trace)
    files.manifests.mkdir(parents=True, exist_ok=True)
    for n in range(1, count + 1):
        trace.append(Step(
            n, "Edit Script", {"script_name": "train.py", "edit": f"set alpha to {n}"},
            observation or f"observation {n} of {result.agent} {HOSTILE}", 1000.0 + n,
            1000.5 + n, 0, {"tokens_in": 100, "tokens_out": 10, "cost": 0.001 * n,
                            "llm_calls": 1},
        ))
        if snapshots:
            _snapshot(files.manifests / ".src", files.objects, n, f"alpha = {n}\n")
    result.trace = str(files.trace)


def write_run(report_dir: Path, run_id: str, results: list[TrialResult], *,
              started: str = "2026-01-01T10:00:00") -> Path:
    run_dir = RunFiles.of(report_dir, run_id).root
    run_dir.mkdir(parents=True, exist_ok=True)
    info = RunInfo(run_id=run_id, started=started, finished=started, command=["pytest"],
                   machine="test machine", pytest_mlab_version="0", selected=len(results))
    RunResults(run=info, results=results).write(RunFiles(run_dir).results)
    return run_dir


def two_runs(report_dir: Path) -> tuple[Path, Path]:
    """Run A: oracle, 3 trials of each of two tasks, all pass (house-price's normalised
    scores 0.5, 1, 0.75); run B: baseline, the same trial numbers, 1 of 3 passes on
    house-price, 0 of 3 on titanic, one trial errored."""
    a = [trial_result(task, "oracle", t, success=True, improvement=0.2, cost=0.01)
         for task in ("house-price", "titanic") for t in range(3)]
    for result, normalised in zip(a, [0.5, 1.0, 0.75], strict=False):
        result.normalised_score = normalised
    b = [trial_result("house-price", "baseline", t, success=t == 0, improvement=0.15 if t == 0
                      else 0.01, cost=0.02) for t in range(3)]
    b += [trial_result("titanic", "baseline", t, success=False, improvement=0.0)
          for t in range(2)]
    b.append(trial_result("titanic", "baseline", 2, success=False, improvement=0.0,
                          outcome="error"))
    b[-1].error_class, b[-1].improvement = "ScorerError", None
    b[0].step_scores = [StepScore(step=1, score=49.0), StepScore(step=2, score=46.0),
                        StepScore(step=3, score=42.0)]
    run_a = write_run(report_dir, "run-a", [], started="2026-01-01T10:00:00")
    run_b = write_run(report_dir, "run-b", [], started="2026-01-02T10:00:00")
    for result in a:
        write_steps(run_a, result, 3)
    for result in b:
        write_steps(run_b, result, 4 if result.trial == 0 else 3)
    calls = RunFiles(run_b).trial(b[0].nodeid).trace.with_suffix(".llm-calls.jsonl")
    calls.write_text("".join(json.dumps(
        {"call": n, "step": 1, "endpoint": "chat", "asked_for": "m", "model": "gpt-test",
         "tokens_in": 1000 * n, "tokens_out": 50 * n, "cost": 0.01 * n}) + "\n" for n in (1, 2)))
    errored = RunFiles(run_b).trial(b[-1].nodeid)
    errored.traceback.write_text(f"Traceback (most recent call last):\nKeyError: {HOSTILE}\n")
    b[-1].traceback = str(errored.traceback)
    write_run(report_dir, "run-a", a, started="2026-01-01T10:00:00")
    write_run(report_dir, "run-b", b, started="2026-01-02T10:00:00")
    return run_a, run_b


BIG_TRIALS = 120
BIG_STEPS = 3000


def big_run(report_dir: Path) -> Path:
    """120 trials over 4 tasks; trial 0's trace has 3000 steps of 4 kB (over 10 MB)."""
    results = [trial_result(f"task-{n % 4}", "react", n // 4, success=n % 3 == 0,
                            improvement=0.05 * (n % 5), cost=0.01) for n in range(BIG_TRIALS)]
    run_dir = write_run(report_dir, "big", [], started="2026-01-03T10:00:00")
    write_steps(run_dir, results[0], BIG_STEPS, observation="o" * 3990, snapshots=False)
    for result in results[1:]:
        write_steps(run_dir, result, 2, snapshots=False)
    write_run(report_dir, "big", results, started="2026-01-03T10:00:00")
    return run_dir


def agent_runs(report_dir: Path, count: int = 4) -> list[Path]:
    """``count`` runs of the same two agents on house-price, 3 trials each, a day apart:
    oracle passes every trial; baseline passes trial 0 in the first run and none after;
    from the second run on, baseline's trial 2 errors (ended by the harness)."""
    folders = []
    for n in range(count):
        results = [trial_result("house-price", "oracle", t, success=True, improvement=0.2)
                   for t in range(3)]
        for t in range(3):
            result = trial_result("house-price", "baseline", t, success=n == 0 and t == 0,
                                  improvement=0.15 if n == 0 and t == 0 else 0.0,
                                  outcome="error" if n and t == 2 else "")
            results.append(result)
        for result in results:
            result.ended_by = "" if result.outcome == "error" else "final_answer"
        results[-1].message = "invalid submission: submission.csv has 3 rows, expected 5"
        if n:
            results[-1].message = "ScorerError: the scorer crashed " + "x" * 200
        folders.append(write_run(report_dir, f"run-{n}", results,
                                 started=f"2026-01-0{n + 1}T10:00:00"))
    return folders
