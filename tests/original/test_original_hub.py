"""Hugging Face folders an original starter loads by name: downloaded from a loopback Hub
when the task is prepared, checked against the overlay's hashes, the withheld labels
blanked in the agent's copy and kept in the scorer's (issue 15)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_hub import REVISION, loopback_hub
from original_folders import write_task

from pytest_mlab.core.overlay import read_overlay
from pytest_mlab.core.task import TaskFormatError

pytest.importorskip("datasets", reason="pip install 'pytest-mlab[mlagentbench]'")

SPLITS = {"train": 12, "test": 10, "unsupervised": 5}
TEST_POSITIVE = 7  # of the 10 test reviews

# The starter as imdb's loads its data, by name; it reports what it sees and predicts the
# label it is shown (a leak would make that perfect), else negative.
TRAIN = """\
import pandas as pd
from datasets import load_dataset

imdb = load_dataset("imdb")
labels = imdb["test"]["label"]
with open("seen.txt", "w") as f:
    f.write(f"splits {' '.join(sorted(imdb))}; test labels {sorted(set(labels))}")
rows = [[0.0, 1.0] if label == 1 else [1.0, 0.0] for label in labels]
pd.DataFrame(rows).to_csv("submission.csv", index_label="idx")
"""

# eval.py as imdb's works: the labels come from load_dataset("imdb") where it runs.
EVAL = """\
import os

import pandas as pd
from datasets import load_dataset


def get_score(submission_folder="../env"):
    labels = load_dataset("imdb")["test"]["label"]
    submission = pd.read_csv(os.path.join(submission_folder, "submission.csv"), index_col="idx")
    return sum(int(submission.loc[i].argmax() == y) for i, y in enumerate(labels)) / len(labels)
"""

HUB = """\
hide = ["hf-cache"]
[[hub]]
folder = "imdb"
repo = "someone/imdb"
type = "dataset"
revision = "{revision}"
withhold = {{ "plain_text/test-00000-of-00001.parquet" = "label" }}
[hub.files]
{pins}
[[hub]]
folder = "tiny-model"
repo = "someone/tiny-model"
type = "model"
[hub.files]
"config.json" = ""
[[hub]]
folder = "accuracy"
repo = "someone/accuracy"
type = "space"
[hub.files]
"accuracy.py" = ""
"""


def _shard(split: str) -> str:
    return f"plain_text/{split}-00000-of-00001.parquet"


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Repositories as the Hub holds them: reviews in parquet shards, a model, a metric."""
    import datasets

    root = tmp_path_factory.mktemp("hub")
    features = datasets.Features({"text": datasets.Value("string"),
                                  "label": datasets.ClassLabel(names=["neg", "pos"])})
    for split, rows in SPLITS.items():
        labels = ([int(i < TEST_POSITIVE) for i in range(rows)] if split == "test"
                  else [-1] * rows if split == "unsupervised" else [i % 2 for i in range(rows)])
        texts = [f"{split} review {i}" for i in range(rows)]
        table = datasets.Dataset.from_dict({"text": texts, "label": labels}, features=features)
        path = root / "datasets" / "someone" / "imdb" / _shard(split)
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_parquet(str(path))
    (root / "someone" / "tiny-model").mkdir(parents=True)
    (root / "someone" / "tiny-model" / "config.json").write_text('{"model_type": "bert"}')
    (root / "spaces" / "someone" / "accuracy").mkdir(parents=True)
    (root / "spaces" / "someone" / "accuracy" / "accuracy.py").write_text("# a metric\n")
    return root


@pytest.fixture
def hub(repos: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
        ) -> Iterator[list[tuple[str, str]]]:
    """The loopback Hub as HF_ENDPOINT, a token, and this machine's caches in tmp_path."""
    with loopback_hub(repos, monkeypatch, tmp_path / "hf-home") as seen:
        yield seen


def _write(pytester: pytest.Pytester, repos: Path, name: str, pins: dict[str, str]) -> Path:
    text = "\n".join(f'"{file}" = "{sha}"' for file, sha in pins.items())
    folder = write_task(pytester.path / "benchmarks", pytester.path / "overlays", name,
                        extra=HUB.format(revision=REVISION, pins=text))
    (folder / "scripts" / "prepare.py").unlink()  # imdb has none: the hub is its data
    (folder / "scripts" / "read_only_files.txt").unlink()
    (folder / "env" / "train.py").write_text(TRAIN)
    (folder / "scripts" / "eval.py").write_text(EVAL)
    overlay = pytester.path / "overlays" / f"{name}.toml"
    overlay.write_text(overlay.read_text().replace(
        '[metric]\nname = "mae"\ndirection = "lower"',
        '[metric]\nname = "accuracy"\ndirection = "higher"').replace(
        'requirements = ["numpy"]', 'requirements = ["datasets", "pandas"]'))
    return folder


def _pins(repos: Path) -> dict[str, str]:
    shards = repos / "datasets" / "someone" / "imdb"
    return {_shard(split): hashlib.sha256((shards / _shard(split)).read_bytes()).hexdigest()
            for split in SPLITS}


