"""Download an archive and unpack it into a folder, for an original task's ``mounted_data``.

The archive is unpacked by the rules of tarfile's ``data`` filter (core/safe_tar.py; the
zip equivalent here), so no member lands outside the folder, none is a device, and no link
points out of it: the folder is shown to every sandbox of the task.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import urllib.request
import zipfile
from pathlib import Path

from pytest_mlab.core.overlay import archive_suffix
from pytest_mlab.core.safe_tar import extract

TIMEOUT_SECONDS = 60.0
"""How long a read from the server may stall."""
_CHUNK = 1 << 20


def _unpack_zip(archive: Path, folder: Path) -> None:
    with zipfile.ZipFile(archive) as opened:
        for member in opened.infolist():
            target = (folder / member.filename).resolve()
            if not target.is_relative_to(folder.resolve()):
                raise RuntimeError(f"the archive's member {member.filename!r} would land "
                                   f"outside {folder}")
        opened.extractall(folder)


def fetch_archive(url: str, folder: Path, local: Path | None = None) -> None:
    """Download ``url`` (or take its copy ``local``) and unpack it into ``folder`` (made,
    or replaced if there)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    suffix = archive_suffix(url)
    assert suffix is not None, "the overlay's validation admits only known archives"
    with tempfile.TemporaryDirectory(prefix="mlab-archive-", dir=folder.parent) as tmp:
        archive = local or Path(tmp) / f"download{suffix}"
        if local is None:
            with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response, \
                    archive.open("wb") as out:
                shutil.copyfileobj(response, out, _CHUNK)
        try:
            if suffix == ".zip":
                _unpack_zip(archive, folder)
            else:
                with tarfile.open(archive) as opened:
                    extract(opened, folder, links_out=False)
        except Exception as exc:
            raise RuntimeError(f"{url} could not be unpacked: {exc}") from None
