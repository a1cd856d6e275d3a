"""Prepare and score an original MLAgentBench task folder (see core/original_task.py).

prepare: a scratch copy of the folder, the original's ``scripts/prepare.py`` run in it
as the original runs it (from ``scripts/``, writing the agent's data to ``../env``), and
what it asks the user to run by hand (the overlay's ``manual_steps``); then what they added
to ``env/`` becomes the public data and ``scripts/`` (answers and
``eval.py``) the private half, beside the starter's modules ``eval.py`` may import; the
overlay's ``mounted_data`` archives are unpacked beside the two halves. The user's
checkout is never written.

score: the overlay's replacement scorer, or the original's ``get_score`` on the copy of
the submission; an exception it raises on that copy makes the submission invalid, unless
it failed to read a file outside the submission (then the trial is an error).
"""

from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from pytest_mlab.core.errors import InvalidSubmission, ScorerError, TaskUnavailable
from pytest_mlab.core.module_file import load_file
from pytest_mlab.core.original_shims import write_startup
from pytest_mlab.core.original_task import (
    BLANKERS,
    SCORERS,
    STARTUP,
    mounted_folder,
)
from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.taskkit.archives import fetch_archive
from pytest_mlab.taskkit.held_back import HELD, empty, hold_back, link_for_eval
from pytest_mlab.taskkit.hub_folders import bundled_hub, prepare_hub
from pytest_mlab.taskkit.offline import offline_environ
from pytest_mlab.taskkit.original_sources import OFFLINE_LOG, check_bundle, check_sources

PREPARE_SECONDS = 3 * 3600.0
# The original's prepare scripts ask for consent with input(); with --mlab-accept-rules
# each question is answered with an empty line, else stdin is closed.
_CONSENT = "\n" * 16
_TAIL = 3000


def _files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def _run(argv: list[str], cwd: Path, accept_rules: bool, extra: dict[str, str]) -> None:
    """A script of the original (``argv[0]``), run by this interpreter as the original
    runs it; ``extra``'s PATH and PYTHONPATH go before the harness's."""
    env = dict(os.environ)
    for name, value in extra.items():
        env[name] = (value + os.pathsep + env[name] if name in ("PATH", "PYTHONPATH")
                     and env.get(name) else value)
    script = f"the original {Path(argv[0]).name}"
    try:
        done = subprocess.run(
            [sys.executable, "-B", *argv], cwd=cwd, capture_output=True, text=True, env=env,
            input=_CONSENT if accept_rules else None,
            stdin=None if accept_rules else subprocess.DEVNULL, timeout=PREPARE_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"{script} took over {PREPARE_SECONDS:g}s") from None
    if done.returncode != 0:
        output = (done.stdout + done.stderr)[-_TAIL:]
        raise RuntimeError(f"{script} exited {done.returncode}:\n{output}")


