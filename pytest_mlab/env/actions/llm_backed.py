"""The actions that call an LLM; the environment offers them when it has one."""

from __future__ import annotations

from pytest_mlab.env.actions.ai_edit import EDIT_SCRIPT, EDIT_SCRIPT_SEGMENT
from pytest_mlab.env.actions.base import Action
from pytest_mlab.env.actions.research_log import (
    APPEND_SUMMARY_TO_RESEARCH_LOG,
    REFLECTION,
    RETRIEVAL_FROM_RESEARCH_LOG,
)
from pytest_mlab.env.actions.understand import UNDERSTAND_FILE

LLM_ACTIONS: tuple[Action, ...] = (
    UNDERSTAND_FILE, EDIT_SCRIPT, EDIT_SCRIPT_SEGMENT, REFLECTION,
    RETRIEVAL_FROM_RESEARCH_LOG, APPEND_SUMMARY_TO_RESEARCH_LOG,
)
