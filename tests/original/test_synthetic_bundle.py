"""The synthetic bundle (issue 41): every source of every task it makes is in the manifest
with its hash, the same code makes the same bytes, and the original prepare.py scripts,
fed these files where ``kaggle`` or ``wget`` would have written them, leave the files
their starters read."""

from __future__ import annotations

import ast
import io
import json
import os
import pickle
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic_bundle import (
    BABYLM_SOURCES,
    BABYLM_URL,
    CIFAR_URL,
    MAKERS,
    OGB_URL,
    OVERLAYS,
    make_synthetic_bundle,
)

from pytest_mlab.core.bundle import MANIFEST, Bundle, BundleError, sources_of
from pytest_mlab.core.overlay import read_overlay

ORIGINALS = (Path(__file__).resolve().parents[3] / "shared" / "mlagentbench"
             / "mlagentbench-5d71205-benchmarks.tar.gz")
MEMBERS = "MLAgentBench/MLAgentBench/benchmarks/"

KAGGLE_TASKS = ("house-price", "spaceship-titanic",
                "amp-parkinsons-disease-progression-prediction", "feedback", "fathomnet",
                "identify-contrails")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_synthetic_bundle(tmp_path_factory.mktemp("bundle"))


def _original(task: str, into: Path) -> Path:
    """A copy of the original task folder (env/, scripts/) to run its prepare.py in."""
    checkout = os.environ.get("MLAB_MLAGENTBENCH")
    if checkout:
        shutil.copytree(Path(checkout) / "MLAgentBench" / "benchmarks" / task, into / task)
        return into / task
    if not ORIGINALS.is_file():
        pytest.skip("no MLAgentBench checkout: set MLAB_MLAGENTBENCH to one, or put "
                    f"{ORIGINALS.name} in {ORIGINALS.parent}")
    with tarfile.open(ORIGINALS) as archive:
        members = [m for m in archive.getmembers() if m.name.startswith(f"{MEMBERS}{task}/")]
        archive.extractall(into, members=members, filter="data")
    return into / MEMBERS / task


