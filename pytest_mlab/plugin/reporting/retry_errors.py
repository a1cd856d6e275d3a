"""``--mlab-retry-errors=N``: a trial that ended in a harness error (the provider failed
for good, its preparation or sandbox broke) runs again, up to N more times, so that a
run's counts are not short of the trials the infrastructure lost. A trial the agent
failed is never run again, nor one a user interrupted. Each earlier attempt stays in the
final record (``earlier_attempts``), so a retried pass is never mistaken for a first one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _pytest.runner import runtestprotocol

from pytest_mlab.plugin.keys import RESULT_KEY, TRIAL_KEY
from pytest_mlab.plugin.reporting.records import PROPERTY

NOT_RETRIED = frozenset({"Interrupted", "KeyboardInterrupt"})
"""Error classes of a stop asked for from outside: running again would undo it."""


def _record(reports: list[pytest.TestReport]) -> tuple[pytest.TestReport, dict[str, Any]] | None:
    """The report that carries the trial's record, and the record."""
    for report in reports:
        for name, value in report.user_properties:
            if name == PROPERTY:
                return report, json.loads(str(value))
    return None


def _forget_failed_fixtures(item: pytest.Item) -> None:
    """Fixtures of a wider scope cache the error they raised; the next attempt must make
    them again, not raise the cached error (pytest keeps no public way to say so)."""
    info = getattr(item, "_fixtureinfo", None)
    for definitions in (info.name2fixturedefs.values() if info is not None else ()):
        for definition in definitions:
            cached = getattr(definition, "cached_result", None)
            if cached is not None and cached[2] is not None:
                definition.cached_result = None


class RetryErrors:
    def __init__(self, retries: int) -> None:
        self.retries = retries

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None
                                ) -> bool | None:
        if TRIAL_KEY not in item.stash:
            return None
        item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
        earlier: list[dict[str, Any]] = []
        while True:
            last = len(earlier) == self.retries
            # Until the last attempt its parent comes next: the item's own fixtures are
            # torn down (its failed setup forgotten), those of a wider scope stay up.
            then: Any = nextitem if last else item.parent
            reports = runtestprotocol(item, nextitem=then, log=False)
            found = _record(reports)
            if last:
                break
            if (found is None or found[1]["outcome"] != "error"
                    or found[1].get("error_class") in NOT_RETRIED):
                # Torn down now as far as the item that really comes next needs.
                item.session._setupstate.teardown_exact(nextitem)
                break
            record = found[1]
            earlier.append({"error_class": record.get("error_class"),
                            "message": record["message"], "seconds": record.get("seconds", 0)})
            if RESULT_KEY in item.stash:
                del item.stash[RESULT_KEY]
            _forget_failed_fixtures(item)
            if isinstance(item, pytest.Function):
                item._initrequest()  # fresh fixture values, as for a new item
        if earlier and found is not None:
            report, record = found
            record["earlier_attempts"] = earlier
            report.user_properties = [
                (name, json.dumps(record) if name == PROPERTY else value)
                for name, value in report.user_properties]
        for report in reports:
            item.ihook.pytest_runtest_logreport(report=report)
        item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
        return True
