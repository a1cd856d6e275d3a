"""What the external agents share: the research problem in a file, the agent's command
line run in the sandbox under the gateway's shim, and its end told like a native one's.

Each adapter says how its agent is started (``command_line``); the environment it finds
its model in (``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` holding the trial's token, ...) is the
sandbox's. A spent budget or a provider that failed for good ends the trial as it ends a
native agent's: the gateway refuses further calls, stops the command, and the agent
raises what ended it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from pytest_mlab.core.text import clip

if TYPE_CHECKING:  # the agent loads without the environment's modules
    from pytest_mlab import AgentContext, Environment, Gateway

PROBLEM_FILE = ".mlab-research-problem.md"


class ExternalAgent:
    """An agent that runs as a program of its own in the trial's sandbox."""

    uses_llm: ClassVar[bool] = True
    needs_solution: ClassVar[bool] = False
    uses_gateway: ClassVar[bool] = True
    venv_name: ClassVar[str | None] = None
    """The adapter's environment in the cache (``python -m pytest_mlab agent-venv NAME``)."""

    def __init__(self, context: AgentContext) -> None:
        if context.gateway is None:
            raise ValueError(f"{type(self).__name__} needs the trial's LLM gateway (--llm)")
        self.gateway: Gateway = context.gateway
        self.venv: Path | None = context.agent_venv
        self.options = context.options

    @property
    def python(self) -> str:
        """The interpreter the sandbox runs the shim (and a venv's agent) with."""
        return str(self.venv / "bin" / "python") if self.venv else sys.executable

    def command_line(self, env: Environment) -> str:
        """The shell command that runs the agent in the workspace; ``PROBLEM_FILE`` holds
        the research problem."""
        raise NotImplementedError

    def after(self, env: Environment) -> str:
        """What the adapter does once its agent has finished, before the final answer;
        returns what to add to the agent's output."""
        return ""

    def run(self, env: Environment) -> str:
        problem = env.workspace.root / PROBLEM_FILE
        problem.write_text(env.research_problem + "\n", encoding="utf-8")
        try:
            # The sandbox's PATH makes `python` the trial's, its folder first; the agent's
            # tools come after it.
            output = env.run_command(self.gateway.wrap(self.python, self.command_line(env)))
        finally:
            problem.unlink(missing_ok=True)
        if self.gateway.ended is not None:
            raise self.gateway.ended
        output += self.after(env)
        env.execute("Final Answer", final_answer=f"The external agent finished after "
                    f"{self.gateway.calls} LLM calls. {clip(output, 2_000)}")
        return output


def run_entry(env: Environment, agent: str) -> str:
    """The entry script run as ``agent`` left it, so that its submission exists."""
    if not (env.workspace.root / env.entry).is_file():
        return f"\n{agent} left no {env.entry}."
    ran = env.execute("Execute Script", script_name=env.entry)
    return f"\n{env.entry}, as {agent} left it:\n{ran}"
