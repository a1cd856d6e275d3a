"""What downloading a Kaggle competition's files needs here: the command's credentials, and
the page where a person accepts the competition's rules."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

KAGGLE_HOST = "https://www.kaggle.com"


def kaggle_credentials() -> bool:
    """Whether the kaggle command will find credentials (variables or kaggle.json)."""
    if os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY"):
        return True
    folders = [os.environ.get("KAGGLE_CONFIG_DIR"), Path.home() / ".kaggle",
               Path.home() / ".config" / "kaggle"]
    return any(folder and (Path(folder) / "kaggle.json").is_file() for folder in folders)


def rules_pages(competitions: Iterable[str]) -> str:
    """The pages where the competitions' rules are accepted, comma-separated."""
    return ", ".join(f"{KAGGLE_HOST}/competitions/{c}/rules" for c in competitions)
