"""pytest-mlab: can a language-model agent do ML experimentation?

The public API for agent and task authors. A task's ``prepare.py`` and ``score.py``
need only ``InvalidSubmission`` and ``TaskUnavailable``, imported eagerly and cheaply;
everything else is loaded on first use, so importing this package never pulls in
pytest, pydantic or an LLM library.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.core.version import __version__

if TYPE_CHECKING:
    from pytest_mlab.env.actions.base import Action
    from pytest_mlab.env.actions.names import ActionName
    from pytest_mlab.env.agent import Agent, AgentContext, AgentOptions
    from pytest_mlab.env.environment import (
        AlreadySubmitted,
        Environment,
        StepLimitReached,
        TimeLimitReached,
        TrialOver,
    )
    from pytest_mlab.llm import BudgetExceeded, Completion, LLMClient, PromptTooLong, Usage
    from pytest_mlab.llm.gateway import Gateway
    from pytest_mlab.sandbox import ExecResult, ResourceLimits, Sandbox, SandboxSpec

_LAZY = {
    "Action": "pytest_mlab.env.actions.base", "ActionName": "pytest_mlab.env.actions.names",
    "Agent": "pytest_mlab.env.agent", "AgentContext": "pytest_mlab.env.agent",
    "AgentOptions": "pytest_mlab.env.agent",
    "Environment": "pytest_mlab.env.environment", "TrialOver": "pytest_mlab.env.environment",
    "StepLimitReached": "pytest_mlab.env.environment",
    "TimeLimitReached": "pytest_mlab.env.environment",
    "AlreadySubmitted": "pytest_mlab.env.environment",
    "LLMClient": "pytest_mlab.llm", "Completion": "pytest_mlab.llm", "Usage": "pytest_mlab.llm",
    "BudgetExceeded": "pytest_mlab.llm", "PromptTooLong": "pytest_mlab.llm",
    "Gateway": "pytest_mlab.llm.gateway",
    "Sandbox": "pytest_mlab.sandbox", "SandboxSpec": "pytest_mlab.sandbox",
    "ExecResult": "pytest_mlab.sandbox", "ResourceLimits": "pytest_mlab.sandbox",
}

__all__ = ["Action", "ActionName", "Agent", "AgentContext", "AgentOptions", "AlreadySubmitted",
           "BudgetExceeded", "Completion", "Environment", "ExecResult", "Gateway",
           "InvalidSubmission",
           "LLMClient", "PromptTooLong", "ResourceLimits", "Sandbox", "SandboxSpec",
           "StepLimitReached", "TaskUnavailable", "TimeLimitReached", "TrialOver", "Usage",
           "__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'pytest_mlab' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
