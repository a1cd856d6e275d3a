"""An MLAgentBench task folder, as the original repository lays it out, read as a TaskSpec.

The folder (``env/`` and ``scripts/`` with ``research_problem.txt``, ``prepare.py``,
``eval.py``, ``read_only_files.txt``) stays as the user's checkout has it. What the
original does not say (metric, direction, limits, resources, requirements, where the data
comes from, whether its eval can be trusted) comes from an overlay of ours,
``<overlay dir>/<folder>.toml``. The harness's prepare and score steps run two small
generated scripts (the *shims*) that hand the folder and the overlay to
``pytest_mlab.taskkit.original``, so the whole trial path stays that of any task.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.task import (
    BaselinePolicy,
    Metric,
    Resources,
    TaskFormatError,
    TaskManifest,
    TaskSpec,
    TrialLimits,
    _describe,
)
from pytest_mlab.core.taskkit_use import taskkit_files

PROBLEM = Path("scripts") / "research_problem.txt"
READ_ONLY = Path("scripts") / "read_only_files.txt"
SCORERS = "scorers"
"""The folder beside the overlays that holds replacement scorers."""
HF_CACHE = "hf-cache"
"""An entry of an overlay's ``hide``: every folder Hugging Face libraries cache into here."""
_HF_CACHE_VARIABLES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE",
                       "TRANSFORMERS_CACHE")


class HubFolder(BaseModel):
    """A Hugging Face repository the starter loads by name (``load_dataset("imdb")``,
    ``from_pretrained("distilbert-base-uncased")``). Preparing the task downloads it into
    a workspace folder of that name, which both libraries read before they look online:
    the sandbox has no network."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folder: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
    type: Literal["dataset", "model"]
    revision: str = Field(default="main", min_length=1)
    files: dict[str, str] = Field(
        min_length=1, description="Path in the repository -> its sha256, or '' to take "
        "the file unchecked.")
    withhold: dict[str, str] = Field(
        default_factory=dict, description="Parquet file -> the column the agent's copy "
        "has blanked (-1 for integers, else null); the scorer's copy keeps it.")

    @model_validator(mode="after")
    def _withheld_files_are_downloaded(self) -> Self:
        for name in self.withhold:
            if name not in self.files:
                raise ValueError(f"withhold names {name!r}, which is not in files")
            if not name.endswith(".parquet"):
                raise ValueError(f"withhold names {name!r}: only parquet files can be")
        return self


class Overlay(BaseModel):
    """``tasks/mlagentbench/<folder>.toml``: what pytest-mlab adds to an original task."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    entry: str = "train.py"
    data_source: str = Field(min_length=1)
    sources: tuple[str, ...] = Field(
        default=(), description="kaggle:COMPETITION, or KIND:URL (url, hf, torchvision, ogb) "
        "for what prepare.py or the scripts download; none when empty.")
    tools: tuple[str, ...] = Field(default=(), description="Commands prepare.py runs.")
    requirements: tuple[str, ...] = Field(default=(), description="Python modules needed.")
    install: str = Field(default="", description="The pip command that installs them.")
    versions: dict[str, str] = Field(
        default_factory=dict, description="Distribution -> version specifier the original "
        "code needs, e.g. numpy = '<2.4'.")
    eval_sound: bool
    eval_note: str = ""
    scorer: str = Field(default="", description="A replacement scorer in scorers/.")
    unavailable: str = Field(default="", description="Why no trial of it can run yet.")
    research_problem_note: str = ""
    prepare_links: dict[str, str] = Field(
        default_factory=dict, description="Links made under scripts/ before prepare.py "
        "runs, for paths the original's prepare.py expects but its layout lacks.")
    differs: str = ""
    submission: tuple[str, ...] = ("submission.csv",)
    hub: tuple[HubFolder, ...] = Field(
        default=(), description="Hugging Face repositories put in the workspace.")
    hide: tuple[str, ...] = Field(
        default=(), description=f"As task.toml's hide, and {HF_CACHE!r}: the Hugging Face "
        "caches, for an eval.py that loads its labels through them.")
    threshold: float | None = Field(default=None, gt=0)
    metric: Metric
    limits: TrialLimits = TrialLimits()
    resources: Resources = Resources()
    baseline: BaselinePolicy

    @model_validator(mode="after")
    def _withheld_labels_stay_out_of_the_caches(self) -> Self:
        # The scorer's load of its whole copy leaves it in this machine's datasets cache.
        if any(entry.withhold for entry in self.hub) and HF_CACHE not in self.hide:
            raise ValueError(f"hub withholds columns, so hide must list {HF_CACHE!r}")
        return self


