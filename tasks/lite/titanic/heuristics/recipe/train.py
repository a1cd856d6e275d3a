"""The ladder's recipe rung: what one writes for any table without reading about it:
logistic regression on every column (numbers standardised with missing values filled,
text columns of few values one-hot; free text such as names left out)."""

from __future__ import annotations

import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from submission import write_submission
from threadpoolctl import threadpool_limits

threadpool_limits(limits=1)


def main() -> None:
    train = pd.read_csv("train.csv")
    test = pd.read_csv("test.csv")
    x = train.drop(columns=["PassengerId", "Survived"])
    numbers = list(x.select_dtypes("number"))
    text = [c for c in x if c not in numbers and x[c].nunique() <= 50]
    model = make_pipeline(
        make_column_transformer(
            (make_pipeline(SimpleImputer(), StandardScaler()), numbers),
            (OneHotEncoder(handle_unknown="ignore"), text),
        ),
        LogisticRegression(max_iter=1000),
    )
    model.fit(x, train["Survived"])
    write_submission(test, model.predict_proba(test[x.columns])[:, 1])


if __name__ == "__main__":
    main()
