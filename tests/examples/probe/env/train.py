import pandas as pd


def check(x):
    return x


if __name__ == "__main__":
    mean = pd.read_csv("train.csv")["value"].mean()
    test = pd.read_csv("test.csv")
    test.assign(value=mean).to_csv("submission.csv", index=False)
    print(f"predicted {mean} for every id")
