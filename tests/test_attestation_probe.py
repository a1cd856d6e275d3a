"""The attestation's probe over fake /proc trees (a process that keeps capabilities, a uid
map to host root), its record and cache with a fake sandbox, and the attest command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest

from pytest_mlab.core.containment import Attestation
from pytest_mlab.sandbox import attestation_probe as probe
from pytest_mlab.sandbox.attestation import attest, cache_path, identity_of
from pytest_mlab.sandbox.base import ExecResult
from pytest_mlab.sandbox.spec import SandboxSpec

CONFINED = {"Name": "python3", "Uid": "65534\t65534\t65534\t65534", "Seccomp": "2",
            "CapEff": "0000000000000000", "NoNewPrivs": "1"}


def fake_proc(root: Path, processes: dict[int, dict[str, str]], uid_map: str) -> Path:
    """A /proc tree: each process's status, and ``self`` (the first process's uid map)."""
    for pid, fields in processes.items():
        folder = root / str(pid)
        folder.mkdir(parents=True)
        (folder / "status").write_text("".join(f"{k}:\t{v}\n" for k, v in fields.items()))
    own = root / "self"
    own.mkdir()
    (own / "status").write_text((root / str(min(processes)) / "status").read_text())
    (own / "uid_map").write_text(uid_map)
    (own / "cgroup").write_text("0::/trial\n")
    (root / "net").mkdir()
    (root / "net/dev").write_text("Inter-| Receive\n face |bytes\n    lo: 0 0\n")
    return root


def _checks(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


def test_a_process_that_keeps_capabilities_fails_the_capabilities_check(tmp_path: Path) -> None:
    leaky = {**CONFINED, "Name": "keeper", "CapEff": "000001ffffffffff", "Seccomp": "0"}
    proc = fake_proc(tmp_path / "proc", {1: leaky, 7: CONFINED}, "65534 1879048193 1\n")
    checks = _checks({"checks": probe.process_checks(probe.processes(proc))})
    assert checks["capabilities"] == {
        "name": "capabilities", "passed": False,
        "seen": "1 of 2 processes: pid 1 (keeper): CapEff 000001ffffffffff"}
    assert not checks["seccomp"]["passed"]
    assert "pid 1 (keeper): Seccomp 0" in checks["seccomp"]["seen"]
    assert checks["no_new_privs"] == {"name": "no_new_privs", "passed": True,
                                      "seen": "all 2 processes: NoNewPrivs 1"}


@pytest.mark.parametrize(
    ("uid_map", "passed", "facts"),
    [
        ("65533 0 1\n65534 1879048193 1\n", True,
         {"uid": 65534, "host_uid": 1879048193, "user_namespace": True}),
        ("65534 0 1\n", False, {"uid": 65534, "host_uid": 0, "user_namespace": True}),
        ("0 0 4294967295\n", True, {"uid": 65534, "host_uid": 65534, "user_namespace": False}),
    ],
)
def test_the_uid_check_maps_every_uid_of_the_process_to_the_host(
    tmp_path: Path, uid_map: str, passed: bool, facts: dict[str, Any]
) -> None:
    proc = fake_proc(tmp_path / "proc", {1: CONFINED}, uid_map)
    check, found = probe.uid_check(proc)
    assert check["passed"] is passed
    assert {k: found[k] for k in facts} == facts
    assert check["seen"].startswith("Uid 65534 65534 65534 65534 -> host ")


def test_a_uid_the_map_does_not_hold_fails(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path / "proc", {1: CONFINED}, "0 1879048193 1\n")
    check, _ = probe.uid_check(proc)
    assert not check["passed"]
    assert "-> host None None None None" in check["seen"]


def test_files_that_open_for_writing_fail_and_are_left_unwritten(tmp_path: Path) -> None:
    cgroups = tmp_path / "cgroup"
    (cgroups / "trial").mkdir(parents=True)
    for name in ("cgroup.procs", "memory.max"):
        (cgroups / "trial" / name).write_text("max\n")
    proc = fake_proc(tmp_path / "proc", {1: CONFINED}, "65534 1879048193 1\n")
    check = probe.cgroup_check(proc, cgroups)
    assert not check["passed"]
    assert f"{cgroups}/trial/memory.max: access W_OK yes, opened for writing" in check["seen"]
    assert (cgroups / "trial/memory.max").read_text() == "max\n"
    os.chmod(cgroups / "trial", 0o555)
    for name in ("cgroup.procs", "memory.max"):
        os.chmod(cgroups / "trial" / name, 0o444)
    refused = probe.cgroup_check(proc, cgroups)
    # root opens any file: what a root harness's probe sees is checked in the sandbox
    assert refused["passed"] is (os.geteuid() != 0)


def test_no_visible_cgroup_file_passes(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path / "proc", {1: CONFINED}, "65534 1879048193 1\n")
    check = probe.cgroup_check(proc, tmp_path / "no-cgroupfs")
    assert check == {"name": "cgroup", "passed": True,
                     "seen": "no file of its own groups is visible"}


def test_interfaces_beside_lo_fail_the_network_check(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path / "proc", {1: CONFINED}, "65534 1879048193 1\n")
    (proc / "net/dev").write_text("h1\nh2\n    lo: 0\n  eth0: 0\n")
    checks, summary = probe.network_checks(proc, 9)
    assert checks[0] == {"name": "network_interfaces", "passed": False,
                         "seen": "/proc/net/dev: eth0, lo"}
    assert summary.startswith("eth0, lo")


def test_a_probe_that_shares_the_host_looks_at_no_process_but_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host_init = {**CONFINED, "Name": "init", "Uid": "0\t0\t0\t0", "Seccomp": "0",
                 "CapEff": "000001ffffffffff"}
    proc = fake_proc(tmp_path / "proc", {5: CONFINED, 1: host_init}, "0 0 4294967295\n")
    (proc / "self/status").write_text((proc / "5/status").read_text())
    aimed: list[str] = []
    for name in ("proc_sys_check", "mount_check", "memory_check", "ptrace_check"):
        monkeypatch.setattr(probe, name, lambda *args, name=name: aimed.append(name))
    report = probe.probe(9, proc, tmp_path / "no-cgroupfs", host=True)
    assert aimed == []
    checks = _checks(report)
    assert [n for n, c in checks.items() if c["seen"].startswith("not probed: ")] == [
        "proc_sys", "mount", "process_memory", "ptrace"]
    assert checks["capabilities"]["seen"] == "all 1 processes: CapEff 0"  # init is not looked at
    assert report["processes"] == 1


class FakeSandbox:
    """Runs the probe's report it was given instead of a probe; counts its runs."""

    isolation = "fake"
    runs: ClassVar[list[Sequence[str]]] = []

    def __init__(self, spec: SandboxSpec, report: dict[str, Any] | None) -> None:
        self.report = report

    def run(self, argv: Sequence[str], timeout: float) -> ExecResult:
        FakeSandbox.runs.append(argv)
        if self.report is None:
            return ExecResult("", "Traceback ...\nOSError: no\n", 1, 0.1, False)
        return ExecResult(json.dumps(self.report) + "\n", "", 0, 0.1, False)

    def stop_all(self) -> None:
        pass

    def close(self) -> None:
        pass


