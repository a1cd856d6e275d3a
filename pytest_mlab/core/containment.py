"""What a sandbox was seen to contain: the attestation of one sandbox kind on one machine
(its probe's checks), and the containment each result records from it.

Two runs' numbers are comparable only under one containment: a trial whose script could
reach the network or its own cgroup's limits did not measure what a contained one did.
So ``Containment.key`` is what the gate compares: the kind, the isolation level, who the
script is on the host, its seccomp mode and its network; not the attestation's id or time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, field_validator

from pytest_mlab.core.plain_text import one_line

UNKNOWN = "unknown containment"
"""How a result (or a run) recorded before containment was recorded reads."""


class Check(BaseModel):
    """One thing the probe looked at inside the sandbox, and what it saw."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    passed: bool
    seen: str

    @field_validator("name", "seen")
    @classmethod
    def _one_line(cls, text: str) -> str:
        """The sandbox's own text (process names) reaches these: no control character
        of it reaches a terminal."""
        return one_line(text)

    def __str__(self) -> str:
        return f"{self.name} ({self.seen})"


class Containment(BaseModel):
    """What a result ran under: its sandbox's kind and isolation as attested."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    isolation: str
    uid_map: str
    """Who the script is on the host: "65534 -> a host uid of its own" and the like."""
    seccomp: str
    network: str
    attestation_id: str
    weak: bool = False
    """The attestation failed a check and the session ran anyway
    (``--mlab-allow-weak-sandbox``)."""

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        """What two runs must share to be compared."""
        return self.kind, self.isolation, self.uid_map, self.seccomp, self.network

    @property
    def label(self) -> str:
        """The containment in words, without the attestation (what comparisons name)."""
        return (f"{self.kind}/{self.isolation} (uid {self.uid_map}, seccomp {self.seccomp}, "
                f"network {self.network})")

    def describe(self) -> str:
        weak = " WEAK: it failed its attestation" if self.weak else ""
        return f"{self.label}; attestation {self.attestation_id}{weak}"


class Attestation(BaseModel):
    """The probe's verdict on one sandbox kind, machine and pytest-mlab version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """A short hash of everything else in the record."""
    kind: str
    isolation: str
    image: str | None = None
    machine: str
    pytest_mlab_version: str
    sandbox_code: str
    """A hash of the sandbox package's source: the attestation holds for that code only."""
    time: str
    harness_uid: int
    uid_map: str
    """``/proc/self/uid_map`` as the probe read it."""
    uid: str
    seccomp: str
    network: str
    checks: list[Check]
    passed: bool

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def containment(self) -> Containment:
        return Containment(kind=self.kind, isolation=self.isolation, uid_map=self.uid,
                           seccomp=self.seccomp, network=self.network,
                           attestation_id=self.id, weak=not self.passed)

    def summary(self) -> str:
        """One line: the containment, and the names of the checks that failed."""
        verdict = (f"all {len(self.checks)} checks hold" if self.passed else
                   f"checks failing: {', '.join(c.name for c in self.failed)}")
        return (f"{self.kind}/{self.isolation}: uid {self.uid}, seccomp {self.seccomp}, "
                f"network {self.network}; attestation {self.id} of {self.time}: {verdict}")


def attestation_id(fields: dict[str, object]) -> str:
    """The id of a record made of ``fields`` (all but the id)."""
    text = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def distinct(containments: Iterable[Containment | None]) -> list[Containment]:
    """The containments a run's results recorded, each once."""
    return sorted({c for c in containments if c is not None}, key=lambda c: c.describe())


def describe_run(containments: Iterable[Containment | None]) -> list[str]:
    """A run's containments in words; "unknown containment" where none of its results
    recorded one (a run saved before containment was recorded)."""
    given = list(containments)
    return [c.describe() for c in distinct(given)] or ([UNKNOWN] if given else [])
