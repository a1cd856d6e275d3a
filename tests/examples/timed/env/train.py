import os
from pathlib import Path

# Lets the tests count how often the unmodified starter runs.
counter = os.environ.get("MLAB_TEST_COUNTER")
if counter:
    with open(counter, "a") as handle:
        handle.write("starter\n")
Path("submission.txt").write_text("1.0\n")
