"""The task manifest (``task.toml``): one schema, validated once, no pytest here."""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_mlab.core.task_files import BASELINE_RECORD, MANIFEST
from pytest_mlab.core.taskkit_use import taskkit_files

_NOT_HASHED = {MANIFEST, BASELINE_RECORD, "solution", "null", "heuristics"}


class TaskFormatError(Exception):
    """A task directory is malformed; the message is one line naming the file and key."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Metric(_Strict):
    name: str = Field(min_length=1)
    direction: Literal["higher", "lower"]


class TrialLimits(_Strict):
    """The ``[limits]`` of task.toml; the command line may override them for a run."""

    max_steps: int = Field(default=50, gt=0)
    max_time: float = Field(default=1800.0, gt=0, description="Seconds for the whole trial.")
    script_timeout: float = Field(default=600.0, gt=0, description="Seconds for one script.")
    score_timeout: float = Field(default=600.0, gt=0)


class Resources(_Strict):
    gpus: int = Field(default=0, ge=0)
    cpus: int | None = Field(
        default=None, gt=0, description="Cores of one trial, pinned, with its thread pools "
        "sized to match; default: the machine's cores divided among the xdist workers."
    )
    memory_gb: float = Field(default=4.0, gt=0, description="All processes of a trial together.")
    disk_gb: float = Field(default=2.0, gt=0, description="How much the workspace may grow.")
    files: int = Field(
        default=100_000, gt=0, strict=True, description="How many files (inodes: folders "
        "and links too) the workspace and /tmp together may gain during a trial."
    )


class BaselinePolicy(_Strict):
    kind: Literal["recorded", "per-machine", "per-session", "none"] = Field(
        description="recorded: baseline.json, written by --mlab-validate or "
        "--mlab-record-baseline, for tasks whose data is fixed; per-machine: measured on "
        "the machine where the trial runs, once per task version, machine facts and data "
        "key, and kept in the cache across sessions (learned tasks whose data is drawn per "
        "cache); per-session: measured again in every session (run time, throughput); "
        "none: the starter is a skeleton that writes no valid submission (an original "
        "task's), so there is nothing to improve on and a valid submission passes."
    )
    runs: int = Field(default=5, ge=1, le=100)


class DataPolicy(_Strict):
    generated: bool = Field(
        default=False, description="prepare.py draws the hidden answers at random (from "
        "the data key) out of what a sandbox can read too, so public code with a seed "
        "would draw them again: heuristics/regenerate-from-seed/ must exist, and fail."
    )


class TaskManifest(_Strict):
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    mirrors: str = Field(default="", description="The MLAgentBench task this one mirrors.")
    differs: str = Field(
        default="", description="What this analogue lost or changed against the task it "
        "mirrors; its numbers are never the paper's."
    )
    data_source: str = Field(default="", description="Where the data comes from, in words.")
    research_problem: str = Field(min_length=1)
    entry: str = Field(default="train.py", min_length=1)
    requirements: tuple[str, ...] = ()
    tags: tuple[str, ...] = Field(
        default=(), description="Words to select tasks by, as markers: -m 'tabular'."
    )
    downloads: bool = Field(
        default=False, description="prepare.py fetches data (network or credentials needed)."
    )
    read_only: tuple[str, ...] = ()
    answers: tuple[str, ...] = Field(
        default=(), description="Glob patterns of workspace files that give the answers "
        "away (a task that cannot keep them out of the workspace): the rule checks flag a "
        "step that reads one, or code that names one.",
    )
    hide: tuple[str, ...] = Field(
        default=(),
        description="Installed data the answers could be read from, hidden from scripts: "
        "absolute paths, or python:MODULE for a module's folder.",
    )
    submission: tuple[str, ...] = Field(
        default=("submission.csv",), min_length=1,
        description="What is scored: glob patterns of workspace files, copied (regular files "
        "only) into a fresh folder for the scorer; ** for every file the agent may write.",
    )
    submission_mb: float = Field(default=256.0, gt=0, description="The most the copy may hold.")
    threshold: float | None = Field(default=None, gt=0)
    metric: Metric
    limits: TrialLimits = TrialLimits()
    resources: Resources = Resources()
    baseline: BaselinePolicy
    data: DataPolicy = DataPolicy()


@dataclass(frozen=True)
class TaskSpec:
    """A validated task directory."""

    root: Path
    manifest: TaskManifest

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def env_dir(self) -> Path:
        return self.root / "env"

    @property
    def solution_dir(self) -> Path:
        return self.root / "solution"

    @property
    def null_dir(self) -> Path:
        """A submission that must fail: the starter broken on purpose."""
        return self.root / "null"

    @property
    def heuristics_dir(self) -> Path:
        """Cheap answers (constant, nearest neighbour, a one-feature rule, ...), one script
        each, that must not clear the bar; the starter must beat every one. Folders named
        for a rung of the ladder (core/ladder.py) are that rung instead."""
        return self.root / "heuristics"

    @property
    def entry_makes_submission(self) -> bool:
        """Whether the submission is what the entry script writes rather than code: no
        ``submission`` pattern names the entry script. Where one does (``**``, a timing
        task's code), the scorer runs the code itself and a second run would prove
        nothing; where none does, running the entry script again must remake it."""
        entry = self.manifest.entry
        return not any(fnmatch.fnmatch(entry, pattern) for pattern in self.manifest.submission)

    @property
    def prepare_script(self) -> Path:
        return self.root / "prepare.py"

    @property
    def score_script(self) -> Path:
        return self.root / "score.py"

    @property
    def baseline_record(self) -> Path:
        return self.root / BASELINE_RECORD

    def interpreter(self) -> str:
        """The Python that runs the task's code (its preparation, its scripts in the
        sandbox, its scorer): the harness's own, for most tasks."""
        return sys.executable

    def python_startup(self) -> Path | None:
        """A folder the trial's scripts get on PYTHONPATH, whose sitecustomize runs first in
        each of their Python processes; None for most tasks."""
        return None

    def data_mounts(self, prepared: Path) -> tuple[tuple[str, str], ...]:
        """Folders of the prepared data (``prepared``, its folder in the cache) that every
        sandbox of the task shows read-only at a fixed path: (host, inside) pairs; none
        for most tasks."""
        return ()

    def hidden_paths(self) -> list[Path]:
        """The folders and files of ``hide`` that exist on this machine."""
        paths = []
        for entry in self.manifest.hide:
            if entry.startswith("python:"):
                spec = importlib.util.find_spec(entry.removeprefix("python:"))
                locations = spec.submodule_search_locations if spec else None
                paths += [Path(location) for location in locations or ()]
            elif Path(entry).exists():
                paths.append(Path(entry))
        return paths

    def content_hash(self) -> str:
        """Hash of what can change the prepared data, the starter's run or the score.

        Left out: the wording of task.toml (only its ``entry`` counts), the baseline
        record, the reference solution and the null submission, so that recording a
        baseline or editing the instructions invalidates neither data nor baselines.
        The task helpers its code imports (``pytest_mlab.taskkit``) count too.
        """
        digest = hashlib.sha256(self.manifest.entry.encode() + b"\0")
        hashed = {path.relative_to(self.root): path for path in sorted(self.root.rglob("*"))
                  if path.is_file()}
        hashed = {rel: path for rel, path in hashed.items()
                  if rel.parts[0] not in _NOT_HASHED and "__pycache__" not in rel.parts}
        for rel, path in hashed.items():
            digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
        for path in taskkit_files(p for p in hashed.values() if p.suffix == ".py"):
            name = f"taskkit:{path.name}".encode()
            digest.update(name + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()[:16]


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        return f"key {key!r}: unknown key"
    if first["type"] == "missing":
        return f"key {key!r}: required but missing"
    return f"key {key!r}: {first['msg']}, got {first['input']!r}"


def load_task(manifest_path: Path) -> TaskSpec:
    """Read and validate ``task.toml`` and the files it implies; raise ``TaskFormatError``."""
    root = manifest_path.parent
    try:
        raw = tomllib.loads(manifest_path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"{manifest_path}: not valid TOML: {exc}") from None
    try:
        manifest = TaskManifest.model_validate(raw)
    except ValidationError as exc:
        raise TaskFormatError(f"{manifest_path}: {_describe(exc)}") from None
    task = TaskSpec(root=root, manifest=manifest)
    for required in (task.env_dir, task.prepare_script, task.score_script):
        if not required.exists():
            raise TaskFormatError(f"{manifest_path}: expected {required.name} beside it")
    if not (task.env_dir / manifest.entry).is_file():
        raise TaskFormatError(f"{manifest_path}: key 'entry': env/{manifest.entry} does not exist")
    return task
