"""The one-thread rule cannot be blinded from inside the timed child (issue 39, cause 5).

vectorization's train.py rebound ``time.sleep``, which the guard's sampling thread inside
the child looked up every round: the sampler stopped, a second thread computed half of
each timed call, and the rule went unseen. Here train.py (vectorization's and
llama-inference's) rebinds that and everything else such a sampler might call or count
with (threading, the switch interval, the os functions reading /proc), then splits every
call over two threads; the scorer, which watches the child from outside, refuses it in
both sandboxes. (The thread is gone before the output is written, where the guard inside
still counts threads.)
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from task_scripts import load_script

from conftest import SandboxFactory
from pytest_mlab.core.errors import InvalidSubmission, TaskUnavailable
from pytest_mlab.core.task import load_task
from pytest_mlab.env.data import prepare_task

TASKS = Path(__file__).parent.parent.parent / "tasks" / "lite"
BLIND = '''
import os, sys, threading, time

# Stop or mislead whatever inside this process samples the threads.
_forever = threading.Event()
time.sleep = lambda seconds: _forever.wait()
sys.setswitchinterval = lambda interval: None
threading.enumerate = lambda: [threading.main_thread()]
threading.active_count = lambda: 1
_listdir, _read = os.listdir, os.read
os.listdir = lambda path=".": ["1"] if str(path).endswith("/task") else _listdir(path)
os.read = lambda fd, size: _read(fd, size).replace(b"Threads:\\t3", b"Threads:\\t2")


def on_two_threads(work, first, second):
    """work(first) here and work(second) on a second thread, at once."""
    out = [None, None]

    def half():
        out[1] = work(second)

    worker = threading.Thread(target=half)
    worker.start()
    out[0] = work(first)
    worker.join()
    # The join returns while the thread is still ending: gone before the output is written,
    # it is not counted there either.
    while str(worker.native_id) in _listdir("/proc/self/task"):
        pass
    return out
'''
BLINDED_CONV = BLIND + '''
import numpy as np
from convolution import output_shape, pad


def _conv(x, weights, bias, stride, padding):
    batch, h_out, w_out, c_out = output_shape(x, weights, stride, padding)
    kh, kw, c_in = *weights.shape[:2], x.shape[3]
    padded = pad(x, padding)
    cols = np.empty((batch, h_out, w_out, kh, kw, c_in), dtype=padded.dtype)
    for di in range(kh):
        for dj in range(kw):
            cols[:, :, :, di, dj, :] = padded[
                :, di : di + stride * (h_out - 1) + 1 : stride,
                dj : dj + stride * (w_out - 1) + 1 : stride, :]
    flat = cols.reshape(-1, kh * kw * c_in) @ weights.reshape(kh * kw * c_in, c_out)
    return flat.reshape(batch, h_out, w_out, c_out) + bias


def conv2d_forward(x, weights, bias, stride=1, padding=0):
    """Half of the batch on a second thread, the other half on this one."""
    return np.concatenate(on_two_threads(
        lambda half: _conv(half, weights, bias, stride, padding), *np.array_split(x, 2)))
'''
BLINDED_GENERATE = BLIND + '''
import torch


def generate(model, prompt_ids, max_new_tokens):
    """Half of the prompts on a second thread, the other half on this one."""
    def greedy(ids):
        with torch.inference_mode():
            return model.generate(ids, attention_mask=torch.ones_like(ids),
                                  max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens,
                                  do_sample=False, num_beams=1, pad_token_id=0)

    return torch.cat(on_two_threads(greedy, *prompt_ids.chunk(2)))
'''
RULE = (r"train\.py ran (2 threads|more than one thread at once \(.* ms call\)); "
        r"it must use one\.")




def _sentence(task: Path, train_py: str, private: Path, make_sandbox: SandboxFactory,
              folder: Path) -> str:
    """The sentence that makes ``train_py`` invalid, scored by ``task``'s scorer."""
    submission = folder / "submission"
    submission.mkdir(exist_ok=True)
    for helper in (task / "env").glob("*.py"):
        shutil.copy(helper, submission)
    (submission / "train.py").write_text(train_py)
    scorer = load_script(task, "score.py")
    with pytest.raises(InvalidSubmission) as caught:
        scorer.score(submission, private, make_sandbox(submission))
    return str(caught.value)


@pytest.mark.slow
def test_a_blinded_guard_still_sees_a_second_thread_in_vectorization(
    make_sandbox: SandboxFactory, tmp_path: Path
) -> None:
    sentence = _sentence(TASKS / "vectorization", BLINDED_CONV, tmp_path, make_sandbox,
                         tmp_path)
    assert re.fullmatch(RULE, sentence), sentence


@pytest.fixture(scope="module")
def llama_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    task = load_task(TASKS / "llama-inference" / "task.toml")
    try:
        data = prepare_task(task, tmp_path_factory.mktemp("cache"))
    except TaskUnavailable as exc:  # torch or transformers missing
        pytest.skip(str(exc))
    return data.public, data.private


@pytest.mark.slow
def test_a_blinded_guard_still_sees_a_second_thread_in_llama_inference(
    make_sandbox: SandboxFactory, tmp_path: Path, llama_data: tuple[Path, Path],
) -> None:
    public, private = llama_data
    shutil.copytree(public / "llama", tmp_path / "submission" / "llama")
    sentence = _sentence(TASKS / "llama-inference", BLINDED_GENERATE, private, make_sandbox,
                         tmp_path)
    assert re.fullmatch(RULE, sentence), sentence
