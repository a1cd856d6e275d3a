"""Does a task measure ML work? Its starter over several seeds gives a real mean and spread;
the bar must stand well clear of that noise; the reference solution must clear it every
time; the null submission and every cheap heuristic must not; and the starter must beat
every heuristic, or the bar would reward a trick. A task's ladder (core/ladder.py) runs
over the starter's seeds, and trial/ladder.py checks it."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pytest_mlab.core.baseline import Baseline, summarize
from pytest_mlab.core.ladder import Rung, missing_rungs, rung_of
from pytest_mlab.core.results import TrialResult
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.agent import AgentContext
from pytest_mlab.env.data import PreparedData
from pytest_mlab.trial.agents import load_agent
from pytest_mlab.trial.fresh import SandboxMaker, run_fresh
from pytest_mlab.trial.ladder import check_reference_on_top, check_short_of_bar, climb
from pytest_mlab.trial.spec import TRIAL_SEEDS, Overrides, TrialSpec

NOISE_SDS = 5.0
"""The bar must stand this many baseline standard deviations above the baseline's mean."""
TIE_SDS = 3.0
"""A heuristic beats the starter only when it does better by more than this many starter
standard deviations: a single run of a timing task's heuristic as fast as the starter
lands on either side of its mean by chance."""
SEEDS = 5
SOLUTION_TRIALS = 3
REGENERATE = "regenerate-from-seed"
"""The heuristic a generated task must have: its generator run again with the seed its
public code gives (or a guess at one), which must not reproduce the answers."""


@dataclass
class Validation:
    """A task's validation figures, and the rules it breaks (none when it is sound)."""

    task: str
    mirrors: str
    metric: str
    direction: str
    threshold: float
    baseline: list[float] = field(default_factory=list)
    baseline_seconds: list[float] = field(default_factory=list)
    solution: list[float | None] = field(default_factory=list)
    solution_seconds: list[float] = field(default_factory=list)
    null: str = ""
    heuristics: dict[str, float | None] = field(default_factory=dict)
    """The cheap heuristics' scores, one run each."""
    ladder: dict[str, Rung] = field(default_factory=dict)
    """The ladder's rungs by name, each over the starter's seeds; empty for a task without."""
    problems: list[str] = field(default_factory=list)
    fingerprint: str = ""
    """What the figures depend on (core/validation_fingerprint.py), and its parts."""
    fingerprint_parts: dict[str, str] = field(default_factory=dict)
    machine: dict[str, str] = field(default_factory=dict)
    """The facts of the machine that measured them (core/machine.py)."""

    @property
    def mean_sd(self) -> tuple[float, float]:
        return summarize(self.baseline)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _better(score: float, than: float, direction: str) -> bool:
    return score > than if direction == "higher" else score < than


def _runs(
    task: TaskSpec, data: PreparedData, make: SandboxMaker, files: Path | None, agent: str,
    seeds: range, baseline: Baseline | None,
) -> list[TrialResult]:
    context = AgentContext(task=task.name, llm=None, solution_dir=files)
    return [
        run_fresh(task, data, load_agent(agent)(context),
                  TrialSpec(task, agent, None, k, seed=seed), make, baseline)
        for k, seed in enumerate(seeds)
    ]


