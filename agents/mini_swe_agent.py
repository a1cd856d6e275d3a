"""mini-swe-agent (``--agent=mini-swe-agent``): the SWE-bench agent that acts only through
bash, run as its own ``mini`` command in the trial's sandbox.

Its environment is made by ``python -m pytest_mlab agent-venv mini-swe-agent``. It talks
to the trial's gateway as an OpenAI-compatible server through litellm (any model name is
answered by --llm's model), runs its commands in the workspace, and ends when it echoes
COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT, in yolo mode (no confirmations). Its own cost
limit is off: the trial's budget (--mlab-max-tokens, --mlab-max-cost) applies instead.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, ClassVar

from .external import PROBLEM_FILE, ExternalAgent

if TYPE_CHECKING:
    from pytest_mlab import Environment

# Where the agent writes its settings and trajectory: the sandbox's scratch /tmp.
_SETTINGS = {
    "MSWEA_CONFIGURED": "true", "MSWEA_SILENT_STARTUP": "1",
    "MSWEA_GLOBAL_CONFIG_DIR": "/tmp/mini-swe-agent", "MSWEA_COST_TRACKING": "ignore_errors",
    # A refused call (the budget spent) is not worth ten attempts; the shim stops it anyway.
    "MSWEA_MODEL_RETRY_STOP_AFTER_ATTEMPT": "3",
}


class MiniSweAgent(ExternalAgent):
    venv_name: ClassVar[str | None] = "mini-swe-agent"

    def command_line(self, env: Environment) -> str:
        assert self.venv is not None  # the fixture supplies it or skips the trial
        settings = " ".join(f"{name}={value}" for name, value in _SETTINGS.items())
        base = self.gateway.environment()["OPENAI_BASE_URL"]
        argv = [
            str(self.venv / "bin" / "mini"), "--yolo", "--exit-immediately",
            "--model", "openai/mlab", "--cost-limit", "0",
            "--output", "/tmp/mini-swe-agent/trajectory.json",
            "-c", "mini.yaml", "-c", f"model.model_kwargs.api_base={base}",
            # Its commands get the task's script timeout, not mini's own 30 seconds.
            "-c", f"environment.timeout={max(1, int(env.limits.script_timeout))}",
        ]
        return f'{settings} {shlex.join(argv)} --task "$(cat {PROBLEM_FILE})"'
