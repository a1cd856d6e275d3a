"""``python -m pytest_mlab COMMAND ...``: the command-line tools beside the plugin."""

from __future__ import annotations

import importlib
import sys

COMMANDS = {
    "plot": ("pytest_mlab.cli.plot", "redraw the paper's two figures from results.json files"),
    "task-table": ("pytest_mlab.cli.task_table", "check a suite's README table is current"),
    "validate-suite": ("pytest_mlab.cli.validate_suite",
                       "validate a suite's tasks here (all, or --changed ones)"),
    "new-task": ("pytest_mlab.cli.new_task", "make a task folder that runs and validates"),
    "agent-venv": ("pytest_mlab.cli.agent_venv", "install an external agent in its own venv"),
    "view": ("pytest_mlab.cli.view", "browse runs, side by side and step by step, on 127.0.0.1"),
    "attest": ("pytest_mlab.cli.attest", "probe a sandbox from inside and print its record"),
    "check": ("pytest_mlab.cli.check", "run the rule checks over a run's traces again"),
    "bundle": ("pytest_mlab.cli.bundle",
               "download the original tasks' data into a folder for offline machines"),
}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        lines = [f"  {name:<12} {help_text}" for name, (_, help_text) in COMMANDS.items()]
        asked = argv[:1] in (["-h"], ["--help"])  # asked for: stdout; a mistake: stderr
        print("usage: python -m pytest_mlab COMMAND [ARGS]\n\ncommands:\n" + "\n".join(lines),
              file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    module, _ = COMMANDS[argv[0]]
    code: int = importlib.import_module(module).main(argv[1:])
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