def validate(task: TaskSpec, data: PreparedData, make: SandboxMaker,
             seeds: int = SEEDS) -> Validation:
    """Run the starter over ``seeds`` seeds, the solution, the null submission, every cheap
    heuristic once and each rung of the ladder over the starter's seeds, and check each
    rule; ``problems`` says in a sentence each what failed."""
    metric = task.manifest.metric
    check = Validation(task.name, task.manifest.mirrors, metric.name, metric.direction,
                       Overrides().threshold_for(task))
    if task.manifest.data.generated and not (task.heuristics_dir / REGENERATE).is_dir():
        check.problems.append(f"the task's data is generated ([data] generated = true) but "
                              f"it has no heuristics/{REGENERATE}/ to show that public code "
                              "cannot draw the answers again")
    starters = _runs(task, data, make, None, "baseline", range(seeds), None)
    for run in starters:
        if run.score is None:
            check.problems.append(f"the starter has no valid score with seed {run.seed}: "
                                  f"{run.message}")
    check.baseline = [r.score for r in starters if r.score is not None]
    check.baseline_seconds = [r.seconds for r in starters]
    if len(check.baseline) < seeds:
        return check
    mean, sd = check.mean_sd
    baseline = Baseline(mean, sd, len(check.baseline), "recorded")
    _check_noise(check, mean, sd)
    _check_solution(check, _runs(task, data, make, task.solution_dir, "oracle",
                                 range(TRIAL_SEEDS, TRIAL_SEEDS + SOLUTION_TRIALS), baseline))
    once = range(TRIAL_SEEDS, TRIAL_SEEDS + 1)
    if task.null_dir.is_dir():
        (null,) = _runs(task, data, make, task.null_dir, "oracle", once, baseline)
        check.null = null.message
        if null.success:
            check.problems.append(f"the null submission passes: {null.message}")
    folders = sorted(p for p in task.heuristics_dir.glob("*") if p.is_dir())
    for folder in (f for f in folders if rung_of(f.name) is None):
        (run,) = _runs(task, data, make, folder, "oracle", once, baseline)
        _check_heuristic(check, folder.name, run, mean, sd)
    ladder = climb(folders, lambda folder: _runs(task, data, make, folder, "oracle",
                                                 range(seeds), baseline),
                   mean, check.direction, check.problems)
    _check_ladder(check, [f.name for f in folders], ladder, sd)
    _check_times(check, task)
    return check


def _check_ladder(check: Validation, folders: list[str], ladder: dict[str, Rung],
                  sd: float) -> None:
    check.ladder = ladder
    missing = missing_rungs(folders)
    if missing:
        check.problems.append("the task has a ladder but no heuristics/" + ", heuristics/"
                              .join(missing) + ": a ladder has every rung")
    mean = check.mean_sd[0]
    check.problems += check_short_of_bar(ladder, check.threshold, mean, sd, check.direction)
    check.problems += check_reference_on_top(ladder, check.solution, check.metric, mean,
                                             check.direction)


def _check_noise(check: Validation, mean: float, sd: float) -> None:
    spread = sd / abs(mean) if mean else float("inf")
    if check.threshold < NOISE_SDS * spread:
        check.problems.append(
            f"the bar ({check.threshold:.1%}) is only {check.threshold / spread:.1f} baseline "
            f"sd above the mean (sd {spread:.1%} of it); it must be at least {NOISE_SDS:g}: "
            f"raise threshold to {NOISE_SDS * spread:.3f} or steady the starter"
        )


def _check_solution(check: Validation, runs: list[TrialResult]) -> None:
    check.solution = [r.score for r in runs]
    check.solution_seconds = [r.seconds for r in runs]
    failed = [r for r in runs if not r.success]
    if failed:
        check.problems.append(f"the solution failed {len(failed)} of {len(runs)} runs: "
                              f"{failed[0].message}")


def _check_heuristic(
    check: Validation, name: str, run: TrialResult, mean: float, sd: float
) -> None:
    check.heuristics[name] = run.score
    margin = TIE_SDS * sd if check.direction == "higher" else -TIE_SDS * sd
    if run.success:
        check.problems.append(f"the heuristic {name} clears the bar: {run.message}")
    elif run.score is not None and _better(run.score, mean + margin, check.direction):
        check.problems.append(f"the starter ({check.metric}={mean:.4g} ± {sd:.2g}) does not "
                              f"beat the heuristic {name} ({run.score:.4g})")


def _check_times(check: Validation, task: TaskSpec) -> None:
    budget = task.manifest.limits.script_timeout
    for what, seconds in (("starter", check.baseline_seconds),
                          ("solution", check.solution_seconds)):
        if seconds and statistics.fmean(seconds) > budget / 2:
            check.problems.append(
                f"the {what} takes {statistics.fmean(seconds):.0f} s, more than half the "
                f"task's script_timeout ({budget:g} s)"
            )