def read_overlay(path: Path) -> Overlay:
    """Read and validate an overlay; raise ``TaskFormatError`` naming the file and key."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        return Overlay.model_validate(raw)
    except tomllib.TOMLDecodeError as exc:
        raise TaskFormatError(f"{path}: not valid TOML: {exc}") from None
    except ValidationError as exc:
        raise TaskFormatError(f"{path}: {_describe(exc)}") from None


def huggingface_caches(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The folders Hugging Face's hub, datasets and transformers download into here."""
    cache_home = Path(environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folders = [Path(environ.get("HF_HOME") or cache_home / "huggingface")]
    folders += [Path(environ[name]) for name in _HF_CACHE_VARIABLES if environ.get(name)]
    return tuple(dict.fromkeys(str(folder.expanduser().resolve()) for folder in folders))


def _wrong_versions(overlay: Overlay) -> list[str]:
    from packaging.specifiers import SpecifierSet

    wrong = []
    for dist, wanted in overlay.versions.items():
        try:
            have = metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue  # a missing module is named by the requirements
        if have not in SpecifierSet(wanted):
            wrong.append(f"{dist}{wanted}, as the original code fails on {dist} {have} "
                         f"(pip install '{dist}{wanted}')")
    return wrong


def missing_modules(overlay: Overlay) -> list[str]:
    """The modules, or their versions, the task's code needs and this interpreter lacks,
    each with its fix; what runs the starter and eval.py, prepared or not."""
    missing = []
    modules = [m for m in overlay.requirements if importlib.util.find_spec(m) is None]
    if modules:
        fix = overlay.install or f"pip install {' '.join(modules)}"
        missing.append(f"the Python modules {', '.join(modules)} ({fix})")
    return missing + _wrong_versions(overlay)


def _hidden(overlay: Overlay) -> tuple[str, ...]:
    hide: list[str] = []
    for entry in overlay.hide:
        hide += huggingface_caches(os.environ) if entry == HF_CACHE else [entry]
    return tuple(dict.fromkeys(hide))


def is_original_folder(folder: Path) -> bool:
    return (folder / "env").is_dir() and (folder / PROBLEM).is_file()


def _read_only(folder: Path) -> tuple[str, ...]:
    """The original's read-only patterns, as globs relative to the workspace."""
    path = folder / READ_ONLY
    if not path.is_file():
        return ()
    lines = path.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip().removeprefix("./") for line in lines if line.strip())


