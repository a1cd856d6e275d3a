"""A one-feature rule: a least-squares line from living area to price."""

import numpy as np
import pandas as pd

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
slope, intercept = np.polyfit(train["area"], train["price"], 1)
pd.DataFrame({"Id": test["Id"], "price": intercept + slope * test["area"]}).to_csv(
    "submission.csv", index=False
)
