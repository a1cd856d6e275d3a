"""The agent's turn: let it act in its environment and say how the turn ended."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.env.agent import Agent
from pytest_mlab.env.environment import (
    AlreadySubmitted,
    Environment,
    StepLimitReached,
    TimeLimitReached,
    TrialStopped,
)
from pytest_mlab.llm import BudgetExceeded, LLMError, PromptTooLong, Usage


@dataclass(frozen=True)
class AgentRun:
    ended_by: str
    """'final answer', 'agent returned', 'step limit', 'time limit', 'LLM budget',
    'prompt too long', 'agent error', 'LLM error' or 'stopped'."""
    steps: int
    seconds: float
    agent_error: str | None = None
    """The exception the agent raised, when it crashed: it then meant to submit nothing."""
    usage: Usage = field(default_factory=Usage)
    """What the trial's LLM calls used."""
    agent_traceback: str | None = None
    fault: str | None = None
    """A harness fault that ended the agent's turn, in words (the LLM provider failed for
    good, a timeout stopped the trial); the workspace is still scored."""
    fault_class: str | None = None


_ENDINGS: tuple[tuple[type[Exception], str], ...] = (
    (AlreadySubmitted, "final answer"), (StepLimitReached, "step limit"),
    (TimeLimitReached, "time limit"), (BudgetExceeded, "LLM budget"),
)


def _limit_met(env: Environment) -> str:
    """How a turn that returned without a Final Answer ended: at a limit of the trial if
    one is spent (the agent's own bound, such as the research agent's count of its
    steps, may notice it before the environment does), else 'agent returned'."""
    if env.steps_left <= 0:
        return "step limit"
    if env.seconds_left <= 0:
        return "time limit"
    if env.llm is not None:
        try:
            env.llm.check_budget()
        except BudgetExceeded:
            return "LLM budget"
    return "agent returned"


def let_agent_act(agent: Agent, env: Environment) -> AgentRun:
    """Run ``agent`` in ``env`` until it returns or a limit stops it. The agent's own bugs
    end only its turn (traceback kept); so do an LLM provider that failed for good and a
    stop from outside, as faults; any other harness fault propagates."""
    started = time.monotonic()
    ended_by, agent_error, agent_traceback = "agent returned", None, None
    fault = fault_class = None
    try:
        agent.run(env)
        ended_by = "final answer" if env.final_answer is not None else _limit_met(env)
    except LLMError as exc:
        ended_by, fault_class = "LLM error", exc.error_class
        fault = f"the LLM provider failed for good ({exc})"
    except TrialStopped as exc:
        ended_by, fault, fault_class = "stopped", str(exc), exc.error_class
    except PromptTooLong as exc:
        ended_by = "prompt too long"
        if exc.fails_trial:  # as MLAgentBench's run: no final workspace, nothing scored
            agent_error = f"PromptTooLong: {exc} (--mlab-long-prompt=fail)"
    except InfrastructureError:
        raise
    except Exception as exc:
        named = next((name for kind, name in _ENDINGS if isinstance(exc, kind)), None)
        if named is not None:
            ended_by = named
        else:
            ended_by, agent_error = "agent error", f"{type(exc).__name__}: {exc}"
            agent_traceback = traceback.format_exc()
    seconds = time.monotonic() - started
    env.finish()
    usage = env.llm.usage.copy() if env.llm is not None else Usage()
    return AgentRun(ended_by, env.steps, seconds, agent_error, usage, agent_traceback, fault,
                    fault_class)
