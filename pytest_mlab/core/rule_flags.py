"""What the rule checks found in a trial: one flag per finding, with the step it names."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator

from pytest_mlab.core.plain_text import one_line


class RuleFlag(BaseModel):
    """A step that broke, or looks to have broken, a rule of the benchmark."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: str
    """The check that raised it: 'submission-by-action', 'copied-from-data', 'answer-read',
    'network', 'harness-path', 'left-running', or 'llm-judge:QUESTION'."""
    step: int | None
    """The step it names; None where no single step is to blame."""
    sentence: str
    """What was seen, in one sentence."""

    @field_validator("sentence")
    @classmethod
    def _printable(cls, text: str) -> str:
        # The sentence quotes agent text (a file name, a command): it reaches terminals.
        return one_line(text)

    def __str__(self) -> str:
        where = f"step {self.step}" if self.step is not None else "the trial"
        return f"{self.check} at {where}: {self.sentence}"
