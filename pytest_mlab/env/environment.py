"""The environment an agent acts in: actions, limits, and the trace of what it did."""

from __future__ import annotations

import shutil
import tempfile
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_mlab.core.task import TrialLimits
from pytest_mlab.core.trace import Step, Trace
from pytest_mlab.env.actions import (
    LLM_ACTIONS,
    LOW_LEVEL_ACTIONS,
    REQUEST_HELP,
    RUN_COMMAND,
    Action,
    ActionError,
    Backups,
)
from pytest_mlab.env.actions.names import ActionName
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.env.actions.paths import inside, relative
from pytest_mlab.env.control import TrialControl
from pytest_mlab.env.progress import ProgressFile
from pytest_mlab.env.resume import ResumePoint
from pytest_mlab.env.snapshotter import Snapshotter
from pytest_mlab.env.trial_over import (
    AlreadySubmitted,
    StepLimitReached,
    TimeLimitReached,
    TrialOver,
    TrialStopped,
)
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.llm import LLMClient, Usage
from pytest_mlab.sandbox import Sandbox

__all__ = ["AlreadySubmitted", "Environment", "StepLimitReached", "TimeLimitReached",
           "TrialOver", "TrialStopped"]


def _offered(actions: tuple[Action, ...], llm: LLMClient | None,
             ask: Callable[[str], str] | None) -> dict[str, Action]:
    """The actions by name: the LLM-backed ones with an LLM, Request Help with a person."""
    if llm is not None:
        actions = (*actions, *LLM_ACTIONS)
    if ask is not None:
        actions = (*actions, REQUEST_HELP)
    return {action.name: action for action in actions}


