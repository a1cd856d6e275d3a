from pathlib import Path

train = [line.split(",") for line in Path("train.csv").read_text().split()[1:]]
# Least squares through the origin: value = slope * id.
slope = (sum(float(i) * float(v) for i, v in train) / sum(float(i) ** 2 for i, _ in train))
ids = Path("test.csv").read_text().split()[1:]
rows = "".join(f"{i},{slope * int(i):.3f}\n" for i in ids)
Path("submission.csv").write_text("id,value\n" + rows)
print(f"fitted a slope of {slope}")
