"""``python -m pytest_mlab bundle CHECKOUT --out DIR`` (issue 41): every download of the
original tasks' preparation into one folder with a manifest, from loopback servers here (a
URL mirror, a Hugging Face Hub, and a fake ``kaggle`` command), on a checkout of tiny tasks
written by the tests."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from loopback_hub import REVISION, loopback_hub
from original_folders import http_mirror, serving, write_task

import pytest_mlab
from pytest_mlab.core.bundle import Bundle, path_of, sources_of
from pytest_mlab.core.overlay import read_overlay

pytest.importorskip("huggingface_hub", reason="pip install 'pytest-mlab[mlagentbench]'")

OVERLAYS = Path(pytest_mlab.__file__).resolve().parents[1] / "tasks" / "mlagentbench"
SERVED = {"rows.csv": b"x,y\n1,3\n2,5\n", "images.tar.gz": b"not really a tarball" * 50,
          "clrs.tar.gz": b"a mounted archive" * 20}
HUB_FILES = {"datasets/someone/rows/data/train.parquet": b"parquet bytes" * 10,
             "someone/tiny-model/config.json": b'{"model_type": "bert"}'}

# A kaggle command as the real one behaves: the competition's zip into -p's folder, and
# here its arguments logged; FAKE_KAGGLE_FAIL makes it refuse as Kaggle does.
FAKE_KAGGLE = """\
#!{python}
import json, os, sys, zipfile
from pathlib import Path

args = sys.argv[1:]
with open({log!r}, "a") as log:
    log.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_KAGGLE_FAIL"):
    print("403 - Forbidden - You must accept this competition's rules")
    sys.exit(1)
name, folder = args[args.index("-c") + 1], Path(args[args.index("-p") + 1])
folder.mkdir(parents=True, exist_ok=True)
with zipfile.ZipFile(folder / f"{{name}}.zip", "w") as archive:
    archive.writestr("train.csv", "id,y\\n1,2\\n")
    if os.environ.get("FAKE_KAGGLE_COCO"):  # an annotation file that lists images by URL
        archive.writestr("object_detection/train.json", os.environ["FAKE_KAGGLE_COCO"])
