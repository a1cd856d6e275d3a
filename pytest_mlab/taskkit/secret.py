"""Secret randomness for a task's ``prepare.py``: drawn from the data key, not a seed.

A seed written in public code lets an agent draw the hidden answers again in its
sandbox; the data key (``pytest_mlab.core.data_key``) reaches only the process that runs
``prepare()``, so the same draws cannot be made without it::

    rng = secret_rng("citation-graph")
"""

from __future__ import annotations

import os

import numpy as np

from pytest_mlab.core.data_key import VARIABLE, derive, parse_key


def _key() -> bytes:
    given = os.environ.get(VARIABLE)
    if not given:
        raise RuntimeError(
            f"no data key: prepare.py draws its data from one, which pytest-mlab passes in "
            f"{VARIABLE}; prepare the task through pytest-mlab, or set {VARIABLE} to 64 hex "
            "digits"
        )
    return parse_key(given)


def secret_seed(name: str) -> int:
    """A 256-bit seed from HMAC-SHA256(data key, ``name``), for helpers that take an int."""
    return int.from_bytes(derive(_key(), name), "big")


def secret_rng(name: str) -> np.random.Generator:
    """A numpy generator seeded from HMAC-SHA256(data key, ``name``): the same key and
    name give the same draws, on every machine."""
    return np.random.default_rng(secret_seed(name))
