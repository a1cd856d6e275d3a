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
from pytest_mlab.plugin.collection.original_data import original_bundle
from pytest_mlab.plugin.keys import SETTINGS_KEY, TRIAL_KEY
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
        unsound: str | None = None
        why_not: str | None = None
        overlay_read = False
        for item in super().collect():
            spec = item.stash.get(TRIAL_KEY, None)
            if not overlay_read and spec is not None and isinstance(spec.task, OriginalTask):
                overlay = read_overlay(spec.task.overlay_path)  # one task per file
                unsound = unsound_eval(overlay)
                why_not = not_here(spec.task, overlay, self.config)
                overlay_read = True
            if why_not:
                item.add_marker(pytest.mark.skip(reason=why_not))
            if unsound:
                item.add_marker(UNSOUND_MARK)
            yield item
        if unsound:
            warnings.warn(MlabWarning(unsound), stacklevel=1)


def not_here(task: OriginalTask, overlay: Overlay, config: pytest.Config) -> str | None:
    """Why the task cannot run in this session, found before anything is made for it (its
    environment, its data); None if nothing is known to stop it."""
    if overlay.unavailable:
        return f"{task.name}: {overlay.unavailable}"
    settings = config.stash[SETTINGS_KEY]
    needed, pool = task.manifest.resources.gpus, settings.gpus
    if needed > len(pool):
        have = f"{len(pool)} GPU{'s' if len(pool) != 1 else ''}" if pool else "no GPU"
        return (f"{task.name} needs {needed} GPU{'s' if needed != 1 else ''}, this machine "
                f"has {have} (set --mlab-gpus or CUDA_VISIBLE_DEVICES)")
    if reason := docker_only(task, settings.sandbox, pool):
        return reason
    if overlay.heavy_env and config.getoption("mlab_skip_heavy_envs"):
        return (f"{task.name}: its own environment is too large for this run "
                f"({overlay.heavy_env}); run it without --mlab-skip-heavy-envs")
    bundle = original_bundle(config)
    lacks = bundle.lacks(overlay) if bundle is not None else None
    return f"{task.name} needs {lacks}" if lacks else None
