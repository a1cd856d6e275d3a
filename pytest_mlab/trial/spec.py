"""Which trial to run, and the run-wide overrides of each task's own limits and bar."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # kept out of the plugin's start-up: the task model needs pydantic
    from pytest_mlab.core.task import TaskSpec, TrialLimits

DEFAULT_THRESHOLD = 0.10
TRIAL_SEEDS = 1000
"""Trial k runs with MLAB_SEED = 1000 + k; baselines are measured with seeds 0, 1, ...,
so that no trial replays a baseline's run."""
Retention = Literal["all", "failed", "none"]
"""Which trials' workspaces are kept after the run."""
RETENTIONS: tuple[Retention, ...] = ("all", "failed", "none")
Reproduce = Literal["auto", "off"]
"""auto: reproduce the trials of tasks whose entry script makes the submission."""
REFERENCES = ("validation", "here")
"""--mlab-reference's choices: validation.json's reference, or one measured where the
baseline is (trial/reference_measure.py)."""
REPRODUCE_CHOICES: tuple[Reproduce, ...] = ("auto", "off")


@dataclass(frozen=True)
class TrialSpec:
    """One trial: a task, an agent, the agent's model (if it uses one) and a trial number."""

    task: TaskSpec
    agent: str
    llm: str | None
    trial: int
    seed: int | None = None
    """MLAB_SEED of the trial; None: ``TRIAL_SEEDS + trial``."""

    @property
    def mlab_seed(self) -> int:
        return self.seed if self.seed is not None else TRIAL_SEEDS + self.trial

    @property
    def name(self) -> str:
        """The item name: ``task[agent-llm-tK]``."""
        parts = [self.agent] + ([self.llm] if self.llm else []) + [f"t{self.trial}"]
        return f"{self.task.name}[{'-'.join(parts)}]"


@dataclass(frozen=True)
class Overrides:
    """What the command line changes for every task of a run; None keeps the task's own."""

    threshold: float | None = None
    max_steps: int | None = None
    max_time: float | None = None
    script_timeout: float | None = None
    require_final_answer: bool = False
    """Only a trial whose agent submitted a Final Answer may pass (by default the final
    workspace is scored however the turn ended, as in MLAgentBench)."""
    reproduce: Reproduce = "auto"
    strict: bool = False
    """An unreproduced trial fails (by default it keeps its verdict and is counted apart)."""

    def reproduces(self, task: TaskSpec) -> bool:
        """Whether a trial of ``task`` has its entry script run again after the turn."""
        return self.reproduce == "auto" and task.entry_makes_submission

    def threshold_for(self, task: TaskSpec) -> float:
        """The relative improvement a trial of ``task`` needs to pass."""
        return self.threshold or task.manifest.threshold or DEFAULT_THRESHOLD

    def limits_for(self, task: TaskSpec) -> TrialLimits:
        """The task's limits with this run's overrides applied."""
        own = task.manifest.limits
        return own.model_copy(update={
            "max_steps": self.max_steps or own.max_steps,
            "max_time": self.max_time or own.max_time,
            "script_timeout": self.script_timeout or own.script_timeout,
        })
