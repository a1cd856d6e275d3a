"""The session's warm score workers (env/warm_workers.py), ended with the session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_mlab.env.warm_workers import close_pool, open_pool


@pytest.fixture(scope="session")
def mlab_warm_scorers() -> Iterator[None]:
    """Scorers kept warm across the session's trials: each score still runs in a process
    of its own, forked from one that has only loaded the task's score script."""
    pool = open_pool()
    try:
        yield
    finally:
        close_pool(pool)
