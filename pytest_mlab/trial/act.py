"""The agent's turn: let it act in its environment and say how the turn ended."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.env.agent import Agent
from pytest_mlab.env.environment import (
    AlreadySubmitted,
    Environment,
    StepLimitReached,
    TimeLimitReached,
)
from pytest_mlab.llm import BudgetExceeded, Usage


@dataclass(frozen=True)
class AgentRun:
    ended_by: str
    """'final answer', 'agent returned', 'step limit', 'time limit', 'LLM budget' or
    'agent error'."""
    steps: int
    seconds: float
    agent_error: str | None = None
    """The exception the agent raised, when it crashed: it then meant to submit nothing."""
    usage: Usage = field(default_factory=Usage)
    """What the trial's LLM calls used."""


_ENDINGS: tuple[tuple[type[Exception], str], ...] = (
    (AlreadySubmitted, "final answer"), (StepLimitReached, "step limit"),
    (TimeLimitReached, "time limit"), (BudgetExceeded, "LLM budget"),
)


def let_agent_act(agent: Agent, env: Environment) -> AgentRun:
    """Run ``agent`` in ``env`` until it returns or a limit stops it. Harness faults
    (``InfrastructureError``) propagate; the agent's own bugs end only its turn."""
    started = time.monotonic()
    agent_error = None
    try:
        agent.run(env)
        ended_by = "final answer" if env.final_answer is not None else "agent returned"
    except InfrastructureError:
        raise
    except Exception as exc:
        ended_by = next((name for kind, name in _ENDINGS if isinstance(exc, kind)), "")
        if not ended_by:
            ended_by, agent_error = "agent error", f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    env.finish()
    usage = env.llm.usage.copy() if env.llm is not None else Usage()
    return AgentRun(ended_by, env.steps, seconds, agent_error, usage)
