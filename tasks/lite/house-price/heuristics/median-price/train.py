"""A cheap answer the bar must not reward: every house at the median training price."""

import pandas as pd

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
pd.DataFrame({"Id": test["Id"], "price": train["price"].median()}).to_csv(
    "submission.csv", index=False
)
