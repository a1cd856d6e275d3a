"""An original task's own Python environment: its pinned libraries, made once per machine.

Each of MLAgentBench's tasks pins libraries of its own (vectorization numpy<2.4,
contrails numpy<2, feedback scikit-learn<1.6), which no one environment holds together
with the harness's. So each task's code runs in a virtual environment that holds what its
overlay installs, made once and kept in the cache under the hash of everything that
decides its contents::

    task-envs/<task>-<hash>/bin/python      the task's interpreter
    task-envs/<task>-<hash>/mlab-env.json   what it holds, how and how fast it was made

What the task names is resolved anew, with its dependencies, with only torch and its
companions held at the harness's versions, so that no other build of torch (a CUDA one of
gigabytes) is pulled in. Holding every library of the harness was tried: a pin the
harness's versions cannot meet then resolves to whatever ancient release has no such
dependency (transformers<4.51 against the harness's tokenizers gave transformers 2.3.0),
which installs and then fails in the task's code. After installing, a ``.pth`` file puts
the harness's own site folders after the environment's, so the task's code finds its
pinned libraries first and the harness's helpers (``pytest_mlab.taskkit``) and everything
else after them. A task whose requirements the harness meets has no environment.

The installer is uv where it is installed, else pip. Measured on a 2-core machine from
local wheels: an environment with numpy<2.4 took uv 1.0 s cold and 0.12 s warm, pip
6.3 s either way; one with torch, pandas and scikit-learn took uv 4.7 s cold and 0.34 s
warm, pip 39 to 49 s (pip unpacks every wheel again, where uv links the files from its
cache). uv compiles the bytecode as it installs, as pip does: the task's interpreters run
with -B, and without it every process compiled the task's libraries again (babylm's
environment now takes 31 s to make instead of 14 s, and the grid of the originals on the
synthetic bundle 2 min 52 s instead of 3 min 50 s).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import site
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.errors import TaskUnavailable
from pytest_mlab.core.original_task import STARTUP
from pytest_mlab.core.overlay import Overlay, read_overlay
from pytest_mlab.core.pip_sources import pip_sources
from pytest_mlab.env.task_requirements import (
    TaskEnvError,
    harness_constraints,
    harness_meets,
    task_requirements,
)

RECORD = "mlab-env.json"
"""Written last: an environment without it was never finished."""
_PTH = "zz-pytest-mlab-harness.pth"
"""Sorted after every other .pth file of the environment, so the harness comes last."""
_TAIL = 2000
@dataclass(frozen=True)
class EnvPlan:
    """What a task's environment installs, under which constraints, with which tool."""

    task: str
    requirements: tuple[str, ...]
    constraints: tuple[str, ...]
    installer: str
    modules: tuple[str, ...] = ()
    """What the task's code imports (the overlay's ``requirements``): each must import in
    the finished environment, or it is not finished."""
    startup: str = ""
    """The task's startup module (``python_startup``), which its processes run first."""

    def key(self) -> str:
        """The hash of everything that decides the environment's contents."""
        text = json.dumps([sys.version, sys.base_prefix, self.requirements,
                           self.constraints, self.installer, site.getsitepackages()])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def uv_binary() -> str | None:
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return shutil.which("uv")
    return str(find_uv_bin())


def plan_env(overlay: Overlay, overlay_path: Path | None = None) -> EnvPlan:
    """``overlay_path``: where the overlay lies, beside its startup modules."""
    requirements = task_requirements(overlay)
    startup = (str(overlay_path.parent / STARTUP / overlay.python_startup)
               if overlay_path and overlay.python_startup else "")
    return EnvPlan(overlay.name, requirements, harness_constraints(requirements),
                   "uv" if uv_binary() else "pip", tuple(overlay.requirements), startup)


def env_dir(cache_dir: Path, plan: EnvPlan) -> Path:
    return cache_dir / "task-envs" / f"{plan.task}-{plan.key()}"


def env_python(env: Path) -> Path:
    return env / "bin" / "python"


def read_record(env: Path) -> dict[str, object] | None:
    """What a finished environment holds and how long it took, or None if unfinished."""
    try:
        return dict(json.loads((env / RECORD).read_text()))
    except (OSError, ValueError):
        return None


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-_TAIL:]
        raise TaskEnvError(f"{what} failed (exit {done.returncode}):\n{tail}")


def _venv(plan: EnvPlan, target: Path) -> None:
    what = f"making {plan.task}'s environment"
    if plan.installer == "uv":
        _run([_uv(), "venv", "--quiet", "--python", sys.executable, str(target)],
             what)
    else:
        _run([sys.executable, "-B", "-m", "venv", str(target)], what)


