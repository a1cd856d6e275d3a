"""``python -m pytest_mlab bundle CHECKOUT --out DIR``: download everything the original
MLAgentBench tasks' preparation fetches (Kaggle competitions, URLs, Hugging Face files) into
one folder in the bundle format of ``pytest_mlab.core.bundle``, on a machine that has the
network and the credentials. The folder can then be copied to any number of machines (and
Ray nodes) that have neither, which prepare the tasks from it.

A run is resumable: a file already in DIR whose size and sha256 match DIR's manifest is
not downloaded again, each download goes to a ``.part`` file renamed into place when
complete, and the manifest is written after each file, so a run that failed or was stopped
goes on where it ended. Bundling some tasks, then others, into one DIR keeps both.

Images a task's annotation file lists (fathomnet's, which its download_images.py fetches
by each image's coco_url) are bundled after the zip that holds the file, by URL.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from pytest_mlab.cli.bundle_download import DownloadError, download
from pytest_mlab.core.bundle import (
    MANIFEST,
    Bundle,
    BundleError,
    BundleFile,
    coco_urls,
    hub_source,
    path_of,
    sources_of,
    write_entries,
)
from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.core.kaggle import kaggle_credentials, rules_pages
from pytest_mlab.core.original_task import is_original_folder
from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.core.task import TaskFormatError

DEFAULT_OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
"""The plugin's default (``plugin.collection.original``), found without importing pytest."""
MANIFEST_EVERY = 10.0
"""Seconds between writes of the manifest during a run (and after each file of a task's
own sources): thousands of images must not each rewrite it."""


@dataclass
class Plan:
    """The tasks to bundle, each with its sources, and the sha256 the overlays pin."""

    tasks: dict[str, list[str]] = field(default_factory=dict)
    pins: dict[str, str] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)
    """By task: the annotation file of its Kaggle zip whose images are downloads too."""

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(s for sources in self.tasks.values() for s in sources))


def task_folders(checkout: Path) -> dict[str, Path]:
    """The original task folders of a checkout, of its benchmarks folder, or of a folder
    of task folders, by name."""
    for parent in (checkout / "MLAgentBench" / "benchmarks", checkout / "benchmarks",
                   checkout):
        found = {f.name: f for f in sorted(parent.iterdir())
                 if f.is_dir() and is_original_folder(f)} if parent.is_dir() else {}
        if found:
            return found
    return {checkout.name: checkout} if is_original_folder(checkout) else {}


def plan(names: list[str], overlays: Path) -> Plan:
    """Every source of each task's overlay; a broken overlay is a ``TaskFormatError``."""
    found = Plan()
    for name in names:
        overlay = read_overlay(overlays / f"{name}.toml")
        found.tasks[name] = sources_of(overlay)
        if overlay.coco_images:
            found.images[name] = overlay.coco_images
        for entry in overlay.hub:
            found.pins.update({hub_source(entry.type, entry.repo, entry.revision, file): sha
                               for file, sha in entry.files.items() if sha})
    return found


def missing_pieces(sources: list[str], accept_rules: bool) -> list[str]:
    """What this machine lacks to download ``sources``, each with its fix."""
    missing = []
    competitions = [s.partition(":")[2] for s in sources if s.startswith("kaggle:")]
    if competitions and shutil.which("kaggle") is None:
        missing.append("the kaggle command (pip install kaggle)")
    if competitions and not kaggle_credentials():
        missing.append("Kaggle credentials (set KAGGLE_USERNAME and KAGGLE_KEY, or write "
                       "~/.kaggle/kaggle.json)")
    if competitions and not accept_rules:
        rules = rules_pages(competitions)
        missing.append(f"consent to each competition's rules (accept them on kaggle.com at "
                       f"{rules}, then pass --accept-rules)")
    if any(s.startswith("hf:") for s in sources):
        if importlib.util.find_spec("huggingface_hub") is None:
            missing.append("the Python module huggingface_hub (pip install huggingface_hub)")
        if os.environ.get("HF_HUB_OFFLINE"):
            missing.append("the Hugging Face Hub (unset HF_HUB_OFFLINE)")
    return missing


def _intact(root: Path, entry: BundleFile, hashed: bool, pin: str) -> bool:
    """Whether the file of ``entry`` is in ``root`` as the manifest says: its size, and
    where ``hashed`` (a file this run needs) its sha256 and the overlay's pin too."""
    path = root / entry.path
    if not path.is_file() or path.stat().st_size != entry.size:
        return False
    return not hashed or (sha256_file(path) == entry.sha256 and pin in ("", entry.sha256))


