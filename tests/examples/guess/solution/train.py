from pathlib import Path

values = [float(line) for line in Path("data.txt").read_text().split()]
Path("submission.txt").write_text(f"{sum(values) / len(values)}\n")
print("guessed the training mean")
