"""No model: each test house takes the price of the most similar training house
(numeric columns, standardised, missing values at the training median)."""

import pandas as pd

train = pd.read_csv("train.csv")
test = pd.read_csv("test.csv")
columns = [c for c in train.select_dtypes("number").columns if c not in ("Id", "price")]
median, scale = train[columns].median(), train[columns].std().replace(0, 1)
a = ((train[columns].fillna(median) - median) / scale).to_numpy()
b = ((test[columns].fillna(median) - median) / scale).to_numpy()
distance = (b**2).sum(1)[:, None] - 2 * b @ a.T + (a**2).sum(1)[None, :]
price = train["price"].to_numpy()[distance.argmin(axis=1)]
pd.DataFrame({"Id": test["Id"], "price": price}).to_csv("submission.csv", index=False)
