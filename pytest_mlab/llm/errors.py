"""How an LLM call can end a trial."""

from __future__ import annotations

from pytest_mlab.core.errors import InfrastructureError


class LLMError(InfrastructureError):
    """The provider failed for good; ``error_class`` names its exception."""

    def __init__(self, message: str, error_class: str) -> None:
        super().__init__(message)
        self.error_class = error_class


class MissingKey(LLMError):
    """The environment variable the provider needs is not set."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "MissingKey")


class ReplayMiss(LLMError):
    """Replay mode met a request that was never recorded."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "ReplayMiss")


class BudgetExceeded(Exception):
    """The trial spent its token or cost budget; it ends like a step limit."""


class PromptTooLong(Exception):
    """The request is longer than the model's context. Not a harness fault: as in
    MLAgentBench, an action reports it as its observation, and an agent may end its turn
    on it by letting it propagate (``ended_by`` is then "prompt too long" and the workspace
    is scored as it is)."""

    fails_trial: bool = False
    """Set by an agent that ends its turn on it as MLAgentBench's run ended: with no final
    workspace to score, so the trial fails (``--mlab-long-prompt=fail``)."""
