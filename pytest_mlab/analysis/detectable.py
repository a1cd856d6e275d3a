"""What a run can detect, said before its first trial: for each group the gate will
compare on success, the smallest fall of the success rate that the selected trials could
show as significant against the saved run, by the same test the gate will use (McNemar's
on paired trials, Fisher's otherwise) at the first step of Holm's correction (alpha over
the number of gated tests). A gate that no fall could trip is said so, with the trials it
would need: a passing gate then says nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_mlab.analysis.groups import Group
from pytest_mlab.analysis.power import best_p, trials_needed
from pytest_mlab.analysis.significance import fisher_p, mcnemar_p


@dataclass(frozen=True)
class Detectable:
    group: Group
    paired: bool
    sizes: tuple[int, int]
    fall: float | None
    """The smallest significant fall of the success rate; None where none could be."""
    base_rate: float = 0.0
    """The saved run's success rate: at 0 there is nothing to fall from."""


def smallest_fall(group: Group, base: Mapping[int, bool], current: set[int],
                  level: float) -> Detectable:
    """``base``: the saved run's successes by trial number; ``current``: the trial numbers
    selected now. Paired as the gate pairs them: the same trial numbers on both sides."""
    paired = bool(base) and set(base) == current
    passed, n, m = sum(base.values()), len(base), len(current)
    if paired:
        # Only trials that passed before can fall; w of them and none rising: p = 0.5**w.
        worse = next((w for w in range(1, passed + 1) if mcnemar_p(w, 0) < level), None)
        return Detectable(group, True, (n, m), None if worse is None else worse / n,
                          passed / n)
    if not n or not m:
        return Detectable(group, False, (n, m), None)
    # The most successes now that still give p < level: fewer give smaller p.
    most = next((k for k in range(m, -1, -1) if fisher_p(passed, n, k, m) < level), None)
    return Detectable(group, False, (n, m),
                      None if most is None else max(0.0, passed / n - most / m), passed / n)


def detectable(base: Mapping[Group, Mapping[int, bool]], current: Mapping[Group, set[int]],
               alpha: float, gated_metrics: int) -> list[Detectable]:
    """Each group in both runs, in order; ``gated_metrics``: how many metrics the gate's
    limits test per group (Holm's correction counts every test)."""
    common = sorted(set(base) & set(current))
    level = alpha / max(1, len(common) * gated_metrics)
    return [smallest_fall(group, base[group], current[group], level) for group in common]


def detection_lines(found: Sequence[Detectable], limit: float, alpha: float,
                    tests: int) -> list[str]:
    """The forecast's lines: what the gate on success could trip on, per group."""
    if not found:
        return []
    level = alpha / max(1, tests)
    can = [d for d in found if d.fall is not None]
    head = (f"mlab gate: success can trip on a fall beyond the limit (-{limit:.0%}) that is "
            f"significant at alpha {alpha:g} over {tests} test(s)")
    lines = []
    if can:
        parts = [f"{d.group.label} {max(d.fall or 0.0, limit):.0%} ({d.sizes[0]} vs "
                 f"{d.sizes[1]} trials{', paired' if d.paired else ''})" for d in can]
        lines.append(f"{head}: at least {'; '.join(parts)}")
    for d in found:
        if d.fall is None and d.base_rate > 0:
            need = trials_needed(d.paired, level)
            lines.append(
                f"mlab gate: no fall of {d.group.label} success can trip the gate with "
                f"{d.sizes[0]} vs {d.sizes[1]} trials (at best p = "
                f"{best_p(d.paired, d.sizes):.2g}, needed < {level:.2g}); run at least "
                f"{need} trials per side")
    return lines
