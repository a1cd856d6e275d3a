"""The rule a trial was judged by: its threshold, whether a Final Answer was required, and
whether an unreproduced trial failed (--mlab-strict).

Success (and so pass@k) depends on it, so two runs judged by different rules cannot be
compared on success: a strict run beside a lenient one would show a fall that is the
rule's, not the agent's. Improvement and the normalised score do not depend on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_mlab.core.results import TrialResult


def rules_text(trials: Iterable[TrialResult]) -> str:
    """The rules ``trials`` were judged by, in words (one, unless a run mixed them)."""
    rules = sorted({(r.threshold, r.final_answer_required, r.strict) for r in trials})
    return "; ".join(
        f"threshold {threshold * 100:+g}%" + (", Final Answer required" if required else "")
        + (", unreproduced trials failed" if strict else "")
        for threshold, required, strict in rules
    )


def judged_apart(base: Iterable[TrialResult], current: Iterable[TrialResult]) -> str | None:
    """Both runs' rules in words where they differ; None where they agree or a side is empty."""
    before, after = rules_text(base), rules_text(current)
    if not before or not after or before == after:
        return None
    return f"baseline run: {before}; this run: {after}"
