"""Containment attested with every score: the probe passes in a real sandbox of each kind,
a session records the attestation on every result and beside results.json (probing once,
then reading the cache), a weak sandbox stops the session with the failed checks unless
``--mlab-allow-weak-sandbox``, whose results are marked weak, and the gate refuses to
compare runs of different containment unless told.

Run as root (as CI does): a root harness is the case the sandbox's own host uid exists for.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_mlab.core.containment import Attestation
from pytest_mlab.sandbox.attestation import FOLDER, attest
from pytest_mlab.sandbox.spec import SKELETON_IMAGE

CHECKS = {"uid_map", "seccomp", "capabilities", "no_new_privs", "proc_sys", "cgroup", "mount",
          "network_interfaces", "network_reach", "process_memory", "ptrace"}
KINDS = {"bwrap": ("local", "bwrap"), "docker": ("docker", "docker")}

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the harness must run as root")


@as_root
def test_the_probe_passes_in_a_real_sandbox(sandbox_kind: str, tmp_path: Path) -> None:
    kind, isolation = KINDS[sandbox_kind]
    record, cached = attest(kind, isolation, SKELETON_IMAGE, tmp_path)
    print(record.model_dump_json(indent=2))  # the record, for whoever reads the log
    assert not cached and (record.kind, record.isolation) == (kind, isolation)
    assert {c.name for c in record.checks} == CHECKS
    assert [str(c) for c in record.failed] == []
    assert record.passed
    assert record.uid.endswith("a host uid of its own" if kind == "local"
                               else "a host uid of its own (no user namespace)")
    assert (record.seccomp, record.network) == ("filter (2) in every process", "lo only")


def _session(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("tasks", "--agent=oracle", *args)


def _attestation_of_run(pytester: pytest.Pytester) -> tuple[Attestation, list[dict[str, Any]]]:
    results = max(pytester.path.glob("reports/*/results.json"), key=lambda p: p.stat().st_mtime_ns)
    record = Attestation.model_validate_json((results.parent / "attestation.json").read_text())
    return record, json.loads(results.read_text())["results"]


@as_root
def test_a_session_attests_once_and_every_result_records_its_containment(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
    kind_args: list[str], sandbox_kind: str,
) -> None:
    recorded("guess")
    kind, isolation = KINDS[sandbox_kind]
    first = _session(pytester, "--mlab-trials=2", "--mlab-save=first", *kind_args, *mlab_args)
    first.assert_outcomes(passed=2)
    record, results = _attestation_of_run(pytester)
    assert record.passed and (record.kind, record.isolation) == (kind, isolation)
    first.stdout.fnmatch_lines([f"mlab: containment {kind}/{isolation}: uid *; attestation "
                                f"{record.id} of *: all 11 checks hold (*)"])
    assert [r["containment"] for r in results] == [{
        "kind": kind, "isolation": isolation, "uid_map": record.uid, "seccomp": record.seccomp,
        "network": record.network, "attestation_id": record.id, "weak": False}] * 2
    cache = pytester.path / "cache" / FOLDER
    stamps = {p: p.stat().st_mtime_ns for p in cache.iterdir()}
    # Under -n the workers record the controller's attestation: nobody probes again.
    again = pytester.runpytest_subprocess(
        "tasks", "--agent=oracle", "--mlab-trials=2", "-n", "2", "--mlab-compare=first",
        "--mlab-compare-fail=success:-10%", *kind_args, *mlab_args, timeout=300)
    again.assert_outcomes(passed=2)
    assert again.ret == pytest.ExitCode.OK
    again.stdout.fnmatch_lines([f"mlab: containment {kind}/{isolation}: * attestation "
                                f"{record.id} of *: all 11 checks hold (from the cache)",
                                "gate passed*"])
    assert {p: p.stat().st_mtime_ns for p in cache.iterdir()} == stamps  # no probe ran
    record_again, results_again = _attestation_of_run(pytester)
    assert record_again == record
    assert [r["containment"] for r in results_again] == [r["containment"] for r in results]


@as_root
def test_a_weak_sandbox_stops_the_session_unless_allowed_and_the_gate_refuses_its_runs(
    pytester: pytest.Pytester, recorded: Callable[[str], Path], mlab_args: list[str],
) -> None:
    recorded("guess")
    _session(pytester, "--mlab-save=contained", *mlab_args).assert_outcomes(passed=1)
    runs = set(pytester.path.glob("reports/*/results.json"))
    stopped = _session(pytester, "--mlab-isolation=none", *mlab_args)
    assert stopped.ret == pytest.ExitCode.USAGE_ERROR
    stopped.stderr.fnmatch_lines([
        "ERROR: the local sandbox (isolation none) failed its attestation on this machine: "
        "uid_map (Uid 0 0 0 0 -> host 0 0 0 0 (uid_map: 0 0 4294967295)); *"
        "Fix the sandbox, or run anyway with --mlab-allow-weak-sandbox (each result is then "
        "marked weak); print the whole record with: python -m pytest_mlab attest "
        "--sandbox=local"])
    assert set(pytester.path.glob("reports/*/results.json")) == runs  # no trial ran
    weak = _session(pytester, "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
                    "--mlab-compare=contained", "--mlab-compare-fail=success:-10%", *mlab_args)
    weak.assert_outcomes(passed=1)
    weak.stdout.fnmatch_lines(["mlab: containment local/none: * checks failing: uid_map, *",
                               "mlab: WEAK SANDBOX: *every result is marked weak"])
    record, (result,) = _attestation_of_run(pytester)
    assert not record.passed and "uid_map" in {c.name for c in record.failed}
    assert result["containment"]["weak"] is True
    assert result["containment"]["uid_map"] == "host root (no user namespace)"
    assert weak.ret == pytest.ExitCode.TESTS_FAILED
    weak.stdout.fnmatch_lines(["gate refuses to compare: 0001_contained.json ran under "
                               "local/bwrap (*), this run under local/none (*); compare runs "
                               "of one containment, or add --mlab-compare-any-containment"])
    told = _session(pytester, "--mlab-isolation=none", "--mlab-allow-weak-sandbox",
                    "--mlab-compare=contained", "--mlab-compare-fail=success:-10%",
                    "--mlab-compare-any-containment", *mlab_args)
    assert told.ret == pytest.ExitCode.OK
    told.stdout.fnmatch_lines(["gate passed*"])
