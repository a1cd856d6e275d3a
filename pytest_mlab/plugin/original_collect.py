"""The collector of one original task folder (kept apart: it pulls in the task model)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.original_task import OriginalTask, load_original
from pytest_mlab.core.overlay import Overlay, read_overlay
from pytest_mlab.core.task import TaskSpec
from pytest_mlab.env.task_env import task_interpreter
from pytest_mlab.plugin.collect import TaskFile, TrialItem
from pytest_mlab.plugin.keys import SETTINGS_KEY, TRIAL_KEY
from pytest_mlab.plugin.original import original_bundle
from pytest_mlab.plugin.warnings import MlabWarning

UNSOUND_MARK = pytest.mark.mlab_unsound_eval
GPU_IMAGE = "pytest-mlab-mlagentbench-gpu"
"""The tag tasks/mlagentbench/gpu-image/Dockerfile is built as, in what the skip tells."""


def docker_only(task: TaskSpec, sandbox: str, gpus: tuple[str, ...]) -> str | None:
    """Why a GPU task cannot run in ``sandbox``, or None: the original GPU tasks run their
    scripts in the docker sandbox, which passes the leased devices in. Where the machine
    lacks the GPUs, the lease's own skip says so instead, as no sandbox can help."""
    needed = task.manifest.resources.gpus
    if not needed or sandbox == "docker" or len(gpus) < needed:
        return None
    return (f"{task.name} runs its GPU scripts in the docker sandbox only, with the leased "
            f"GPU passed in, not in the {sandbox} sandbox (pass --mlab-sandbox=docker "
            f"--mlab-docker-image={GPU_IMAGE} after docker build -t {GPU_IMAGE} "
            "tasks/mlagentbench/gpu-image)")


def unsound_eval(overlay: Overlay) -> str | None:
    """The warning for a task scored by an original eval.py known to be unsound, or None:
    none for a task that cannot run at all, whose items say why when they are skipped."""
    if overlay.eval_sound or overlay.scorer or overlay.unavailable:
        return None
    return (f"{overlay.name}: the original eval.py scores it, and it is not sound: "
            f"{overlay.eval_note.rstrip('.')}. Its scores can be gamed; deselect it with "
            f"-m 'not {UNSOUND_MARK.name}'")


class OriginalTaskFile(TaskFile):
    """An original task folder, collected through its research_problem.txt."""

    def __init__(self, *args: Any, overlays: Path, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.overlays = overlays

    def load(self) -> TaskSpec:
        config = self.config
        cache_dir = config.stash[SETTINGS_KEY].cache_dir
        return load_original(
            self.path.parent.parent, self.overlays, cache_dir / "original-shims",
            accept_rules=bool(config.getoption("mlab_accept_rules")),
            bundle=original_bundle(config),
            interpreter_of=lambda overlay: partial(task_interpreter, cache_dir, overlay),
        )

    def collect(self) -> Iterator[TrialItem]:
        settings = self.config.stash[SETTINGS_KEY]
        unsound: str | None = None
        overlay_read = False
        for item in super().collect():
            spec = item.stash.get(TRIAL_KEY, None)
            reason = spec and docker_only(spec.task, settings.sandbox, settings.gpus)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
            if not overlay_read and spec is not None and isinstance(spec.task, OriginalTask):
                unsound = unsound_eval(read_overlay(spec.task.overlay_path))  # one task per file
                overlay_read = True
            if unsound:
                item.add_marker(UNSOUND_MARK)
            yield item
        if unsound:
            warnings.warn(MlabWarning(unsound), stacklevel=1)
