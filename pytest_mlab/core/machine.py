"""Which machine this is: measured baselines and GPU locks are per machine, and a score
depends on the facts that change floating-point results (CPU, BLAS, library versions)."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import socket
from pathlib import Path

MOVING_FACTS = ("cpu_model", "cpu_flags", "blas", "numpy", "torch")
"""The facts a score moves with: two machines that agree on these give the same starter
scores for the same seeds and data."""
_CPUINFO = Path("/proc/cpuinfo")


def machine_id() -> str:
    """A short, file-name-safe name for this machine and its CPU count."""
    raw = f"{socket.gethostname()}-{platform.machine()}-{os.cpu_count()}cpu"
    return re.sub(r"[^A-Za-z0-9_.-]", "_", raw)


def _cpuinfo() -> tuple[str, str]:
    """The CPU's model name and a short hash of its feature flags."""
    model, flags = platform.processor() or platform.machine(), ""
    try:
        text = _CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name" and model in ("", platform.machine()):
            model = value.strip()
        elif key.strip() in ("flags", "Features") and not flags:
            flags = " ".join(sorted(value.split()))
    return model, hashlib.sha256(flags.encode()).hexdigest()[:12]


def package_version(package: str) -> str:
    """The installed version of ``package``, or "-"."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _blas() -> tuple[str, str]:
    """numpy's BLAS (library, version, kernel architecture) and its default threads."""
    try:
        import numpy  # noqa: F401  (loads the BLAS threadpoolctl reports)
        from threadpoolctl import threadpool_info  # type: ignore[import-untyped]
    except ImportError:
        return "-", "-"
    # numpy's own: which other BLAS libraries (scipy's, torch's) are listed depends on
    # what the process happened to import first.
    pools = sorted((p for p in threadpool_info() if p.get("user_api") == "blas"),
                   key=lambda p: ("numpy" not in str(p.get("filepath", "")),
                                  str(p.get("filepath", ""))))
    if not pools:
        return "-", "-"
    pool = pools[0]
    name = f"{pool.get('internal_api')} {pool.get('version')} {pool.get('architecture', '')}"
    return name.strip(), str(pool.get("num_threads"))


@functools.cache
def machine_facts() -> dict[str, str]:
    """What this machine's scores depend on, and its name, as short strings."""
    model, flags = _cpuinfo()
    blas, threads = _blas()
    return {
        "machine": machine_id(), "cpu_model": model, "cpu_flags": flags, "blas": blas,
        "blas_threads": threads, "numpy": package_version("numpy"),
        "torch": package_version("torch"),
    }


def facts_key(facts: dict[str, str]) -> str:
    """A short hash of the facts a score moves with."""
    moving = {name: facts.get(name, "") for name in MOVING_FACTS}
    return hashlib.sha256(json.dumps(moving, sort_keys=True).encode()).hexdigest()[:12]


def differing_facts(recorded: dict[str, str], here: dict[str, str]) -> list[str]:
    """The moving facts where ``recorded`` and ``here`` disagree, as 'name: a -> b'."""
    return [f"{name}: {recorded.get(name, '?')} -> {here.get(name, '?')}"
            for name in MOVING_FACTS if recorded.get(name) != here.get(name)]