"""

HUB = """\
[[mounted_data]]
path = "/tmp/CLRS30"
archive = "{url}/clrs.tar.gz"
[[hub]]
folder = "rows"
repo = "someone/rows"
type = "dataset"
revision = "{revision}"
[hub.files]
"data/train.parquet" = "{pin}"
[[hub]]
folder = "tiny-model"
repo = "someone/tiny-model"
type = "model"
[hub.files]
"config.json" = ""
"""


@dataclass
class World:
    """A checkout of tiny tasks, their overlays, and what each server was asked."""

    checkout: Path
    overlays: Path
    out: Path
    served: Path
    url: str
    asked: list[str]
    hub: list[tuple[str, str]]
    kaggle_log: Path
    bin: Path

    def kaggle_calls(self) -> list[list[str]]:
        if not self.kaggle_log.exists():
            return []
        return [json.loads(line) for line in self.kaggle_log.read_text().splitlines()]

    def sources(self, task: str) -> list[str]:
        return sources_of(read_overlay(self.overlays / f"{task}.toml"))

    def bundle(self, *args: str) -> subprocess.CompletedProcess[str]:
        root = str(Path(pytest_mlab.__file__).resolve().parents[1])
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [root, *filter(None, [os.environ.get("PYTHONPATH")])]))
        argv = [sys.executable, "-m", "pytest_mlab", "bundle", str(self.checkout),
                f"--out={self.out}", f"--overlays={self.overlays}", *args]
        return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120,
                              check=False)


def _hub_pin() -> str:
    return hashlib.sha256(HUB_FILES["datasets/someone/rows/data/train.parquet"]).hexdigest()


def write_checkout(world: World, pin: str) -> None:
    """alpha (a competition and a URL), beta (a torchvision URL, a mounted archive and two
    Hub repositories), and a task folder without an overlay, which is not bundled."""
    benchmarks = world.checkout / "MLAgentBench" / "benchmarks"
    write_task(benchmarks, world.overlays, "alpha",
               sources=f'["kaggle:alpha-comp", "url:{world.url}/rows.csv"]')
    write_task(benchmarks, world.overlays, "beta",
               sources=f'["torchvision:{world.url}/images.tar.gz"]',
               extra=HUB.format(url=world.url, revision=REVISION, pin=pin))
    write_task(benchmarks, world.overlays, "gamma", overlay=False)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    served = tmp_path / "served"
    served.mkdir()
    for name, body in SERVED.items():
        (served / name).write_bytes(body)
    repos = tmp_path / "repos"
    for name, body in HUB_FILES.items():
        (repos / name).parent.mkdir(parents=True, exist_ok=True)
        (repos / name).write_bytes(body)
    fake_bin, log = tmp_path / "bin", tmp_path / "kaggle.log"
    fake_bin.mkdir()
    kaggle = fake_bin / "kaggle"
    kaggle.write_text(FAKE_KAGGLE.format(python=sys.executable, log=str(log)))
    kaggle.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("KAGGLE_USERNAME", "someone")
    monkeypatch.setenv("KAGGLE_KEY", "loopback")
    monkeypatch.delenv("KAGGLE_CONFIG_DIR", raising=False)
    with http_mirror(served) as (url, asked), \
            loopback_hub(repos, monkeypatch, tmp_path / "hf-home") as hub:
        made = World(tmp_path / "checkout", tmp_path / "overlays", tmp_path / "bundle",
                     served, url, asked, hub, log, fake_bin)
        write_checkout(made, _hub_pin())
        yield made


def _final_files(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def test_a_bundle_holds_every_source_checked_and_a_second_run_downloads_nothing(
    world: World,
) -> None:
    run = world.bundle("--accept-rules")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert [line.split(":")[1].strip() for line in lines[:2]] == ["alpha", "beta"]
    assert lines[0].startswith("bundle: alpha: 2 files (2 downloaded)")
    assert lines[1].startswith("bundle: beta: 4 files (4 downloaded)")
    assert f"pytest {world.checkout} --mlab-original-data={world.out}" in lines[-1]
    bundle = Bundle(world.out)
    assert bundle.kind == "downloaded"
    sources = world.sources("alpha") + world.sources("beta")
    assert sorted(bundle.files) == sorted(sources) and len(sources) == 6
    for name, body in SERVED.items():
        assert bundle.file(f"{world.url}/{name}").read_bytes() == body
    for name, body in HUB_FILES.items():
        kind, _, rest = name.partition("/") if name.startswith("datasets/") else ("", "", name)
        owner, repo, file = rest.split("/", 2)
        revision = REVISION if kind else "main"
        source = f"hf:{'dataset' if kind else 'model'}/{owner}/{repo}@{revision}:{file}"
        assert bundle.file(source).read_bytes() == body
    assert bundle.file("kaggle:alpha-comp").name == "alpha-comp.zip"
    [call] = world.kaggle_calls()
    assert call[:4] == ["competitions", "download", "-c", "alpha-comp"] and call[4] == "-p"
    assert sorted(_final_files(world.out)) == sorted([*map(path_of, sources), "manifest.json"])

    asked, hub = list(world.asked), list(world.hub)
    again = world.bundle("--accept-rules")
    assert again.returncode == 0, again.stderr
    assert "(0 downloaded)" in again.stdout.splitlines()[0]
    assert "(0 downloaded)" in again.stdout.splitlines()[1]
    assert (world.asked, world.hub, len(world.kaggle_calls())) == (asked, hub, 1)


def test_a_file_changed_in_the_bundle_is_downloaded_again(world: World) -> None:
    assert world.bundle("--accept-rules", "--tasks=alpha").returncode == 0
    rows = world.out / path_of(f"{world.url}/rows.csv")
    rows.write_bytes(b"x,y\n1,4\n2,5\n")  # the same size, other content
    run = world.bundle("--accept-rules", "--tasks=alpha")
    assert run.returncode == 0, run.stderr
    assert "(1 downloaded)" in run.stdout
    assert Bundle(world.out).file(f"{world.url}/rows.csv").read_bytes() == SERVED["rows.csv"]


def test_tasks_bundled_in_two_runs_are_both_in_the_manifest(world: World) -> None:
    first = world.bundle("--accept-rules", "--tasks=alpha")
    assert first.returncode == 0, first.stderr
    assert [line.split(":")[1].strip() for line in first.stdout.splitlines()[:-1]] == ["alpha"]
    assert world.bundle("--tasks=beta").returncode == 0  # no competition: no consent asked
    files = Bundle(world.out).files
    assert sorted(files) == sorted(world.sources("alpha") + world.sources("beta"))

    unknown = world.bundle("--tasks=gamma")  # a folder without an overlay
    assert unknown.returncode == 2
    assert "no task 'gamma'" in unknown.stderr and "alpha, beta" in unknown.stderr


def test_a_failing_download_is_one_sentence_and_leaves_no_file(world: World) -> None:
    (world.out.parent / "served" / "images.tar.gz").unlink()
    run = world.bundle("--accept-rules")
    assert run.returncode == 1
    source = f"{world.url}/images.tar.gz"
    assert run.stderr.strip() == (f"bundle: {source} could not be downloaded: the server "
                                  "answered HTTP 404 File not found")
    assert not (world.out / path_of(source)).exists()
    assert not [p for p in world.out.rglob("*") if ".part" in p.name]
    # What came before the failure is kept: the next run downloads only the rest.
    assert sorted(Bundle(world.out).files) == sorted(world.sources("alpha"))
    (world.out.parent / "served" / "images.tar.gz").write_bytes(SERVED["images.tar.gz"])
    asked = len(world.asked)
    run = world.bundle("--accept-rules")
    assert run.returncode == 0, run.stderr
    assert world.asked[asked:] == ["/images.tar.gz", "/clrs.tar.gz"]
    assert len(world.kaggle_calls()) == 1


class _BrokenOff(http.server.BaseHTTPRequestHandler):
    """Promises 100,000 bytes, sends 1,000, and hangs up."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "100000")
        self.end_headers()
        self.wfile.write(b"x" * 1000)

    def log_message(self, *args: object) -> None:
        pass


