"""Applies the task's reference solution, runs it and submits: proves a task is solvable."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:  # the agent loads without the environment's modules
    from pytest_mlab import AgentContext, Environment


class OracleAgent:
    uses_llm: ClassVar[bool] = False
    needs_solution: ClassVar[bool] = True

    def __init__(self, context: AgentContext) -> None:
        if context.solution_dir is None or not context.solution_dir.is_dir():
            raise ValueError(f"{context.task} has no solution/ directory")
        self.solution_dir = context.solution_dir

    def run(self, env: Environment) -> str:
        for path in sorted(self.solution_dir.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                name = path.relative_to(self.solution_dir).as_posix()
                observation = env.execute(
                    "Write File", file_name=name, content=path.read_text(encoding="utf-8")
                )
                if observation.startswith("Invalid action"):
                    raise RuntimeError(f"the solution could not write {name}: {observation}")
        output = env.execute("Execute Script", script_name=env.entry)
        env.execute("Final Answer", final_answer="Applied the reference solution.")
        return output
