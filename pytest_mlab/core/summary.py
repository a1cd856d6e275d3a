"""What results.json says of a run as a whole: per task x agent x llm, what k attempts would
give, and per agent the mean normalised score over the suite (``analysis/summary.py`` makes
it from the records; see the README's Metrics for each formula)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class GroupSummary(BaseModel):
    """One task x agent x llm, over the trials that ran (passed or failed)."""

    model_config = ConfigDict(extra="forbid")

    task: str
    agent: str
    llm: str | None
    n: int
    """Trials that ran; errors and skips are the harness's and count apart."""
    passed: int
    unreproduced: int = 0
    """Trials that ran and were unreproduced, counted apart beside ``passed``."""
    pass_at_k: dict[int, float] = {}
    """k = 1..n: the chance that at least one of k trials passes."""
    pass_hat_k: dict[int, float] = {}
    """k = 1..n: the chance that all k trials pass."""
    best_of_k: dict[int, float] = {}
    """k = 1..n: the expected best improvement of k trials, a trial without a valid
    submission counting as the starting point (0)."""
    mean_normalised: float | None = None
    """Mean normalised score, a trial without a valid submission counting as 0; None where
    the task has no reference or baseline."""
    normalised_scores: list[float] = []
    """Each trial's normalised score that ran, in node-id order (0 where it left no valid
    submission); empty where the task has no scale."""
    errors: int = 0
    """Trials that ended in a harness error."""
    pass_at_k_with_errors: dict[int, float] = {}
    """k = 1..n + errors: pass@k with each error counted as a failed trial; empty where
    no trial errored."""
    mean_normalised_with_errors: float | None = None
    """The mean normalised score with each error counted as 0; None where no trial
    errored or the task has no scale."""
    reference_note: str | None = None
    """Where its reference was not measured where its baseline was, the sentence saying so
    (the trials' ``reference_note``); None where it was, or the task has no scale."""

    @property
    def ran(self) -> int:
        return self.n


class AgentSummary(BaseModel):
    """One agent x llm over the suite."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    llm: str | None
    mean_normalised: float | None = None
    """The mean over tasks of each task's mean normalised score."""
    tasks: int = 0
    """Tasks in that mean."""
    tasks_without: list[str] = []
    """Tasks the agent ran that have no normalised score (no reference or baseline)."""
    tasks_reference_apart: list[str] = []
    """Tasks in the mean whose reference was not measured where their baseline was."""
    mean_normalised_with_errors: float | None = None
    """The same mean, each task's errors counted as 0; None where no trial errored."""
    success_rate: float | None = None
    """The mean over tasks of each task's success rate (every task weighs the same)."""
    success_low: float | None = None
    success_high: float | None = None
    """Its 95% interval, a bootstrap over tasks and over trials within tasks."""
    success_tasks_share: float | None = None
    """The share of its variance from which tasks the suite holds; the rest from trials."""
    normalised_low: float | None = None
    normalised_high: float | None = None
    normalised_tasks_share: float | None = None
    """The same for the mean normalised score."""


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    groups: list[GroupSummary] = []
    agents: list[AgentSummary] = []
    errors: int = 0
    """Trials that ended in a harness error: the run is clean only without any."""
    clean: bool = True
