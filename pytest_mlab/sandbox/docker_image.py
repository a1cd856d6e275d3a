"""The default sandbox image: a root skeleton, made without a registry.

The image holds only folders and the /bin, /lib symlinks of a merged-/usr system; each
container mounts the host's /usr, the Python interpreter and a few /etc files read-only.
"""

from __future__ import annotations

import io
import tarfile
from typing import Any

from pytest_mlab.sandbox.spec import SKELETON_IMAGE

_FOLDERS = ("usr", "etc", "tmp", "workspace", "proc", "dev", "sys", "root")
_LINKS = {"bin": "usr/bin", "sbin": "usr/sbin", "lib": "usr/lib", "lib64": "usr/lib64"}


def skeleton_tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name in _FOLDERS:
            info = tarfile.TarInfo(name)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if name == "tmp" else 0o755
            tar.addfile(info)
        for name, target in _LINKS.items():
            info = tarfile.TarInfo(name)
            info.type, info.linkname = tarfile.SYMTYPE, target
            tar.addfile(info)
    return buffer.getvalue()


def ensure_skeleton_image(client: Any) -> None:
    """Import the skeleton image into the engine unless it is there already."""
    import docker.errors

    try:
        client.images.get(SKELETON_IMAGE)
    except docker.errors.ImageNotFound:
        repository, tag = SKELETON_IMAGE.split(":")
        client.api.import_image_from_data(skeleton_tar(), repository=repository, tag=tag)
