"""The run browser behind ``python -m pytest_mlab view``: every run in some report folders,
runs side by side, a trial's steps.

Why a server and not a static bundle: a trace can hold 10 MB or more, which must load a
range of steps at a time, and a page opened from ``file://`` cannot fetch files. So a small
``http.server`` on 127.0.0.1 (never another address) serves three static files (one HTML,
one JS, one CSS; no build, nothing fetched from outside) and JSON endpoints that read the
records lazily: a run's results.json when it is asked for, a trace by line offsets, never
a whole trace at once. Every answer is built from records looked up by key in the index
(``runs.py``); no file name in a request is ever opened, so nothing outside the given
report folders can be read. Agent text is sent as data; the page sets it as text only.
"""