def prepare(folder: Path, overlay_path: Path, accept_rules: bool,
            public: Path, private: Path, bundle: Path | None = None) -> None:
    """``bundle``: the offline bundle to take every download from (``offline.py``)."""
    overlay = read_overlay(overlay_path)
    if overlay.unavailable:
        raise TaskUnavailable(overlay.unavailable)
    scratch = private.parent / "original"
    extra: dict[str, str] = {}
    opened = None
    if bundle is None:
        check_sources(overlay, accept_rules)
    else:
        opened = check_bundle(overlay, bundle, accept_rules)
        extra = offline_environ(opened.root, private.parent / "offline",
                                private.parent / OFFLINE_LOG)
        if overlay.python_startup:  # e.g. a check of a file the bundle stands in for
            module = overlay_path.parent / STARTUP / overlay.python_startup
            startup = write_startup(module, private.parent / "offline")
            extra["PYTHONPATH"] += os.pathsep + str(startup)
    shutil.rmtree(scratch, ignore_errors=True)
    ignore = shutil.ignore_patterns("__pycache__", "prepared")
    shutil.copytree(folder / "env", scratch / "env", ignore=ignore, symlinks=True)
    shutil.copytree(folder / "scripts", scratch / "scripts", ignore=ignore, symlinks=True)
    for link, target in overlay.prepare_links.items():
        (scratch / "scripts" / link).parent.mkdir(parents=True, exist_ok=True)
        (scratch / "scripts" / link).symlink_to(target)
    if (scratch / "scripts" / "prepare.py").is_file():
        _run(["prepare.py"], scratch / "scripts", accept_rules, extra)
    # What prepare.py asked the user to do by hand (fathomnet's download of its images),
    # with the checkout's script: prepare.py deletes its own copy.
    for script, *args in overlay.manual_steps:
        _run([str(folder / "env" / script), *args], scratch / "env", accept_rules, extra)
    for link in overlay.prepare_links:
        (scratch / "scripts" / link).unlink()
    starter = _files(folder / "env")
    for rel in sorted(_files(scratch / "env") - starter):
        (public / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(scratch / "env" / rel, public / rel)
    shutil.move(scratch / "scripts", private / "scripts")
    blank = (load_file(overlay_path.parent / BLANKERS / overlay.blanker, "mlab_blanker").blank
             if overlay.blanker else empty)
    hold_back(public, private, overlay.withhold_files, blank)
    # eval.py may import the starter's own modules from ../env (train.py, metric.py), or
    # read starter files from the submission folder (starter_for_eval).
    for rel in sorted(starter):
        if rel.endswith(".py") or rel in overlay.starter_for_eval:
            (private / "env" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(folder / "env" / rel, private / "env" / rel)
    shutil.rmtree(scratch)
    prepare_hub(overlay.hub, public, private, fetch=bundled_hub(opened) if opened else None)
    for entry in overlay.mounted_data:
        fetch_archive(entry.archive, mounted_folder(private.parent, entry.path),
                      local=opened.file(entry.archive) if opened else None)


def _original_score(submission: Path, private: Path, starter_for_eval: tuple[str, ...]
                    ) -> float:
    """The original's get_score, from a folder that holds links to the public data (its
    eval.py reads data such as ./data or ./networks relative to where it runs), the
    held-back versions in place of the agent's, on the submission with the starter files
    it reads put back as the original has them."""
    eval_script = private / "scripts" / "eval.py"
    if not eval_script.is_file():
        raise RuntimeError("the original task has no scripts/eval.py and its overlay names "
                           "no replacement scorer")
    for rel in starter_for_eval:
        (submission / rel).parent.mkdir(parents=True, exist_ok=True)
        (submission / rel).unlink(missing_ok=True)
        shutil.copyfile(private / "env" / rel, submission / rel)
    with tempfile.TemporaryDirectory(prefix="mlab-original-eval-") as tmp:
        if (private / HELD).is_dir():
            # Its loads of held-back data are cached here, not in the machine's cache,
            # where a later load of the agent's blanked copy might meet them.
            os.environ["HF_DATASETS_CACHE"] = str(Path(tmp) / "datasets-cache")
        module = load_file(eval_script, "mlab_original_eval")  # its import errors: the harness's
        (Path(tmp) / "run").mkdir()
        link_for_eval(private.parent / "public", private / HELD, Path(tmp) / "run")
        here = Path.cwd()
        os.chdir(Path(tmp) / "run")
        try:
            value: Any = module.get_score(str(submission))
        except Exception as exc:
            said = f"{type(exc).__name__}: " + " ".join(str(exc).split())[:300]
            if _outside(exc, submission):
                raise ScorerError(f"the original eval.py could not read its own files: {said}"
                                  ) from None
            raise InvalidSubmission(f"the original eval.py rejected the submission: {said}"
                                    ) from None
        finally:
            os.chdir(here)
    return float(value)


def _outside(exc: Exception, submission: Path) -> bool:
    """Whether eval.py failed on a file outside the submission (its answers, the data):
    no submission can cause that, so it is the harness's fault. Called from eval.py's
    working folder, which relative names are read against."""
    if not isinstance(exc, OSError) or exc.filename is None:
        return False
    path = Path(os.path.abspath(os.fsdecode(exc.filename)))
    return not path.is_relative_to(os.path.abspath(submission))


def score(overlay_path: Path, submission: Path, private: Path, runner: Any) -> float:
    overlay = read_overlay(overlay_path)
    if overlay.scorer:
        scorer = load_file(overlay_path.parent / SCORERS / overlay.scorer, "mlab_original_scorer")
        return float(scorer.score(submission, private, runner))
    if overlay.python_startup:
        # eval.py runs here, in the scorer's process: what the task's processes run first
        # (cifar10's: torchvision's checks of the files the harness checked itself).
        runpy.run_path(str(overlay_path.parent / STARTUP / overlay.python_startup))
    return _original_score(submission, private, overlay.starter_for_eval)
