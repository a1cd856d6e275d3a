"""An offline bundle: every file the original tasks' preparation would download, in one
folder that can be copied to machines without network.

Layout, one file per download, named by where it came from::

    manifest.json                                  what is here: source, size, sha256
    kaggle/<competition>.zip                       kaggle competitions download -c <competition>
    urls/<host>/<path>                             a URL (wget, torchvision, ogb, archives)
    hf/<type>/<owner>/<name>/<revision>/<file>     a file of a Hugging Face repository

A bundle is ``downloaded`` (by ``python -m pytest_mlab bundle``, the real data) or
``synthetic`` (made by the tests: the same names, columns and layout, tiny). Its key, the
hash of its manifest, keeps the data prepared from one apart from any other's.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.fingerprint import sha256_file
from pytest_mlab.core.overlay import Overlay

MANIFEST = "manifest.json"
FORMAT = "pytest-mlab-bundle/1"
BundleKind = Literal["downloaded", "synthetic"]
_URL_KINDS = ("url", "torchvision", "ogb")
"""Overlay source prefixes whose rest is a URL the task's code downloads."""


class BundleError(Exception):
    """A bundle that cannot answer: one sentence naming the file and the fix."""


def kaggle_source(competition: str) -> str:
    return f"kaggle:{competition}"


def hub_source(kind: str, repo: str, revision: str, file: str) -> str:
    return f"hf:{kind}/{repo}@{revision}:{file}"


def path_of(source: str) -> str:
    """Where in a bundle the file of ``source`` lies (relative, POSIX)."""
    kind, _, rest = source.partition(":")
    if kind == "kaggle" and rest and "/" not in rest:
        return f"kaggle/{rest}.zip"
    if kind == "hf":
        where, _, file = rest.partition(":")
        repo, _, revision = where.partition("@")
        if repo.count("/") == 2 and revision and file:
            return f"hf/{repo}/{revision}/{file}"
    if kind in ("http", "https"):
        parts = urlsplit(source)
        if parts.hostname and parts.path.strip("/"):
            return f"urls/{parts.hostname}/{parts.path.strip('/')}"
    raise ValueError(f"{source!r} is not a bundle source (kaggle:NAME, hf:TYPE/OWNER/NAME@"
                     "REVISION:FILE, or an http(s) URL)")


def sources_of(overlay: Overlay) -> list[str]:
    """Every download the task's preparation makes, as bundle sources."""
    found: list[str] = []
    for source in overlay.sources:
        kind, _, rest = source.partition(":")
        if kind == "kaggle":
            found.append(kaggle_source(rest))
        elif kind in _URL_KINDS:
            found.append(rest)
    for entry in overlay.hub:
        found += [hub_source(entry.type, entry.repo, entry.revision, name) for name in entry.files]
    found += [entry.archive for entry in overlay.mounted_data]
    return list(dict.fromkeys(found))


def coco_urls(archive: Path, member: str) -> list[str]:
    """The coco_url of every image of the COCO annotation file ``member`` of the zip
    ``archive``, in order; a ``BundleError`` where it cannot be read so."""
    try:
        with zipfile.ZipFile(archive) as opened:
            images = json.loads(opened.read(member))["images"]
        urls = [str(image["coco_url"]) for image in images]
    except (OSError, KeyError, TypeError, ValueError, zipfile.BadZipFile) as exc:
        raise BundleError(f"{archive}: {member} cannot be read as a COCO annotation file "
                          f"with a coco_url per image ({type(exc).__name__}: {exc})") from None
    return list(dict.fromkeys(urls))


@dataclass(frozen=True)
class BundleFile:
    path: str
    source: str
    size: int
    sha256: str


def placed_file(root: Path, source: str) -> BundleFile:
    """The manifest's entry for the file of ``source`` placed under ``root``, hashed now; a
    ``BundleError`` where it is missing."""
    path = root / path_of(source)
    if not path.is_file():
        raise BundleError(f"{path} is missing: {source} was not downloaded")
    return BundleFile(path_of(source), source, path.stat().st_size, sha256_file(path))


