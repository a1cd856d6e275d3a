"""The data key: a per-cache secret from which generated tasks draw their data.

The tasks' code is public, so a seed written in ``prepare.py`` would let an agent draw
the hidden answers again inside its sandbox. The key is 32 random bytes, made once per
cache folder (``<cache>/data-key``, mode 0600), or pinned by the user (``MLAB_DATA_KEY``,
``--mlab-data-key``) so that several machines draw the same data. It reaches only the
process that runs ``prepare.py``, through the variable below: never a workspace, never a
sandbox, never a scorer.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from filelock import FileLock

from pytest_mlab.core.errors import InfrastructureError

VARIABLE = "MLAB_DATA_KEY"
"""Pins the key (64 hex digits); the prepare process gets the key in force under it."""
FILE = "data-key"
KEY_BYTES = 32


class DataKeyError(InfrastructureError):
    """A data key that cannot be used: malformed, or readable by others."""


def parse_key(text: str) -> bytes:
    """The key written as 64 hex digits; ``ValueError`` with one sentence otherwise."""
    text = text.strip()
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a data key is {2 * KEY_BYTES} hex digits (python -c 'import "
                         "secrets; print(secrets.token_hex(32))'), not what was given")
    return key


def key_id(key: bytes) -> str:
    """A name for the key that says nothing of it: it is part of the prepared folders'
    names, so that another key means another preparation."""
    return hmac.new(key, b"pytest-mlab prepared data", hashlib.sha256).hexdigest()[:12]


def derive(key: bytes, name: str) -> bytes:
    """HMAC-SHA256(key, name): the secret of one task (or one draw of a task)."""
    return hmac.new(key, name.encode("utf-8"), hashlib.sha256).digest()


def _read(path: Path) -> bytes:
    info = path.stat()
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise DataKeyError(f"{path} may be read by other users: chmod 600 {path}")
    try:
        return parse_key(path.read_text(encoding="ascii"))
    except (ValueError, UnicodeDecodeError):
        raise DataKeyError(f"{path} holds no data key: remove it (a new one is made) "
                           f"or write {2 * KEY_BYTES} hex digits into it") from None


def _create(path: Path) -> None:
    """Write a new key to ``path``, which must not exist: written in full under another
    name first, then linked into place, so no reader ever sees half a key."""
    pending = path.with_name(f".{path.name}.{os.getpid()}.new")
    with contextlib.suppress(FileNotFoundError):
        pending.unlink()
    fd = os.open(pending, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, (secrets.token_hex(KEY_BYTES) + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(pending, path)  # fails if it exists: O_EXCL for the final name
    finally:
        pending.unlink()


def cache_key(cache_dir: Path) -> bytes:
    """The cache's own key, made on first use; processes racing to make it agree."""
    path = cache_dir / FILE
    if not path.exists():
        cache_dir.mkdir(parents=True, exist_ok=True)
        with FileLock(str(path) + ".lock"):
            if not path.exists():
                _create(path)
    return _read(path)


def data_key(cache_dir: Path, pinned: bytes | None = None) -> bytes:
    """The key in force: ``pinned``, else ``MLAB_DATA_KEY``, else the cache's own."""
    if pinned is not None:
        return pinned
    given = os.environ.get(VARIABLE)
    if given:
        try:
            return parse_key(given)
        except ValueError as exc:
            raise DataKeyError(f"{VARIABLE}: {exc}") from None
    return cache_key(cache_dir)
