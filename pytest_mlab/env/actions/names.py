"""The names of every action, as a type agents and their type checker can use."""

from __future__ import annotations

from typing import Literal

ActionName = Literal[
    "List Files", "Read File", "Write File", "Append File", "Copy File", "Undo Edit Script",
    "Execute Script", "Python REPL", "Inspect Script Lines", "Final Answer",
    "Understand File", "Edit Script (AI)", "Edit Script Segment (AI)", "Reflection",
    "Retrieval from Research Log", "Append Summary to Research Log", "Request Help",
    "Run Command",
]
