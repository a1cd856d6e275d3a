"""Nearest neighbour: each test patient progresses like the training patient with the
most similar protein levels (that patient's fitted slope, from the test patient's
first-year mean)."""

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors
from sklearn.preprocessing import StandardScaler

TARGETS = ["updrs_1", "updrs_2", "updrs_3"]
train = pd.read_csv("train.csv")
history = pd.read_csv("test_history.csv")
test = pd.read_csv("test.csv")
proteins = pd.read_csv("proteins.csv").drop(columns="visit_month").groupby("patient_id").mean()

known = train["patient_id"].unique()
scaler = StandardScaler().fit(proteins.loc[known])
index = NearestNeighbors(n_neighbors=1).fit(scaler.transform(proteins.loc[known]))
asked = history["patient_id"].unique()
_, nearest = index.kneighbors(scaler.transform(proteins.loc[asked]))
neighbour = dict(zip(asked, known[nearest[:, 0]], strict=True))
slope = {p: np.polyfit(v["visit_month"], v[TARGETS].to_numpy(), 1)[0]
         for p, v in train.groupby("patient_id")}
level = history.groupby("patient_id")[TARGETS].mean()
months = history.groupby("patient_id")["visit_month"].mean()
forecast = np.array([level.loc[p].to_numpy() + slope[neighbour[p]] * (m - months[p])
                     for p, m in zip(test["patient_id"], test["visit_month"], strict=True)])
submission = pd.DataFrame(forecast.clip(min=0), columns=TARGETS)
submission.insert(0, "Id", test["Id"])
submission.to_csv("submission.csv", index=False)
