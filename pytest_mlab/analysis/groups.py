"""Results grouped by task x agent x llm: the unit every table, chart and gate counts in."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mlab.core.results import Outcome, TrialResult

RAN: tuple[Outcome, ...] = ("passed", "failed")
"""Trials the agent had its turn in; errors and skips are the harness's and count apart."""


@dataclass(frozen=True)
class Group:
    task: str
    agent: str
    llm: str | None

    @property
    def label(self) -> str:
        return "/".join(part for part in (self.task, self.agent, self.llm) if part)

    def __lt__(self, other: Group) -> bool:
        return (self.task, self.agent, self.llm or "") < (other.task, other.agent, other.llm or "")


def by_group(results: Iterable[TrialResult]) -> dict[Group, list[TrialResult]]:
    """Groups in task, agent, llm order; each keeps its results in the order given."""
    groups: dict[Group, list[TrialResult]] = {}
    for result in results:
        groups.setdefault(Group(result.task, result.agent, result.llm), []).append(result)
    return dict(sorted(groups.items(), key=lambda item: item[0]))
