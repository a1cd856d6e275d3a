"""Runs an external coding agent's command line inside the trial's sandbox.

The command works in the workspace under the trial's limits; its output becomes the
trace, and the workspace it leaves is scored like any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from pytest_mlab.core.text import clip

from .external import PROBLEM_FILE, ExternalAgent

if TYPE_CHECKING:  # the agent loads without the environment's modules
    from pytest_mlab import AgentContext, Environment


class CommandAgent:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        if not context.options.command:
            raise ValueError("the command agent needs --mlab-agent-cmd")
        self.command = context.options.command

    def run(self, env: Environment) -> str:
        problem = env.workspace.root / PROBLEM_FILE
        problem.write_text(env.research_problem + "\n", encoding="utf-8")
        try:
            output = env.run_command(self.command.replace("{problem}", PROBLEM_FILE))
        finally:
            problem.unlink(missing_ok=True)
        summary = clip(output, 2_000)
        env.execute("Final Answer", final_answer=f"The external agent finished. {summary}")
        return output


class LLMCommandAgent(ExternalAgent):
    """The command agent given a model (``--agent=command --llm=MODEL``): the command
    finds it through the trial's gateway, and its own installation, if it brings one
    (--mlab-agent-venv), read-only in the sandbox, its tools on PATH after the trial's
    ``python``."""

    def __init__(self, context: AgentContext) -> None:
        super().__init__(context)
        if not context.options.command:
            raise ValueError("the command agent needs --mlab-agent-cmd")
        self.command = context.options.command

    def command_line(self, env: Environment) -> str:
        return self.command.replace("{problem}", PROBLEM_FILE)