def write_entries(root: Path, files: Iterable[BundleFile], kind: BundleKind) -> Path:
    """Write the manifest of ``files``, whose hashes are known (hashed as they were
    downloaded), without reading them again."""
    entries = [{"path": f.path, "source": f.source, "size": f.size, "sha256": f.sha256}
               for f in {f.source: f for f in files}.values()]
    manifest = {"format": FORMAT, "kind": kind, "files": entries}
    write_atomic(root / MANIFEST, json.dumps(manifest, indent=1) + "\n")
    return root / MANIFEST


def write_manifest(root: Path, sources: Iterable[str], kind: BundleKind) -> Path:
    """Hash every file of ``sources`` already placed under ``root`` and write the manifest;
    a source whose file is missing is a ``BundleError``."""
    return write_entries(root, [placed_file(root, s) for s in dict.fromkeys(sources)], kind)


class Bundle:
    """A bundle on disk, read through its manifest; each file is checked when first used."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        manifest = self.root / MANIFEST
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BundleError(f"{manifest} cannot be read as a bundle's manifest ({exc}); "
                              "make the bundle with: python -m pytest_mlab bundle CHECKOUT "
                              "--out DIR") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BundleError(f"{manifest}: key 'format' is not {FORMAT!r}")
        if data.get("kind") not in ("downloaded", "synthetic"):
            raise BundleError(f"{manifest}: key 'kind' must be 'downloaded' or 'synthetic'")
        self.kind: BundleKind = data["kind"]
        self.files = {f["source"]: BundleFile(f["path"], f["source"], int(f["size"]),
                                              f["sha256"]) for f in data.get("files", [])}
        self.key = hashlib.sha256(manifest.read_bytes()).hexdigest()[:12]
        self._checked: set[str] = set()

    def file(self, source: str) -> Path:
        """The bundle's file for ``source``, its size and sha256 checked against the
        manifest; a ``BundleError`` naming it where it is absent or differs."""
        entry = self.files.get(source)
        if entry is None:
            raise BundleError(f"the bundle {self.root} holds no {source} (its manifest has "
                              f"no such source); make it again with python -m pytest_mlab "
                              "bundle")
        path = self.root / entry.path
        if source in self._checked:
            return path
        if not path.is_file():
            raise BundleError(f"{path} is missing from the bundle ({source})")
        got = sha256_file(path)
        if got != entry.sha256:
            raise BundleError(f"{path} has sha256 {got}, the bundle's manifest says "
                              f"{entry.sha256} ({source}); copy the bundle again")
        self._checked.add(source)
        return path

    def missing(self, sources: Iterable[str]) -> list[str]:
        """The sources the manifest lacks (cheap: no file is read)."""
        return [source for source in sources if source not in self.files]

    def image_sources(self, overlay: Overlay) -> list[str]:
        """The images the overlay's ``coco_images`` lists, read from the task's Kaggle zip
        in this bundle; none where it names none or the zip is not here."""
        zips = [s for s in sources_of(overlay) if s.startswith("kaggle:")]
        entry = self.files.get(zips[0]) if overlay.coco_images and zips else None
        return coco_urls(self.root / entry.path, overlay.coco_images) if entry else []

    def lacks(self, overlay: Overlay) -> str | None:
        """What of the task's downloads the bundle lacks, with how to bundle it; None if
        it holds them all."""
        absent = self.missing(sources_of(overlay))
        try:
            absent = absent or self.missing(self.image_sources(overlay))
        except BundleError as exc:
            return f"the list of its images from the offline bundle: {exc}"
        if not absent:
            return None
        more = f" and {len(absent) - 1} more" if len(absent) > 1 else ""
        return (f"{absent[0]}{more} in the offline bundle {self.root} (bundle it on a "
                f"machine with network: python -m pytest_mlab bundle CHECKOUT --out "
                f"{self.root} --tasks {overlay.name})")
