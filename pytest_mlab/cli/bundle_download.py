"""Downloading one source of a bundle where ``path_of`` puts it: a Kaggle competition
with the ``kaggle`` command, a URL with urllib, a Hugging Face file with its hub client;
nothing is left under its final name until it is whole."""

from __future__ import annotations

import hashlib
import http.client
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

from pytest_mlab.core.bundle import (
    BundleFile,
    path_of,
    placed_file,
)
from pytest_mlab.core.fingerprint import sha256_file

URL_TIMEOUT = 60.0
"""Seconds a URL's host may stay silent, connecting or mid-download."""
_CHUNK = 1 << 20


class DownloadError(Exception):
    """A source that could not be downloaded: why, in a few words."""


def _place(downloaded: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    os.replace(downloaded, target)


def _fetch_url(url: str, target: Path) -> tuple[int, str]:
    """Stream ``url`` into ``target``'s ``.part`` file, renamed to ``target`` when complete:
    its size and sha256."""
    part = target.with_name(f"{target.name}.part")
    target.parent.mkdir(parents=True, exist_ok=True)
    request = urllib.request.Request(url, headers={"User-Agent": "pytest-mlab-bundle"})
    digest, size = hashlib.sha256(), 0
    try:
        with urllib.request.urlopen(request, timeout=URL_TIMEOUT) as answer, \
                part.open("wb") as out:
            expected = answer.headers.get("Content-Length")
            while chunk := answer.read(_CHUNK):
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
        if expected is not None and int(expected) != size:
            raise DownloadError(f"the answer ended after {size} of {expected} bytes")
        part.replace(target)
    except urllib.error.HTTPError as exc:
        raise DownloadError(f"the server answered HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise DownloadError(f"the server cannot be reached ({exc.reason})") from None
    except (OSError, http.client.HTTPException) as exc:
        raise DownloadError(f"the download broke off ({str(exc) or type(exc).__name__})") from None
    finally:
        part.unlink(missing_ok=True)
    return size, digest.hexdigest()


def _fetch_kaggle(competition: str, target: Path, scratch: Path) -> None:
    """The competition's zip, downloaded into ``scratch`` (the kaggle command writes it
    under its final name as it goes) and moved to ``target`` when complete."""
    kaggle = shutil.which("kaggle") or "kaggle"
    argv = [kaggle, "competitions", "download", "-c", competition, "-p", str(scratch)]
    run = subprocess.run(argv, capture_output=True, text=True, check=False)
    said = (run.stdout + run.stderr).strip().splitlines()
    last = f": {said[-1].strip()}" if said else ""
    if run.returncode != 0:
        raise DownloadError(f"kaggle competitions download -c {competition} failed "
                            f"(exit {run.returncode}){last}")
    zipped = scratch / f"{competition}.zip"
    if not zipped.is_file():
        raise DownloadError(f"kaggle competitions download -c {competition} wrote no "
                            f"{zipped.name}{last}")
    _place(zipped, target)


def _fetch_hub(source: str, target: Path, scratch: Path, pin: str) -> None:
    from huggingface_hub import hf_hub_download  # reads HF_TOKEN and HF_ENDPOINT itself

    kind, _, rest = source.partition(":")[2].partition("/")
    repo, _, file = rest.partition(":")
    repo, _, revision = repo.partition("@")
    try:
        got = Path(hf_hub_download(repo, file, repo_type=kind, revision=revision,
                                   local_dir=scratch))
    except Exception as exc:  # the hub's errors share no base class beyond Exception
        said = str(exc).strip().splitlines()
        raise DownloadError(said[0] if said else type(exc).__name__) from None
    digest = sha256_file(got)
    if pin and digest != pin:
        raise DownloadError(f"{file} at revision {revision} has sha256 {digest}, the overlay "
                            f"pins {pin}; check what changed and update the overlay")
    _place(got, target)


def download(root: Path, source: str, pin: str = "") -> BundleFile:
    """Put ``source``'s file at its bundle path under ``root``; a ``DownloadError`` saying
    why not, with nothing left under that path."""
    target = root / path_of(source)
    if source.startswith(("http:", "https:")):
        size, digest = _fetch_url(source, target)
        return BundleFile(path_of(source), source, size, digest)
    scratch = Path(tempfile.mkdtemp(prefix=".part-", dir=root))
    try:
        if source.startswith("kaggle:"):
            _fetch_kaggle(source.partition(":")[2], target, scratch)
        else:
            _fetch_hub(source, target, scratch, pin)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return placed_file(root, source)