def test_a_download_that_breaks_off_leaves_nothing_under_its_name(world: World) -> None:
    with serving(_BrokenOff) as url:
        overlay = world.overlays / "alpha.toml"
        overlay.write_text(overlay.read_text().replace(f"{world.url}/rows.csv",
                                                       f"{url}/rows.csv"))
        run = world.bundle("--accept-rules", "--tasks=alpha")
    assert run.returncode == 1
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.strip() == (f"bundle: {url}/rows.csv could not be downloaded: the "
                                  "answer ended after 1000 of 100000 bytes")
    assert "rows.csv" not in " ".join(_final_files(world.out))


@pytest.mark.parametrize(("lacking", "named"), [
    ("command", "the kaggle command (pip install kaggle)"),
    ("credentials", "Kaggle credentials (set KAGGLE_USERNAME and KAGGLE_KEY"),
    ("consent", "accept them on kaggle.com at "
                "https://www.kaggle.com/competitions/alpha-comp/rules, then pass "
                "--accept-rules"),
])
def test_what_kaggle_lacks_is_named_before_any_download(
    world: World, monkeypatch: pytest.MonkeyPatch, lacking: str, named: str,
) -> None:
    args = [] if lacking == "consent" else ["--accept-rules"]
    if lacking == "command":
        monkeypatch.setenv("PATH", str(world.out.parent / "no-commands"))
    if lacking == "credentials":
        monkeypatch.delenv("KAGGLE_KEY")
    run = world.bundle(*args)
    assert run.returncode == 1
    assert run.stderr.startswith("bundle: cannot download yet: this machine needs ")
    assert named in run.stderr and len(run.stderr.strip().splitlines()) == 1
    assert (world.asked, world.hub, world.kaggle_calls()) == ([], [], [])
    assert _final_files(world.out) == []


