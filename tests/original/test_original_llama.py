"""The replacement scorer of llama-inference times generate itself and checks its tokens
(a tiny random Llama and starters of this test's own, in the original's layout)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

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


PREPARE = f"""\
import sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from test_original_llama import tiny_llama
from pathlib import Path
tiny_llama(Path("../env") / {MODEL_DIR!r})
"""


def test_the_overlay_runs_the_task_end_to_end(
    pytester: pytest.Pytester, mlab_args: list[str],
    read_results: Callable[[], list[dict[str, Any]]],
) -> None:
    pytest.importorskip("transformers")
    folder = pytester.path / "benchmarks" / "llama-inference"
    (folder / "env").mkdir(parents=True)
    (folder / "scripts").mkdir()
    (folder / "env" / "inference.py").write_text(STARTER.format(change="", extra=""))
    (folder / "scripts" / "research_problem.txt").write_text("Make generation faster.\n")
    (folder / "scripts" / "prepare.py").write_text(PREPARE)
    overlays = pytester.path / "overlays"
    shutil.copytree(OVERLAYS / "scorers", overlays / "scorers")
    overlay = (OVERLAYS / "llama-inference.toml").read_text().splitlines()
    # This starter needs neither the Hub, nor the weights gone from it, nor a GPU or
    # the memory of a 7B model.
    dropped = ("unavailable", "sources", "requirements", "gpus", "memory_gb", "disk_gb")
    kept = [line for line in overlay if not line.startswith(dropped)]
    (overlays / "llama-inference.toml").write_text("\n".join(kept) + "\n")
    pytester.runpytest("benchmarks", f"--mlab-overlays={overlays}", *mlab_args)
    (record,) = read_results()
    assert record["outcome"] in ("passed", "failed"), record["message"]
    (saved,) = (pytester.path / "cache" / "baselines").glob("llama-inference-*.json")
    runs = json.loads(saved.read_text())["scores"]
    assert len(runs) == record["baseline_n"] == 3 and min(runs) > 0
    assert record["message"].startswith("llama-inference: tokens-per-second=")
