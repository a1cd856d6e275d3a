"""AIDE (``--agent=aide``): the tree-search scaffold of aideml, run as its own ``aide``
command in the trial's sandbox, then its best solution made the task's entry script.

Its environment is made by ``python -m pytest_mlab agent-venv aide``. AIDE drafts,
debugs and improves whole scripts, running each in a folder of its own where the data is
``./input`` and ``./working`` takes its outputs; a second model call (a function call,
``submit_review``) judges each run. Both calls reach --llm's model through the trial's
gateway; its model name (``mlab``, not an OpenAI one) makes it use chat completions. Its
search takes one trial step per node, as many as the trial has left, at most
``DEFAULT_STEPS``. When it ends, its best solution, with its ``input``/``working`` paths
turned to the workspace, becomes the entry script and is run, so that the submission is
the one AIDE's best solution writes.
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING, ClassVar

from .external import PROBLEM_FILE, ExternalAgent, run_entry

if TYPE_CHECKING:
    from pytest_mlab import Environment

DEFAULT_STEPS = 20
"""aideml's own default number of nodes."""
RUNS = "/tmp/aide"  # the sandbox's scratch: AIDE's logs and its copies of the data
BEST = ".mlab-aide-best.py"
# AIDE shuffles the package list of its prompt and flips coins in its search: seeded, a
# trial's requests repeat, so that it replays.
_SEEDED = "import random; random.seed(0); from aide.run import run; run()"
# "./input/train.csv", 'input', Path("./working") ...: AIDE's folders, as string literals
# (a column named 'input' would be caught too; AIDE's prompt names only the folders).
_FOLDER = re.compile(r"""(["'])(?:\./)?(?:input|working)(/|\1)""")


def workspace_paths(code: str) -> str:
    """``code`` reading and writing the workspace where it read ./input, wrote ./working."""
    return _FOLDER.sub(lambda m: m[1] + "." + ("/" if m[2] == "/" else m[1]), code)


class Aide(ExternalAgent):
    venv_name: ClassVar[str | None] = "aide"

    def steps(self, env: Environment) -> int:
        # Two steps stay for running the best solution and the final answer.
        return max(1, min(DEFAULT_STEPS, env.steps_left - 2))

    def command_line(self, env: Environment) -> str:
        assert self.venv is not None  # the fixture supplies it or skips the trial
        settings = {
            "data_dir": "$PWD", "desc_file": f"$PWD/{PROBLEM_FILE}",
            "log_dir": f"{RUNS}/logs", "workspace_dir": f"{RUNS}/workspaces",
            "exp_name": "mlab", "copy_data": "False", "preprocess_data": "False",
            "generate_report": "False", "exec.timeout": str(max(1, int(env.limits.script_timeout))),
            "agent.steps": str(self.steps(env)),
            "agent.code.model": "mlab", "agent.feedback.model": "mlab",
        }
        # "$PWD" is left for the shell; every other value is quoted.
        args = " ".join(f'{key}="{value}"' if "$PWD" in value else shlex.quote(f"{key}={value}")
                        for key, value in settings.items())
        aide = shlex.join([str(self.venv / "bin" / "python"), "-c", _SEEDED])
        copy = f"cp {RUNS}/logs/*-mlab/best_solution.py {BEST}"
        return f"{aide} {args} </dev/null; status=$?; {copy} 2>/dev/null; exit $status"

    def after(self, env: Environment) -> str:
        best = env.workspace.root / BEST
        if not best.is_file():
            return "\nAIDE left no solution."
        code = workspace_paths(best.read_text(encoding="utf-8"))
        best.unlink()
        (env.workspace.root / env.entry).write_text(code, encoding="utf-8")
        return run_entry(env, "AIDE's best solution")
