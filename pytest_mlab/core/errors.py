"""Exceptions shared by tasks, the harness and agents.

A trial ends in one of four outcomes (see DESIGN.md). The classes here say which:
``InvalidSubmission`` fails the trial, ``TaskUnavailable`` skips it, and every
``InfrastructureError`` turns it into an error, because the harness, not the agent,
could not do its part.
"""

from __future__ import annotations


class InvalidSubmission(Exception):
    """Raised by a task's ``score()`` when the workspace holds no valid submission."""


class TaskUnavailable(Exception):
    """Raised by a task's ``prepare()`` when a prerequisite is absent (network, credentials).

    The message should say what is missing and the command that fixes it.
    """


class InfrastructureError(Exception):
    """The harness could not run the trial; not the agent's fault."""


class PrepareError(InfrastructureError):
    """A task's ``prepare.py`` failed."""


class ScorerError(InfrastructureError):
    """A task's ``score.py`` crashed or timed out (as opposed to rejecting a submission)."""


class TrialFault(InfrastructureError):
    """A trial ran but a harness fault ended it (the LLM provider, a timeout); its record
    says how far it got."""


class SandboxError(InfrastructureError):
    """A script could not be started in the sandbox."""