def _uv() -> str:
    return uv_binary() or "uv"


def _install(plan: EnvPlan, target: Path, constraints: Path, sources: list[str]) -> None:
    what = f"installing {' '.join(plan.requirements)} for {plan.task}"
    if plan.installer == "uv":
        # Compiled, as pip compiles: the task's interpreters run with -B, so an
        # environment without bytecode compiled its libraries again in every process.
        _run([_uv(), "pip", "install", "--quiet", "--compile-bytecode", "--python",
              str(env_python(target)), *sources, "--constraint", str(constraints),
              *plan.requirements], what)
    else:
        _run([str(env_python(target)), "-m", "pip", "install", "--quiet",
              "--constraint", str(constraints), *plan.requirements], what)


def _install_held(plan: EnvPlan, target: Path) -> None:
    """Install under the plan's constraints, from the harness's package sources."""
    constraints = target.with_name(target.name + ".constraints.txt")
    sources = pip_sources() if plan.installer == "uv" else []
    try:
        write_atomic(constraints, "\n".join(plan.constraints) + "\n")
        _install(plan, target, constraints, sources)
    finally:
        constraints.unlink(missing_ok=True)


def _imports(plan: EnvPlan, env: Path) -> None:
    """Installed is not working: a resolver may satisfy every pin with releases that do
    not work together (datasets 2.14 with pyarrow 26), which only an import shows."""
    if plan.modules:
        first = f"import runpy; runpy.run_path({plan.startup!r}); " if plan.startup else ""
        _run([str(env_python(env)), "-c", f"{first}import {', '.join(plan.modules)}"],
             f"importing {', '.join(plan.modules)} in {plan.task}'s environment")


def _site_folder(env: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return env / "lib" / version / "site-packages"


_MADE: dict[tuple[Path, Path], str | TaskUnavailable] = {}


def _unavailable(task: str, exc: TaskEnvError) -> TaskUnavailable:
    """One sentence: what failed, and the installer's verdict, which names the package."""
    head, _, said = str(exc).partition("\n")
    words = " ".join(said.replace("\u2570\u2500\u25b6", " ").replace("\u00d7", " ").split())
    verdict = words[words.rfind("Because"):] if "Because" in words else words[-300:]
    return TaskUnavailable(f"{task}'s own Python environment cannot be made: {head.rstrip(':')}"
                           + (f" ({verdict})" if verdict else ""))


def task_interpreter(cache_dir: Path, overlay_path: Path) -> str:
    """The Python that runs the task's code: the harness's own where it holds everything
    the overlay asks for (asked every time: cheap, and a module may have gone since),
    else the task's environment, made first if need be (looked for once per process).
    ``TaskUnavailable`` where it cannot be made."""
    overlay = read_overlay(overlay_path)
    if harness_meets(overlay):
        return sys.executable
    key = (cache_dir, overlay_path)
    if key not in _MADE:
        try:
            plan = plan_env(overlay, overlay_path)
            _MADE[key] = str(env_python(make_task_env(cache_dir, plan)))
        except TaskEnvError as exc:
            _MADE[key] = _unavailable(overlay.name, exc)
    made = _MADE[key]
    if isinstance(made, TaskUnavailable):
        raise made
    return made


def make_task_env(cache_dir: Path, plan: EnvPlan) -> Path:
    """The task's environment, made first if this machine has none with these contents
    (several sessions may ask at once: one makes it, the others wait and take it)."""
    env = env_dir(cache_dir, plan)
    if read_record(env) is not None:
        return env
    env.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(env) + ".lock"):
        if read_record(env) is not None:
            return env
        shutil.rmtree(env, ignore_errors=True)  # an unfinished one: made again
        started = time.monotonic()
        try:
            _venv(plan, env)
            _install_held(plan, env)
        except TaskEnvError:
            shutil.rmtree(env, ignore_errors=True)
            raise
        harness = [folder for folder in site.getsitepackages() if Path(folder).is_dir()]
        lines = [f"import site; site.addsitedir({folder!r})" for folder in harness]
        write_atomic(_site_folder(env) / _PTH, "\n".join(lines) + "\n")
        try:
            _imports(plan, env)
        except TaskEnvError:
            shutil.rmtree(env, ignore_errors=True)
            raise
        record = {"task": plan.task, "requirements": list(plan.requirements),
                  "installer": plan.installer, "held": list(plan.constraints),
                  "seconds": round(time.monotonic() - started, 2)}
        write_atomic(env / RECORD, json.dumps(record, indent=1))
    return env
