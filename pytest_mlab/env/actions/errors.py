"""The one exception of an action: the agent asked for something invalid."""

from __future__ import annotations


class ActionError(Exception):
    """The agent asked for something invalid; the message becomes its observation."""