class Environment:
    """What an agent sees: the research problem, the actions, and its budget."""

    def __init__(
        self,
        *,
        research_problem: str,
        entry: str,
        workspace: Workspace,
        sandbox: Sandbox,
        limits: TrialLimits,
        trace: Trace | None = None,
        actions: tuple[Action, ...] = LOW_LEVEL_ACTIONS,
        ask: Callable[[str], str] | None = None,
        snapshots: Snapshotter | None = None,
        resume: ResumePoint | None = None,
        llm: LLMClient | None = None,
        progress: ProgressFile | None = None,
        control: TrialControl | None = None,
        action_options: ActionOptions | None = None,
    ) -> None:
        self.research_problem = research_problem
        self.entry = entry
        """The starter script, relative to the workspace."""
        self.workspace = workspace
        self.sandbox = sandbox
        self.limits = limits
        self.actions = _offered(actions, llm, ask)
        self.ask = ask
        """Answers Request Help; None outside an interactive run."""
        self.action_options = action_options or ActionOptions()
        """What the actions return where that is a choice (--mlab-script-output, ...)."""
        scratch = Path(tempfile.mkdtemp(prefix="mlab-trial-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, scratch, ignore_errors=True)
        self.backups = Backups(scratch / "backups")
        """Earlier versions for Undo, in a temporary folder of the trial's own outside
        the workspace; ``close`` removes it."""
        self.llm = llm
        """The harness's LLM client (None for agents without one): every call through it
        is counted in the step's usage, cached and budgeted."""
        self.research_log: list[str] = []
        """Kept by the harness, outside the workspace; the research-log actions use it."""
        self._usage_mark = Usage()
        self.control = control or TrialControl()
        """Lets the harness stop the trial from outside."""
        self.control.sandbox = sandbox
        self.progress = progress
        """Rewritten after each step for the live display at -v."""
        self.trace = trace
        self.snapshots = snapshots
        self.steps_taken: list[Step] = list(resume.steps) if resume else []
        """Steps taken so far, including those before a resume."""
        self.steps = len(self.steps_taken)
        self.final_answer: str | None = None
        self._started = time.monotonic() - (resume.seconds if resume else 0.0)
        self._exit_code: int | None = None
        self._thought = ""
        self._resume_note = resume.note if resume else ""
        """Told to the agent with its first observation after a resume."""
        if snapshots is not None and resume is None:
            snapshots.take(0)

    @property
    def steps_left(self) -> int:
        return self.limits.max_steps - self.steps

    @property
    def seconds_left(self) -> float:
        return self.limits.max_time - (time.monotonic() - self._started)

    def script_timeout(self) -> float:
        return max(0.0, min(self.limits.script_timeout, self.seconds_left))

    def execute(self, action: ActionName | str, /, **args: Any) -> str:
        """Perform one step and return its observation.

        Invalid requests (any name, any arguments) come back as observations starting
        "Invalid action"; ``TrialOver`` ends the trial.
        """
        chosen = self.actions.get(action) if isinstance(action, str) else None
        return self._step(action, chosen, args)

    def run_command(self, command: str) -> str:
        """Run a shell command in the sandbox as one step, with the rest of the trial's
        time as its timeout: how an external agent's whole session is run."""
        return self._step(RUN_COMMAND.name, RUN_COMMAND, {"command": command})

    def _step(self, action: object, chosen: Action | None, args: dict[str, Any]) -> str:
        if self.control.stopped is not None:
            raise self.control.stopped
        if self.final_answer is not None:
            raise AlreadySubmitted("the final answer was already submitted")
        if self.steps >= self.limits.max_steps:
            raise StepLimitReached(f"step limit of {self.limits.max_steps} reached")
        if self.seconds_left <= 0:
            raise TimeLimitReached(f"time limit of {self.limits.max_time:g}s reached")
        self.steps += 1
        self._exit_code = None
        started = time.time()
        try:
            if chosen is None:
                raise ActionError(f"There is no action {_shown(action)}. "
                                  f"Valid actions: {', '.join(self.actions)}.")
            observation = chosen(self, args)
        except ActionError as exc:
            observation = f"Invalid action: {exc}"
        if self._resume_note:
            observation, self._resume_note = f"{self._resume_note}\n\n{observation}", ""
        name = action if isinstance(action, str) and len(action) <= 100 else _shown(action)
        recorded = {key: _recordable(value) for key, value in args.items()}
        usage: dict[str, float] = {}
        if self.llm is not None:
            usage = self.llm.usage.since(self._usage_mark).as_dict()
            self._usage_mark = self.llm.usage.copy()
            self.llm.step = self.steps + 1
        step = Step(self.steps, name, recorded, observation, started, time.time(),
                    self._exit_code, usage, self._thought)
        self._thought = ""
        self.steps_taken.append(step)
        if self.trace is not None:
            self.trace.append(step)
        if self.progress is not None:
            spent = self.llm.usage if self.llm is not None else Usage()
            self.progress.write(self.steps, self.limits.max_steps, name, spent)
        if self.snapshots is not None:
            self.snapshots.take(self.steps, self._touched(chosen, args))
        return observation

    def _touched(self, action: Action | None, args: dict[str, Any]) -> list[str] | None:
        """What a step may have changed in the workspace; None for anything."""
        if action is None or action.writes is None:
            return []
        if action.writes == "*":
            return None
        root, name = self.workspace.root, args.get(action.writes)
        try:
            return [relative(root, inside(root, name))] if isinstance(name, str) else []
        except (ActionError, OSError, ValueError):
            return []  # a name refused: nothing was written

    def finish(self) -> None:
        """Retake the last snapshot looking at every file: the watch can miss writes
        through a memory map that a process kept open across steps."""
        if self.snapshots is not None:
            self.snapshots.take(self.steps, full=True)

    def close(self) -> None:
        """Remove what the trial kept outside the workspace (the backups)."""
        self._cleanup()

    def submit(self, answer: str) -> None:
        self.final_answer = answer

    def note_exit_code(self, code: int) -> None:
        self._exit_code = code

    def note_thought(self, text: str) -> None:
        """The reasoning behind the next step, kept in its trace line for the run browser."""
        self._thought = text


def _shown(value: object, limit: int = 100) -> str:
    """``value`` for a message: its repr, cut short."""
    text = repr(value) if isinstance(value, str) else f"of type {type(value).__name__}"
    return text if len(text) <= limit else f"{text[:limit]}..."


def _recordable(value: Any) -> Any:
    """An argument as the trace can write it: text and numbers as they are, anything
    else (or a number too long to print) as a short description."""
    if value is None or isinstance(value, str | bool | float):
        return value
    if isinstance(value, int):
        return value if abs(value) < 10**18 else f"<a whole number of {value.bit_length()} bits>"
    return f"<{type(value).__name__}>"
