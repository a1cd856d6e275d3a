"""An overlay, ``tasks/mlagentbench/<folder>.toml``: what pytest-mlab adds to an original
MLAgentBench task folder (metric, limits, resources, where the data comes from, whether
its eval can be trusted, what the agent gets withheld)."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Literal, Self
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from pytest_mlab.core.task import (
    BaselinePolicy,
    Metric,
    Resources,
    TaskFormatError,
    TrialLimits,
    _describe,
)

HF_CACHE = "hf-cache"
"""An entry of an overlay's ``hide``: every folder Hugging Face libraries cache into here."""


class HubFolder(BaseModel):
    """A Hugging Face repository the starter loads by name (``load_dataset("imdb")``,
    ``from_pretrained("distilbert-base-uncased")``, ``evaluate.load("accuracy")``).
    Preparing the task downloads it into a workspace folder of that name, which these
    libraries read before they look online: the sandbox has no network. Where the named
    repository is gone from the Hub, ``repo`` is another holding the same files."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    folder: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$",
        description="A name, or a Hub id (owner/name) where the starter loads one.")
    repo: str = Field(pattern=r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
    type: Literal["dataset", "model", "space"]
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


ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")


def archive_suffix(url: str) -> str | None:
    """The kind of archive ``url``'s path names (``.tar.gz``), or None for no known kind."""
    path = urlsplit(url).path.lower()
    return next((suffix for suffix in ARCHIVE_SUFFIXES if path.endswith(suffix)), None)


class MountedData(BaseModel):
    """Data the original's scripts read from a fixed path outside their folder (CLRS-30 in
    /tmp/CLRS30), which they would download there themselves. Preparing the task unpacks
    the archive into the cache once; every sandbox of the task (the agent's scripts, a
    replacement scorer's child) shows it at ``path``, read-only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str = Field(pattern=r"^/tmp(/[A-Za-z0-9][A-Za-z0-9._-]*)+$", description="Where "
                      "the sandbox shows the unpacked archive: a folder under /tmp.")
    archive: str = Field(pattern=r"^https?://[^\s]+$", description="The archive's URL.")

    @model_validator(mode="after")
    def _the_archive_can_be_unpacked(self) -> Self:
        if archive_suffix(self.archive) is None:
            raise ValueError(f"archive {self.archive!r} is not one of "
                             f"{', '.join(ARCHIVE_SUFFIXES)}")
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
    withhold_files: tuple[str, ...] = Field(
        default=(), description="Globs of the data prepare.py writes that the agent gets "
        "empty (held-out text), or as the blanker writes them; the original eval.py reads "
        "them whole.")
    blanker: str = Field(
        default="", description="A module in blankers/ whose blank(rel, held, public) "
        "returns the agent's copy of a withheld file where an empty one would not do "
        "(test labels).")
    heavy_env: str = Field(
        default="", description="Why the task's own environment takes long to make or is "
        "large (a build from source, gigabytes): --mlab-skip-heavy-envs skips the task.")
    runs_on_cpu: bool = Field(
        default=False, description="Its code takes the GPU only where one is found "
        "(cuda if available): on a synthetic bundle's tiny data it runs without a GPU.")
    manual_steps: tuple[tuple[str, ...], ...] = Field(
        default=(), description="What the original prepare.py asks the user to run by hand: "
        "each a script of the folder's env/ and its arguments, run after prepare.py in "
        "env/ with the task's interpreter.")
    coco_images: str = Field(
        default="", description="A COCO annotation file in the task's Kaggle zip: the "
        "coco_url of each of its images is a download (of the manual steps), bundled too.")
    mounted_data: tuple[MountedData, ...] = Field(
        default=(), description="Archives unpacked at fixed paths under /tmp in every "
        "sandbox of the task, read-only.")
    python_startup: str = Field(
        default="", description="A module in startup/ that every Python process of the "
        "trial's scripts runs first (as sitecustomize), for a library that must accept the "
        "agent's blanked copy.")
    starter_for_eval: tuple[str, ...] = Field(
        default=(), description="Starter files the original eval.py reads from the "
        "submission folder: it gets the original's, whatever the agent made of its own.")
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
        # This machine's caches may hold the whole dataset, the withheld column with it.
        if any(entry.withhold for entry in self.hub) and HF_CACHE not in self.hide:
            raise ValueError(f"hub withholds columns, so hide must list {HF_CACHE!r}")
        return self

    @model_validator(mode="after")
    def _mounted_paths_do_not_nest(self) -> Self:
        paths = sorted(entry.path for entry in self.mounted_data)
        for first, second in itertools.pairwise(paths):
            if second == first or second.startswith(first + "/"):
                raise ValueError(f"mounted_data: {second} is inside {first}")
        return self

    @model_validator(mode="after")
    def _manual_steps_are_scripts(self) -> Self:
        for step in self.manual_steps:
            if not step or not step[0].endswith(".py") or step[0].startswith(("/", "..")):
                raise ValueError(f"manual_steps: {list(step)} does not start with a script "
                                 "of env/ (NAME.py)")
        if self.coco_images and sum(s.startswith("kaggle:") for s in self.sources) != 1:
            raise ValueError("coco_images names a file of the task's Kaggle zip, so sources "
                             "must name one kaggle: competition")
        return self

    @model_validator(mode="after")
    def _a_blanker_has_files_to_blank(self) -> Self:
        if self.blanker and not self.withhold_files:
            raise ValueError("blanker is set, but withhold_files names no file to blank")
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
