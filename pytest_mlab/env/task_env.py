"""An original task's own Python environment: its pinned libraries, made once per machine.

Each of MLAgentBench's tasks pins libraries of its own (vectorization numpy<2.4,
contrails numpy<2, feedback scikit-learn<1.6), which no one environment holds together
with the harness's. So each task's code runs in a virtual environment that holds what its
overlay installs, made once and kept in the cache under the hash of everything that
decides its contents::

    task-envs/<task>-<hash>/bin/python      the task's interpreter
    task-envs/<task>-<hash>/mlab-env.json   what it holds, how and how fast it was made

Libraries the task does not name come from the harness: every distribution installed
here is a constraint at the version installed here, unless the overlay pins that library
itself. Where that cannot be resolved (a pin of numpy<2 against the harness's pandas 3,
which needs numpy 2), only torch and its companions stay held, so that no other build of
torch (a CUDA one of gigabytes) is pulled in, and the rest is chosen anew; the record says
which. After installing, a ``.pth``
file puts the harness's own site folders after the environment's, so the task's code
finds its pinned libraries first and the harness's helpers (``pytest_mlab.taskkit``) and
everything else after them.

The installer is uv where it is installed, else pip. Measured on a 2-core machine from
local wheels: an environment with numpy<2.4 took uv 1.0 s cold and 0.12 s warm, pip
6.3 s either way; one with torch, pandas and scikit-learn took uv 4.7 s cold and 0.34 s
warm, pip 39 to 49 s (pip unpacks every wheel again, where uv links the files from its
cache).
"""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import site
import subprocess
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from filelock import FileLock
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.overlay import Overlay

RECORD = "mlab-env.json"
"""Written last: an environment without it was never finished."""
_PTH = "zz-pytest-mlab-harness.pth"
"""Sorted after every other .pth file of the environment, so the harness comes last."""
_TAIL = 2000
HELD_ALWAYS = frozenset({"torch", "torchvision", "torchaudio", "triton"})
"""Held at the harness's version even where the other constraints give way."""


class TaskEnvError(Exception):
    """The environment could not be made; the message is one sentence and the installer's
    last words."""


@dataclass(frozen=True)
class EnvPlan:
    """What a task's environment installs, under which constraints, with which tool."""

    task: str
    requirements: tuple[str, ...]
    constraints: tuple[str, ...]
    installer: str

    def held_always(self) -> tuple[str, ...]:
        """The constraints kept where the whole set cannot be resolved."""
        return tuple(c for c in self.constraints if c.split("==")[0] in HELD_ALWAYS)

    def key(self) -> str:
        """The hash of everything that decides the environment's contents."""
        text = json.dumps([sys.version, sys.base_prefix, self.requirements,
                           self.constraints, self.installer, site.getsitepackages()])
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def task_requirements(overlay: Overlay) -> tuple[str, ...]:
    """The overlay's pip requirements (its ``install`` command, else its modules), each
    with the version its ``versions`` table pins where the command gives none."""
    words = shlex.split(overlay.install)[2:] if overlay.install else list(overlay.requirements)
    pinned = {canonicalize_name(name): spec for name, spec in overlay.versions.items()}
    wanted: dict[str, str] = {}
    for word in words:
        try:
            requirement = Requirement(word)
        except InvalidRequirement:
            raise TaskEnvError(f"overlay {overlay.name}: key 'install': {word!r} is not a "
                               "pip requirement") from None
        name = canonicalize_name(requirement.name)
        if not requirement.specifier and name in pinned:
            word = f"{requirement.name}{pinned[name]}"
        wanted[name] = word
    for name, spec in pinned.items():
        wanted.setdefault(name, f"{name}{spec}")
    return tuple(sorted(wanted.values()))


