"""The collector of one original task folder (kept apart: it pulls in the task model)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_mlab.core.original_task import load_original
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.plugin.collect import TaskFile
from pytest_mlab.plugin.keys import SETTINGS_KEY


class OriginalTaskFile(TaskFile):
    """An original task folder, collected through its research_problem.txt."""

    def __init__(self, *args: Any, overlays: Path, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.overlays = overlays

    def load(self) -> TaskSpec:
        config = self.config
        return load_original(
            self.path.parent.parent, self.overlays,
            config.stash[SETTINGS_KEY].cache_dir / "original-shims",
            accept_rules=bool(config.getoption("mlab_accept_rules")),
        )
