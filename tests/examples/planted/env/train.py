from pathlib import Path

train = [line.split(",") for line in Path("train.csv").read_text().split()[1:]]
mean = sum(float(value) for _, value in train) / len(train)
ids = Path("test.csv").read_text().split()[1:]
Path("submission.csv").write_text("id,value\n" + "".join(f"{i},{mean}\n" for i in ids))
print(f"predicted the training mean, {mean}")
