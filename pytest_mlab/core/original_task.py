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
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from pytest_mlab.core.bundle import Bundle
from pytest_mlab.core.errors import TaskUnavailable
from pytest_mlab.core.original_shims import write_shims, write_startup
from pytest_mlab.core.overlay import HF_CACHE, Overlay, read_overlay
from pytest_mlab.core.task import TaskFormatError, TaskManifest, TaskSpec
from pytest_mlab.core.taskkit_use import taskkit_files

PROBLEM = Path("scripts") / "research_problem.txt"
READ_ONLY = Path("scripts") / "read_only_files.txt"
SCORERS = "scorers"
"""The folder beside the overlays that holds replacement scorers."""
BLANKERS = "blankers"
"""The folder beside the overlays that holds what makes the agent's copy of withheld data."""
STARTUP = "startup"
"""The folder beside the overlays that holds modules the trial's Python processes run first."""
MOUNTED = "mounted"
"""The folder of a task's prepared data that holds its unpacked ``mounted_data``."""
_HF_CACHE_VARIABLES = ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_DATASETS_CACHE",
                       "TRANSFORMERS_CACHE")


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


def mounted_folder(prepared: Path, path: str) -> Path:
    """Where the task's prepared data keeps what its sandboxes show at ``path``."""
    return prepared / MOUNTED / path.lstrip("/")


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
    startup: Path | None = None
    mounted: tuple[str, ...] = ()
    """The overlay's ``mounted_data`` paths, inside the sandbox."""
    interpreter_of: Callable[[], str] | None = field(default=None, compare=False)
    """Gives the Python of the task's own environment, making it first if need be, or
    raises ``TaskUnavailable``; None: the harness's own runs the task's code."""
    bundle_key: str = ""
    """The offline bundle its data is prepared from (its manifest's hash), or none."""

    def interpreter(self) -> str:
        return self.interpreter_of() if self.interpreter_of else sys.executable

    def python_startup(self) -> Path | None:
        return self.startup

    def data_mounts(self, prepared: Path) -> tuple[tuple[str, str], ...]:
        return tuple((str(mounted_folder(prepared, path)), path) for path in self.mounted)

    @property
    def prepare_script(self) -> Path:
        return self.shims / "prepare.py"

    @property
    def score_script(self) -> Path:
        return self.shims / "score.py"

    def unmet_requirements(self) -> str | None:
        """Why this machine cannot run the task's code now, or None: checked before each
        trial, as a module may have gone since the data was prepared."""
        try:
            if self.interpreter() != sys.executable:
                return None  # an environment of its own holds them
        except TaskUnavailable as exc:
            return str(exc)
        missing = missing_modules(read_overlay(self.overlay_path))
        return f"{self.name}: needs {'; '.join(missing)}" if missing else None

    @property
    def baseline_record(self) -> Path:
        return self.overlay_path.with_suffix(".baseline.json")

    def content_hash(self) -> str:
        """The original's env/ and scripts/, the overlay, the scorers, blankers and startup
        modules beside it, and the task helpers that preparing and scoring load."""
        digest = hashlib.sha256(self.overlay_path.read_bytes() + b"\0")
        digest.update(f"bundle:{self.bundle_key}".encode() + b"\0" if self.bundle_key else b"")
        roots = [(self.root / "env", "env/"), (self.root / "scripts", "scripts/")]
        roots += [(self.overlay_path.parent / kind, f"{kind}/")
                  for kind in (SCORERS, BLANKERS, STARTUP)]
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


def _on_synthetic_data(manifest: TaskManifest, overlay: Overlay, bundle: Bundle
                       ) -> TaskManifest:
    """The task run on a synthetic bundle's data: a baseline recorded on the real data
    does not hold, so the starter is measured here (once: the data are there to run the
    code, not to compare agents); a task whose code takes the GPU only where there is one
    runs on the CPU; and its data source says its scores are those of synthetic data."""
    baseline = manifest.baseline
    if baseline.kind == "recorded":
        baseline = baseline.model_copy(update={"kind": "per-machine", "runs": 1})
    resources = manifest.resources
    if overlay.runs_on_cpu:
        resources = resources.model_copy(update={"gpus": 0})
    source = (f"SYNTHETIC data from the offline bundle {bundle.root}: its scores are those "
              f"of tiny synthetic data, not of {overlay.data_source}")
    return manifest.model_copy(update={"baseline": baseline, "resources": resources,
                                       "data_source": source})


def load_original(
    folder: Path, overlay_dir: Path, shim_root: Path, *, accept_rules: bool = False,
    bundle: Bundle | None = None,
    interpreter_of: Callable[[Path], Callable[[], str]] | None = None,
) -> OriginalTask:
    """The original task in ``folder`` with its overlay; ``TaskFormatError`` if it has none.
    ``bundle``: the offline bundle to prepare its data from (a synthetic one's tiny data
    have no recorded baseline, and need no GPU where the task's code can do without);
    ``interpreter_of``: given the overlay's path, what gives the task's Python."""
    folder = folder.resolve()
    overlay_path = (overlay_dir / f"{folder.name}.toml").resolve()
    if not overlay_path.is_file():
        raise TaskFormatError(f"{folder}: no overlay {overlay_path.name} in {overlay_dir}")
    overlay = read_overlay(overlay_path)
    for key, kind, name in (("scorer", SCORERS, overlay.scorer),
                            ("blanker", BLANKERS, overlay.blanker),
                            ("python_startup", STARTUP, overlay.python_startup)):
        if name and not (overlay_path.parent / kind / name).is_file():
            raise TaskFormatError(f"{overlay_path}: key {key!r}: {kind}/{name} does not exist")
    problem = (folder / PROBLEM).read_text(encoding="utf-8").strip()
    if overlay.research_problem_note:
        problem += "\n\n" + overlay.research_problem_note.strip()
    manifest = TaskManifest(
        name=overlay.name, differs=overlay.differs,
        data_source=overlay.data_source, research_problem=problem, entry=overlay.entry,
        downloads=bool(overlay.sources or overlay.hub or overlay.mounted_data),
        read_only=_read_only(folder),
        hide=_hidden(overlay),
        submission=overlay.submission, threshold=overlay.threshold, metric=overlay.metric,
        limits=overlay.limits, resources=overlay.resources, baseline=overlay.baseline,
    )
    for rel in overlay.starter_for_eval:
        if not (folder / "env" / rel).is_file():
            raise TaskFormatError(f"{overlay_path}: key 'starter_for_eval': env/{rel} does "
                                  f"not exist in {folder}")
    if not (folder / "env" / overlay.entry).is_file():
        raise TaskFormatError(f"{overlay_path}: key 'entry': env/{overlay.entry} does not "
                              f"exist in {folder}")
    if bundle is not None and bundle.kind == "synthetic":
        manifest = _on_synthetic_data(manifest, overlay, bundle)
    shims = write_shims(folder, overlay_path, shim_root, accept_rules,
                         bundle.root if bundle else None)
    startup = (write_startup(overlay_path.parent / STARTUP / overlay.python_startup, shim_root)
               if overlay.python_startup else None)
    return OriginalTask(root=folder, manifest=manifest, overlay_path=overlay_path, shims=shims,
                        startup=startup,
                        mounted=tuple(entry.path for entry in overlay.mounted_data),
                        interpreter_of=interpreter_of(overlay_path) if interpreter_of else None,
                        bundle_key=bundle.key if bundle else "")
