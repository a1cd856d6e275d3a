"""Where the scored predictions came from: written by a script the agent ran, as the
benchmark means them to be, or put there by an action (typed in by hand, copied), or a
copy of a file the workspace was given."""

from __future__ import annotations

from pytest_mlab.core.plain_text import shown_name
from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.trial.rules.action_kinds import FILE_WRITERS
from pytest_mlab.trial.rules.evidence import TrialEvidence

_EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
"""sha256 of no bytes: an empty file is a copy of every other empty file."""


def written_by_action(evidence: TrialEvidence) -> list[RuleFlag]:
    """A prediction file whose final content a file action (Write File, Append File, Copy
    File, an AI edit, ...) wrote, rather than a script."""
    flags = []
    last = evidence.last_step
    by_number = {step.step: step for step in evidence.steps}
    for rel in evidence.submission_files(last):
        changes = evidence.changed_at(rel)
        if not changes:
            continue
        step = by_number[changes[-1]]
        argument = FILE_WRITERS.get(step.action)
        named = step.args.get(argument) if argument else None
        # Only a step that names the file wrote it: a change found by the final full scan
        # is attributed to the last step, whatever that step was.
        if isinstance(named, str) and evidence.workspace_path(named) == rel:
            flags.append(RuleFlag(
                check="submission-by-action", step=step.step,
                sentence=f"the scored {shown_name(rel)} was last written by the "
                         f"{step.action} action, not by a script",
            ))
    return flags


def copied_from_data(evidence: TrialEvidence) -> list[RuleFlag]:
    """A prediction file that holds exactly what a file the workspace was given holds (its
    public data, or a file of ``env/``)."""
    last = evidence.last_step
    given = {digest: rel for rel, digest in evidence.facts.data.items()}
    given |= {digest: rel for rel, digest in evidence.manifest(0).items()}
    flags = []
    final = evidence.manifest(last)
    for rel in evidence.submission_files(last):
        source = given.get(final[rel])
        if source is None or source == rel or final[rel] == _EMPTY:
            continue
        changes = evidence.changed_at(rel)
        flags.append(RuleFlag(
            check="copied-from-data", step=changes[-1] if changes else None,
            sentence=f"the scored {shown_name(rel)} is a copy of {shown_name(source)}, "
                     "a file the workspace was given",
        ))
    return flags
