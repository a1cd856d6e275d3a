from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from view_browser import WIDE, Browse, Browser


@pytest.fixture
def browse(tmp_path: Path) -> Iterator[Browse]:
    """Open a Chromium page on a server over a report folder; after the test, no page
    logged an error and none asked anything of another address."""
    opened: list[Browser] = []

    def open_on(reports: Path, size: tuple[int, int] = WIDE,
                storage: Path | None = None) -> Browser:
        opened.append(Browser(reports, tmp_path, size, storage))
        return opened[-1]

    yield open_on
    for browser in opened:
        browser.close()
    for browser in opened:
        assert browser.errors == []
        assert all(url.startswith(browser.url) for url in browser.requests), browser.requests
