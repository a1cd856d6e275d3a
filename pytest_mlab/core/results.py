"""The result record: one versioned model per trial, the only thing reports read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from pytest_mlab.core.atomic import write_atomic
from pytest_mlab.core.containment import Containment
from pytest_mlab.core.plain_text import one_line
from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.core.summary import RunSummary
from pytest_mlab.core.version import __version__

SCHEMA_VERSION = 7
"""2 added what makes every selected trial count: ``interrupted`` and ``traceback`` on a
trial; ``complete``, ``interrupted``, ``selected``, ``sessions`` and ``signature`` on a run.
Version 1 files read as runs that finished. 3 added ``reference_mean`` and
``normalised_score`` on a trial and ``summary`` on a run; older files read without them.
4 added ``final_answer_required`` on a trial; older files read as not requiring one.
5 added ``containment`` on a trial; older files read as of unknown containment.
6 added ``flags`` (the rule checks' findings), ``reproduced_score``, ``unreproduced`` and
``strict`` on a trial; older files read as unchecked trials never reproduced, judged without
--mlab-strict. 7 added ``reference_source`` and ``reference_note`` on a trial; older files
read as references from validation.json whose place was not compared with the baseline's."""
Outcome = Literal["passed", "failed", "error", "skipped"]


class UnreadableResults(Exception):
    """A results.json this version cannot read; the message is one sentence."""


class StepScore(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: int
    score: float | None
    invalid: str | None = None

    @field_validator("invalid")
    @classmethod
    def _printable(cls, text: str | None) -> str | None:
        return None if text is None else one_line(text)


class EarlierAttempt(BaseModel):
    """An attempt of a trial that ended in a harness error and was run again."""

    model_config = ConfigDict(extra="forbid")

    error_class: str | None
    message: str
    seconds: float


class TrialResult(BaseModel):
    # Validated on assignment too: the texts are set after the record is made.
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    schema_version: int = SCHEMA_VERSION
    nodeid: str
    task: str
    agent: str
    llm: str | None
    trial: int
    metric: str
    direction: Literal["higher", "lower"]
    outcome: Outcome
    success: bool
    score: float | None = None
    baseline_mean: float | None = None
    baseline_sd: float | None = None
    baseline_n: int | None = None
    baseline_source: str | None = None
    """recorded, per-machine (measured here, kept across sessions) or per-session."""
    baseline_machine: str | None = None
    """The machine its scores were measured on."""
    baseline_note: str = ""
    """Why the baseline may not hold: recorded on a machine that differs from this one."""
    improvement: float | None = None
    threshold: float
    message: str = ""
    """One sentence with the numbers: why it passed, failed, errored or was skipped."""
    error_class: str | None = None
    ended_by: str = ""
    """How the agent's turn ended: 'final answer', 'agent returned' (no Final Answer),
    'step limit', 'time limit', 'LLM budget', 'prompt too long', 'agent error', a fault's
    'LLM error' or 'stopped' (an error), or '' if it never ran. All but 'agent error' have
    the final workspace scored and judged (with --mlab-require-final-answer, only 'final
    answer' may pass)."""
    final_answer_required: bool = False
    """Judged with --mlab-require-final-answer: success by another rule than the paper's, so
    a comparison of success with a run judged without it is refused."""
    steps: int = 0
    seconds: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    isolation: str = ""
    containment: Containment | None = None
    """What the trial's scripts ran under, as the session's attestation saw it; None: a
    trial that ran no script, or one recorded before containment was."""
    trace: str | None = None
    workspace: str | None = None
    resumed_from: int | None = None
    """The step an interrupted trial was continued from."""
    step_scores: list[StepScore] = []
    """Scores of every Nth snapshot, with --mlab-score-steps."""
    interrupted: bool = False
    """The run was stopped (Ctrl-C, a lost worker) before this trial reached its verdict."""
    seed: int | None = None
    """MLAB_SEED the trial's scripts saw."""
    analogue_of: str | None = None
    """The MLAgentBench task this task stands in for, when it is an analogue (the lite
    suite): its numbers are not the paper's."""
    traceback: str | None = None
    """Where the agent's traceback was saved, when it raised."""
    reference_mean: float | None = None
    """The reference solution's mean score: measured here (``reference_source`` "here") or
    the suite's validation.json's ("validation.json")."""
    reference_source: Literal["here", "validation.json"] | None = None
    reference_note: str | None = None
    """Where the reference and the baseline were not measured on one machine with one data
    key, a sentence saying so: the normalised score compares scores of two places."""
    normalised_score: float | None = None
    """(score - baseline_mean) / (reference_mean - baseline_mean): 0 at the baseline, 1 at
    the reference; None where a part is missing."""
    flags: list[RuleFlag] = []
    """What the rule checks found in its trace: each a check, a step and a sentence."""
    reproduced_score: float | None = None
    """The score of what the entry script wrote when run again on a clean copy of the final
    workspace (--mlab-reproduce); None where it was not run or wrote no valid submission."""
    unreproduced: bool = False
    """The verdict of a reproduction that did not remake the submission within the task's
    noise: counted apart wherever rates are shown, and failed with --mlab-strict."""
    strict: bool = False
    """Judged with --mlab-strict: an unreproduced trial fails, whatever its score."""
    earlier_attempts: list[EarlierAttempt] = []
    """With --mlab-retry-errors: the attempts before this one, each a harness error."""

    @field_validator("message", "error_class", "ended_by", "baseline_note", "reference_note")
    @classmethod
    def _printable(cls, text: str | None) -> str | None:
        """Agent text reaches these (an error's words, a file name): no control character
        of it, and no line break, reaches a terminal, results.json or a report, where a
        line of its own could pass for one of pytest's (a forged PASSED line)."""
        return None if text is None else one_line(text)


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")

    started: str
    finished: str
    command: list[str]
    trials: int
    """Trials this session reported."""
    interrupted: bool = False


class RunInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    started: str
    finished: str
    command: list[str]
    machine: str
    pytest_mlab_version: str
    sandbox: str = ""
    commit: str | None = None
    """``git describe --always --dirty`` of the rootdir, where it is a git checkout."""
    settings: list[str] = []
    """The settings in force, as the run header showed them."""
    selected: int = 0
    """Trials the run selected; every one of them has a record, run or not."""
    complete: bool = True
    """Every selected trial reached its verdict (or was skipped for a stated reason)."""
    interrupted: bool = False
    resume_command: str | None = None
    """How to finish the trials an incomplete run left."""
    sessions: list[Session] = []
    """Each pytest session that wrote this run: the first, then every resume."""
    signature: dict[str, str] = {}
    """The settings a resumed session must share with the run it continues."""


class RunResults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    results: list[TrialResult]
    summary: RunSummary | None = None
    """pass@k, pass^k, best-of-k and normalised scores, made from ``results``."""

    def write(self, path: Path) -> None:
        write_atomic(path, self.model_dump_json(indent=2) + "\n")

    @classmethod
    def read(cls, path: Path) -> RunResults:
        """The run in ``path``; ``UnreadableResults`` says in one sentence why not."""
        try:
            # Validated straight from its bytes, strictly: twice as fast (10,000 trials:
            # 0.3 s). Whatever that refuses is read again below, which says why.
            run = cls.model_validate_json(path.read_bytes(), strict=True)
        except (OSError, ValueError):
            pass
        else:
            named = "schema_version" in run.model_fields_set
            if named and 1 <= run.schema_version <= SCHEMA_VERSION:
                return run
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise UnreadableResults(f"{path}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise UnreadableResults(f"{path}: cannot be read: {exc}") from None
        except json.JSONDecodeError as exc:
            raise UnreadableResults(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
        if not isinstance(raw, dict) or not {"run", "results"} <= raw.keys():
            raise UnreadableResults(
                f"{path}: not a pytest-mlab results.json (it has no 'run' and 'results' keys)"
            )
        version = raw.get("schema_version")
        if not isinstance(version, int) or version < 1:
            raise UnreadableResults(f"{path}: key 'schema_version': expected a whole number >= 1, "
                                    f"got {version!r}")
        if version > SCHEMA_VERSION:
            raise UnreadableResults(
                f"{path}: schema version {version} is newer than pytest-mlab {__version__} reads "
                f"(up to {SCHEMA_VERSION}); upgrade pytest-mlab"
            )
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise UnreadableResults(f"{path}: key '{where}': {error['msg']}") from None
