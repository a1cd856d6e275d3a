"""The version of pytest-mlab, recorded in every result and baseline file."""

from __future__ import annotations

__version__ = "0.1.0"
