"""A synthetic offline bundle: every file the original tasks' preparation downloads, with
the real one's name, folder layout, columns and dtypes, but tiny and made up here.

The tests run the original tasks end to end without network on a small CPU machine, so
each stand-in is only as big as the unmodified starters need (tens of rows, a few
hundred images, a random model of the real architecture with a small config) and honours
what they assume of the data (every dummy column present, enough patients for an 8-fold
split, 256x256 contrail records). Nothing of the real data is shipped: it is all drawn
from seeded generators, and every archive is written with fixed timestamps, so the same
code makes the same bytes and the manifest's hash, the bundle's key, stays put.

CLRS is not made: its archive holds TensorFlow records that only the dm-clrs builder can
write, and its trial takes minutes of JAX compiling, so the tests skip it. Fathomnet's
images are not either: its preparation asks a person to download them, and the zip is
all that ``kaggle`` writes.
"""

from __future__ import annotations

import gzip
import io
import itertools
import json
import pickle
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from pytest_mlab.core.bundle import coco_urls, path_of, sources_of, write_manifest
from pytest_mlab.core.overlay import Overlay, read_overlay

OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
STAMP = (1980, 1, 1, 0, 0, 0)
"""Every zip member's time: the earliest a zip can hold, so the bytes never vary."""

Files = dict[str, bytes]
"""A task's files, by the source's key (see ``_key``)."""


# ---------------------------------------------------------------------------- writers


def _zip(members: Files, stored: tuple[str, ...] = (".gz", ".png")) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, STAMP)
            info.external_attr = 0o644 << 16
            info.compress_type = (zipfile.ZIP_STORED if name.endswith(stored)
                                  else zipfile.ZIP_DEFLATED)
            archive.writestr(info, data)
    return buffer.getvalue()


