"""Attest a sandbox kind: run the probe (``attestation_probe.py``) in a sandbox of that
kind, made as a trial's is, and keep its record, once per machine, pytest-mlab version,
sandbox code, kind, isolation and image, in the cache folder.

A probe that cannot run at all (no Docker engine, a sandbox that does not start) gives a
failed record that is not cached: the next session tries again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.containment import Attestation, Check, attestation_id
from pytest_mlab.core.machine import machine_id
from pytest_mlab.core.plain_text import one_line
from pytest_mlab.core.tree import remove_tree
from pytest_mlab.core.version import __version__
from pytest_mlab.sandbox import attestation_probe
from pytest_mlab.sandbox.base import Sandbox
from pytest_mlab.sandbox.factory import make_sandbox
from pytest_mlab.sandbox.isolation import isolation_in_force
from pytest_mlab.sandbox.spec import SandboxSpec

FOLDER = "attestations"
"""Under the cache folder: one JSON record per key."""
PROBE_SECONDS = 120.0
SandboxMaker = Callable[[str, SandboxSpec], Sandbox]


def sandbox_code() -> str:
    """A hash of the sandbox package's source: a change to it is attested anew."""
    digest = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def isolation_of(kind: str, requested: str) -> str:
    """The isolation a sandbox of ``kind`` gets: the local level in force for
    ``requested`` (SandboxError if none works), docker's own, or, for another kind, what
    was asked of it."""
    if kind == "local":
        return isolation_in_force(requested)
    return "docker" if kind == "docker" else requested


def identity_of(kind: str, requested: str, image: str) -> dict[str, Any]:
    """What an attestation holds for: this machine, version and sandbox code, the kind, the
    isolation in force for ``requested``, the image (docker only) and who runs the harness."""
    return {"kind": kind, "isolation": isolation_of(kind, requested),
            "image": image if kind == "docker" else None, "machine": machine_id(),
            "pytest_mlab_version": __version__, "sandbox_code": sandbox_code(),
            "harness_uid": os.geteuid()}


def cache_path(cache_dir: Path, identity: dict[str, Any]) -> Path:
    key = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return cache_dir / FOLDER / f"{identity['kind']}-{identity['isolation']}-{key}.json"


def cached(path: Path, identity: dict[str, Any]) -> Attestation | None:
    """The record at ``path`` if it is one for ``identity``; None otherwise."""
    try:
        record = Attestation.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, ValidationError):
        return None
    held = record.model_dump(include=set(identity))
    return record if held == identity else None


def attest(kind: str, requested: str, image: str, cache_dir: Path, *, fresh: bool = False,
           maker: SandboxMaker = make_sandbox) -> tuple[Attestation, bool]:
    """The attestation of ``kind`` (the local sandbox at isolation ``requested``; docker
    with ``image``) and whether it came from the cache (never, with ``fresh``)."""
    identity = identity_of(kind, requested, image)
    path = cache_path(cache_dir, identity)
    if not fresh and (record := cached(path, identity)) is not None:
        return record, True
    # The local sandbox is made at the level in force, any other as a trial's would be.
    asked = identity["isolation"] if kind == "local" else requested
    report, ran = _probe(kind, asked, image, maker)
    record = _record(identity, report)
    if ran:
        write_atomic(path, record.model_dump_json(indent=2) + "\n")
    return record, False


def _probe(kind: str, isolation: str, image: str,
           maker: SandboxMaker) -> tuple[dict[str, Any], bool]:
    """The probe's report and whether it ran; one that could not run is a report with
    one failed check saying why."""
    listener = socket.create_server(("127.0.0.1", 0))
    workspace = Path(tempfile.mkdtemp(prefix="mlab-attest-"))
    try:
        spec = SandboxSpec(workspace, isolation=isolation, image=image,
                           run_id=f"attest-{os.getpid()}")
        sandbox = maker(kind, spec)
        try:
            # The plain local level shares the host's processes: the probe must not aim at them.
            shares_host = kind == "local" and isolation == "none"
            argument = json.dumps({"port": listener.getsockname()[1], "host": shares_host})
            source = Path(attestation_probe.__file__).read_text(encoding="utf-8")
            result = sandbox.run([sys.executable, "-c", source, argument], PROBE_SECONDS)
        finally:
            with contextlib.suppress(Exception):
                sandbox.close()
        report = _parse(result.stdout, result.returncode)
        if report is None:
            tail = (result.stderr.strip().splitlines() or ["no output"])[-1]
            return _unrun(f"the probe ended with status {result.returncode}: {tail}"), False
        if _connected(listener):
            report["checks"] = [_reached(c) for c in report["checks"]]
        return report, True
    except Exception as exc:  # a sandbox of any plugin: whatever it raises, said in words
        return _unrun(f"the sandbox could not run it: {type(exc).__name__}: {exc}"), False
    finally:
        listener.close()
        remove_tree(workspace)


def _parse(stdout: str, returncode: int) -> dict[str, Any] | None:
    if returncode != 0:
        return None
    try:
        report = json.loads(stdout.strip().splitlines()[-1])
        report["checks"] = [Check.model_validate(c).model_dump() for c in report["checks"]]
    except (ValueError, IndexError, KeyError, TypeError, ValidationError):
        return None
    parsed: dict[str, Any] = report
    return parsed


def _reached(check: dict[str, Any]) -> dict[str, Any]:
    """The network check, failed where the harness's listener saw a connection."""
    if check["name"] != "network_reach" or not check["passed"]:
        return check
    return {**check, "passed": False,
            "seen": f"{check['seen']}, yet the harness's listener saw a connection"}


def _unrun(why: str) -> dict[str, Any]:
    return {"checks": [{"name": "probe", "passed": False, "seen": why}]}


def _connected(listener: socket.socket) -> bool:
    listener.settimeout(0.0)
    try:
        listener.accept()[0].close()
    except OSError:
        return False
    return True


def _uid_text(report: dict[str, Any], harness_uid: int) -> str:
    """Who the script is on the host, in words that hold from one sandbox to the next (a
    root harness draws each sandbox's uid afresh)."""
    host = report.get("host_uid")
    if host is None:
        return "unknown"
    who = ("host root" if host == 0 else "the harness's own" if host == harness_uid
           else "a host uid of its own")
    if report.get("user_namespace"):
        return f"{report.get('uid')} -> {who}"
    return f"{who} (no user namespace)"


def _seccomp_text(modes: list[str]) -> str:
    if not modes:
        return "unknown"
    if modes == ["2"]:
        return "filter (2) in every process"
    return f"modes {', '.join(modes)} (not every process filtered)"


def _record(identity: dict[str, Any], report: dict[str, Any]) -> Attestation:
    checks = [Check.model_validate(c) for c in report["checks"]]
    fields: dict[str, Any] = {
        **identity, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "uid_map": one_line("; ".join(" ".join(line.split())
                                      for line in str(report.get("uid_map", "")).splitlines())),
        "uid": _uid_text(report, identity["harness_uid"]),
        "seccomp": _seccomp_text([str(m) for m in report.get("seccomp", [])]),
        "network": one_line(str(report.get("network", "unknown"))),
        "checks": [c.model_dump() for c in checks],
        "passed": bool(checks) and all(c.passed for c in checks),
    }
    return Attestation(id=attestation_id(fields), **fields)