def _previous(root: Path) -> dict[str, BundleFile]:
    """The files an earlier run put in ``root``, by source (none without a manifest)."""
    if not (root / MANIFEST).exists():
        return {}
    bundle = Bundle(root)
    if bundle.kind != "downloaded":
        raise BundleError(f"{root} holds a {bundle.kind} bundle; give --out another folder")
    return bundle.files


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab bundle",
        description="Download everything the original MLAgentBench tasks' preparation "
                    "fetches into DIR, with a manifest (source, size, sha256), for machines "
                    "without the network or the credentials.")
    parser.add_argument("checkout", type=Path, help="An MLAgentBench checkout, its "
                        "benchmarks folder, or a folder of task folders.")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="The bundle's folder; a re-run downloads only what it lacks.")
    parser.add_argument("--overlays", type=Path, default=DEFAULT_OVERLAYS, metavar="DIR",
                        help="Folder of the overlays (<task folder>.toml). "
                             "Default: %(default)s.")
    parser.add_argument("--tasks", default="", metavar="A,B",
                        help="Only these task folders (default: every one with an overlay).")
    parser.add_argument("--accept-rules", action="store_true",
                        help="Say you have accepted each Kaggle competition's rules on "
                             "kaggle.com (as pytest's --mlab-accept-rules).")
    return parser


def _select(args: argparse.Namespace) -> list[str]:
    """The task folders to bundle; a ``ValueError`` naming what was asked and what exists."""
    if not args.checkout.is_dir():
        raise ValueError(f"{args.checkout} is not a folder")
    folders = task_folders(args.checkout)
    names = [name for name in folders if (args.overlays / f"{name}.toml").is_file()]
    if not names:
        raise ValueError(f"{args.checkout} holds no original task folder with an overlay in "
                         f"{args.overlays}")
    wanted = [name.strip() for name in args.tasks.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in names]
    if unknown:
        raise ValueError(f"{args.checkout} has no task {unknown[0]!r} with an overlay; its "
                         f"tasks: {', '.join(names)}")
    return wanted or names


def _bundle(args: argparse.Namespace, found: Plan, root: Path) -> None:
    """Download what ``root`` lacks, task by task, printing a line for each."""
    done, wanted = _previous(root), found.sources
    for source, entry in list(done.items()):
        if not _intact(root, entry, source in wanted, found.pins.get(source, "")):
            del done[source]
    todo = [source for source in wanted if source not in done]
    missing = missing_pieces(todo, args.accept_rules)
    if missing:
        raise DownloadError(f"cannot download yet: this machine needs {'; '.join(missing)}")
    written = time.monotonic()

    def fetch(source: str, every: float) -> None:
        nonlocal written
        try:
            done[source] = download(root, source, found.pins.get(source, ""))
        except DownloadError as exc:
            raise DownloadError(f"{source} could not be downloaded: {exc}") from None
        if time.monotonic() - written >= every:
            write_entries(root, done.values(), "downloaded")
            written = time.monotonic()

    try:  # what was complete stays listed, whatever stops the run
        for task, sources in found.tasks.items():
            start, fetched = time.monotonic(), 0
            for source in sources:
                if source in todo:
                    fetch(source, 0.0)
                    todo.remove(source)
                    fetched += 1
            if task in found.images:
                archive = next(done[s] for s in sources if s.startswith("kaggle:"))
                images = coco_urls(root / archive.path, found.images[task])
                for url in images:
                    if url not in done:
                        fetch(url, MANIFEST_EVERY)
                        fetched += 1
                sources = [*sources, *images]
            size = sum(done[s].size for s in sources)
            print(f"bundle: {task}: {len(sources)} files ({fetched} downloaded), {size:,} bytes, "
                  f"{time.monotonic() - start:.1f} s", flush=True)
    finally:
        if done:
            write_entries(root, done.values(), "downloaded")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    args.overlays = args.overlays.expanduser().resolve()
    try:
        names = _select(args)
        found = plan(names, args.overlays)
        for source in found.sources:
            path_of(source)  # every source has its place before anything is downloaded
    except (ValueError, TaskFormatError) as exc:
        print(f"bundle: {exc}", file=sys.stderr)
        return 2
    root = args.out.expanduser().resolve()
    try:
        root.mkdir(parents=True, exist_ok=True)
        _bundle(args, found, root)
    except (DownloadError, BundleError, OSError) as exc:
        print(f"bundle: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"bundle: stopped; what was complete is in {root}, run it again to go on",
              file=sys.stderr)
        return 130
    files = Bundle(root).files.values()
    print(f"bundle: {root} holds {len(files)} files, {sum(f.size for f in files):,} bytes; "
          f"prepare the tasks from it with: pytest {args.checkout} "
          f"--mlab-original-data={root}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
