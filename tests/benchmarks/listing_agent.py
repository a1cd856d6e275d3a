"""An agent that runs no script: it lists the workspace and gives its final answer, so a
trial of it costs only the harness's own work (loaded as listing_agent:ListingAgent)."""

from __future__ import annotations

from typing import ClassVar

from pytest_mlab import AgentContext, Environment


class ListingAgent:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = False

    def __init__(self, context: AgentContext) -> None:
        self.context = context

    def run(self, env: Environment) -> str:
        listing = env.execute("List Files", dir_path=".")
        env.execute("Final Answer", final_answer="Listed the workspace; ran nothing.")
        return listing
