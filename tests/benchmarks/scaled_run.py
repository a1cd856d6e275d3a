"""A run of any size made from a real one: the records of a short session of two lite
tasks, copied and varied, each copy with files of its own.

The session: house-price and titanic, two trials each of the oracle (passes), the baseline
(fails) and an agent that raises after a step (fails, with a traceback). Each copy takes a
record of its agent's kind (the oracle's for the oracle, the baseline's for the baseline,
either in turn for the agents with an LLM), names its own task, agent, LLM and trial,
draws its improvement around the real one (and its score, outcome and normalised score
from it), and gets LLM usage where its agent has a model. One trial in 37 is a harness
error and one in 53 is skipped, as the plugin records them: no trace, no score. Every
other copy has its own trace, progress, result, rule facts and snapshot manifests: hard
links to the real trial's files, renamed, so that each is read as a trial of its own.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pytest_mlab.core.results import RunResults, TrialResult
from pytest_mlab.core.run_files import RunFiles, TrialFiles

REPO = Path(__file__).parent.parent.parent
AGENTS = (("oracle", None), ("baseline", None), ("research", "gpt-4o-mini"),
          ("research", "claude-3-5-haiku"), ("langchain", "gpt-4o-mini"))


@dataclass(frozen=True)
class Layout:
    """How a run's trials fall into tasks x agents: ``tasks`` None grows the tasks with the
    run (``trials`` per group); else the groups grow (``trials`` None: as many as fit)."""

    name: str
    tasks: int | None
    trials: int | None

    def shape(self, size: int) -> tuple[int, int]:
        """Tasks, and trials per task x agent."""
        if self.tasks is None:
            assert self.trials is not None
            return -(-size // (len(AGENTS) * self.trials)), self.trials
        return self.tasks, -(-size // (len(AGENTS) * self.tasks))


WIDE = Layout("wide", None, 20)
"""5 agents x 20 trials per task, as many tasks as the size needs."""
DEEP = Layout("deep", 2, None)
"""2 tasks x 5 agents, as many trials per group as the size needs."""


def real_session(folder: Path) -> Path:
    """The run folder of a short real session (the module's docstring). Its cache is its
    own, data and baselines made there (minutes): the machine's core leases are kept in
    the cache, and a session sharing the user's waits for every other session's trials."""
    reports = folder / "reports"
    command = [sys.executable, "-m", "pytest", "tasks/lite/house-price", "tasks/lite/titanic",
               "--agent=oracle", "--agent=baseline", "--agent=scripted_agents:CrashingAgent",
               "--mlab-trials=2", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
               f"--mlab-report-dir={reports}", f"--mlab-cache-dir={folder / 'cache'}",
               "--mlab-keep-workspaces=none"]
    examples = REPO / "tests" / "examples"
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800,
                          env=os.environ | {"PYTEST_ADDOPTS": "", "PYTHONPATH": str(examples)})
    found = list(reports.glob("*/results.json"))
    assert len(found) == 1, done.stdout[-3000:] + done.stderr[-2000:]
    return found[0].parent


def _model(records: list[TrialResult], task: str, agent: str, trial: int) -> TrialResult:
    if agent in ("oracle", "baseline"):
        kinds = [agent]
    else:
        kinds = ["oracle", "baseline", "scripted_agents:CrashingAgent"]
    same = [r for r in records if r.task == task and r.agent in kinds]
    return same[trial % len(same)]


def _unrun(copy: TrialResult, outcome: str, message: str, error: str | None) -> TrialResult:
    """The copy as the plugin records a trial that never reached its verdict."""
    return TrialResult(
        nodeid=copy.nodeid, task=copy.task, agent=copy.agent, llm=copy.llm, trial=copy.trial,
        metric=copy.metric, direction=copy.direction, outcome=outcome,  # type: ignore[arg-type]
        success=False, threshold=copy.threshold, seed=copy.seed, analogue_of=copy.analogue_of,
        reference_mean=copy.reference_mean, message=message, error_class=error,
    )


def _varied(model: TrialResult, copy: TrialResult, rng: random.Random) -> None:
    if model.improvement is None or model.baseline_mean is None:
        return
    gain = model.improvement * rng.uniform(0.5, 1.5) + rng.uniform(-0.05, 0.05)
    sign = 1 if model.direction == "higher" else -1
    copy.score = model.baseline_mean * (1 + sign * gain)
    copy.improvement, copy.success = gain, gain >= model.threshold
    copy.outcome = "passed" if copy.success else "failed"
    if model.reference_mean is not None and model.reference_mean != model.baseline_mean:
        span = model.reference_mean - model.baseline_mean
        copy.normalised_score = (copy.score - model.baseline_mean) / span


def copy_of(records: list[TrialResult], layout: Layout, size: int,
            n: int) -> tuple[TrialResult, TrialResult]:
    """The ``n``-th record of a run of ``size`` trials (its files not yet linked), and the
    real record it was made from."""
    tasks = sorted({r.task for r in records})
    _, trials = layout.shape(size)
    task_n, rest = divmod(n, len(AGENTS) * trials)
    agent_n, trial = divmod(rest, trials)
    (agent, llm), real = AGENTS[agent_n], tasks[task_n % len(tasks)]
    model = _model(records, real, agent, trial)
    task = f"{real}-{task_n:04d}"
    item = f"{agent}-{llm}-t{trial}" if llm else f"{agent}-t{trial}"
    copy = model.model_copy(update={
        "task": task, "agent": agent, "llm": llm, "trial": trial, "workspace": None,
        "nodeid": f"tasks/scale/{task}/task.toml::{task}[{item}]"})
    rng = random.Random(n)
    _varied(model, copy, rng)
    if llm:
        copy.tokens_in, copy.tokens_out = rng.randint(5_000, 50_000), rng.randint(500, 5_000)
        copy.cost = copy.tokens_in * 1.5e-7 + copy.tokens_out * 6e-7
    if n % 37 == 5:
        copy = _unrun(copy, "error", f"{task}: ScorerError: score.py exited 1", "ScorerError")
    elif n % 53 == 7:
        copy = _unrun(copy, "skipped", f"{task}: needs a GPU and this machine has none", None)
    return copy, model


def _link(source: Path, model: TrialResult, run_dir: Path, copy: TrialResult) -> str:
    assert model.trace is not None
    real = TrialFiles(source, TrialFiles.of_trace(Path(model.trace)).name)
    mine = RunFiles(run_dir).trial(copy.nodeid)
    for path in real.trace.parent.glob(f"{real.name}.*"):
        os.link(path, mine.trace.parent / (mine.name + path.name[len(real.name):]))
    mine.manifests.mkdir(parents=True)
    for manifest in real.manifests.iterdir():
        os.link(manifest, mine.manifests / manifest.name)
    return str(mine.trace)


def scaled_run(source: Path, layout: Layout, size: int, run_dir: Path) -> RunResults:
    """A run of ``size`` records made from the real run in ``source``, its files in
    ``run_dir`` (results.json not written)."""
    real = RunResults.read(source / "results.json")
    shutil.copytree(source / "snapshots" / "objects", run_dir / "snapshots" / "objects",
                    symlinks=True)
    (run_dir / "traces").mkdir(parents=True)
    records = []
    for n in range(size):
        copy, model = copy_of(real.results, layout, size, n)
        if copy.trace is not None:
            copy.trace = _link(source, model, run_dir, copy)
        records.append(copy)
    info = real.run.model_copy(update={"run_id": run_dir.name, "selected": size})
    return RunResults(run=info, results=records)