def test_kaggle_refusing_is_one_sentence_with_its_last_words(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_KAGGLE_FAIL", "1")
    run = world.bundle("--accept-rules", "--tasks=alpha")
    assert run.returncode == 1
    assert run.stderr.strip() == (
        "bundle: kaggle:alpha-comp could not be downloaded: kaggle competitions download -c "
        "alpha-comp failed (exit 1): 403 - Forbidden - You must accept this competition's "
        "rules")
    assert _final_files(world.out) == []


def test_a_hub_file_other_than_the_overlay_pins_is_refused(world: World) -> None:
    wrong = "0" * 64
    overlay = world.overlays / "beta.toml"
    overlay.write_text(overlay.read_text().replace(_hub_pin(), wrong))
    run = world.bundle("--tasks=beta")
    assert run.returncode == 1
    assert f"has sha256 {_hub_pin()}, the overlay pins {wrong}" in run.stderr
    assert "hf:dataset/someone/rows@" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert not [f for f in _final_files(world.out) if f.startswith("hf/")]
    assert not [p for p in world.out.iterdir() if p.name.startswith(".part")]


def test_the_images_an_annotation_file_lists_are_bundled_after_its_zip(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """fathomnet's: each image of train.json in its Kaggle zip, by coco_url (what its
    download_images.py fetches); a second run downloads none of them again."""
    images = {f"img-{n}.png": bytes([n]) * (100 + n) for n in range(5)}
    for name, body in images.items():
        (world.served / name).write_bytes(body)
    coco = {"images": [{"id": n, "file_name": name, "coco_url": f"{world.url}/{name}"}
                       for n, name in enumerate(images)]}
    monkeypatch.setenv("FAKE_KAGGLE_COCO", json.dumps(coco))
    write_task(world.checkout / "MLAgentBench" / "benchmarks", world.overlays, "fathomnet",
               sources='["kaggle:fathomnet-out-of-sample-detection"]',
               extra='coco_images = "object_detection/train.json"\n')
    run = world.bundle("--accept-rules", "--tasks=fathomnet")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0].startswith("bundle: fathomnet: 6 files (6 downloaded)")
    bundle = Bundle(world.out)
    overlay = read_overlay(world.overlays / "fathomnet.toml")
    assert bundle.image_sources(overlay) == [f"{world.url}/{name}" for name in images]
    assert bundle.lacks(overlay) is None
    for name, body in images.items():
        assert bundle.file(f"{world.url}/{name}").read_bytes() == body
    asked = len(world.asked)
    again = world.bundle("--accept-rules", "--tasks=fathomnet")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0].startswith("bundle: fathomnet: 6 files (0 downloaded)")
    assert len(world.asked) == asked
    # A bundle without one of them says so, naming it, before anything is prepared.
    manifest = json.loads((world.out / "manifest.json").read_text())
    manifest["files"] = [f for f in manifest["files"] if not f["source"].endswith("img-3.png")]
    (world.out / "manifest.json").write_text(json.dumps(manifest))
    lacks = Bundle(world.out).lacks(overlay)
    assert lacks is not None and lacks.startswith(f"{world.url}/img-3.png in the offline bundle")


def test_every_source_of_the_real_overlays_has_a_bundle_path() -> None:
    overlays = sorted(OVERLAYS.glob("*.toml"))
    assert len(overlays) == 13
    paths: dict[str, str] = {}
    for overlay in overlays:
        for source in sources_of(read_overlay(overlay)):
            path = path_of(source)
            assert ".." not in path.split("/") and not path.startswith("/"), source
            assert paths.setdefault(path, source) == source, f"{source} and {paths[path]}"
    assert any(p.startswith("kaggle/") for p in paths)
    assert any(p.startswith("hf/") for p in paths) and any(p.startswith("urls/") for p in paths)
