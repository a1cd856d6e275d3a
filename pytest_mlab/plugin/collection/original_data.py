"""Where original tasks' data comes from in this session: the offline bundle
``--mlab-original-data`` (or the ini key) names, or the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_mlab.core.bundle import Bundle, BundleError

_BUNDLE_KEY = pytest.StashKey[Bundle | None]()


def original_bundle(config: pytest.Config) -> Bundle | None:
    """The offline bundle original tasks are prepared from; None: they download. Read
    once per session; one that cannot be read is a usage error."""
    if _BUNDLE_KEY not in config.stash:
        chosen = config.getoption("mlab_original_data")
        if not chosen and config.getini("mlab_original_data"):
            chosen = config.rootpath / Path(config.getini("mlab_original_data")).expanduser()
        found = None
        if chosen:
            try:
                found = Bundle(Path(chosen).expanduser())
            except BundleError as exc:
                raise pytest.UsageError(f"--mlab-original-data: {exc}") from None
        config.stash[_BUNDLE_KEY] = found
    return config.stash[_BUNDLE_KEY]