def _prepare(task: str, bundle: Path, tmp_path: Path) -> Path:
    """Run the original prepare.py of ``task`` as pytest-mlab does (from scripts/, with the
    overlay's links), with ``kaggle`` and ``wget`` on PATH copying the bundle's file into
    the folder they were run in; return the task folder."""
    if shutil.which("unzip") is None:
        pytest.skip("the original prepare.py scripts unpack with unzip, which is not on PATH")
    folder = _original(task, tmp_path)
    tools = tmp_path / "bin"
    tools.mkdir()
    # kaggle competitions download -c NAME; wget URL: both write into their cwd.
    for name, target in (("kaggle", "'kaggle/' + sys.argv[sys.argv.index('-c') + 1] + '.zip'"),
                         ("wget", "'urls/' + sys.argv[1].split('://', 1)[1]")):
        script = tools / name
        script.write_text(f"#!{sys.executable}\nimport shutil, sys\n"
                          f"source = {str(bundle)!r} + '/' + {target}\n"
                          "shutil.copy(source, source.rsplit('/', 1)[1])\n")
        script.chmod(0o755)
    for link, target in read_overlay(OVERLAYS / f"{task}.toml").prepare_links.items():
        (folder / "scripts" / link).parent.mkdir(parents=True, exist_ok=True)
        (folder / "scripts" / link).symlink_to(target)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([sys.executable, "prepare.py"], cwd=folder / "scripts", env=env,
                          input="\n\n\n", capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return folder


def test_the_manifest_holds_every_source_of_each_task_with_its_hash(bundle: Path) -> None:
    made = Bundle(bundle)
    assert made.kind == "synthetic"
    for task in MAKERS:
        for source in sources_of(read_overlay(OVERLAYS / f"{task}.toml")):
            assert made.file(source).stat().st_size > 0
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    assert size < 30 * 2**20


def test_the_same_code_makes_the_same_bytes(tmp_path: Path) -> None:
    first = make_synthetic_bundle(tmp_path / "first")
    second = make_synthetic_bundle(tmp_path / "second")
    assert (first / MANIFEST).read_bytes() == (second / MANIFEST).read_bytes()
    # A task's files do not depend on which others are made with it.
    alone = make_synthetic_bundle(tmp_path / "alone", ["feedback"])
    name = "kaggle/feedback-prize-english-language-learning.zip"
    assert (alone / name).read_bytes() == (first / name).read_bytes()
    assert len(json.loads((alone / MANIFEST).read_text())["files"]) == 1
    # A changed byte is caught by the manifest's hash.
    (alone / name).write_bytes((alone / name).read_bytes() + b"\0")
    with pytest.raises(BundleError, match="sha256"):
        Bundle(alone).file("kaggle:feedback-prize-english-language-learning")


def test_a_task_it_cannot_make_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no synthetic data for CLRS"):
        make_synthetic_bundle(tmp_path, ["CLRS", "feedback"])


def test_house_price_prepares_into_the_columns_the_starter_reads(
        bundle: Path, tmp_path: Path) -> None:
    env = _prepare("house-price", bundle, tmp_path) / "env"
    train = pd.read_csv(env / "train.csv")
    test = pd.read_csv(env / "test.csv")
    answer = pd.read_csv(env.parent / "scripts" / "answer.csv")
    assert train.shape == (48, 81) and test.shape == (12, 80)
    assert list(answer.columns) == ["Id", "SalePrice"] and len(answer) == 12
    assert train[["LotFrontage", "MasVnrArea", "GarageYrBlt"]].isna().any().all()
    assert sum(not pd.api.types.is_numeric_dtype(t) for t in train.dtypes) == 43
    starter = (env / "train.py").read_text()
    features = ast.literal_eval(starter.split("features = ", 1)[1].split("\n", 1)[0])
    assert len(features) == 25
    for frame in (train, test):
        assert all(frame[features].dtypes == np.int64)
    # unzip -n keeps the starter's own description.
    assert "synthetic" not in (env / "data_description.txt").read_text()


def test_spaceship_titanic_prepares_the_dummy_columns_the_starter_expects(
        bundle: Path, tmp_path: Path) -> None:
    env = _prepare("spaceship-titanic", bundle, tmp_path) / "env"
    train, test = pd.read_csv(env / "train.csv"), pd.read_csv(env / "test.csv")
    assert "Transported" not in test and len(train) == 160 and len(test) == 40
    chosen = ["HomePlanet", "CryoSleep", "Destination", "VIP", "Deck", "Side"]

    def dummies(frame: pd.DataFrame) -> list[str]:
        frame = frame.copy()
        frame[["Deck", "Cabin_num", "Side"]] = frame["Cabin"].str.split("/", expand=True)
        return list(pd.get_dummies(frame[chosen]).columns)

    # The starter splits train.csv after shuffling it, and gives the test set a zero
    # Deck_T column at position 17: the columns must agree in every part.
    shuffled = train.sample(frac=1, random_state=1)
    parts = shuffled[:int(0.8 * len(train))], shuffled[int(0.8 * len(train)) + 1:]
    expected = dummies(parts[0])
    assert len(expected) == 20 and expected[17] == "Deck_T"
    assert dummies(parts[1]) == expected
    assert dummies(test) == expected[:17] + expected[18:]


def test_amp_prepares_a_hold_out_and_the_starter_runs_on_it(
        bundle: Path, tmp_path: Path) -> None:
    folder = _prepare("amp-parkinsons-disease-progression-prediction", bundle, tmp_path)
    env = folder / "env"
    assert not (env / "amp_pd_peptide").exists()
    clinical = pd.read_csv(env / "train_clinical_data.csv")
    assert clinical.patient_id.nunique() >= 8
    examples = env / "example_test_files"
    assert pd.read_csv(examples / "test.csv").patient_id.nunique() == 2
    assert len(pd.read_csv(folder / "scripts" / "answer.csv")) > 0
    # The starter itself: an 8-fold split by patient, then the mock API over the hold-out.
    done = subprocess.run([sys.executable, "train.py"], cwd=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Overall cv score" in done.stdout
    submission = pd.read_csv(env / "submission.csv")
    assert set(submission.columns) >= {"prediction_id", "rating"} and len(submission) > 0


def test_feedback_prepares_through_its_benchmarks_path(bundle: Path, tmp_path: Path) -> None:
    folder = _prepare("feedback", bundle, tmp_path)
    train = pd.read_csv(folder / "env" / "train.csv")
    assert list(train.columns) == ["text_id", "full_text", "cohesion", "syntax",
                                   "vocabulary", "phraseology", "grammar", "conventions"]
    assert len(train) == 98 and train.full_text.str.contains("\n\n").any()
    assert list(pd.read_csv(folder / "env" / "test.csv").columns) == ["text_id", "full_text"]
    assert len(pd.read_csv(folder / "scripts" / "answer.csv")) == 2


def test_fathomnet_prepares_its_hold_out_from_the_zip(bundle: Path, tmp_path: Path) -> None:
    folder = _prepare("fathomnet", bundle, tmp_path)
    env = folder / "env"
    for removed in ("download_images.py", "demo_download.ipynb", "requirements.txt"):
        assert not (env / removed).exists()
    train = pd.read_csv(env / "multilabel_classification" / "train.csv")
    answer = pd.read_csv(folder / "scripts" / "answer.csv")
    assert len(train) == 98 and len(answer) == 2
    held = json.loads((env / "object_detection" / "eval.json").read_text())["images"]
    assert sorted(x["file_name"][:-4] for x in held) == sorted(answer.id)
    assert len(pd.read_csv(env / "category_key.csv")) == 290


def test_identify_contrails_prepares_unlabelled_test_records(
        bundle: Path, tmp_path: Path) -> None:
    folder = _prepare("identify-contrails", bundle, tmp_path)
    env, answers = folder / "env", folder / "scripts" / "test_answer"
    tests = sorted(p.name for p in (env / "test").iterdir())
    assert len(tests) == 3 and tests == sorted(p.name for p in answers.iterdir())
    assert not list((env / "test").glob("*/human_pixel_masks.npy"))
    assert len(list((env / "train").iterdir())) == 8
    for record in [*(env / "train").iterdir(), *(env / "test").iterdir()]:
        for band in ("11", "14", "15"):
            array = np.load(record / f"band_{band}.npy")
            assert array.shape == (256, 256, 8) and array.dtype == np.float32
    masks = [np.load(p) for p in answers.glob("*/human_pixel_masks.npy")]
    assert len(masks) == 3 and all(m.shape == (256, 256, 1) for m in masks)
    ids = pd.read_csv(env / "sample_submission.csv").record_id
    assert ids.dtype == np.int64


def test_babylm_prepares_the_ten_sources_of_each_split(bundle: Path, tmp_path: Path) -> None:
    env = _prepare("babylm", bundle, tmp_path) / "env"
    data = env / "babylm_data"
    assert sorted(p.name for p in data.iterdir()) == ["babylm_10M", "babylm_dev",
                                                       "babylm_test"]
    assert not (env / "__MACOSX").exists() and not (env / "babylm_data.zip").exists()
    for folder, suffix in (("babylm_10M", "train"), ("babylm_dev", "dev"),
                           ("babylm_test", "test")):
        assert sorted(p.name for p in (data / folder).iterdir()) == sorted(
            f"{s}.{suffix}" for s in BABYLM_SOURCES)
    assert Bundle(bundle).file(BABYLM_URL).is_file()


def test_cifar10_holds_the_batches_torchvision_reads(bundle: Path, tmp_path: Path) -> None:
    # torchvision (not in the harness) unpacks the archive into data/ and unpickles each
    # batch with latin1; the starter takes batches of 128 and drops a short last one.
    with tarfile.open(Bundle(bundle).file(CIFAR_URL)) as archive:
        archive.extractall(tmp_path, filter="data")
    folder = tmp_path / "cifar-10-batches-py"

    def load(name: str) -> dict[str, object]:
        with open(folder / name, "rb") as f:
            entry: dict[str, object] = pickle.load(f, encoding="latin1")
        return entry

    counts = {}
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        entry = load(name)
        data = entry["data"]
        assert isinstance(data, np.ndarray) and data.dtype == np.uint8
        assert data.shape[1] == 3072 and len(entry["labels"]) == len(data)  # type: ignore[arg-type]
        counts[name] = len(data)
    assert sum(counts.values()) - counts["test_batch"] > 128 and counts["test_batch"] > 128
    assert len(load("batches.meta")["label_names"]) == 10  # type: ignore[arg-type]


def test_ogbn_arxiv_is_the_folder_ogb_unpacks(bundle: Path) -> None:
    with zipfile.ZipFile(Bundle(bundle).file(OGB_URL)) as archive:
        names = set(archive.namelist())
        assert "arxiv/RELEASE_v1.txt" in names  # else ogb asks whether to download again

        def table(name: str) -> pd.DataFrame:
            return pd.read_csv(io.BytesIO(archive.read(f"arxiv/{name}.csv.gz")),
                               compression="gzip", header=None)

        nodes = int(table("raw/num-node-list").iloc[0, 0])
        assert table("raw/node-feat").shape == (nodes, 128)
        assert len(table("raw/node-label")) == len(table("raw/node_year")) == nodes
        assert len(table("raw/edge")) == int(table("raw/num-edge-list").iloc[0, 0])
        split = [table(f"split/time/{s}")[0] for s in ("train", "valid", "test")]
        assert sum(map(len, split)) == nodes and pd.concat(split).nunique() == nodes


def test_the_hugging_face_files_load_as_the_starters_load_them(
        bundle: Path, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    datasets = pytest.importorskip("datasets")
    made = Bundle(bundle)

    def folder(task: str, name: str) -> Path:
        overlay = read_overlay(OVERLAYS / f"{task}.toml")
        (entry,) = [e for e in overlay.hub if e.folder == name]
        for file in entry.files:
            source = f"hf:{entry.type}/{entry.repo}@{entry.revision}:{file}"
            (tmp_path / name / file).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(made.file(source), tmp_path / name / file)
        return tmp_path / name

    imdb = datasets.load_dataset("parquet", data_files={
        split: str(folder("imdb", "imdb") / f"plain_text/{split}-00000-of-00001.parquet")
        for split in ("train", "test", "unsupervised")}, cache_dir=str(tmp_path / "cache"))
    assert imdb["train"].features["label"].names == ["neg", "pos"]
    assert set(imdb["test"]["label"]) == {0, 1} and set(imdb["unsupervised"]["label"]) == {-1}
    bert = folder("imdb", "distilbert-base-uncased")
    tokenizer = transformers.AutoTokenizer.from_pretrained(bert)
    assert tokenizer.unk_token_id not in tokenizer(imdb["train"]["text"][0])["input_ids"]
    model = transformers.AutoModelForSequenceClassification.from_pretrained(bert, num_labels=2)
    assert type(model).__name__ == "DistilBertForSequenceClassification"
    gpt2 = folder("babylm", "gpt2")
    tokenizer = transformers.AutoTokenizer.from_pretrained(gpt2)
    text = "the little dog went home\n"
    assert tokenizer.decode(tokenizer(text)["input_ids"]) == text
    assert tokenizer.model_max_length == 1024
    model = transformers.AutoModelForCausalLM.from_pretrained(gpt2)
    assert model.config.n_embd == 32 and model.config.vocab_size == len(tokenizer)
    accuracy = folder("babylm", "accuracy") / "accuracy.py"
    assert "import datasets\nimport evaluate\n" in accuracy.read_text()


def test_the_llama_files_load_and_the_wikitext_has_rows_of_full_context(
        bundle: Path, tmp_path: Path) -> None:
    transformers = pytest.importorskip("transformers")
    from transformers.utils import sentencepiece_model_pb2_new as spm

    made = Bundle(bundle)
    overlay = read_overlay(OVERLAYS / "llama-inference.toml")
    llama, wikitext = overlay.hub
    for file in llama.files:
        shutil.copy(made.file(f"hf:model/{llama.repo}@{llama.revision}:{file}"),
                    tmp_path / file)
    model = transformers.AutoModelForCausalLM.from_pretrained(tmp_path)
    vocabulary = spm.ModelProto()
    vocabulary.ParseFromString((tmp_path / "tokenizer.model").read_bytes())
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.config.vocab_size == len(vocabulary.pieces)
    assert vocabulary.trainer_spec.byte_fallback
    index = json.loads((tmp_path / "pytorch_model.bin.index.json").read_text())
    assert set(index["weight_map"]) == set(model.state_dict())
    (rows,) = [made.file(f"hf:dataset/{wikitext.repo}@{wikitext.revision}:{file}")
               for file in wikitext.files]
    text = pd.read_parquet(rows)["text"]
    # The starter keeps rows of 128 tokens or more; a token is at most two characters.
    assert (text.str.len() > 2 * 128).sum() >= 8 and (text == "").any()
