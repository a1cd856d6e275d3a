"""One trial, without pytest: let the agent act, then score what it left behind."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from pytest_mlab.env.agent import Agent
from pytest_mlab.env.data import PreparedData
from pytest_mlab.env.environment import (
    AlreadySubmitted,
    Environment,
    Limits,
    ResumePoint,
    StepLimitReached,
    TimeLimitReached,
)
from pytest_mlab.core.errors import InfrastructureError
from pytest_mlab.llm import BudgetExceeded, LLMClient, Usage
from pytest_mlab.env.progress import ProgressFile
from pytest_mlab.sandbox import Sandbox
from pytest_mlab.trial.scoring import Scored, score_workspace
from pytest_mlab.core.snapshots import Snapshotter
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.core.trace import Trace
from pytest_mlab.env.workspace import Workspace


@dataclass(frozen=True)
class TrialRun:
    ended_by: str
    """'final answer', 'agent returned', 'step limit', 'time limit' or 'agent error'."""
    steps: int
    seconds: float
    scored: Scored | None
    """None when the agent crashed: there is nothing it meant to submit."""
    agent_error: str | None = None
    usage: Usage = field(default_factory=Usage)
    """What the trial's LLM calls used."""


def run_trial(
    task: TaskSpec,
    data: PreparedData,
    agent: Agent,
    workspace: Workspace,
    sandbox: Sandbox,
    limits: Limits,
    trace: Trace | None = None,
    *,
    snapshots: Snapshotter | None = None,
    resume: ResumePoint | None = None,
    ask: Callable[[str], str] | None = None,
    llm: LLMClient | None = None,
    progress: ProgressFile | None = None,
) -> TrialRun:
    env = Environment(
        research_problem=task.manifest.research_problem, entry=task.manifest.entry,
        workspace=workspace, sandbox=sandbox, limits=limits, trace=trace,
        snapshots=snapshots, resume=resume, ask=ask, llm=llm, progress=progress,
    )
    started = time.monotonic()
    agent_error = None
    try:
        agent.run(env)
        ended_by = "final answer" if env.final_answer is not None else "agent returned"
    except AlreadySubmitted:
        ended_by = "final answer"
    except StepLimitReached:
        ended_by = "step limit"
    except TimeLimitReached:
        ended_by = "time limit"
    except BudgetExceeded:
        ended_by = "LLM budget"
    except InfrastructureError:
        raise
    except Exception as exc:  # the agent's own bug fails its trial, nothing more
        ended_by = "agent error"
        agent_error = f"{type(exc).__name__}: {exc}"
    seconds = time.monotonic() - started
    env.finish()
    scored = None if agent_error else score_workspace(task, workspace, data)
    usage = llm.usage.copy() if llm is not None else Usage()
    return TrialRun(ended_by, env.steps, seconds, scored, agent_error, usage)
