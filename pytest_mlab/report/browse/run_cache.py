"""What a run's pages add up from its records, made once per reading of the run.

A run of 10,000 trials takes most of a second to add up (its groups' figures, the suite's
bootstrap intervals, its charts), and its page asks for them again with each page of its
trials and each filter; an export asks for every page. The index hands out one reading of
a run until its results.json (or a live run's files) change, so what was made from that
reading holds as long as the index hands out the same one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from pytest_mlab.core.results import RunResults
from pytest_mlab.report.browse.metrics import run_tables
from pytest_mlab.report.browse.runs import containment
from pytest_mlab.report.rows import Row

T = TypeVar("T")


def run_facts(run: RunResults, rows: Sequence[Row] = ()) -> dict[str, Any]:
    """What a run's page shows above its trials: its groups, agents and containments, and
    the outcomes and endings its trials can be chosen by; ``rows``: the run's ``rows_of``,
    where made already (its charts draw them too)."""
    return {
        **run_tables(run, rows), "containment": containment(run.results),
        "outcomes": sorted({r.outcome for r in run.results}),
        "ended_by": sorted({r.ended_by for r in run.results}),
    }


class RunCache:
    """Each run's figures by name, made from the reading of the run the index handed out."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._made: dict[tuple[str, str], tuple[RunResults, Any]] = {}

    def made(self, key: str, run: RunResults, name: str,
             make: Callable[[RunResults], T]) -> T:
        """``make(run)``, made again only when ``run`` is another reading of the run
        ``key``; two requests at once may both make it, and either is kept."""
        with self._lock:
            cached = self._made.get((key, name))
        if cached is not None and cached[0] is run:
            return cast(T, cached[1])
        value = make(run)
        with self._lock:
            self._made[key, name] = (run, value)
        return value