def _report(**changes: Any) -> dict[str, Any]:
    names = ("uid_map", "seccomp", "capabilities", "no_new_privs", "proc_sys", "cgroup",
             "mount", "network_interfaces", "network_reach", "process_memory", "ptrace")
    checks = [{"name": n, "passed": True, "seen": "fine"} for n in names]
    report = {"checks": checks, "uid_map": "65533 0 1\n65534 1879048193 1\n", "uid": 65534,
              "host_uid": 1879048193, "user_namespace": True, "network": "lo only",
              "seccomp": ["2"], "processes": 2}
    return {**report, **changes}


def _attest(cache: Path, report: dict[str, Any] | None, **kwargs: Any) -> tuple[Attestation, bool]:
    return attest("docker", "auto", "img:1", cache, **kwargs,
                  maker=lambda kind, spec: FakeSandbox(spec, report))


def test_a_record_is_cached_and_a_second_attestation_runs_no_probe(tmp_path: Path) -> None:
    FakeSandbox.runs = []
    first, cached = _attest(tmp_path, _report())
    assert (first.passed, cached, len(FakeSandbox.runs)) == (True, False, 1)
    assert first.uid == "65534 -> a host uid of its own"
    assert first.containment().key == (
        "docker", "docker", "65534 -> a host uid of its own", "filter (2) in every process",
        "lo only")
    again, cached = _attest(tmp_path, _report())
    assert (again, cached, len(FakeSandbox.runs)) == (first, True, 1)
    fresh, cached = _attest(tmp_path, _report(), fresh=True)
    assert (cached, len(FakeSandbox.runs)) == (False, 2)
    path = cache_path(tmp_path, identity_of("docker", "auto", "img:1"))
    assert Attestation.model_validate_json(path.read_text()) == fresh