def harness_constraints(requirements: tuple[str, ...]) -> tuple[str, ...]:
    """Every distribution of the harness at its installed version, less those the task
    pins itself: what the task does not choose is what the harness runs."""
    chosen = {canonicalize_name(Requirement(r).name) for r in requirements
              if Requirement(r).specifier}
    pins = {}
    for dist in metadata.distributions():
        name = canonicalize_name(dist.metadata["Name"] or "")
        if name and name not in chosen and name != "pytest-mlab":
            pins[name] = f"{name}=={dist.version}"
    return tuple(sorted(pins.values()))


def uv_binary() -> str | None:
    try:
        from uv import find_uv_bin  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return shutil.which("uv")
    return str(find_uv_bin())


def plan_env(overlay: Overlay) -> EnvPlan:
    requirements = task_requirements(overlay)
    return EnvPlan(overlay.name, requirements, harness_constraints(requirements),
                   "uv" if uv_binary() else "pip")


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


def _pip_sources() -> list[str]:
    """pip's configured indexes, wheel folders and constraint files, as uv's options: an
    environment is made from the same sources as the harness's own."""
    done = subprocess.run([sys.executable, "-m", "pip", "config", "list"],
                          capture_output=True, text=True, check=False)
    flags = {"index-url": "--index-url", "extra-index-url": "--extra-index-url",
             "find-links": "--find-links", "constraint": "--constraint"}
    options: list[str] = []
    for line in done.stdout.splitlines():
        key, _, value = line.partition("=")
        flag = flags.get(key.rsplit(".", 1)[-1])
        if flag is None:
            continue
        for item in shlex.split(value):
            if item.startswith("file://") and not Path(item.removeprefix("file://")).exists():
                continue  # pip skips a missing local index with a warning; uv stops
            if [flag, item] != options[-2:]:
                options += [flag, item]
    return options


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-_TAIL:]
        raise TaskEnvError(f"{what} failed (exit {done.returncode}):\n{tail}")


def _venv(plan: EnvPlan, target: Path) -> None:
    what = f"making {plan.task}'s environment"
    if plan.installer == "uv":
        _run([uv_binary() or "uv", "venv", "--quiet", "--python", sys.executable, str(target)],
             what)
    else:
        _run([sys.executable, "-m", "venv", str(target)], what)


def _install(plan: EnvPlan, target: Path, constraints: Path) -> None:
    what = f"installing {' '.join(plan.requirements)} for {plan.task}"
    if plan.installer == "uv":
        _run([uv_binary() or "uv", "pip", "install", "--quiet", "--python",
              str(env_python(target)), *_pip_sources(), "--constraint", str(constraints),
              *plan.requirements], what)
    else:
        _run([str(env_python(target)), "-m", "pip", "install", "--quiet",
              "--constraint", str(constraints), *plan.requirements], what)


def _install_held(plan: EnvPlan, target: Path) -> str:
    """Install with the harness's versions held; which were held: all, or torch's."""
    constraints = target.with_name(target.name + ".constraints.txt")
    try:
        write_atomic(constraints, "\n".join(plan.constraints) + "\n")
        try:
            _install(plan, target, constraints)
            return "all"
        except TaskEnvError:
            write_atomic(constraints, "\n".join(plan.held_always()) + "\n")
            _install(plan, target, constraints)
            return "torch"
    finally:
        constraints.unlink(missing_ok=True)


def _site_folder(env: Path) -> Path:
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return env / "lib" / version / "site-packages"


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
            held = _install_held(plan, env)
        except TaskEnvError:
            shutil.rmtree(env, ignore_errors=True)
            raise
        harness = [folder for folder in site.getsitepackages() if Path(folder).is_dir()]
        lines = [f"import site; site.addsitedir({folder!r})" for folder in harness]
        write_atomic(_site_folder(env) / _PTH, "\n".join(lines) + "\n")
        record = {"task": plan.task, "requirements": list(plan.requirements),
                  "installer": plan.installer, "held": held,
                  "seconds": round(time.monotonic() - started, 2)}
        write_atomic(env / RECORD, json.dumps(record, indent=1))
    return env
