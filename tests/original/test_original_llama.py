"""The replacement scorer of llama-inference times generate itself and checks its tokens
(a tiny random Llama and starters of this test's own, in the original's layout)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback_hub import loopback_hub

from pytest_mlab.core.errors import InvalidSubmission
from pytest_mlab.core.module_file import load_file
from pytest_mlab.sandbox.local import LocalSandbox
from pytest_mlab.sandbox.spec import SandboxSpec

pytestmark = pytest.mark.slow
OVERLAYS = Path(__file__).resolve().parents[2] / "tasks" / "mlagentbench"
MODEL_DIR = "decapoda-research/llama-7b-hf"
PAUSE = 0.05

# The original's shape: a DO NOT EDIT block that loads the model from the folder of the
# Hub's name, then a loop that times model.generate itself and prints a time (here one
# that claims to be instant: the scorer must not read it).
STARTER = """\
import time

import torch
from transformers import LlamaForCausalLM

#### DO NOT EDIT ######
generation_length = 1
context_length = 128
model = LlamaForCausalLM.from_pretrained("decapoda-research/llama-7b-hf")
#################
{change}
batch_size = 4
generator = torch.Generator().manual_seed(0)
with torch.no_grad():
    model.eval()
    for idx in range(3):
        input_ids = torch.randint(3, model.config.vocab_size, (batch_size, context_length),
                                  generator=generator)
        outputs = model.generate(input_ids=input_ids,
                                 max_length=generation_length + context_length{extra})
    print("Average per token generation time: ", 0.0)
"""
CHANGES: dict[str, tuple[str, str]] = {
    "unchanged": ("", ""),
    "bfloat16": ("model = model.to(torch.bfloat16)", ""),
    "a pause in forward": (
        f"model.register_forward_pre_hook(lambda module, args: time.sleep({PAUSE}))", ""),
    "sampling": ("", ", do_sample=True, temperature=50.0, top_k=0"),
    "its own generate": ("model.generate = lambda **k: k['input_ids']", ""),
    "a crash first": ("1 / 0", ""),
}


def tiny_llama(folder: Path) -> None:
    """A random two-layer Llama whose logits spread over several units, as a trained
    model's do (at the default scale every logit is near zero, and any token is greedy).
    bfloat16 moves its best logits by at most 0.12 (over 400 prompts), well inside the
    scorer's tolerance; sampling at a high temperature lands whole units below."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=256, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2,
                         max_position_embeddings=256)
    model = LlamaForCausalLM(config)
    with torch.no_grad():
        model.lm_head.weight.mul_(50.0)
        logits = model(input_ids=torch.randint(3, 256, (2, 16))).logits[:, -1]
    assert float(logits.std()) > 2.0  # else the greedy check would accept anything
    model.save_pretrained(folder)


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("transformers")
    folder = tmp_path_factory.mktemp("weights") / MODEL_DIR
    tiny_llama(folder)
    return folder


@pytest.fixture
def score(tmp_path: Path, weights: Path) -> Iterator[Callable[[str], float]]:
    """Score a submission holding the starter with one change, as the harness would:
    the public data beside the private folder, a copy of it in the submission."""
    shutil.copytree(weights, tmp_path / "public" / MODEL_DIR)
    (tmp_path / "private").mkdir()
    sandboxes: list[LocalSandbox] = []

    def run(change: str) -> float:
        submission = tmp_path / f"submission-{len(sandboxes)}"
        shutil.copytree(weights, submission / MODEL_DIR)
        line, extra = CHANGES[change]
        (submission / "inference.py").write_text(STARTER.format(change=line, extra=extra))
        sandboxes.append(LocalSandbox(SandboxSpec(submission, isolation="none")))
        scorer = load_file(OVERLAYS / "scorers" / "llama_inference.py", "llama_scorer")
        value: float = scorer.score(submission, tmp_path / "private", sandboxes[-1])
        return value

    yield run
    for sandbox in sandboxes:
        sandbox.close()


def test_the_unchanged_starter_scores_its_tokens_per_second(
    score: Callable[[str], float],
) -> None:
    assert 0 < score("unchanged") < float("inf")


def test_the_clock_is_the_scorers_not_the_printed_time(score: Callable[[str], float]) -> None:
    # Each call runs forward once, and each forward pauses: at most 4 tokens per pause.
    assert score("a pause in forward") <= 4 / PAUSE


def test_a_lower_precision_that_keeps_the_greedy_tokens_is_valid(
    score: Callable[[str], float],
) -> None:
    assert score("bfloat16") > 0


@pytest.mark.parametrize(("change", "sentence"), [
    ("sampling", "generate's new token is not the greedy one (prompt "),
    ("its own generate", "Running inference.py up to its first model.generate call failed "
                         "(RuntimeError: inference.py ended without calling model.generate)"),
    ("a crash first", "Running inference.py up to its first model.generate call failed "
                      "(ZeroDivisionError: division by zero)"),
])
def test_a_submission_that_does_not_generate_greedily_is_invalid(
    score: Callable[[str], float], change: str, sentence: str,
) -> None:
    with pytest.raises(InvalidSubmission) as caught:
        score(change)
    assert str(caught.value).startswith(sentence)


