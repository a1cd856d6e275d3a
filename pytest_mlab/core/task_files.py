"""The names of a task directory's own files, importable without the manifest's model."""

from __future__ import annotations

MANIFEST = "task.toml"
BASELINE_RECORD = "baseline.json"
