"""Task scripts that these tests call directly draw their data from a fixed test key, as
prepare.py does under the harness (which passes the cache's key in MLAB_DATA_KEY)."""

from __future__ import annotations

import pytest

from pytest_mlab.core.data_key import VARIABLE


@pytest.fixture(autouse=True)
def _test_data_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VARIABLE, "5a" * 32)
