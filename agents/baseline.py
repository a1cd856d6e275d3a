"""Runs the starter script unchanged and submits: the reference every agent must beat."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # the agent loads without the environment's modules
    from pytest_mlab import AgentContext, Environment


class BaselineAgent:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run(self, env: Environment) -> str:
        observation = env.execute("Execute Script", script_name=env.entry)
        env.execute("Final Answer", final_answer="Ran the starter script unchanged.")
        return observation