WIKITEXT_ROWS = 6
LOADS_WIKITEXT = ("from datasets import load_dataset\n"
                  "rows = load_dataset('wikitext', 'wikitext-103-v1', split='test')\n"
                  f"assert rows.num_rows == {WIKITEXT_ROWS}, rows")


LLAMA_FILES = ("config.json", "tokenizer.model", "pytorch_model.bin.index.json",
               "pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin")


def as_the_hub_holds_llama(weights: Path, repo: Path) -> None:
    """``weights`` as huggyllama/llama-7b holds LLaMA-7B: a config, a tokenizer and the
    weights pickled in two shards with their index (the tokenizer is a stand-in: these
    starters do not load it)."""
    import torch
    from safetensors.torch import load_file

    state = load_file(weights / "model.safetensors")
    names = sorted(state)
    shards = {"pytorch_model-00001-of-00002.bin": names[: len(names) // 2],
              "pytorch_model-00002-of-00002.bin": names[len(names) // 2:]}
    repo.mkdir(parents=True)
    for shard, part in shards.items():
        torch.save({name: state[name] for name in part}, repo / shard)
    index = {"metadata": {"total_size": sum(t.numel() * t.element_size() for t in state.values())},
             "weight_map": {name: shard for shard, part in shards.items() for name in part}}
    (repo / "pytorch_model.bin.index.json").write_text(json.dumps(index))
    shutil.copy(weights / "config.json", repo / "config.json")
    (repo / "tokenizer.model").write_bytes(b"a stand-in for the sentencepiece model")


def as_the_hub_holds_wikitext(repo: Path) -> None:
    import datasets

    shard = repo / "wikitext-103-v1" / "test-00000-of-00001.parquet"
    shard.parent.mkdir(parents=True)
    lines = [f" = Section {i} = \n" for i in range(WIKITEXT_ROWS)]
    datasets.Dataset.from_dict({"text": lines}).to_parquet(str(shard))


@pytest.mark.expensive  # the scorer's rules are tested above, each on its own
def test_the_overlay_runs_the_task_end_to_end_on_what_it_downloads(
    pytester: pytest.Pytester, mlab_args: list[str], weights: Path, tmp_path: Path,
    read_results: Callable[[], list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The overlay's own Hub entries, served by a loopback Hub holding small stand-ins
    under the real repositories' names: the starter finds the weights where it loads
    decapoda-research/llama-7b-hf and the test split where it loads wikitext, offline."""
    pytest.importorskip("datasets")
    repos = tmp_path / "hub"
    as_the_hub_holds_llama(weights, repos / "huggyllama" / "llama-7b")
    as_the_hub_holds_wikitext(repos / "datasets" / "Salesforce" / "wikitext")
    folder = pytester.path / "benchmarks" / "llama-inference"
    (folder / "env").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "env" / "inference.py").write_text(STARTER.format(change=LOADS_WIKITEXT, extra=""))
    (folder / "scripts" / "research_problem.txt").write_text("Make generation faster.\n")
    overlays = pytester.path / "overlays"
    shutil.copytree(OVERLAYS / "scorers", overlays / "scorers")
    overlay = (OVERLAYS / "llama-inference.toml").read_text().splitlines()
    # This starter needs neither the original's libraries, nor a GPU or the memory of a
    # 7B model.
    dropped = ("install", "requirements", "versions", "gpus", "memory_gb", "disk_gb")
    kept = [line for line in overlay if not line.startswith(dropped)]
    (overlays / "llama-inference.toml").write_text("\n".join(kept) + "\n")
    with loopback_hub(repos, monkeypatch, tmp_path / "hf-home") as seen:
        run = pytester.runpytest("benchmarks", f"--mlab-overlays={overlays}",
                                 "--mlab-keep-workspaces=all", *mlab_args)
    (record,) = read_results()
    assert record["outcome"] in ("passed", "failed"), (record["message"], run.outlines[-20:])
    (saved,) = (pytester.path / "cache" / "baselines").glob("llama-inference-*.json")
    runs = json.loads(saved.read_text())["scores"]
    assert len(runs) == record["baseline_n"] == 3 and min(runs) > 0
    assert record["message"].startswith("llama-inference: tokens-per-second=")
    workspace = Path(record["workspace"])
    assert (workspace / MODEL_DIR / "pytorch_model-00002-of-00002.bin").is_file()
    assert (workspace / "wikitext" / "wikitext-103-v1" / "test-00000-of-00001.parquet").is_file()
    fetched = {path.replace("/resolve/main/", "/") for path, _ in seen if "/resolve/" in path}
    assert fetched == {f"/huggyllama/llama-7b/{name}" for name in LLAMA_FILES} | {
        "/datasets/Salesforce/wikitext/wikitext-103-v1/test-00000-of-00001.parquet"}