def test_the_agent_loads_the_folder_without_its_labels_and_the_scorer_with_them(
    pytester: pytest.Pytester, mlab_args: list[str], repos: Path,
    hub: list[tuple[str, str]], read_results: Callable[[], list[dict[str, Any]]],
    tmp_path: Path,
) -> None:
    _write(pytester, repos, "reviews", _pins(repos))
    run = pytester.runpytest(str(pytester.path / "benchmarks"), "--mlab-keep-workspaces=all",
                             f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args)
    run.assert_outcomes(failed=1)
    (record,) = read_results()
    # Predicting the label it was shown: every test label was -1 to it, so it said
    # negative throughout, right for the 3 negatives only. A leak would have scored 1,
    # a scorer shown the blanked copy 0.
    assert record["score"] == pytest.approx((SPLITS["test"] - TEST_POSITIVE) / SPLITS["test"]
                                            ), record["message"]
    workspace = Path(record["workspace"])
    assert (workspace / "seen.txt").read_text() == (
        "splits test train unsupervised; test labels [-1]")
    assert (workspace / "tiny-model" / "config.json").read_text() == '{"model_type": "bert"}'
    assert (workspace / "accuracy" / "accuracy.py").read_text() == "# a metric\n"
    assert not list(workspace.rglob(".cache"))
    # The scorer's loads of its whole copy left nothing in this machine's cache.
    assert not list((tmp_path / "hf-home").rglob("*.arrow"))
    # Each file fetched once, at the pinned revision, with the token.
    fetched = {path for path, _ in hub if "/resolve/" in path}
    assert {p.partition(f"/resolve/{REVISION}/")[2] for p in fetched if "imdb" in p} == {
        _shard(split) for split in SPLITS}
    assert {token for path, token in hub if "/resolve/" in path} == {"Bearer hf_loopback"}


def test_a_file_that_is_not_the_pinned_one_is_an_error_naming_it(
    pytester: pytest.Pytester, mlab_args: list[str], repos: Path,
    hub: list[tuple[str, str]], read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    pins = _pins(repos) | {_shard("train"): "0" * 64}
    _write(pytester, repos, "reviews", pins)
    run = pytester.runpytest(str(pytester.path / "benchmarks"),
                             f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args)
    run.assert_outcomes(errors=1)
    (record,) = read_results()
    assert record["outcome"] == "error"
    assert (f"someone/imdb: {_shard('train')} at revision {REVISION} has sha256 "
            f"{_pins(repos)[_shard('train')]}, the overlay pins {'0' * 64}") in record["message"]


def test_without_the_hub_the_task_is_skipped_naming_the_fix(
    pytester: pytest.Pytester, mlab_args: list[str], repos: Path,
    hub: list[tuple[str, str]], read_results: Callable[[], list[dict[str, Any]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _write(pytester, repos, "reviews", _pins(repos))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pytester.runpytest(str(pytester.path / "benchmarks"),
                       f"--mlab-overlays={pytester.path / 'overlays'}", *mlab_args
                       ).assert_outcomes(skipped=1)
    (record,) = read_results()
    assert record["message"] == "reviews: needs the Hugging Face Hub (unset HF_HUB_OFFLINE)"
    assert hub == []


def test_a_withheld_file_must_be_a_downloaded_parquet_file(tmp_path: Path) -> None:
    overlay = tmp_path / "reviews.toml"
    write_task(tmp_path / "benchmarks", tmp_path, "reviews", extra=HUB.format(
        revision=REVISION, pins='"plain_text/train-00000-of-00001.parquet" = ""'))
    with pytest.raises(TaskFormatError, match=(
            r"reviews.toml: key 'hub.0': Value error, withhold names "
            r"'plain_text/test-00000-of-00001.parquet', which is not in files")):
        read_overlay(overlay)


def test_withholding_labels_needs_the_caches_hidden(tmp_path: Path) -> None:
    overlay = tmp_path / "reviews.toml"
    write_task(tmp_path / "benchmarks", tmp_path, "reviews", extra=HUB.format(
        revision=REVISION, pins=f'"{_shard("test")}" = ""'))
    assert read_overlay(overlay).hub[0].withhold == {_shard("test"): "label"}
    overlay.write_text(overlay.read_text().replace('hide = ["hf-cache"]\n', ""))
    with pytest.raises(TaskFormatError, match=(
            r"reviews.toml: key '\(top level\)': Value error, hub withholds columns, so "
            r"hide must list 'hf-cache'")):
        read_overlay(overlay)


@pytest.mark.parametrize(("folder", "accepted"), [
    ("imdb", True), ("decapoda-research/llama-7b-hf", True), ("a/b/c", False),
    ("../imdb", False), ("imdb/..", False), ("/tmp/imdb", False), ("imdb/", False),
])
def test_a_hub_folder_is_a_name_or_a_hub_id_inside_the_workspace(
    tmp_path: Path, folder: str, accepted: bool,
) -> None:
    overlay = tmp_path / "reviews.toml"
    write_task(tmp_path / "benchmarks", tmp_path, "reviews", extra=HUB.format(
        revision=REVISION, pins=f'"{_shard("test")}" = ""').replace(
            'folder = "tiny-model"', f'folder = "{folder}"'))
    if accepted:
        assert read_overlay(overlay).hub[1].folder == folder
    else:
        with pytest.raises(TaskFormatError, match=r"reviews.toml: key 'hub.1.folder'"):
            read_overlay(overlay)
