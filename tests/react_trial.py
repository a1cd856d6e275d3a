"""A research-agent trial in a real environment, its LLM calls going to the loopback
server: what the parity tests script and inspect."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_server import LLMServer, Reply, say

from pytest_mlab import AgentContext, AgentOptions, Environment
from pytest_mlab.core.task import TrialLimits
from pytest_mlab.env.actions.options import ActionOptions
from pytest_mlab.env.workspace import Workspace
from pytest_mlab.llm import LLMClient, LLMConfig, SamplingChoice
from pytest_mlab.sandbox import LocalSandbox, SandboxSpec
from pytest_mlab.trial.act import AgentRun, let_agent_act

PROBLEM = "Make train.py print a higher accuracy."
STARTER = "print('accuracy: 0.5')\n"
MAIN, FAST, EDIT = "gpt-4", "openai/fast-model", "openai/edit-model"


def answer(action: str, action_input: dict[str, Any] | str, thought: str = "next",
           plan: str = "1. measure the baseline") -> Reply:
    """A well-formed answer with all six fields."""
    given = action_input if isinstance(action_input, str) else json.dumps(action_input)
    return say(f"Reflection: so far so good\nResearch Plan and Status: {plan}\n"
               f"Fact Check: nothing confirmed yet\nThought: {thought}\nAction: {action}\n"
               f"Action Input: {given}")


@dataclass
class Run:
    env: Environment
    server: LLMServer
    result: str = ""
    trace: list[dict[str, Any]] = field(default_factory=list)

    @property
    def actions(self) -> list[str]:
        return [step.action for step in self.env.steps_taken]

    def requests(self, model: str) -> list[dict[str, Any]]:
        """What the server was asked, for one model as the server saw its name."""
        return [r for r in self.server.requests if r["model"] == model]

    def prompt(self, n: int) -> str:
        """The whole text of the n-th request to the main model."""
        main = self.env.llm.config.main if self.env.llm else MAIN
        request = self.requests(main.removeprefix("openai/"))[n]
        return "\n".join(m["content"] or "" for m in request["messages"])


def environment(tmp_path: Path, server: LLMServer, *, max_steps: int = 50,
                max_time: float = 600.0, main: str = MAIN, sampling: SamplingChoice | None = None,
                action_options: ActionOptions | None = None,
                files: dict[str, str] | None = None) -> Environment:
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    for name, text in {"train.py": STARTER, **(files or {})}.items():
        (root / name).write_text(text)
    config = LLMConfig(main=main, fast=FAST, edit=EDIT, api_base=server.url, backoff=0.01,
                       timeout=20.0, sampling=sampling or SamplingChoice())
    return Environment(
        research_problem=PROBLEM, entry="train.py", workspace=Workspace(root, {}),
        sandbox=LocalSandbox(SandboxSpec(root)),
        limits=TrialLimits(max_steps=max_steps, max_time=max_time, script_timeout=60.0),
        llm=LLMClient(config, label="parity"), action_options=action_options,
    )


def _react(options: AgentOptions | None) -> Any:
    from pytest_mlab.agents.react import ReactAgent

    return ReactAgent(AgentContext(task="parity", llm=MAIN, options=options or AgentOptions()))


def run_react(tmp_path: Path, server: LLMServer, replies: list[Reply], *,
              options: AgentOptions | None = None, **env_options: Any) -> Run:
    """Script ``replies`` and let the research agent act until it returns."""
    server.script.replies += replies
    env = environment(tmp_path, server, **env_options)
    run = Run(env, server)
    run.result = _react(options).run(env)
    return run


def react_turn(tmp_path: Path, server: LLMServer, replies: list[Reply], *,
               options: AgentOptions | None = None, **env_options: Any) -> tuple[AgentRun, Run]:
    """The research agent's whole turn as a trial takes it: how it ended, and the run."""
    server.script.replies += replies
    env = environment(tmp_path, server, **env_options)
    return let_agent_act(_react(options), env), Run(env, server)
