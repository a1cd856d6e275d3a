"""Containment attested before the first trial: the sandbox kind the session uses is
probed (``sandbox/attestation.py``, cached per machine and version), the session stops
with one sentence where a check fails (unless ``--mlab-allow-weak-sandbox``), and every
result records the containment it ran under.

A session of tasks attests at its start, so that the header shows the record: the
controller of ``-n`` (its workers read the controller's record), a session without
``-n``, a Ray node's session for its trial; never the Ray controller, whose trials run on
the nodes. A session whose paths also hold tests (the plugin's own test suite holds
example tasks it never collects) attests only when a trial is about to run.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mlab.plugin.keys import RESULT_KEY, SETTINGS_KEY, TRIAL_KEY

if TYPE_CHECKING:
    from pytest_mlab.core.containment import Attestation

WORKER_INPUT = "mlab_attestation"
FILE = "attestation.json"
"""The record, beside the run's results.json."""
ALLOW_WEAK = "--mlab-allow-weak-sandbox"


@dataclass(frozen=True)
class SessionAttestation:
    """The attestation this session's trials run under."""

    record: Attestation
    cached: bool
    """Read from the cache (or from the -n controller), not probed by this process."""


ATTESTATION_KEY = pytest.StashKey[SessionAttestation]()


class WeakSandbox(Exception):
    """The sandbox failed its attestation and no one allowed it; one sentence."""


def allow_weak(config: pytest.Config) -> bool:
    from pytest_mlab.plugin.config import parsers
    from pytest_mlab.plugin.config.resolve import resolve

    allowed: bool = resolve(config, "mlab_allow_weak_sandbox", "MLAB_ALLOW_WEAK_SANDBOX",
                            parsers.switch, False)
    return allowed


def refusal(record: Attestation) -> str:
    failed = "; ".join(str(check) for check in record.failed)
    return (f"the {record.kind} sandbox (isolation {record.isolation}) failed its attestation "
            f"on this machine: {failed}. Fix the sandbox, or run anyway with {ALLOW_WEAK} "
            "(each result is then marked weak); print the whole record with: python -m "
            f"pytest_mlab attest --sandbox={record.kind}")


def attested(config: pytest.Config) -> SessionAttestation:
    """The session's attestation, made (or read from the cache) on first need; WeakSandbox
    where it failed and the user did not allow it."""
    if (chosen := config.stash.get(ATTESTATION_KEY, None)) is not None:
        return chosen
    from pytest_mlab.core.errors import SandboxError
    from pytest_mlab.sandbox.attestation import attest

    settings = config.stash[SETTINGS_KEY]
    try:
        record, cached = attest(settings.sandbox, settings.isolation, settings.docker_image,
                                settings.cache_dir)
    except SandboxError as exc:
        raise WeakSandbox(f"the {settings.sandbox} sandbox cannot be attested: {exc}") from None
    if not record.passed and not allow_weak(config):
        raise WeakSandbox(refusal(record))
    config.stash[ATTESTATION_KEY] = chosen = SessionAttestation(record, cached)
    return chosen


def _attests_at_start(config: pytest.Config) -> bool:
    from pytest_mlab.plugin.config.dispatch_options import dispatched
    from pytest_mlab.plugin.reporting.headers import session_holds

    option = config.option
    if option.collectonly or getattr(option, "showfixtures", False) or dispatched(config):
        return False
    holds = session_holds(config)
    return holds.tasks and not holds.tests


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Attest before any trial starts (and before -n starts its workers)."""
    config = session.config
    if SETTINGS_KEY not in config.stash:
        return
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        if raw := workerinput.get(WORKER_INPUT):
            from pytest_mlab.core.containment import Attestation

            config.stash[ATTESTATION_KEY] = SessionAttestation(
                Attestation.model_validate_json(raw), cached=True)
    elif _attests_at_start(config):
        try:
            attested(config)
        except WeakSandbox as exc:
            raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """Each -n worker records the controller's attestation; none attests again."""
    chosen = node.config.stash.get(ATTESTATION_KEY, None)
    if chosen is not None:
        node.workerinput[WORKER_INPUT] = chosen.record.model_dump_json()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """A trial runs only under an attested sandbox, and its record (made in its setup, by
    ``mlab_result``) gets the containment, whether the trial passed, failed or errored; a
    record from a Ray node has its own."""
    from pytest_mlab.plugin.config.dispatch_options import dispatched

    config = item.config
    chosen = None
    if TRIAL_KEY in item.stash and SETTINGS_KEY in config.stash and not dispatched(config):
        try:
            chosen = attested(config)
        except WeakSandbox as exc:
            pytest.exit(str(exc), returncode=pytest.ExitCode.USAGE_ERROR)
    try:
        return (yield)
    finally:
        result = item.stash.get(RESULT_KEY, None)
        if chosen is not None and result is not None and result.containment is None:
            result.containment = chosen.record.containment()


@pytest.hookimpl(tryfirst=True)
def pytest_report_header(config: pytest.Config) -> list[str] | None:
    from pytest_mlab.plugin.reporting.headers import containment_lines

    chosen = config.stash.get(ATTESTATION_KEY, None)
    if chosen is None:
        return None
    return containment_lines(chosen.record, chosen.cached)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The record goes beside results.json (written by the reporter before this)."""
    config = session.config
    chosen = config.stash.get(ATTESTATION_KEY, None)
    if chosen is None or hasattr(config, "workerinput"):
        return
    from pytest_mlab.core.atomic import write_atomic

    files = config.stash[SETTINGS_KEY].run_files
    if files.results.is_file():
        write_atomic(files.root / FILE, chosen.record.model_dump_json(indent=2) + "\n")
