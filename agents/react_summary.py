"""The research agent's fast-model calls: summaries of long observations, and the
research-log entry of each step in retrieval mode.

As in MLAgentBench, a long observation is summarised in blocks of 10,000 characters with
the step's answer in view, and the block summaries are then merged into one.
"""

from __future__ import annotations

from pytest_mlab import LLMClient, PromptTooLong

LONG_OBSERVATION = 5_000
"""Longer observations are summarised before the history shows them."""
SUMMARY_BLOCK = 10_000
_ONLY_CONFIRMED = ("Include no result that is guessed rather than directly confirmed by the "
                   "observation, and add no other information or suggestions.")
_OBSERVATION_FORMAT = ("Summarise it concisely in this format:\n[Observation]: every "
                       "relevant detail of the observation, stated objectively\n\n"
                       + _ONLY_CONFIRMED)
_MARK = "[Observation]:"


def _after_mark(text: str) -> str:
    return text.split(_MARK, 1)[1].strip() if _MARK in text else text.strip()


def summarise_observation(llm: LLMClient, answer: str, observation: str) -> str:
    """What the history shows of an observation longer than ``LONG_OBSERVATION``."""
    blocks = [observation[i:i + SUMMARY_BLOCK]
              for i in range(0, len(observation), SUMMARY_BLOCK)]
    summaries = []
    for index, block in enumerate(blocks):
        start = index * SUMMARY_BLOCK + 1
        prompt = (f"{answer}\n\nThe observation of this action is too long to show in full. "
                  f"Here is part of it, characters {start} to {start + len(block) - 1}:\n"
                  f"```\n{block}\n```\n{_OBSERVATION_FORMAT}")
        summaries.append(llm.complete([{"role": "user", "content": prompt}],
                                      role="fast").text)
    if len(summaries) == 1:
        return _after_mark(summaries[0])
    segments = "\n\n".join(f"Segment {n}:\n{s}" for n, s in enumerate(summaries, 1))
    prompt = (f"{answer}\n\nThe observation of this action is too long to show in full. "
              "Here are summaries of its segments, in order; combine them into one "
              f"coherent description of the whole observation.\n\n{segments}\n\n"
              f"{_OBSERVATION_FORMAT}")
    return _after_mark(llm.complete([{"role": "user", "content": prompt}], role="fast").text)


NO_LOG_ENTRY = "(No summary of this step could be made.)"
_REASONING = "[Reasoning]:"


def log_entry(llm: LLMClient, answer: str, observation: str, attempts: int) -> str:
    """The research-log entry for one step; the fast model is asked again (up to
    ``attempts`` times) until its entry has the format. As in MLAgentBench, a prompt too
    long for it is a failed attempt too, and after the last one the entry says that none
    could be made; a long observation's summary, by contrast, ends the turn."""
    prompt = (f"Here is an action you took and what was observed:\n{answer}\n"
              f"[Observation]:\n```\n{observation}\n```\n"
              "Summarise the action and the observation in this format:\n"
              "[Reasoning]: the reasoning behind the action, in brief\n"
              "[Action]: every relevant detail of the action, stated objectively\n"
              "[Observation]: every relevant detail of the observation, stated objectively\n"
              + _ONLY_CONFIRMED)
    for _ in range(attempts):
        try:
            text = llm.complete([{"role": "user", "content": prompt}], role="fast").text
        except PromptTooLong:
            continue
        if _REASONING in text:
            return _REASONING + text.split(_REASONING, 1)[1].rstrip()
    return NO_LOG_ENTRY
