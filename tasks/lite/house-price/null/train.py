"""A constant prediction: every house at the mean training price."""

import pandas as pd

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
submission = pd.DataFrame({"Id": test["Id"], "price": train["price"].mean()})
submission.to_csv("submission.csv", index=False)
print(f"predicted {train['price'].mean():.0f} for all {len(test)} houses")