def test_a_failed_check_fails_the_record_and_a_probe_that_did_not_run_is_not_cached(
    tmp_path: Path,
) -> None:
    FakeSandbox.runs = []
    report = _report()
    report["checks"][2] = {"name": "capabilities", "passed": False,
                           "seen": "1 of 2 processes: pid 1 (sh): CapEff 000001ffffffffff"}
    failed, _ = _attest(tmp_path / "a", report)
    assert not failed.passed and failed.containment().weak
    assert [str(c) for c in failed.failed] == [
        "capabilities (1 of 2 processes: pid 1 (sh): CapEff 000001ffffffffff)"]
    assert failed.summary().endswith(": checks failing: capabilities")
    unrun, cached = _attest(tmp_path / "b", None)
    assert (unrun.passed, cached) == (False, False)
    assert [str(c) for c in unrun.failed] == [
        "probe (the probe ended with status 1: OSError: no)"]
    _attest(tmp_path / "b", None)
    assert len(FakeSandbox.runs) == 3  # the failure to run was tried again
    assert not list((tmp_path / "b").rglob("*.json"))


def test_a_sandbox_that_raises_is_a_failed_probe_in_words(tmp_path: Path) -> None:
    def broken(kind: str, spec: SandboxSpec) -> FakeSandbox:
        raise RuntimeError("no engine")

    record, _ = attest("docker", "auto", "img:1", tmp_path, maker=broken)
    assert [str(c) for c in record.failed] == [
        "probe (the sandbox could not run it: RuntimeError: no engine)"]


def test_the_records_text_cannot_drive_a_terminal(tmp_path: Path) -> None:
    report = _report(network="lo\x1b[2J")
    report["checks"][1]["seen"] = "pid 1 (\x1b]8;;evil\x07x): Seccomp 0\nFAKE PASSED"
    record, _ = _attest(tmp_path, report)
    text = record.model_dump_json()
    assert "\x1b" not in record.summary() and "\n" not in record.checks[1].seen
    assert "\\x1b" in text


def test_the_attest_command_prints_the_record_and_fails_on_an_unknown_sandbox(
    tmp_path: Path,
) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest_mlab", "attest", "--sandbox=nope",
                           f"--cache-dir={tmp_path}"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == ("error: --sandbox: unknown sandbox 'nope'; choose one of: "
                           "docker, local\n")
    done = subprocess.run([sys.executable, "-m", "pytest_mlab", "attest", "--isolation=none",
                           f"--cache-dir={tmp_path}"], capture_output=True, text=True)
    record = Attestation.model_validate_json(done.stdout)
    assert (record.kind, record.isolation) == ("local", "none")
    # the plain level shares the host's processes: what would aim at them is not probed
    assert done.returncode == 1 and not record.passed
    not_probed = {c.name for c in record.failed if c.seen.startswith("not probed: ")}
    assert not_probed == {"proc_sys", "mount", "process_memory", "ptrace"}
    assert {c.name for c in record.checks} >= {"seccomp", "capabilities", "cgroup"}
    assert done.stderr.startswith("local/none: ") and "checks failing: " in done.stderr