def _tar_gz(members: Files) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as packed, \
            tarfile.open(fileobj=packed, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _csv(frame: pd.DataFrame, **options: object) -> bytes:
    return frame.to_csv(index=False, lineterminator="\n", **options).encode()  # type: ignore[call-overload]


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _json(value: object) -> bytes:
    return (json.dumps(value, indent=2) + "\n").encode()


def _parquet(table: object) -> bytes:
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _words(rng: np.random.Generator, vocabulary: Sequence[str], low: int, high: int) -> str:
    """A sentence of Zipf-weighted words, so a tokenizer trained on it learns merges."""
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    picks = rng.choice(len(vocabulary), int(rng.integers(low, high)), p=weights / weights.sum())
    return " ".join(vocabulary[i] for i in picks)


WORDS = (
    "the", "a", "and", "of", "to", "in", "was", "he", "she", "it", "that", "they", "said", "with",
    "for", "on", "little", "big", "old", "dog", "cat", "house", "tree", "water", "day", "night",
    "time", "went", "came", "saw", "looked", "back", "home", "mother", "father", "child",
    "children", "school", "story", "book", "very", "then", "when", "what", "why", "because",
    "there", "here", "good", "bad", "new", "first", "red", "blue", "green", "small", "happy",
    "play", "run", "walk"
)


# ------------------------------------------------------------------------ kaggle zips


HOUSE_CATEGORIES: dict[str, tuple[str, ...]] = {
    "MSZoning": ("RL", "RM", "FV", "RH", "C (all)"), "Street": ("Pave", "Grvl"),
    "Alley": ("Grvl", "Pave", ""), "LotShape": ("Reg", "IR1", "IR2", "IR3"),
    "LandContour": ("Lvl", "Bnk", "HLS", "Low"), "Utilities": ("AllPub", "NoSeWa"),
    "LotConfig": ("Inside", "Corner", "CulDSac", "FR2", "FR3"),
    "LandSlope": ("Gtl", "Mod", "Sev"),
    "Neighborhood": ("NAmes", "CollgCr", "OldTown", "Edwards", "Somerst", "Gilbert"),
    "Condition1": ("Norm", "Feedr", "Artery", "RRAn", "PosN"),
    "Condition2": ("Norm", "Feedr", "Artery"),
    "BldgType": ("1Fam", "2fmCon", "Duplex", "TwnhsE", "Twnhs"),
    "HouseStyle": ("1Story", "2Story", "1.5Fin", "SLvl", "SFoyer"),
    "RoofStyle": ("Gable", "Hip", "Flat", "Gambrel"),
    "RoofMatl": ("CompShg", "Tar&Grv", "WdShngl"),
    "Exterior1st": ("VinylSd", "HdBoard", "MetalSd", "Wd Sdng", "Plywood"),
    "Exterior2nd": ("VinylSd", "HdBoard", "MetalSd", "Wd Sdng", "Plywood"),
    "MasVnrType": ("BrkFace", "Stone", "BrkCmn", ""), "ExterQual": ("TA", "Gd", "Ex", "Fa"),
    "ExterCond": ("TA", "Gd", "Fa"), "Foundation": ("PConc", "CBlock", "BrkTil", "Slab"),
    "BsmtQual": ("TA", "Gd", "Ex", "Fa", ""), "BsmtCond": ("TA", "Gd", "Fa", ""),
    "BsmtExposure": ("No", "Av", "Gd", "Mn", ""),
    "BsmtFinType1": ("Unf", "GLQ", "ALQ", "BLQ", "Rec", "LwQ", ""),
    "BsmtFinType2": ("Unf", "Rec", "LwQ", "BLQ", ""),
    "Heating": ("GasA", "GasW", "Grav"), "HeatingQC": ("Ex", "TA", "Gd", "Fa"),
    "CentralAir": ("Y", "N"), "Electrical": ("SBrkr", "FuseA", "FuseF", ""),
    "KitchenQual": ("TA", "Gd", "Ex", "Fa"), "Functional": ("Typ", "Min1", "Min2", "Mod"),
    "FireplaceQu": ("Gd", "TA", "Fa", "Ex", ""),
    "GarageType": ("Attchd", "Detchd", "BuiltIn", "CarPort", ""),
    "GarageFinish": ("Unf", "RFn", "Fin", ""), "GarageQual": ("TA", "Fa", "Gd", ""),
    "GarageCond": ("TA", "Fa", "Gd", ""), "PavedDrive": ("Y", "N", "P"),
    "PoolQC": ("Gd", "Ex", "", "", "", ""), "Fence": ("MnPrv", "GdPrv", "", ""),
    "MiscFeature": ("Shed", "", "", ""),
    "SaleType": ("WD", "New", "COD", "ConLD"),
    "SaleCondition": ("Normal", "Partial", "Abnorml", "Family"),
}
"""The 43 text columns and values of the kind the real data has; '' is a missing value."""

HOUSE_NUMBERS: dict[str, tuple[int, int]] = {
    "MSSubClass": (20, 190), "LotFrontage": (21, 313), "LotArea": (1300, 215245),
    "OverallQual": (1, 10), "OverallCond": (1, 9), "YearBuilt": (1872, 2010),
    "YearRemodAdd": (1950, 2010), "MasVnrArea": (0, 1600), "BsmtFinSF1": (0, 5644),
    "BsmtFinSF2": (0, 1474), "BsmtUnfSF": (0, 2336), "TotalBsmtSF": (0, 6110),
    "1stFlrSF": (334, 4692), "2ndFlrSF": (0, 2065), "LowQualFinSF": (0, 572),
    "GrLivArea": (334, 5642), "BsmtFullBath": (0, 3), "BsmtHalfBath": (0, 2),
    "FullBath": (0, 3), "HalfBath": (0, 2), "BedroomAbvGr": (0, 8), "KitchenAbvGr": (0, 3),
    "TotRmsAbvGrd": (2, 14), "Fireplaces": (0, 3), "GarageYrBlt": (1900, 2010),
    "GarageCars": (0, 4), "GarageArea": (0, 1418), "WoodDeckSF": (0, 857),
    "OpenPorchSF": (0, 547), "EnclosedPorch": (0, 552), "3SsnPorch": (0, 508),
    "ScreenPorch": (0, 480), "PoolArea": (0, 738), "MiscVal": (0, 15500), "MoSold": (1, 12),
    "YrSold": (2006, 2010),
}
HOUSE_FLOATS = ("LotFrontage", "MasVnrArea", "GarageYrBlt")
"""The numeric columns with missing values, so pandas reads them as float."""

HOUSE_COLUMNS = (
    "Id", "MSSubClass", "MSZoning", "LotFrontage", "LotArea", "Street", "Alley", "LotShape",
    "LandContour", "Utilities", "LotConfig", "LandSlope", "Neighborhood", "Condition1",
    "Condition2", "BldgType", "HouseStyle", "OverallQual", "OverallCond", "YearBuilt",
    "YearRemodAdd", "RoofStyle", "RoofMatl", "Exterior1st", "Exterior2nd", "MasVnrType",
    "MasVnrArea", "ExterQual", "ExterCond", "Foundation", "BsmtQual", "BsmtCond", "BsmtExposure",
    "BsmtFinType1", "BsmtFinSF1", "BsmtFinType2", "BsmtFinSF2", "BsmtUnfSF", "TotalBsmtSF",
    "Heating", "HeatingQC", "CentralAir", "Electrical", "1stFlrSF", "2ndFlrSF", "LowQualFinSF",
    "GrLivArea", "BsmtFullBath", "BsmtHalfBath", "FullBath", "HalfBath", "BedroomAbvGr",
    "KitchenAbvGr", "KitchenQual", "TotRmsAbvGrd", "Functional", "Fireplaces", "FireplaceQu",
    "GarageType", "GarageYrBlt", "GarageFinish", "GarageCars", "GarageArea", "GarageQual",
    "GarageCond", "PavedDrive", "WoodDeckSF", "OpenPorchSF", "EnclosedPorch", "3SsnPorch",
    "ScreenPorch", "PoolArea", "PoolQC", "Fence", "MiscFeature", "MiscVal", "MoSold", "YrSold",
    "SaleType", "SaleCondition", "SalePrice"
)


def _houses(rng: np.random.Generator, ids: range) -> pd.DataFrame:
    n = len(ids)
    columns: dict[str, object] = {"Id": np.array(ids)}
    for name in HOUSE_COLUMNS[1:-1]:
        if name in HOUSE_CATEGORIES:
            values = np.array(HOUSE_CATEGORIES[name], dtype=object)[
                rng.integers(0, len(HOUSE_CATEGORIES[name]), n)]
            columns[name] = np.where(values == "", None, values)
        else:
            low, high = HOUSE_NUMBERS[name]
            numbers = rng.integers(low, high + 1, n)
            missing = rng.random(n) < 0.1
            missing[[1, n - 3]] = True  # in both parts prepare.py splits train.csv into
            columns[name] = (np.where(missing, np.nan, numbers.astype(float))
                             if name in HOUSE_FLOATS else numbers)
    columns["SalePrice"] = rng.integers(35000, 755000, n)
    return pd.DataFrame(columns)[list(HOUSE_COLUMNS)]


def house_price(rng: np.random.Generator) -> Files:
    train = _houses(rng, range(1, 61))
    test = _houses(rng, range(61, 81)).drop(columns="SalePrice")
    description = "".join(f"{name}: synthetic column {name}\n" for name in HOUSE_COLUMNS[1:-1])
    sample = pd.DataFrame({"Id": test.Id, "SalePrice": 180000.0})
    return {"kaggle:home-data-for-ml-course": _zip({
        "data_description.txt": description.encode(), "sample_submission.csv": _csv(sample),
        "test.csv": _csv(test), "train.csv": _csv(train)})}


def _passengers(rng: np.random.Generator, first: int, n: int, decks: str) -> pd.DataFrame:
    def pick(values: list[object], missing: float = 0.05) -> list[object]:
        # Every value at least once, then a shuffled draw, a few missing (never the first
        # len(values) rows, which keep each value present).
        drawn = values + [values[i] for i in rng.integers(0, len(values), n - len(values))]
        order = list(rng.permutation(n))
        return [None if i >= len(values) and rng.random() < missing else drawn[i]
                for i in order]

    groups = first + np.cumsum(rng.integers(0, 2, n))
    cabins = [f"{deck}/{int(rng.integers(0, 1900))}/{side}" for deck, side in
              zip(pick(list(decks), 0.0), pick(["P", "S"], 0.0), strict=True)]
    cabins = [None if rng.random() < 0.03 else cabin for cabin in cabins]
    first_names = ["Adam", "Bea", "Cora", "Dane", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon"]
    last_names = ["Alton", "Brook", "Crane", "Dunmore", "Ellis", "Frost", "Grant", "Hale"]
    frame = pd.DataFrame({
        "PassengerId": [f"{g:04d}_{i % 2 + 1:02d}" for i, g in enumerate(groups)],
        "HomePlanet": pick(["Earth", "Europa", "Mars"]),
        "CryoSleep": pick([True, False]),
        "Cabin": cabins,
        "Destination": pick(["TRAPPIST-1e", "55 Cancri e", "PSO J318.5-22"]),
        "Age": np.where(rng.random(n) < 0.03, np.nan, rng.integers(0, 80, n).astype(float)),
        "VIP": pick([False, True]),
        **{name: np.where(rng.random(n) < 0.03, np.nan,
                          np.where(rng.random(n) < 0.6, 0.0, rng.integers(1, 3000, n)))
           for name in ("RoomService", "FoodCourt", "ShoppingMall", "Spa", "VRDeck")},
        "Name": [f"{first_names[int(a)]} {last_names[int(b)]}"
                 for a, b in rng.integers(0, 8, (n, 2))],
        "Transported": rng.random(n) < 0.5,
    })
    # A missing value in each of these keeps the column text, as in the real data, so
    # get_dummies makes _False and _True columns of it in every part the starter splits.
    frame.loc[[n // 3, n - 1], ["CryoSleep", "VIP"]] = None
    return frame


def spaceship_titanic(rng: np.random.Generator) -> Files:
    # prepare.py keeps the first 80% as train.csv and makes the rest the test set; the
    # starter adds a zero Deck_T column to the test set's dummies, so deck T is only in
    # train.csv's part, and often enough that the starter's validation split has it too.
    train = pd.concat([_passengers(rng, 1, 160, "ABCDEFGT" * 2 + "T" * 4),
                       _passengers(rng, 3000, 40, "ABCDEFG")], ignore_index=True)
    test = _passengers(rng, 6000, 30, "ABCDEFG").drop(columns="Transported")
    sample = pd.DataFrame({"PassengerId": test.PassengerId, "Transported": False})
    return {"kaggle:spaceship-titanic": _zip({
        "sample_submission.csv": _csv(sample), "test.csv": _csv(test),
        "train.csv": _csv(train)})}


AMP_MONTHS = (0, 6, 12, 18, 24, 30, 36, 48)
AMP_PROTEINS = ("O00391", "O00533", "O14498", "P00450", "P00734")
AMP_ACIDS = list("ACDEFGHIKLMNPQRSTVWY")


def _visits(rng: np.random.Generator, patients: list[int]) -> tuple[pd.DataFrame, ...]:
    clinical, proteins, peptides = [], [], []
    peptide_of = {u: ["".join(rng.choice(AMP_ACIDS, 9)) for _ in range(2)] for u in AMP_PROTEINS}
    for patient in patients:
        for month in AMP_MONTHS:
            visit = f"{patient}_{month}"
            scores = {f"updrs_{part}": float(rng.integers(0, top + 1))
                      for part, top in ((1, 20), (2, 25), (3, 60), (4, 10))}
            medication = (None, "On", "Off")[int(rng.integers(0, 3))]
            clinical.append({"visit_id": visit, "patient_id": patient, "visit_month": month,
                             **scores, "upd23b_clinical_state_on_medication": medication})
            for uniprot in AMP_PROTEINS:
                proteins.append({"visit_id": visit, "visit_month": month,
                                 "patient_id": patient, "UniProt": uniprot,
                                 "NPX": round(float(rng.lognormal(11, 1)), 1)})
                for peptide in peptide_of[uniprot]:
                    peptides.append({"visit_id": visit, "visit_month": month,
                                     "patient_id": patient, "UniProt": uniprot,
                                     "Peptide": peptide,
                                     "PeptideAbundance": round(float(rng.lognormal(9, 1)), 2)})
    return pd.DataFrame(clinical), pd.DataFrame(proteins), pd.DataFrame(peptides)


def amp_parkinsons(rng: np.random.Generator) -> Files:
    # prepare.py holds two patients out; the starter's GroupKFold needs 8 groups of the
    # rest, each with visits 0, 6, 12 and 24 months apart.
    patients = sorted(int(p) for p in rng.choice(np.arange(55, 65000), 12, replace=False))
    clinical, proteins, peptides = _visits(rng, patients)
    supplemental, _, _ = _visits(rng, [p + 65000 for p in patients[:6]])
    supplemental.loc[supplemental.index % 5 == 0, "updrs_4"] = np.nan
    example, example_proteins, example_peptides = _visits(rng, [70001, 70002])
    test = pd.concat([example.assign(row_id=lambda f, i=i: f.visit_id + f"_updrs_{i}",
                                     updrs_test=f"updrs_{i}", group_key=example.visit_month)
                      for i in range(1, 5)])
    test = test[["visit_id", "visit_month", "patient_id", "updrs_test", "row_id",
                 "group_key"]]
    sample = pd.DataFrame({"prediction_id": [f"{r}_plus_{w}_months" for r in test.row_id
                                             for w in (0, 6, 12, 24)], "rating": 0,
                           "group_key": [m for m in test.visit_month for _ in range(4)]})
    stub = b"# A synthetic stand-in: the task folder keeps its own copy (unzip -n).\n"
    return {"kaggle:amp-parkinsons-disease-progression-prediction": _zip({
        "amp_pd_peptide/__init__.py": stub, "amp_pd_peptide_310/__init__.py": stub,
        "example_test_files/sample_submission.csv": _csv(sample),
        "example_test_files/test.csv": _csv(test),
        "example_test_files/test_peptides.csv": _csv(example_peptides.assign(
            group_key=example_peptides.visit_month)),
        "example_test_files/test_proteins.csv": _csv(example_proteins.assign(
            group_key=example_proteins.visit_month)),
        "public_timeseries_testing_util.py": stub,
        "supplemental_clinical_data.csv": _csv(supplemental),
        "train_clinical_data.csv": _csv(clinical), "train_peptides.csv": _csv(peptides),
        "train_proteins.csv": _csv(proteins)})}


FEEDBACK_SCORES = ("cohesion", "syntax", "vocabulary", "phraseology", "grammar",
                   "conventions")


def _essays(rng: np.random.Generator, n: int) -> pd.DataFrame:
    def essay() -> str:
        paragraphs = [_words(rng, WORDS, 20, 60).capitalize() + "." for _ in
                      range(int(rng.integers(1, 4)))]
        return "\n\n".join(paragraphs)

    ids = ["".join(rng.choice(list("0123456789ABCDEF"), 12)) for _ in range(n)]
    return pd.DataFrame({"text_id": ids, "full_text": [essay() for _ in range(n)]})


def feedback(rng: np.random.Generator) -> Files:
    train = _essays(rng, 100).assign(**{name: rng.integers(2, 11, 100) / 2.0
                                        for name in FEEDBACK_SCORES})
    test = _essays(rng, 3)
    sample = test[["text_id"]].assign(**{name: 3.0 for name in FEEDBACK_SCORES})
    return {"kaggle:feedback-prize-english-language-learning": _zip({
        "sample_submission.csv": _csv(sample), "test.csv": _csv(test),
        "train.csv": _csv(train)})}


FATHOMNET_SUPERCATEGORIES = (
    "Worm", "Feather star", "Sea cucumber", "Squat lobster", "Fish", "Soft coral", "Urchin",
    "Sea star", "Sea fan", "Sea pen", "Barnacle", "Eel", "Glass sponge", "Shrimp",
    "Black coral", "Anemone", "Sea spider", "Gastropod", "Crab", "Stony coral")


def _uuid(rng: np.random.Generator) -> str:
    digits = "".join(rng.choice(list("0123456789abcdef"), 32))
    return "-".join((digits[:8], digits[8:12], "4" + digits[13:16], "a" + digits[17:20],
                     digits[20:]))


FATHOMNET_SIZE = (64, 48)
"""Width and height of the synthetic images (the real ones are some 720 x 368 and more)."""


def _png(pixels: np.ndarray) -> bytes:
    """Height x width x 3 bytes as an RGB PNG, unfiltered."""
    height, width, _ = pixels.shape
    rows = b"".join(b"\x00" + pixels[row].astype(np.uint8).tobytes() for row in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def _coco_image(rng: np.random.Generator, number: int) -> dict[str, object]:
    uid = _uuid(rng)
    width, height = FATHOMNET_SIZE
    return {"id": number, "width": width, "height": height, "file_name": f"{uid}.png",
            "license": 0, "flickr_url": f"https://fathomnet.invalid/{uid}.png",
            "coco_url": f"https://fathomnet.invalid/{uid}.png",
            "date_captured": "2023-01-01 00:00:00"}


def fathomnet(rng: np.random.Generator) -> Files:
    key = pd.DataFrame({"id": range(1, 291), "name": [f"taxon_{i}" for i in range(1, 291)],
                        "supercat": [FATHOMNET_SUPERCATEGORIES[i % 20] for i in range(290)]})
    categories = [{"id": int(row.id), "name": row.name, "supercategory": row.supercat}
                  for row in key.itertuples()]
    info = {"year": 2023, "version": "0", "description": "synthetic", "contributor": "",
            "url": "", "date_created": "2023/03/01"}
    images, annotations, rows = [], [], []
    for number in range(1, 101):
        image = _coco_image(rng, number)
        labels = sorted({int(c) for c in rng.integers(1, 291, int(rng.integers(1, 4)))})
        for label in labels:
            x, y = (float(v) for v in rng.integers(0, 200, 2))
            annotations.append({"id": len(annotations) + 1, "image_id": number,
                                "category_id": label, "segmentation": [], "area": 400.0,
                                "bbox": [x, y, 20.0, 20.0], "iscrowd": 0})
        images.append(image)
        rows.append({"id": str(image["file_name"])[:-4],
                     "categories": str([float(c) for c in labels])})
    evaluation = [_coco_image(rng, number) for number in range(1, 6)]
    sample = pd.DataFrame({"id": [str(e["file_name"])[:-4] for e in evaluation],
                           "categories": "1 146 10", "osd": 0.1})
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return {"kaggle:fathomnet-out-of-sample-detection": _zip({
        "category_key.csv": _csv(key), "demo_download.ipynb": _json(notebook),
        "download_images.py": b"# A stand-in: unzip -n keeps the env's own copy.\n",
        "multilabel_classification/train.csv": _csv(pd.DataFrame(rows)),
        "object_detection/eval.json": _json({"info": info, "images": evaluation,
                                             "categories": categories, "licenses": []}),
        "object_detection/train.json": _json({"info": info, "images": images,
                                              "annotations": annotations,
                                              "categories": categories, "licenses": []}),
        "requirements.txt": b"pandas\nrequests\ntqdm\n",
        "sample_submission.csv": _csv(sample)}),
        # What download_images.py fetches: each image of train.json, by its coco_url.
        **{str(image["coco_url"]): _png(rng.integers(0, 256, (*FATHOMNET_SIZE[::-1], 3)))
           for image in images}}


CONTRAIL_BANDS = ("11", "14", "15")
"""The bands the starter reads; the real records have 08 to 16, each 2 MB unpacked."""
CONTRAIL_TEST_IDS = (1000834164244036115, 1002653297254493116)
"""Kaggle's two test records, the ids of its sample submission."""


def _record(rng: np.random.Generator, labelled: bool, annotators: int) -> Files:
    # Brightness temperatures in blocks of 16x16 pixels, the same in all 8 frames: real
    # enough for the false-colour image, and it packs small.
    files: Files = {}
    for band in CONTRAIL_BANDS:
        blocks = np.round(rng.uniform(220, 300, (16, 16)) * 2) / 2
        image = np.kron(blocks, np.ones((16, 16))).astype(np.float32)
        files[f"band_{band}.npy"] = _npy(np.repeat(image[:, :, None], 8, axis=2))
    if labelled:
        mask = np.zeros((256, 256), dtype=np.int32)
        if rng.random() < 0.7:
            row, width = int(rng.integers(20, 230)), int(rng.integers(1, 4))
            mask[row:row + width, 30:220] = 1
        files["human_pixel_masks.npy"] = _npy(mask[:, :, None])
        if annotators:
            files["human_individual_masks.npy"] = _npy(
                np.repeat(mask[:, :, None, None], annotators, axis=3))
    return files


def identify_contrails(rng: np.random.Generator) -> Files:
    members: Files = {}
    layout = [("train", int(rng.integers(10**18, 9 * 10**18)), True, 4) for _ in range(8)]
    layout += [("validation", int(rng.integers(10**18, 9 * 10**18)), True, 0)
               for _ in range(3)]
    layout += [("test", record, False, 0) for record in CONTRAIL_TEST_IDS]
    metadata: dict[str, list[dict[str, object]]] = {"train": [], "validation": []}
    for split, record, labelled, annotators in layout:
        for name, data in _record(rng, labelled, annotators).items():
            members[f"{split}/{record}/{name}"] = data
        if split in metadata:
            metadata[split].append({"record_id": str(record), "projection_wkt": "synthetic",
                                    "row_min": -4.0e6, "row_size": 2000.0, "col_min": 1.0e6,
                                    "col_size": 2000.0, "timestamp": 1.58e9})
    sample = pd.DataFrame({"record_id": CONTRAIL_TEST_IDS, "encoded_pixels": "-"})
    members["sample_submission.csv"] = _csv(sample)
    members["train_metadata.json"] = _json(metadata["train"])
    members["validation_metadata.json"] = _json(metadata["validation"])
    return {"kaggle:google-research-identify-contrails-reduce-global-warming": _zip(members)}


# ------------------------------------------------------------------------------- URLs


CIFAR_LABELS = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                "ship", "truck"]
CIFAR_URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"


def cifar10(rng: np.random.Generator) -> Files:
    # The starter's loaders take batches of 128 and drop the last short one, so each split
    # has more than 128 images.
    def batch(label: str, n: int) -> bytes:
        entry = {"batch_label": label, "labels": [int(v) for v in rng.integers(0, 10, n)],
                 "data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                 "filenames": [f"synthetic_{label.split()[0]}_{i}.png" for i in range(n)]}
        return pickle.dumps(entry, protocol=2)

    folder = "cifar-10-batches-py/"
    members = {f"{folder}data_batch_{i}": batch(f"training batch {i} of 5", 32)
               for i in range(1, 6)}
    members[f"{folder}test_batch"] = batch("testing batch 1 of 1", 160)
    members[f"{folder}batches.meta"] = pickle.dumps(
        {"label_names": CIFAR_LABELS, "num_cases_per_batch": 32, "num_vis": 3072}, protocol=2)
    members[f"{folder}readme.html"] = b"<html><body>Synthetic CIFAR-10.</body></html>\n"
    return {CIFAR_URL: _tar_gz(members)}


BABYLM_SOURCES = ("aochildes", "bnc_spoken", "cbt", "children_stories", "gutenberg",
                  "open_subtitles", "qed", "simple_wikipedia", "switchboard", "wikipedia")
BABYLM_URL = "https://github.com/babylm/babylm.github.io/raw/main/babylm_data.zip"
BABYLM_LINES = 150
"""Lines per source and split: 1,500 per split, over one block of 1,024 tokens for every
1,000 lines, which the starter's grouping needs."""


def _babylm_text(rng: np.random.Generator) -> str:
    return "".join(_words(rng, WORDS, 3, 16) + "\n" for _ in range(BABYLM_LINES))


def babylm(rng: np.random.Generator) -> Files:
    members: Files = {}
    for folder, suffix in (("babylm_10M", "train"), ("babylm_dev", "dev"),
                           ("babylm_test", "test"), ("babylm_100M", "train")):
        for source in BABYLM_SOURCES:
            text = _babylm_text(rng) if folder != "babylm_100M" else "removed by prepare.py\n"
            members[f"babylm_data/{folder}/{source}.{suffix}"] = text.encode()
    members["__MACOSX/babylm_data/._babylm_10M"] = b"\0\5\26\7"
    files = {BABYLM_URL: _zip(members)}
    corpus = [line for name, data in members.items() if "babylm_10M" in name
              for line in data.decode().splitlines()]
    files.update(_gpt2(corpus))
    files["hf:evaluate-metric/accuracy:accuracy.py"] = ACCURACY.encode()
    return files


GPT2 = "openai-community/gpt2"


def _gpt2(corpus: list[str]) -> Files:
    """GPT-2's files with a byte-level BPE of 300 tokens trained on the synthetic text and
    a random GPT-2 of 2 layers and width 32 (the starter trains from this config)."""
    import torch
    from safetensors.torch import save
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import GPT2Config, GPT2LMHeadModel

    end = "<|endoftext|>"
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    tokenizer.train_from_iterator(corpus, trainers.BpeTrainer(
        vocab_size=299, min_frequency=2, show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tokenizer.add_special_tokens([end])  # last, as in GPT-2's vocabulary
    size = tokenizer.get_vocab_size()
    with tempfile.TemporaryDirectory() as folder:
        vocab, merges = (Path(p).read_bytes() for p in tokenizer.model.save(folder))
    files = {"vocab.json": vocab, "merges.txt": merges,
             "tokenizer.json": tokenizer.to_str().encode(),
             "tokenizer_config.json": _json({"model_max_length": 1024})}
    config = {"activation_function": "gelu_new", "architectures": ["GPT2LMHeadModel"],
              "attn_pdrop": 0.1, "bos_token_id": size - 1, "embd_pdrop": 0.1,
              "eos_token_id": size - 1, "initializer_range": 0.02,
              "layer_norm_epsilon": 1e-05, "model_type": "gpt2", "n_ctx": 1024, "n_embd": 32,
              "n_head": 2, "n_layer": 2, "n_positions": 1024, "resid_pdrop": 0.1,
              "summary_activation": None, "summary_first_dropout": 0.1,
              "summary_proj_to_labels": True, "summary_type": "cls_index",
              "summary_use_proj": True, "vocab_size": size}
    files["config.json"] = _json(config)
    files["generation_config.json"] = _json({"_from_model_config": True,
                                             "bos_token_id": size - 1,
                                             "eos_token_id": size - 1})
    torch.manual_seed(0)
    model = GPT2LMHeadModel(GPT2Config(**config))
    # GPT-2's checkpoint holds the transformer's weights without a prefix; the head is tied.
    weights = {k: v.contiguous() for k, v in model.transformer.state_dict().items()}
    files["model.safetensors"] = save(weights, metadata={"format": "pt"})
    return {f"hf:{GPT2}:{name}": data for name, data in files.items()}


ACCURACY = '''\
"""Accuracy, the share of predictions equal to their references (a stand-in written for
the tests, loaded by evaluate.load("accuracy"))."""

import datasets
import evaluate
from sklearn.metrics import accuracy_score


class Accuracy(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="The share of predictions equal to their references.",
            citation="",
            inputs_description="predictions and references: lists of class ids",
            features=datasets.Features({"predictions": datasets.Value("int32"),
                                        "references": datasets.Value("int32")}),
        )

    def _compute(self, predictions, references, normalize=True, sample_weight=None):
        return {"accuracy": float(accuracy_score(references, predictions,
                                                 normalize=normalize,
                                                 sample_weight=sample_weight))}
'''


OGB_URL = "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip"


def ogbn_arxiv(rng: np.random.Generator) -> Files:
    """arxiv.zip as ogb downloads it: an ``arxiv/`` folder of headerless gzip CSVs (ogb
    renames it ogbn_arxiv) with 2,000 papers and 8,000 citations."""
    nodes, edges = 2000, 8000

    def table(values: np.ndarray, fmt: str = "%d") -> bytes:
        buffer = io.StringIO()
        np.savetxt(buffer, values, fmt=fmt, delimiter=",")
        return _gz(buffer.getvalue().encode())

    order = rng.permutation(nodes)
    years = rng.integers(1971, 2021, nodes)
    splits = {"train": np.sort(order[:1100]), "valid": np.sort(order[1100:1450]),
              "test": np.sort(order[1450:])}
    labels = pd.DataFrame({"label idx": range(40),
                           "arxiv category": [f"arxiv cs {i:02d}" for i in range(40)]})
    papers = pd.DataFrame({"node idx": range(nodes),
                           "paper id": rng.integers(10**6, 3 * 10**9, nodes)})
    members = {
        "arxiv/RELEASE_v1.txt": b"# Release note for ogbn-arxiv (synthetic)\n\n"
                                b"### v1: initial release\n",
        "arxiv/mapping/README.md": b"Synthetic node and label maps.\n",
        "arxiv/mapping/labelidx2arxivcategeory.csv.gz": _gz(_csv(labels)),
        "arxiv/mapping/nodeidx2paperid.csv.gz": _gz(_csv(papers)),
        "arxiv/raw/edge.csv.gz": table(rng.integers(0, nodes, (edges, 2))),
        "arxiv/raw/node-feat.csv.gz": table(rng.standard_normal((nodes, 128)) * 0.1,
                                            "%.6f"),
        "arxiv/raw/node-label.csv.gz": table(rng.integers(0, 40, (nodes, 1))),
        "arxiv/raw/node_year.csv.gz": table(years.reshape(-1, 1)),
        "arxiv/raw/num-edge-list.csv.gz": table(np.array([[edges]])),
        "arxiv/raw/num-node-list.csv.gz": table(np.array([[nodes]])),
        **{f"arxiv/split/time/{name}.csv.gz": table(index.reshape(-1, 1))
           for name, index in splits.items()},
    }
    return {OGB_URL: _zip(members)}


# ------------------------------------------------------------------ Hugging Face files


IMDB = "stanfordnlp/imdb"
DISTILBERT = "distilbert/distilbert-base-uncased"
IMDB_POSITIVE = (
    "great", "wonderful", "loved", "excellent", "fun", "moving", "brilliant", "best"
)
IMDB_NEGATIVE = (
    "terrible", "boring", "hated", "awful", "dull", "worst", "waste", "poor"
)
IMDB_WORDS = (
    "this", "movie", "film", "the", "plot", "acting", "story", "was", "and", "but", "it", "a", "of"
)


def imdb(rng: np.random.Generator) -> Files:
    import pyarrow as pa

    features = {"text": {"dtype": "string", "_type": "Value"},
                "label": {"names": ["neg", "pos"], "_type": "ClassLabel"}}
    metadata = {b"huggingface": json.dumps({"info": {"features": features}}).encode()}

    def review(label: int) -> str:
        mood = IMDB_POSITIVE if label == 1 else IMDB_NEGATIVE
        words = _words(rng, IMDB_WORDS + mood * 2, 20, 60)
        return f"{words.capitalize()}.<br /><br />{_words(rng, IMDB_WORDS + mood, 8, 20)}."

    files: Files = {}
    for split, n in (("train", 40), ("test", 40), ("unsupervised", 20)):
        # The real splits are sorted by label, negatives first; unsupervised has -1.
        labels = [-1] * n if split == "unsupervised" else [0] * (n // 2) + [1] * (n // 2)
        table = pa.table({"text": pa.array([review(max(label, 0)) for label in labels],
                                           pa.string()),
                          "label": pa.array(labels, pa.int64())})
        files[f"hf:{IMDB}:plain_text/{split}-00000-of-00001.parquet"] = _parquet(
            table.replace_schema_metadata(metadata))
    corpus = IMDB_WORDS + IMDB_POSITIVE + IMDB_NEGATIVE
    files.update({f"hf:{DISTILBERT}:{name}": data for name, data in _distilbert(corpus).items()})
    return files


def _distilbert(words: Sequence[str]) -> Files:
    """DistilBERT's files: a WordPiece vocabulary of characters and the reviews' words, and
    a random DistilBertForMaskedLM (the class of the real checkpoint) of 2 layers, width 32."""
    import torch
    from safetensors.torch import save
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
    )
    from transformers import DistilBertConfig, DistilBertForMaskedLM

    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    characters = list("!\"#$%&'()*+,-./0123456789:;<=>?@[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~")
    vocabulary = special + characters + ["##" + c for c in "abcdefghijklmnopqrstuvwxyz"]
    vocabulary += [*sorted(set(words) - set(vocabulary)), "br"]
    ids = {token: i for i, token in enumerate(vocabulary)}
    tokenizer = Tokenizer(models.WordPiece(ids, unk_token="[UNK]", max_input_chars_per_word=100))
    tokenizer.normalizer = normalizers.BertNormalizer(clean_text=True,
                                                      handle_chinese_chars=True,
                                                      strip_accents=None, lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", ids["[CLS]"]), ("[SEP]", ids["[SEP]"])])
    tokenizer.decoder = decoders.WordPiece(prefix="##")
    tokenizer.add_special_tokens(special)
    config = {"activation": "gelu", "architectures": ["DistilBertForMaskedLM"],
              "attention_dropout": 0.1, "dim": 32, "dropout": 0.1, "hidden_dim": 64,
              "initializer_range": 0.02, "max_position_embeddings": 512,
              "model_type": "distilbert", "n_heads": 2, "n_layers": 2, "pad_token_id": 0,
              "qa_dropout": 0.1, "seq_classif_dropout": 0.2, "sinusoidal_pos_embds": False,
              "tie_weights_": True, "vocab_size": len(vocabulary)}
    torch.manual_seed(0)
    model = DistilBertForMaskedLM(DistilBertConfig(**config))
    weights = {k: v.contiguous() for k, v in model.state_dict().items()
               if k != "vocab_projector.weight"}  # tied to the word embeddings
    return {"config.json": _json(config),
            "model.safetensors": save(weights, metadata={"format": "pt"}),
            "tokenizer.json": tokenizer.to_str().encode(),
            "tokenizer_config.json": _json({"do_lower_case": True, "model_max_length": 512}),
            "vocab.txt": "".join(token + "\n" for token in vocabulary).encode()}


LLAMA = "huggyllama/llama-7b"
WIKITEXT = "Salesforce/wikitext"
LLAMA_SHARDS = 2


def llama_inference(rng: np.random.Generator) -> Files:
    """A Llama of 2 layers and width 32 in two pytorch_model shards with their index, a
    sentencepiece BPE vocabulary of characters and frequent pairs with byte fallback, as
    Llama's is, and the wikitext test split: headings, blank rows and paragraphs, a share
    of them over the 128 tokens the starter keeps."""
    import pyarrow as pa

    rows: list[str] = []
    for number in range(24):
        rows += ["", f" = {_words(rng, WORDS, 2, 4).title()} = \n", ""]
        for _ in range(2):
            words = _words(rng, WORDS, 40, 140).replace(" and ", " @-@ ", 3)
            rows.append(f" {words.capitalize()} , {1900 + number} @,@ 000 .\n")
    text = pa.table({"text": pa.array(rows, pa.string())})
    files = {f"hf:{WIKITEXT}:wikitext-103-v1/test-00000-of-00001.parquet": _parquet(text)}
    files.update({f"hf:{LLAMA}:{name}": data for name, data in _llama(rows).items()})
    return files


def _sentencepiece(corpus: list[str]) -> tuple[bytes, int]:
    """A sentencepiece model (the protobuf tokenizer.model is) and its vocabulary size."""
    from collections import Counter

    from transformers.utils import sentencepiece_model_pb2_new as spm

    text = "".join("\u2581" + line.strip().replace(" ", "\u2581") for line in corpus)
    characters = sorted(set(text))
    pairs = Counter(a + b for a, b in itertools.pairwise(text) if "\u2581" not in b)
    merged = [pair for pair, _ in sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[:100]]
    model = spm.ModelProto()
    kinds = spm.ModelProto.SentencePiece
    model.pieces.add(piece="<unk>", score=0.0, type=kinds.UNKNOWN)
    model.pieces.add(piece="<s>", score=0.0, type=kinds.CONTROL)
    model.pieces.add(piece="</s>", score=0.0, type=kinds.CONTROL)
    for byte in range(256):
        model.pieces.add(piece=f"<0x{byte:02X}>", score=0.0, type=kinds.BYTE)
    for rank, piece in enumerate(merged + characters):
        model.pieces.add(piece=piece, score=-float(rank), type=kinds.NORMAL)
    spec = model.trainer_spec
    spec.model_type, spec.vocab_size, spec.byte_fallback = spec.BPE, len(model.pieces), True
    spec.unk_id, spec.bos_id, spec.eos_id, spec.pad_id = 0, 1, 2, -1
    spec.split_digits, spec.max_sentencepiece_length = True, 16
    normalizer = model.normalizer_spec
    normalizer.name, normalizer.add_dummy_prefix = "identity", True
    normalizer.remove_extra_whitespaces, normalizer.escape_whitespaces = False, True
    return model.SerializeToString(deterministic=True), len(model.pieces)


def _llama(corpus: list[str]) -> Files:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer, size = _sentencepiece(corpus)
    config = {"architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
              "hidden_act": "silu", "hidden_size": 32, "initializer_range": 0.02,
              "intermediate_size": 64, "max_position_embeddings": 256,
              "model_type": "llama", "num_attention_heads": 2, "num_hidden_layers": 2,
              "num_key_value_heads": 2, "pad_token_id": 0, "rms_norm_eps": 1e-06,
              "tie_word_embeddings": False, "torch_dtype": "float32", "use_cache": True,
              "vocab_size": size}
    torch.manual_seed(0)
    weights = LlamaForCausalLM(LlamaConfig(**config)).state_dict()
    names = sorted(weights)
    shards = [names[i::LLAMA_SHARDS] for i in range(LLAMA_SHARDS)]
    files: Files = {"config.json": _json(config), "tokenizer.model": tokenizer}
    index: dict[str, str] = {}
    for number, shard in enumerate(shards, 1):
        file = f"pytorch_model-{number:05d}-of-{LLAMA_SHARDS:05d}.bin"
        buffer = io.BytesIO()
        torch.save({name: weights[name].contiguous() for name in shard}, buffer)
        files[file] = buffer.getvalue()
        index.update(dict.fromkeys(shard, file))
    total = sum(t.numel() * t.element_size() for t in weights.values())
    files["pytorch_model.bin.index.json"] = _json({"metadata": {"total_size": total},
                                                   "weight_map": index})
    return files


# ------------------------------------------------------------------------- the bundle


MAKERS: dict[str, Callable[[np.random.Generator], Files]] = {
    "house-price": house_price,
    "spaceship-titanic": spaceship_titanic,
    "amp-parkinsons-disease-progression-prediction": amp_parkinsons,
    "feedback": feedback,
    "fathomnet": fathomnet,
    "identify-contrails": identify_contrails,
    "cifar10": cifar10,
    "ogbn-arxiv": ogbn_arxiv,
    "babylm": babylm,
    "imdb": imdb,
    "llama-inference": llama_inference,
}
"""The tasks whose downloads this module makes, by overlay name."""


def _key(source: str) -> str:
    """A source as the makers name it: a Hugging Face file without its revision."""
    if source.startswith("hf:"):
        where, _, file = source[3:].partition(":")
        repo = where.partition("@")[0].split("/", 1)[1]
        return f"hf:{repo}:{file}"
    return source


def _images(out: Path, overlay: Overlay) -> Iterator[str]:
    """The images the overlay's annotation file lists, once its zip is written (the
    sources before it in the loop that takes these)."""
    if overlay.coco_images:
        archive = next(s for s in sources_of(overlay) if s.startswith("kaggle:"))
        yield from coco_urls(out / path_of(archive), overlay.coco_images)


def make_synthetic_bundle(out: Path, tasks: Collection[str] | None = None) -> Path:
    """Write the synthetic downloads of ``tasks`` (all in ``MAKERS`` by default) under
    ``out``, one file per source of their overlays, and the manifest; return ``out``."""
    unknown = sorted(set(tasks or ()) - set(MAKERS))
    if unknown:
        raise ValueError(f"no synthetic data for {', '.join(unknown)}: this module makes "
                         f"{', '.join(MAKERS)}")
    everything: list[str] = []
    for task in (MAKERS if tasks is None else [t for t in MAKERS if t in tasks]):
        overlay = read_overlay(OVERLAYS / f"{task}.toml")
        files = MAKERS[task](np.random.default_rng(zlib.crc32(task.encode())))
        for source in itertools.chain(sources_of(overlay), _images(out, overlay)):
            if _key(source) not in files:
                raise ValueError(f"{OVERLAYS / f'{task}.toml'} lists {source}, which "
                                 f"synthetic_bundle.{MAKERS[task].__name__} does not make")
            target = out / path_of(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(files[_key(source)])
            everything.append(source)
    write_manifest(out, everything, "synthetic")
    return out