@dataclass(frozen=True)
class OriginalTask(TaskSpec):
    """A TaskSpec whose root is the original's folder; its prepare and score scripts are
    the shims, and its recorded baseline lives beside the overlay, not in the checkout."""

    overlay_path: Path = Path()
    shims: Path = Path()

    @property
    def prepare_script(self) -> Path:
        return self.shims / "prepare.py"

    @property
    def score_script(self) -> Path:
        return self.shims / "score.py"

    def unmet_requirements(self) -> str | None:
        """Why this machine cannot run the task's code now, or None: checked before each
        trial, as a module may have gone since the data was prepared."""
        missing = missing_modules(read_overlay(self.overlay_path))
        return f"{self.name}: needs {'; '.join(missing)}" if missing else None

    @property
    def baseline_record(self) -> Path:
        return self.overlay_path.with_suffix(".baseline.json")

    def content_hash(self) -> str:
        """The original's env/ and scripts/, the overlay, the scorers and the task helpers
        that preparing and scoring load."""
        digest = hashlib.sha256(self.overlay_path.read_bytes() + b"\0")
        roots = [(self.root / "env", "env/"), (self.root / "scripts", "scripts/"),
                 (self.overlay_path.parent / SCORERS, "scorers/")]
        for root, prefix in roots:
            for path in sorted(root.rglob("*")):
                rel = path.relative_to(root)
                if not path.is_file() or "__pycache__" in rel.parts or rel.name == "prepared":
                    continue
                digest.update((prefix + rel.as_posix()).encode() + b"\0")
                digest.update(path.read_bytes() + b"\0")
        scorers = sorted((self.overlay_path.parent / SCORERS).glob("*.py"))
        for path in taskkit_files(scorers, modules=["original"]):
            digest.update(f"taskkit:{path.name}".encode() + b"\0" + path.read_bytes() + b"\0")
        return digest.hexdigest()[:16]


_SHIM = '''"""Generated by pytest-mlab for {folder}: hands it to pytest_mlab.taskkit.original."""
from pathlib import Path

from pytest_mlab.taskkit import original

FOLDER = Path({folder!r})
OVERLAY = Path({overlay!r})
ACCEPT_RULES = {accept!r}


def prepare(public, private):
    original.prepare(FOLDER, OVERLAY, ACCEPT_RULES, public, private)


def score(submission, private, runner):
    return original.score(OVERLAY, submission, private, runner)
'''


def _write_shims(folder: Path, overlay: Path, shim_root: Path, accept_rules: bool) -> Path:
    text = _SHIM.format(folder=str(folder), overlay=str(overlay), accept=accept_rules)
    key = hashlib.sha256(text.encode()).hexdigest()[:12]
    shims = shim_root / f"{folder.name}-{key}"
    for name in ("prepare.py", "score.py"):
        if not (shims / name).is_file():
            write_atomic(shims / name, text)
    return shims


def load_original(
    folder: Path, overlay_dir: Path, shim_root: Path, *, accept_rules: bool = False
) -> OriginalTask:
    """The original task in ``folder`` with its overlay; ``TaskFormatError`` if it has none."""
    folder = folder.resolve()
    overlay_path = (overlay_dir / f"{folder.name}.toml").resolve()
    if not overlay_path.is_file():
        raise TaskFormatError(f"{folder}: no overlay {overlay_path.name} in {overlay_dir}")
    overlay = read_overlay(overlay_path)
    if overlay.scorer and not (overlay_path.parent / SCORERS / overlay.scorer).is_file():
        raise TaskFormatError(f"{overlay_path}: key 'scorer': {SCORERS}/{overlay.scorer} "
                              "does not exist")
    problem = (folder / PROBLEM).read_text(encoding="utf-8").strip()
    if overlay.research_problem_note:
        problem += "\n\n" + overlay.research_problem_note.strip()
    manifest = TaskManifest(
        name=overlay.name, differs=overlay.differs,
        data_source=overlay.data_source, research_problem=problem, entry=overlay.entry,
        downloads=bool(overlay.sources or overlay.hub), read_only=_read_only(folder),
        hide=_hidden(overlay),
        submission=overlay.submission, threshold=overlay.threshold, metric=overlay.metric,
        limits=overlay.limits, resources=overlay.resources, baseline=overlay.baseline,
    )
    if not (folder / "env" / overlay.entry).is_file():
        raise TaskFormatError(f"{overlay_path}: key 'entry': env/{overlay.entry} does not "
                              f"exist in {folder}")
    shims = _write_shims(folder, overlay_path, shim_root, accept_rules)
    return OriginalTask(root=folder, manifest=manifest, overlay_path=overlay_path, shims=shims)
