"""What the tasks' ``prepare.py`` and ``score.py`` share.

Task code runs in bare child processes (and later in a sandbox), so these modules
import only the standard library, numpy, pandas and ``pytest_mlab.core.errors``;
never pytest or the rest of the plugin.

- ``submission``: reading a submission CSV and checking it against the answers' ids.
- ``timed_child``: running the workspace's function in a child process, timed by the scorer.
- ``convolution``: timing a submission's convolution, checked against a trusted one.
- ``child_guard``: the rules that child enforces on the submission from inside (imports, threads).
- ``sources``: getting a task's source data (an optional package, Fashion-MNIST).
- ``splits``: shuffling, numbering and splitting a table, and writing its CSV files.
"""
