"""Actions that run code in the sandbox, and Final Answer."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pytest_mlab.core.text import clip
from pytest_mlab.env.actions.base import Action, ActionContext, ActionError
from pytest_mlab.env.actions.paths import inside, relative

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest_mlab.env.actions.options import ScriptOutput
    from pytest_mlab.sandbox import ExecResult


OUTPUT_LIMIT = 10_000
"""What --mlab-script-output=both keeps of the two streams (head and tail)."""
OBSERVATION_LIMIT = 20_000
"""What the paper's way keeps of the stream it shows (head and tail): MLAgentBench keeps
everything, so one observation could cost the research agent a dozen summary calls."""


def _capped(text: str) -> str:
    if len(text) <= OBSERVATION_LIMIT:
        return text
    half = OBSERVATION_LIMIT // 2
    cut = len(text) - 2 * half
    return (f"{text[:half]}\n[... {cut} characters of output cut here: an observation keeps "
            f"the first and the last {half:,} characters ...]\n{text[-half:]}")


def _shown(result: ExecResult, streams: ScriptOutput) -> str:
    """The output an agent sees. ``paper``, as in MLAgentBench: stdout when the script
    succeeded (stderr if stdout is empty), stderr when it failed, so library warnings
    on stderr stay out of a successful run's observation; past ``OBSERVATION_LIMIT``
    characters, its head and tail (the original clips nothing)."""
    if streams == "both":
        return clip((result.stdout + result.stderr).strip() or "(no output)", OUTPUT_LIMIT)
    succeeded = result.returncode == 0 and not result.timed_out
    text = result.stdout if succeeded else result.stderr
    if succeeded and not text.strip():
        text = result.stderr
    return _capped(text.strip()) or "(no output)"


def _run(env: ActionContext, argv: Sequence[str], what: str, timeout: float | None = None,
         streams: ScriptOutput | None = None) -> str:
    timeout = env.script_timeout() if timeout is None else timeout
    result = env.sandbox.run(argv, timeout)
    env.note_exit_code(result.returncode)
    if result.stopped_by:
        status = f"{what} was stopped: {result.stopped_by}."
    elif result.timed_out:
        status = f"{what} was stopped after {timeout:.0f} seconds."
    elif result.returncode != 0:
        status = f"{what} failed with exit code {result.returncode}."
    else:
        status = f"{what} ran to completion."
    if result.left_running:
        many = result.left_running != 1
        status += (f" {result.left_running} process{'es' if many else ''} it left running "
                   f"{'were' if many else 'was'} stopped when it ended.")
    return f"{status} Output:\n{_shown(result, streams or env.action_options.script_output)}"


def execute_script(env: ActionContext, script_name: str) -> str:
    # As MLAgentBench: any file is run by Python, whatever its name ends in. Only regular
    # files: Python would wait for ever on a FIFO or a device.
    path = inside(env.workspace.root, script_name)
    if not path.is_file():
        raise ActionError(f"{script_name!r} is not a file in the workspace.")
    name = relative(env.workspace.root, path)
    # A name starting with "-" would be read as one of Python's own options.
    return _run(env, [sys.executable, f"./{name}" if name.startswith("-") else name],
                "The script")


def python_repl(env: ActionContext, command: str) -> str:
    return _run(env, [sys.executable, "-c", command], "The code")


def run_command(env: ActionContext, command: str) -> str:
    # An external agent's whole session: its log is in both streams.
    return _run(env, ["/bin/sh", "-c", command], "The command", max(0.0, env.seconds_left),
                streams="both")


def final_answer(env: ActionContext, final_answer: str) -> str:
    env.submit(final_answer)
    return "Final answer submitted; the workspace will be scored."


EXECUTE_SCRIPT = Action(
    "Execute Script", "Run a Python script of the workspace and return its output: what "
    "it printed, or its error messages if it failed. The script must already exist.",
    {"script_name": "a Python script, relative to the workspace"}, execute_script, writes="*",
)
PYTHON_REPL = Action(
    "Python REPL",
    "Run Python code in the workspace and return its output. Each call starts a fresh "
    "interpreter: nothing carries over between calls except files.",
    {"command": "Python source code"}, python_repl, writes="*",
)
RUN_COMMAND = Action(
    "Run Command",
    "Run a shell command in the workspace for the rest of the trial's time (external agents).",
    {"command": "a shell command line"}, run_command, writes="*",
)
FINAL_ANSWER = Action(
    "Final Answer", "Give the final answer to the task.",
    {"final_answer": "a detailed description of the final answer"}, final_answer,
)
