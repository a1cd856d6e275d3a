"""Predict the probability that each Titanic passenger survived; write submission.csv.

Gradient-boosted trees on every column, plus what the names tell: the title (Mr, Mrs,
Miss, Master, ...), the size of the passenger's family aboard and how it fared, both
as a whole and among its women and boys ("women and children first" held per family).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from submission import write_submission
from threadpoolctl import threadpool_limits

# One thread, whatever cores the run holds, so that a seed gives one score: with two,
# sums split across threads add up in another order (1 core under -n 2, 2 serially).
threadpool_limits(limits=1)

TITLES = ["Mr", "Mrs", "Miss", "Master"]
SYNONYMS = {"Mlle": "Miss", "Ms": "Miss", "Mme": "Mrs"}


def title(name: str) -> str:
    # Names read "Surname, Title. Given names".
    after_comma = name.partition(",")[2]
    found = after_comma.partition(".")[0].strip() if "." in after_comma else ""
    found = SYNONYMS.get(found, found)
    return found if found in TITLES else "Other"


def family_key(frame: pd.DataFrame) -> pd.Series:
    return frame["Name"].str.partition(",")[0] + "/" + frame["Pclass"].astype(str)


def fared(frame: pd.DataFrame, known: pd.DataFrame, among: pd.Series) -> pd.DataFrame:
    """For each row of ``frame``: how many of its family in ``known`` (restricted to the
    rows ``among`` marks) have a known outcome, and the share of them who survived."""
    outcome = known["Survived"][among].groupby(family_key(known)[among]).agg(["sum", "count"])
    key = family_key(frame)
    survivors = outcome["sum"].reindex(key).fillna(0).to_numpy()
    members = outcome["count"].reindex(key).fillna(0).to_numpy()
    if "Survived" in frame:
        # A labelled passenger must not see their own outcome.
        own = among.reindex(frame.index, fill_value=False).to_numpy()
        survivors = survivors - frame["Survived"].to_numpy() * own
        members = members - own
    rate = np.where(members > 0, survivors / np.maximum(members, 1), np.nan)
    return pd.DataFrame({"known": members, "survived": rate}, index=frame.index)


def features(frame: pd.DataFrame, known: pd.DataFrame, everyone: pd.DataFrame) -> pd.DataFrame:
    """Columns for ``frame``; outcomes come from ``known`` (labelled rows), family sizes
    from ``everyone`` (both files: the test passengers' names are there to read)."""
    x = frame[["Pclass", "Age", "SibSp", "Parch"]].copy()
    x["Female"] = (frame["Sex"] == "female").astype(int)
    x["Family"] = frame["SibSp"] + frame["Parch"]
    titles = frame["Name"].map(title)
    for name in [*TITLES, "Other"]:
        x[f"Title.{name}"] = (titles == name).astype(int)
    x["Family.Aboard"] = family_key(frame).map(family_key(everyone).value_counts()).to_numpy()

    # Families (same surname and class) tended to live or die together, and their women
    # and boys most of all.
    everybody = pd.Series(True, index=known.index)
    women_and_boys = (known["Sex"] == "female") | (known["Name"].map(title) == "Master")
    for label, among in (("Family", everybody), ("WomenBoys", women_and_boys)):
        outcome = fared(frame, known, among)
        x[f"{label}.Known"] = outcome["known"]
        x[f"{label}.Survived"] = outcome["survived"]
    return x


def model() -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(
        max_iter=100, learning_rate=0.05, max_leaf_nodes=8, min_samples_leaf=20,
        l2_regularization=1.0, random_state=0,
    )


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    everyone = pd.concat([train, test])

    fit, val = train_test_split(train, test_size=0.2, random_state=0)
    held_out = model().fit(features(fit, fit, everyone), fit["Survived"])
    loss = log_loss(val["Survived"], held_out.predict_proba(features(val, fit, everyone))[:, 1])
    print(f"Validation log loss: {loss:.3f}")

    final = model().fit(features(train, train, everyone), train["Survived"])
    predicted = final.predict_proba(features(test, train, everyone))[:, 1]
    write_submission(test, predicted)


if __name__ == "__main__":
    main()
