from pathlib import Path

# Lets the tests count how often the unmodified starter runs: they name a file here (the
# sandbox passes no variable of theirs).
counter = Path("counter-path.txt")
if counter.exists():
    with open(counter.read_text().strip(), "a") as handle:
        handle.write("starter\n")
Path("submission.txt").write_text("1.0\n")
