"""aider (``--agent=aider``): the pair-programming agent of aider-chat, run once,
non-interactively, on the task's entry script in the trial's sandbox.

Its environment is made by ``python -m pytest_mlab agent-venv aider``. It is given the
research problem as its one message (``--message-file``) and the entry script as the file
it edits, answers yes to every question (``--yes-always``, which also runs the shell
commands it proposes), and keeps no git history, no repository map and nothing of its own
in the workspace. Its model, ``openai/mlab``, is --llm's model through the trial's
gateway. aider edits code but does not run experiments of its own accord, so once it is
done the entry script is run, and the submission is the one it writes.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, ClassVar

from .external import PROBLEM_FILE, ExternalAgent, run_entry

if TYPE_CHECKING:
    from pytest_mlab import Environment

STATE = "/tmp/aider"  # the sandbox's scratch: its histories and caches
_QUIET = ("--no-git", "--no-auto-commits", "--no-gitignore", "--no-check-update",
          "--analytics-disable", "--no-show-model-warnings", "--no-show-release-notes",
          "--no-fancy-input", "--no-pretty", "--no-stream", "--map-tokens", "0",
          "--no-restore-chat-history", "--yes-always")


class Aider(ExternalAgent):
    venv_name: ClassVar[str | None] = "aider"

    def command_line(self, env: Environment) -> str:
        assert self.venv is not None  # the fixture supplies it or skips the trial
        argv = [
            str(self.venv / "bin" / "aider"), *_QUIET, "--model", "openai/mlab",
            "--openai-api-base", self.gateway.environment()["OPENAI_BASE_URL"],
            "--chat-history-file", f"{STATE}/chat.md",
            "--input-history-file", f"{STATE}/input",
            "--llm-history-file", f"{STATE}/llm.log",
            "--message-file", PROBLEM_FILE, env.entry,
        ]
        return f"mkdir -p {STATE}; HOME={STATE} {shlex.join(argv)} </dev/null"

    def after(self, env: Environment) -> str:
        return run_entry(env, "aider")

