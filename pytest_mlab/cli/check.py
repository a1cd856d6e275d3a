"""Run the rule checks over a run's traces again, and print what they flag.

    python -m pytest_mlab check RUN [--record] [--judge-llm MODEL] [--llm-api-base URL]

RUN is a run folder (``reports/<run id>``, holding ``traces/``). Each trial's checks read
its trace, its snapshots and the facts written beside its trace, so the task, its data
and the session's settings are not needed. Exit status: 0 where no trial is flagged, 1
where one is, 2 where RUN cannot be checked.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_mlab.core.results import RunResults, UnreadableResults
from pytest_mlab.core.rule_flags import RuleFlag
from pytest_mlab.core.run_files import RunFiles, TrialFiles
from pytest_mlab.llm import LLMClient, LLMConfig
from pytest_mlab.llm.ledger import CostLedger
from pytest_mlab.trial.rule_judge import judge_trajectory
from pytest_mlab.trial.rules import TrialEvidence, check_trial


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pytest_mlab check",
        description="Check every trial of a run against the benchmark's rules, from its "
                    "trace: a submission written by an action or copied from the data, reads "
                    "of the answers, the network or the harness's folders, processes left "
                    "running.")
    parser.add_argument("run", type=Path, metavar="RUN", help="A run folder (reports/RUN_ID).")
    parser.add_argument("--record", action="store_true",
                        help="Write the flags into the run's results.json. Default: %(default)r")
    parser.add_argument("--judge-llm", metavar="MODEL", default=None,
                        help="Also ask this model the rule checker's questions of each "
                             "trajectory; its spending joins the run's llm-spend.log. "
                             "Default: no LLM judge")
    parser.add_argument("--llm-api-base", metavar="URL", default=None,
                        help="The OpenAI-compatible server the judge is asked through. "
                             "Default: the provider's own")
    return parser


def _flags(files: TrialFiles, judge: LLMClient | None) -> tuple[list[RuleFlag], str]:
    evidence = TrialEvidence.of(files)
    flags = check_trial(evidence)
    if judge is None:
        return flags, ""
    verdict = judge_trajectory(judge, evidence.facts.research_problem, evidence.steps)
    return flags + verdict.flags, verdict.failure


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    run = RunFiles(args.run.resolve())
    traces = run.trial_traces()
    if not traces:
        print(f"error: {args.run} holds no traces/ with a trial's trace: not a run folder",
              file=sys.stderr)
        return 2
    judge = None
    if args.judge_llm:
        config = LLMConfig(main=args.judge_llm, fast=args.judge_llm, edit=args.judge_llm,
                           api_base=args.llm_api_base, ledger=CostLedger(run.spend_ledger))
        judge = LLMClient(config, label=f"check {run.root.name} (judge)")
    found: dict[str, list[RuleFlag]] = {}
    for trace in traces:
        files = TrialFiles.of_trace(trace)
        flags, failure = _flags(files, judge)
        found[files.name] = flags
        print(f"{files.name}: {len(flags)} flag{'s' if len(flags) != 1 else ''}")
        for flag in flags:
            print(f"  {flag}")
        if failure:
            print(f"  (the LLM judge: {failure})")
    if args.record:
        try:
            _record(run, found)
        except UnreadableResults as exc:
            print(f"error: --record: {exc}", file=sys.stderr)
            return 2
    return 1 if any(found.values()) else 0


def _record(run: RunFiles, found: dict[str, list[RuleFlag]]) -> None:
    results = RunResults.read(run.results)
    for result in results.results:
        flags = found.get(run.trial(result.nodeid).name)
        if flags is not None:
            result.flags = flags
    results.write(run.results)
