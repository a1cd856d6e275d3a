"""What the rule checks need to know of a trial beyond its trace and snapshots, written
beside the trace when the trial starts so that ``python -m pytest_mlab check RUN`` can
check it again later without the task, its data or the session's settings."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pytest_mlab.core.atomic import write_atomic

EVERY_FILE = "**"
"""A submission pattern that makes the whole workspace (code included) what is scored."""


class RuleFacts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    submission: tuple[str, ...] = ("submission.csv",)
    """The task's submission patterns."""
    answers: tuple[str, ...] = ()
    """Patterns of workspace files the task lists as giving its answers away."""
    data: dict[str, str] = {}
    """Relative path -> sha256 of each file the agent may not change (the public data)."""
    hidden: tuple[str, ...] = ()
    """The task's ``hide`` entries: paths, or python:MODULE."""
    harness_paths: tuple[str, ...] = ()
    """Folders of the harness no script has any business naming: the cache, the run."""
    workspace: str = ""
    """The trial's workspace, which may lie inside one of ``harness_paths``."""
    research_problem: str = ""
    """What the agent was asked to do, for the LLM judge."""

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def read(cls, path: Path) -> RuleFacts:
        return cls.model_validate_json(path.read_text(encoding="utf-8"))
