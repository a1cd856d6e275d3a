"""A real headless Chromium (Playwright) on a run browser's server: one page, its console
errors and every request it made, at a chosen window size."""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from pytest_mlab.report.browse.server import make_server

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDE = (1400, 900)
NARROW = (390, 844)
"""A laptop's window and a phone's."""
SHOTS = os.environ.get("MLAB_VIEW_SHOTS")
"""A folder to keep the screenshots in, for a person to look at."""


class Browser:
    """One page on a server over ``reports``, recording console errors and requests."""

    def __init__(self, reports: Path, shots: Path, size: tuple[int, int] = WIDE,
                 storage: Path | None = None) -> None:
        from playwright.sync_api import sync_playwright

        self.server = make_server([reports], storage=storage or reports / "no-storage")
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.shots = shots
        self.errors: list[str] = []
        self.requests: list[str] = []
        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        self.page = self._browser.new_page(viewport={"width": size[0], "height": size[1]})
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def ready(self, view: str) -> None:
        self.page.wait_for_selector(f"#app[data-ready={view}]", timeout=30_000)

    def overflow(self) -> int:
        """How far the page runs past the window's right edge, in pixels (0: not at all)."""
        return int(self.page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"))

    def shot(self, name: str) -> None:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        assert path.stat().st_size > 20_000  # a blank page is a few kB
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, Path(SHOTS) / path.name)

    def close(self) -> None:
        self._browser.close()
        self._playwright.stop()
        self.server.shutdown()
        self.server.server_close()


Browse = Callable[..., Browser]
"""The ``browse`` fixture: a report folder (and a window size, a storage folder) -> a page."""
