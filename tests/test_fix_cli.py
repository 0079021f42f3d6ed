"""``shmlint fix`` as a user meets it: the diff, exit codes, options, many files, byte-for-byte formatting, and
writing (atomic, mode kept, links kept, read-only and concurrently changed files left alone with a message).

Most tests run the command in-process (the ``invoke`` fixture) so that they can watch or break internals; one runs
the real entry point in a subprocess.
"""

from __future__ import annotations

import codecs
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from shmlint.discover import Candidate, FileKind
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.fix.write import WriteError, write_atomic
from shmlint.model import Applicability, Edit
from shmlint.settings import Settings
from shmlint.sizes import GIB
from shmlint.source import SourceText
from tests import proofs
from tests.hostile import POD_TEMPLATE, RUN_SCRIPT, assert_clean_error
from tests.support import FIXTURES, run_shmlint, run_shmlint_bytes

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - name: main
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      resources:
        limits:
          nvidia.com/gpu: 1
"""
UNBOUNDED_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: unbounded
spec:
  containers:
    - name: main
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      volumeMounts:
        - name: dshm
          mountPath: /dev/shm
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
"""
COMPOSE = """\
services:
  trainer:
    image: ghcr.io/acme/train:1.0   # GPU via the deploy block
    command: torchrun --nproc_per_node=2 train.py
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: all
              capabilities: [gpu]
"""
SCRIPT = """\
#!/usr/bin/env bash
set -euo pipefail
docker run --rm --gpus all -p 8000:8000 \\
  nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model facebook/opt-125m
"""


def safe_fixable(path: Path, kind: FileKind | None = None, settings: Settings | None = None) -> list[str]:
    from shmlint.discover import discover

    candidate = Candidate(path, kind, True) if kind else next(iter(discover([path])))
    result = Engine(settings or Settings(undecided="show")).check_candidate(candidate)
    return [f"{f.code} {f.message}" for f in result.findings if f.fix and f.fix.applicability is Applicability.SAFE]


def no_temp_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".shmlint-tmp")]


# -- the diff and the exit codes -------------------------------------------------------------------------------


def test_diff_has_git_headers_applies_with_patch_and_exits_1(tmp_path: Path, monkeypatch, invoke) -> None:
    monkeypatch.chdir(tmp_path)
    Path("pod.yaml").write_text(POD)
    shown = invoke("fix", "pod.yaml")
    assert shown.exit_code == 1
    assert shown.stdout.startswith("--- a/pod.yaml\n+++ b/pod.yaml\n@@ "), shown.stdout
    # the hunk header says why this size (patch and git apply skip what follows the second @@)
    assert '@@ SHM001 Pod/train, container "main": give /dev/shm 8 GiB (the default fix-size)\n' in shown.stdout
    assert "Found 1 finding(s) (1 fixable in 1 file(s), 0 remaining)." in shown.stderr
    assert Path("pod.yaml").read_text() == POD, "fix without --write changed the file"

    # the diff is a real patch: applied with `patch -p1` it gives exactly what --write writes
    (tmp_path / "copy").mkdir()
    (tmp_path / "copy" / "pod.yaml").write_text(POD)
    subprocess.run(["patch", "-s", "-p1", "-d", str(tmp_path / "copy")], input=shown.stdout, text=True, check=True)
    written = invoke("fix", "--write", "pod.yaml")
    assert written.exit_code == 0
    assert written.stdout == "pod.yaml: fixed 1 finding(s)\nFound 1 finding(s) (1 fixed in 1 file(s), 0 remaining).\n"
    assert Path("pod.yaml").read_text() == (tmp_path / "copy" / "pod.yaml").read_text() != POD

    again = invoke("fix", "pod.yaml")
    assert again.exit_code == 0 and again.stdout == "", again.output
    assert "Found 0 finding(s) (0 fixable in 0 file(s), 0 remaining)." in again.stderr
    assert invoke("check", "pod.yaml").exit_code == 0


@pytest.mark.parametrize(
    "name, data",
    [
        ("pod.yaml", POD.encode()),
        ("compose.yaml", COMPOSE.rstrip("\n").encode()),  # no final newline: "\ No newline at end of file"
        ("pods.yaml", (POD.replace("\n", "\r\n")).encode()),
        ("run.sh", SCRIPT.encode()),
        ("bom-pod.yaml", codecs.BOM_UTF8 + POD.encode()),  # the hunk is far from the BOM
        ("bom-run.sh", codecs.BOM_UTF8 + b"docker run --gpus all pytorch/pytorch torchrun --nproc_per_node=2 t.py\r\n"),
    ],
    ids=["lf", "no-final-newline", "crlf", "shell", "bom-far", "bom-first-line"],
)
def test_the_diff_is_a_patch_git_can_apply(tmp_path: Path, monkeypatch, name: str, data: bytes, invoke) -> None:
    """``git apply`` of the printed diff gives the very bytes ``fix --write`` writes (``stdout_bytes``: click's
    ``Result.stdout`` turns CRLF into LF)."""
    (tmp_path / "work").mkdir()
    (tmp_path / "copy").mkdir()
    for folder in ("work", "copy"):
        (tmp_path / folder / name).write_bytes(data)
    monkeypatch.chdir(tmp_path / "work")
    shown = invoke("fix", name)
    assert shown.exit_code == 1 and shown.stdout.startswith(f"--- a/{name}\n+++ b/{name}\n")
    assert invoke("fix", "--write", name).exit_code == 0
    applied = subprocess.run(
        ["git", "apply", "--whitespace=nowarn", "-"],
        check=False,
        cwd=tmp_path / "copy",
        input=shown.stdout_bytes,
        capture_output=True,
    )
    assert applied.returncode == 0, applied.stderr.decode()
    assert (tmp_path / "copy" / name).read_bytes() == (tmp_path / "work" / name).read_bytes()


def test_diff_headers_for_absolute_paths_folders_and_the_default_folder(tmp_path: Path, monkeypatch, invoke) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "pod.yaml").write_text(POD)
    absolute = invoke("fix", str(tmp_path / "deploy" / "pod.yaml"))
    name = str(tmp_path / "deploy" / "pod.yaml").lstrip("/")
    assert absolute.stdout.startswith(f"--- a/{name}\n+++ b/{name}\n"), absolute.stdout
    monkeypatch.chdir(tmp_path)
    for args in (("deploy",), ()):
        result = invoke("fix", *args)
        assert result.exit_code == 1 and result.stdout.startswith("--- a/deploy/pod.yaml\n+++ b/deploy/pod.yaml\n")


def test_nothing_to_fix_exits_0_and_writes_nothing(tmp_path: Path, invoke) -> None:
    good = (FIXTURES / "k8s" / "good-sized.yaml").read_bytes()
    (tmp_path / "good.yaml").write_bytes(good)
    (tmp_path / "notes.md").write_text("# Notes\n\nNothing to run here.\n")
    for args in (("fix",), ("fix", "--write")):
        result = invoke(*args, str(tmp_path))
        nothing = "Found 0 finding(s) (0 fixed in 0 file(s), 0 remaining).\n"
        assert result.exit_code == 0 and result.stdout in ("", nothing), result.output
    assert (tmp_path / "good.yaml").read_bytes() == good


def test_a_finding_without_a_safe_fix_is_left_said_and_fails(tmp_path: Path, invoke) -> None:
    """SHM004's only fix (lowering the size) is unsafe: without --unsafe-fixes nothing changes, the run says so
    (a hidden fix) and ``--write`` fails, since the warning is still there."""
    text = (FIXTURES / "k8s" / "SHM004-exceeds-limit.yaml").read_text()
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    shown = invoke("fix", str(path))
    assert shown.exit_code == 0 and shown.stdout == ""
    assert "1 hidden fix(es) can be enabled with `--unsafe-fixes`." in shown.stderr
    left = invoke("fix", "--write", str(path))
    assert left.exit_code == 1 and path.read_text() == text
    assert f"{path}:" in left.stdout and " SHM004 [warning] " in left.stdout  # the finding left, listed
    assert "Found 1 finding(s) (0 fixed in 0 file(s), 1 remaining)." in left.stdout
    assert "1 finding(s) at or above fail-on remain (listed above): the run fails." in left.stdout
    assert invoke("fix", "--write", "--fail-on", "error", str(path)).exit_code == 0

    shown = invoke("fix", "--unsafe-fixes", str(path))
    assert shown.exit_code == 1
    assert "-      sizeLimit: 32Gi\n+      sizeLimit: 8Gi\n" in shown.stdout  # half the 16Gi limit
    written = invoke("fix", "--unsafe-fixes", "--write", str(path))
    assert written.exit_code == 0 and path.read_text() == text.replace("sizeLimit: 32Gi", "sizeLimit: 8Gi")
    assert invoke("fix", "--unsafe-fixes", str(path)).exit_code == 0
    proofs.assert_kubernetes_still_valid(text, path.read_text())


@pytest.mark.parametrize(
    "args, fixed_codes",
    [
        (("--select", "SHM003"), {"SHM003"}),
        (("--select", "shm-unbounded"), {"SHM003"}),
        (("--ignore", "SHM003"), {"SHM001"}),
        (("--ignore", "missing-shm,SHM003"), set()),
        (("--select", "SHM001,SHM003"), {"SHM001", "SHM003"}),
    ],
    ids=["select-code", "select-slug", "ignore-code", "ignore-both", "select-both"],
)
def test_select_and_ignore_choose_the_fixes(
    tmp_path: Path, args: tuple[str, ...], fixed_codes: set[str], invoke
) -> None:
    text = POD + "---\n" + UNBOUNDED_POD
    path = tmp_path / "pods.yaml"
    path.write_text(text)
    result = invoke("fix", "--write", "--unsafe-fixes", *args, str(path))  # bounding an unlimited tmpfs is unsafe
    assert result.exit_code == 0, result.output
    documents = list(yaml.safe_load_all(path.read_text()))
    first_has_shm = "volumes" in documents[0]["spec"]
    second_sized = "sizeLimit" in documents[1]["spec"]["volumes"][0]["emptyDir"]
    assert {code for code, done in (("SHM001", first_has_shm), ("SHM003", second_sized)) if done} == fixed_codes
    expected = f"({len(fixed_codes)} fixed in {1 if fixed_codes else 0} file(s), 0 remaining)."
    assert expected in result.stdout, result.stdout


def test_unknown_rule_and_bad_size_are_usage_errors(tmp_path: Path, invoke) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    for args in (("--select", "SHM999"), ("--ignore", "no-such-rule"), ("--shm-size", "lots"), ("--shm-size", "0")):
        result = invoke("fix", "--write", *args, str(path))
        assert result.exit_code == 2, (args, result.output)
    assert path.read_text() == POD


# -- sizes ---------------------------------------------------------------------------------------------------


def _three_idioms(folder: Path) -> dict[str, Path]:
    (folder / "pod.yaml").write_text(POD)
    (folder / "compose.yaml").write_text(COMPOSE)
    (folder / "run.sh").write_text(SCRIPT)
    return {"kubernetes": folder / "pod.yaml", "compose": folder / "compose.yaml", "shell": folder / "run.sh"}


@pytest.mark.parametrize(
    "option, kubernetes, compose, shell",
    [
        ((), "sizeLimit: 8Gi", 'shm_size: "8gb"', "--shm-size=8g"),
        (("--shm-size", "2Gi"), "sizeLimit: 2Gi", 'shm_size: "2gb"', "--shm-size=2g"),
        (("--shm-size", "2g"), "sizeLimit: 2Gi", 'shm_size: "2gb"', "--shm-size=2g"),
        (("--shm-size", "512Mi"), "sizeLimit: 512Mi", 'shm_size: "512mb"', "--shm-size=512m"),
    ],
    ids=["default-8Gi", "2Gi", "docker-2g", "512Mi"],
)
def test_shm_size_option_in_all_three_idioms(
    tmp_path: Path, option: tuple[str, ...], kubernetes: str, compose: str, shell: str, invoke
) -> None:
    paths = _three_idioms(tmp_path)
    result = invoke("fix", "--write", *option, str(tmp_path))
    # 512Mi is below the 1 GiB minimum: the three SHM005 warnings left fail the run
    assert result.exit_code == (1 if "512Mi" in option else 0), result.output
    assert "(3 fixed in 3 file(s), " in result.stdout
    assert kubernetes in paths["kubernetes"].read_text()
    assert compose in paths["compose"].read_text()
    assert f"docker run {shell} --rm --gpus all" in paths["shell"].read_text()
    # judged with the same size (512Mi is below the 1 GiB minimum: plain `check` would offer to raise it to 8 GiB)
    settings = Settings(fix_size=GIB // 2) if "512Mi" in option else Settings(undecided="show")
    for kind, path in paths.items():
        assert not safe_fixable(path, settings=settings), kind
        assert invoke("fix", *option, str(path)).exit_code == 0, f"a second fix of the {kind} file changes it"


def test_the_size_is_at_most_half_the_memory_limit(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(POD.replace("nvidia.com/gpu: 1", "nvidia.com/gpu: 1\n          memory: 6Gi"))
    (tmp_path / "compose.yaml").write_text(
        COMPOSE
        + "  limited:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n    mem_limit: 4g\n"
        + "  deployed:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n    deploy:\n      resources:\n        limits:\n"
        + "          memory: 3G\n"
    )
    (tmp_path / "run.sh").write_text(
        "#!/bin/sh\ndocker run -m 4g --gpus all pytorch/pytorch torchrun --nproc_per_node=2 t.py\n"
        "docker run --memory=1g --gpus all pytorch/pytorch torchrun --nproc_per_node=2 t.py\n"
    )
    result = invoke("fix", "--write", "--shm-size", "16Gi", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "sizeLimit: 3Gi" in (tmp_path / "pod.yaml").read_text()
    services = yaml.safe_load((tmp_path / "compose.yaml").read_text())["services"]
    assert (services["trainer"]["shm_size"], services["limited"]["shm_size"]) == ("16gb", "2gb")
    assert services["deployed"]["shm_size"] == "1536mb"
    script = (tmp_path / "run.sh").read_text()
    assert "docker run --shm-size=2g -m 4g" in script and "docker run --shm-size=512m --memory=1g" in script


# -- many files, several findings, formatting kept ------------------------------------------------------------


def test_many_files_of_every_kind_in_one_run(tmp_path: Path, invoke) -> None:
    files = {
        "k8s/pod.yaml": POD,
        "k8s/pods.yaml": POD + "---\n" + UNBOUNDED_POD,
        "compose/compose.yaml": COMPOSE,
        "scripts/run.sh": SCRIPT,
        "Makefile": (FIXTURES / "make" / "SHM001-train.mk").read_text(),
        "README.md": (FIXTURES / "markdown" / "SHM001-readme.md").read_text(),
        "clean/good.yaml": (FIXTURES / "k8s" / "good-sized.yaml").read_text(),
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    shown = invoke("fix", "--undecided=show", str(tmp_path))
    assert shown.exit_code == 1
    headers = sorted(line[6:] for line in shown.stdout.splitlines() if line.startswith("+++ b/"))
    expected = sorted(str(tmp_path / name).lstrip("/") for name in files if not name.startswith("clean"))
    assert headers == expected

    written = invoke("fix", "--write", "--undecided=show", str(tmp_path))
    assert written.exit_code == 1, written.output  # the unbounded tmpfs is left: its fix is unsafe
    reported = [line for line in written.stdout.splitlines() if ": fixed " in line]
    assert len(reported) == 6
    total = sum(int(line.rsplit(": fixed ", 1)[1].split()[0]) for line in reported)
    assert f"Found {total + 1} finding(s) ({total} fixed in 6 file(s), 1 remaining).\n" in written.stdout
    assert written.stdout.endswith("1 finding(s) at or above fail-on remain (listed above): the run fails.\n")
    assert (tmp_path / "clean/good.yaml").read_text() == files["clean/good.yaml"]
    for name in files:
        assert not safe_fixable(tmp_path / name), name
    assert invoke("fix", "--undecided=show", str(tmp_path)).exit_code == 0
    proofs.assert_compose_still_valid(files["compose/compose.yaml"], (tmp_path / "compose/compose.yaml").read_text())
    assert proofs.bash_ok(tmp_path / "scripts/run.sh")


MULTI = """\
# one file, four pods, four different findings, and a ConfigMap in between
apiVersion: v1
kind: Pod
metadata:
  name: missing
spec:
  containers:
    - name: train
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      resources:
        limits:
          nvidia.com/gpu: 1
          memory: 6Gi
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  key: value
---
apiVersion: v1
kind: Pod
metadata:
  name: unbounded   # SHM003
spec:
  containers:
    - name: train
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      volumeMounts:
        - name: dshm
          mountPath: /dev/shm
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
---
apiVersion: v1
kind: Pod
metadata:
  name: small
spec:
  containers:
    - name: train
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
      volumeMounts:
        - name: shm
          mountPath: /dev/shm
  volumes:
    - name: shm
      emptyDir: {medium: Memory, sizeLimit: 64Mi}
---
apiVersion: v1
kind: Pod
metadata:
  name: unmounted
spec:
  containers:
    - name: train
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
    - name: sidecar
      image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
        sizeLimit: 8Gi
    - name: other
      configMap:
        name: settings
"""


def test_a_multi_document_file_with_several_findings(tmp_path: Path, invoke) -> None:
    path = tmp_path / "pods.yaml"
    path.write_text(MULTI)
    codes = sorted(entry.split()[0] for entry in safe_fixable(path))
    assert codes == ["SHM001", "SHM002", "SHM002", "SHM005"], codes  # SHM003 without a memory limit is unsafe
    written = invoke("fix", "--write", "--unsafe-fixes", str(path))
    assert written.exit_code == 0, written.output
    assert f"{path}: fixed 5 finding(s)" in written.stdout
    after = path.read_text()
    assert not safe_fixable(path)
    assert invoke("fix", str(path)).exit_code == 0
    assert proofs.assert_kubernetes_still_valid(MULTI, after) >= 5
    assert not proofs.duplicate_keys(after)
    documents = list(yaml.safe_load_all(after))
    assert [d["metadata"]["name"] for d in documents] == ["missing", "settings", "unbounded", "small", "unmounted"]
    assert documents[0]["spec"]["volumes"][0]["emptyDir"]["sizeLimit"] == "3Gi"  # half of 6Gi
    assert documents[2]["spec"]["volumes"][0]["emptyDir"]["sizeLimit"] == "8Gi"
    assert documents[3]["spec"]["volumes"][0]["emptyDir"]["sizeLimit"] == "8Gi"
    mounts = [c["volumeMounts"] for c in documents[4]["spec"]["containers"]]
    assert mounts == [[{"name": "dshm", "mountPath": "/dev/shm"}]] * 2  # the existing volume, no second one
    assert len(documents[4]["spec"]["volumes"]) == 2
    kept = [line for line in MULTI.splitlines(keepends=True) if "sizeLimit: 64Mi" not in line]
    assert _is_subsequence(kept, after.splitlines(keepends=True))


def _is_subsequence(needles: list[str], haystack: list[str]) -> bool:
    it = iter(haystack)
    return all(any(line == candidate for candidate in it) for line in needles)


def test_a_volume_named_dshm_that_means_something_else_is_not_reused(tmp_path: Path, invoke) -> None:
    text = (
        POD.replace(
            "          nvidia.com/gpu: 1\n",
            "          nvidia.com/gpu: 1\n      volumeMounts:\n        - name: dshm\n          mountPath: /cache\n",
        )
        + "  volumes:\n    - name: dshm\n      persistentVolumeClaim:\n        claimName: cache\n"
    )
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    assert invoke("fix", "--write", str(path)).exit_code == 0
    spec = yaml.safe_load(path.read_text())["spec"]
    assert [v["name"] for v in spec["volumes"]] == ["dshm", "dshm-2"]
    assert spec["volumes"][0] == {"name": "dshm", "persistentVolumeClaim": {"claimName": "cache"}}
    assert {"name": "dshm-2", "mountPath": "/dev/shm"} in spec["containers"][0]["volumeMounts"]
    proofs.assert_kubernetes_still_valid(text, path.read_text())


def test_an_empty_size_limit_gets_a_value(tmp_path: Path, invoke) -> None:
    """``sizeLimit:`` with no value: SHM003 says it can size it; the fix must write ``sizeLimit: 8Gi`` in place
    (an unsafe fix: with no memory limit, any size bounds what could use the node's memory)."""
    text = UNBOUNDED_POD + "        sizeLimit:\n"
    path = tmp_path / "pod.yaml"
    path.write_text(text)
    assert not safe_fixable(path)
    result = invoke("fix", "--write", "--unsafe-fixes", str(path))
    assert "dropped" not in result.stderr, result.stderr
    assert path.read_text() == UNBOUNDED_POD + "        sizeLimit: 8Gi\n"


@pytest.mark.parametrize("name, text", [("pod.yaml", POD), ("compose.yaml", COMPOSE)], ids=["kubernetes", "compose"])
def test_crlf_and_bom_stay(tmp_path: Path, name: str, text: str, invoke) -> None:
    path = tmp_path / name
    original = codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode()
    path.write_bytes(original)
    assert invoke("fix", "--write", str(path)).exit_code == 0
    data = path.read_bytes()
    assert data.startswith(codecs.BOM_UTF8) and not data[3:].startswith(codecs.BOM_UTF8)
    body = data[3:].decode()
    assert body.count("\r\n") == body.count("\n") and "\r\r" not in body
    assert _is_subsequence(text.replace("\n", "\r\n").splitlines(keepends=True), body.splitlines(keepends=True))
    assert not safe_fixable(path)
    assert invoke("fix", str(path)).exit_code == 0


def test_makefile_recipes_keep_their_tabs(tmp_path: Path, invoke) -> None:
    text = (FIXTURES / "make" / "SHM001-train.mk").read_text()
    path = tmp_path / "Makefile"
    path.write_text(text)
    assert (
        subprocess.run(["make", "-n", "-f", str(path), "train", "smoke"], capture_output=True, check=False).returncode
        == 0
    )
    assert invoke("fix", "--write", str(path)).exit_code == 0
    after = path.read_text()
    old, new = text.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new)
    for a, b in zip(old, new, strict=True):
        if a != b:  # only docker run lines, which gain --shm-size right after run, tabs and all
            assert b.replace(" --shm-size=8g", "", 1) == a and " run --shm-size=8g" in b, (a, b)
    assert [line for line in new if line.startswith("\t")] == [
        b for a, b in zip(old, new, strict=True) if a.startswith("\t")
    ]
    assert sum(a != b for a, b in zip(old, new, strict=True)) == 1  # the train recipe; smoke runs nvidia-smi, a utility
    dry_run = subprocess.run(
        ["make", "-n", "-f", str(path), "train", "smoke"], capture_output=True, text=True, check=False
    )
    assert dry_run.returncode == 0 and dry_run.stdout.count("--shm-size=8g") == 1, dry_run.stdout + dry_run.stderr


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("-it --shm-size=1G", []),  # make gives the recipe its own variable: sized
        ("-it \\\n\t--ipc=host", ["SHM007"]),  # continued, and the host's /dev/shm
        ("-it", ["SHM001"]),
    ],
)
def test_a_makefiles_own_variables_are_the_options_they_hold(
    tmp_path: Path, invoke, options: str, expected: list[str]
) -> None:
    """Found (audit52a, dd3d): ``$(DOCKER_OPTS)`` in a recipe was read as the shell's command substitution, so the
    ``--shm-size`` and ``--ipc=host`` the Makefile gives it were not seen, and a sized run failed as unsized."""
    path = tmp_path / "Makefile"
    path.write_text(
        f"IMAGE ?= pytorch/pytorch:2.3.0\nOPTS = {options}\n\n"
        "train:\n\tdocker run --gpus all $(OPTS) $(IMAGE) python train.py --num-workers 8\n"
    )
    found = json.loads(invoke("check", "--format", "json", "--exit-zero", str(path)).output)["findings"]
    assert [f["code"] for f in found] == expected
    assert all("$(OPTS)" in f["message"] for f in found if f["code"] == "SHM007")  # said as the file writes it
    assert invoke("fix", "--write", str(path)).exit_code == 0  # SHM007 has no fix, and outside a pod it is info
    dry_run = subprocess.run(["make", "-n", "-f", str(path), "train"], capture_output=True, text=True, check=False)
    assert dry_run.returncode == 0, dry_run.stderr
    assert ("--shm-size" in dry_run.stdout) is (expected != ["SHM007"])  # the fix sized the unsized one


def test_markdown_around_the_code_blocks_stays(tmp_path: Path, invoke) -> None:
    text = (FIXTURES / "markdown" / "SHM001-readme.md").read_text()
    path = tmp_path / "README.md"
    path.write_text(text)
    assert invoke("fix", "--write", "--undecided=show", str(path)).exit_code == 0  # the Triton block is undecided
    old, new = text.splitlines(keepends=True), path.read_text().splitlines(keepends=True)
    assert len(old) == len(new)
    changed = [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    assert len(changed) == 2
    for a, b in changed:
        assert b.replace(" --shm-size=8g", "", 1) == a
        assert a.startswith(("$ docker run", "    nvidia-docker run")), a
    assert "```shm-size```" in path.read_text()  # inline code in prose is prose
    assert 'subprocess.run("docker run --gpus all pytorch/pytorch", shell=True)' in path.read_text()  # python block


# -- writing ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o755, 0o666])
def test_the_file_mode_is_kept(tmp_path: Path, mode: int, invoke) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    os.chmod(path, mode)
    assert invoke("fix", "--write", str(path)).exit_code == 0
    assert stat.S_IMODE(path.stat().st_mode) == mode and path.read_text() != POD
    assert no_temp_files(tmp_path)


def test_a_symlink_is_kept_and_its_target_written(tmp_path: Path, invoke) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "pod.yaml"
    target.write_text(POD)
    link = tmp_path / "pod.yaml"
    link.symlink_to(Path("real") / "pod.yaml")
    result = invoke("fix", "--write", str(link))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "pod.yaml")
    assert target.read_text() != POD and "sizeLimit: 8Gi" in target.read_text()
    assert no_temp_files(tmp_path) and no_temp_files(tmp_path / "real")


def test_a_read_only_file_is_an_error_and_the_run_goes_on(tmp_path: Path, invoke) -> None:
    locked, free = tmp_path / "a-locked.yaml", tmp_path / "b-free.yaml"
    for path in (locked, free):
        path.write_text(POD)
    os.chmod(locked, 0o444)
    result = invoke("fix", "--write", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"{locked}: read-only file: not changed" in result.stderr
    assert locked.read_text() == POD and stat.S_IMODE(locked.stat().st_mode) == 0o444
    assert free.read_text() != POD and not safe_fixable(free)
    assert f"{free}: fixed 1 finding(s)" in result.stdout
    assert "(1 fixed in 1 file(s), 1 remaining)." in result.stdout, "the summary counts a file that was not written"
    assert no_temp_files(tmp_path)


def test_write_atomic_refuses_a_read_only_file_by_mode(tmp_path: Path) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    os.chmod(path, 0o444)
    with pytest.raises(WriteError, match="read-only"):
        write_atomic(path, b"new", POD.encode())
    assert path.read_text() == POD and no_temp_files(tmp_path)


def test_write_atomic_cleans_up_when_the_rename_fails(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)

    def broken_replace(source: str, target: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(WriteError, match="No space left on device"):
        write_atomic(path, b"fixed", POD.encode())
    assert path.read_text() == POD and no_temp_files(tmp_path)


def test_write_atomic_writes_through_a_temp_file_in_the_same_folder(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    os.chmod(path, 0o640)
    seen: list[tuple[str, str, int, bytes]] = []
    real_replace = os.replace

    def watching_replace(source: str, target: str) -> None:
        seen.append((source, str(target), stat.S_IMODE(os.stat(source).st_mode), Path(source).read_bytes()))
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", watching_replace)
    write_atomic(path, b"fixed\n", POD.encode())
    ((source, target, mode, data),) = seen
    assert Path(source).parent == tmp_path and Path(target) == path and mode == 0o640 and data == b"fixed\n"
    assert path.read_bytes() == b"fixed\n" and no_temp_files(tmp_path)


def test_a_file_changed_after_it_was_read_is_left_alone_with_a_message(tmp_path: Path, monkeypatch, invoke) -> None:
    """Someone saves the file between shmlint's read and its write: the file keeps their version."""
    from shmlint.fix import apply

    raced, other = tmp_path / "a-raced.yaml", tmp_path / "b-other.yaml"
    raced.write_text(POD)
    other.write_text(POD)
    real_fix_source = apply.fix_source

    def fix_source_then_edit(engine, source, kind, path, **options):  # type: ignore[no-untyped-def]
        result = real_fix_source(engine, source, kind, path, **options)
        if Path(path) == raced:
            raced.write_text(POD + "# saved by an editor meanwhile\n")
        return result

    monkeypatch.setattr(apply, "fix_source", fix_source_then_edit)
    result = invoke("fix", "--write", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert f"{raced}: file changed since it was read" in result.stderr
    assert raced.read_text() == POD + "# saved by an editor meanwhile\n"
    assert other.read_text() != POD and not safe_fixable(other)


# -- a broken fix is never written --------------------------------------------------------------------------


def _break_every_fix(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from shmlint.fix import apply

    monkeypatch.setattr(apply, "edits_for", lambda finding, source: [Edit(0, 0, "key: [unclosed\n")])


def test_a_fix_that_would_break_parsing_is_dropped_and_reported(tmp_path: Path, monkeypatch, invoke, engine) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    source = SourceText(str(path), POD)
    _break_every_fix(monkeypatch)
    result = fix_source(engine, source, FileKind.YAML, path)
    assert not result.changed and result.text == POD and not result.applied
    assert result.problems and "unparsable" in result.problems[0] and "SHM001" in result.problems[0]

    cli_result = invoke("fix", "--write", str(path))
    assert path.read_text() == POD
    assert f"{path}: SHM001 fix dropped: it would make the file unparsable" in cli_result.stderr
    assert cli_result.exit_code == 1 and "(0 fixed in 0 file(s), 1 remaining)." in cli_result.stdout


def _duplicate_every_fix(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every fix writes a second ``kind:`` key at the top: YAML composes it, kubectl and compose refuse it."""
    from shmlint.fix import apply

    monkeypatch.setattr(apply, "edits_for", lambda finding, source: [Edit(0, 0, "kind: Pod\n")])


def test_a_fix_that_would_write_a_duplicate_key_is_dropped(tmp_path: Path, monkeypatch, engine) -> None:
    path = tmp_path / "pod.yaml"
    _duplicate_every_fix(monkeypatch)
    result = fix_source(engine, SourceText(str(path), POD), FileKind.YAML, path)
    assert not result.changed and not result.applied
    assert result.problems and "duplicate key 'kind'" in result.problems[0], result.problems


def test_a_file_the_strict_readers_already_refuse_is_still_fixed(tmp_path: Path, monkeypatch, engine) -> None:
    """The original has a duplicate key of its own: the strict reading is not held against the fix (a real one,
    that holds: an edit that fixes nothing is taken back whatever it does to the keys)."""
    path = tmp_path / "pod.yaml"
    original = POD.replace("  name: train\n", "  name: train\n  name: train\n")
    result = fix_source(engine, SourceText(str(path), original), FileKind.YAML, path)
    assert result.changed and result.applied and not result.problems, result.problems
    assert "  name: train\n  name: train\n" in result.text and "/dev/shm" in result.text


@pytest.mark.parametrize("option", [("--select", "SHM001"), ("--ignore", "SHM000")], ids=["select", "ignore-SHM000"])
def test_a_broken_fix_is_dropped_whatever_rules_are_selected(tmp_path: Path, monkeypatch, option, invoke) -> None:
    """The parse check after a fix must not depend on SHM000 being among the selected rules."""
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    _break_every_fix(monkeypatch)
    result = invoke("fix", "--write", *option, str(path))
    assert path.read_text() == POD, f"a fix that breaks the YAML was written with {' '.join(option)}"
    assert "unparsable" in result.stderr


def test_select_never_lets_an_unparsable_fix_through_on_a_real_file(tmp_path: Path, invoke, engine) -> None:
    """No monkeypatching: today's SHM003 fix of an empty ``sizeLimit:`` writes ``sizeLimit:8Gi`` (no space), which
    the parse check drops; with ``--select SHM003`` the check must still run, so the file stays parsable."""
    path = tmp_path / "pod.yaml"
    path.write_text(UNBOUNDED_POD + "        sizeLimit:\n")
    invoke("fix", "--write", "--select", "SHM003", str(path))
    checked = engine.check_candidate(Candidate(path, FileKind.YAML, True))
    broken = [f.message for f in checked.findings if f.code == "SHM000"]
    assert not broken, f"--select SHM003 wrote a file that no longer parses: {broken}\n{path.read_text()}"


# -- what `check` calls fixable, `fix` fixes ---------------------------------------------------------------------

UNFIXED_BUT_FIXABLE = {
    # Kubeflow TrainJob: the trainer is its own "pod" with nowhere to put a volume (PodTarget is None)
    "trainjob.yaml": (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: t\nspec:\n"
        "  runtimeRef:\n    name: torch-distributed\n  trainer:\n    numNodes: 2\n    command: [torchrun, --nproc_per_node=2, train.py]\n"
    ),
    # a compose service written as an alias of an anchor has no mapping of its own (ServiceTarget is None)
    "compose.yaml": "x-gpu: &gpu\n  image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\nservices:\n  train: *gpu\n",
}


@pytest.mark.parametrize("name", sorted(UNFIXED_BUT_FIXABLE))
def test_what_check_calls_fixable_fix_fixes(tmp_path: Path, name: str, invoke) -> None:
    path = tmp_path / name
    path.write_text(UNFIXED_BUT_FIXABLE[name])
    checked = invoke("check", str(path))
    promised = "fixable with `shmlint fix --write`" in checked.stdout
    invoke("fix", "--write", str(path))
    left = safe_fixable(path)
    assert not (promised and left), f"`check` promised a fix that `fix` does not make: {left}"


def test_a_service_only_the_override_file_defines_is_fixed(tmp_path: Path, invoke) -> None:
    """compose.override.yaml adds a GPU service: `check` reports it (in the override file) as fixable, so
    `fix --write` on the folder must fix it."""
    (tmp_path / "compose.yaml").write_text("services:\n  web:\n    image: nginx:1.27\n")
    (tmp_path / "compose.override.yaml").write_text(
        "services:\n  trainer:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n"
    )
    checked = invoke("check", str(tmp_path))
    assert "compose.override.yaml:2:3: SHM001" in checked.stdout and "1 fixable" in checked.stdout
    invoke("fix", "--write", str(tmp_path))
    again = invoke("check", str(tmp_path))
    assert "fixable" not in again.stdout, f"`check` still promises a fix after `fix --write`:\n{again.stdout}"


# -- the real entry point ------------------------------------------------------------------------------------


def test_the_console_entry_point_exit_codes(tmp_path: Path, shmlint_process) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return shmlint_process(*args, cwd=tmp_path)

    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "locked.yaml").write_text(POD)
    os.chmod(tmp_path / "locked.yaml", 0o444)
    shown = run("fix", "pod.yaml")
    assert shown.returncode == 1 and shown.stdout.startswith("--- a/pod.yaml\n+++ b/pod.yaml\n")
    assert run("fix", "--shm-size", "huge", "pod.yaml").returncode == 2
    written = run("fix", "--write", ".")
    assert written.returncode == 2 and "locked.yaml: read-only file: not changed" in written.stderr
    assert "pod.yaml: fixed 1 finding(s)" in written.stdout and "Traceback" not in written.stderr
    assert run("fix", "pod.yaml").returncode == 0


def _group(tmp_path: Path, count: int) -> list[tuple[Settings, Candidate]]:
    settings = Settings(undecided="show")
    jobs = []
    for index in range(count):
        path = tmp_path / f"pod-{index}.yaml"
        path.write_text(POD)
        jobs.append((settings, Candidate(str(path), FileKind.YAML, explicit=True)))
    return jobs


def test_a_group_writes_every_file_and_reports_each_refusal_alone(tmp_path: Path, monkeypatch) -> None:
    """Files are fixed in groups whose temp files are synced together: one file that cannot be written (here its
    rename fails) is reported on its own, the others are written, and no temp file stays."""
    from shmlint.fix.run import _fix_group

    jobs = _group(tmp_path, 4)
    real_replace = os.replace

    def failing_for_the_third(source: str, target: str) -> None:
        if str(target).endswith("pod-2.yaml"):
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", failing_for_the_third)
    outcomes = _fix_group(jobs, {Settings(undecided="show"): None}, write=True, unsafe=False, roots=(tmp_path,))
    assert [o.error is None for o in outcomes] == [True, True, False, True]
    assert [o.changed for o in outcomes] == [True, True, False, True]
    assert (tmp_path / "pod-2.yaml").read_text() == POD  # the refused one is untouched
    assert all((tmp_path / f"pod-{i}.yaml").read_text() != POD for i in (0, 1, 3))
    assert no_temp_files(tmp_path)


def test_a_group_interrupted_before_its_writes_leaves_no_temp_file(tmp_path: Path, monkeypatch) -> None:
    """An interruption while the group's first temp files wait for their sync (here: while the third file is
    being fixed) takes them all back: nothing written, nothing left beside the files."""
    from shmlint.fix import run as run_module

    jobs = _group(tmp_path, 3)
    real_fixed = run_module._fixed

    def interrupted_at_the_third(settings, candidate, **options):  # type: ignore[no-untyped-def]
        if candidate.path.endswith("pod-2.yaml"):
            raise KeyboardInterrupt
        return real_fixed(settings, candidate, **options)

    monkeypatch.setattr(run_module, "_fixed", interrupted_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        run_module._fix_group(jobs, {Settings(undecided="show"): None}, write=True, unsafe=False, roots=(tmp_path,))
    assert all((tmp_path / f"pod-{i}.yaml").read_text() == POD for i in range(3))
    assert no_temp_files(tmp_path)


def test_a_file_changed_while_its_group_waited_is_fixed_again_alone(tmp_path: Path, monkeypatch) -> None:
    """Another program writes to a file after its fix was prepared and before the group commits: the prepared
    write is refused (the other program's text must stay), and the file is fixed again at once, on its own, with
    that text in it."""
    from shmlint.fix import write as write_module
    from shmlint.fix.run import _fix_group

    jobs = _group(tmp_path, 2)
    real_commit = write_module.commit
    appended: list[str] = []

    def someone_appends_first(pending: write_module.PendingWrite) -> None:
        if not appended:
            appended.append(str(pending.real))
            with open(pending.real, "a", encoding="utf-8") as handle:
                handle.write("# edited meanwhile\n")
        real_commit(pending)

    monkeypatch.setattr(write_module, "commit", someone_appends_first)
    outcomes = _fix_group(jobs, {Settings(undecided="show"): None}, write=True, unsafe=False, roots=(tmp_path,))
    assert [o.error for o in outcomes] == [None, None] and all(o.changed for o in outcomes)
    first = (tmp_path / "pod-0.yaml").read_text()
    assert "# edited meanwhile" in first and first != POD + "# edited meanwhile\n"  # kept, and fixed as well
    assert no_temp_files(tmp_path)


# -- fix accounting, `fix -`, `check --fix` -------------------------------------------------------------------


def test_fix_stdin_prints_the_fixed_text_and_accounts_on_stderr(tmp_path: Path, invoke) -> None:
    path = tmp_path / "pod.yaml"
    path.write_text(POD)
    invoke("fix", "--write", str(path))
    fixed = invoke("fix", "-", "--stdin-filename", "pod.yaml", input=POD)
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout == path.read_text() != POD  # what --write writes, on standard output
    assert "Found 1 finding(s) (1 fixed in 1 file(s), 0 remaining)." in fixed.stderr
    unsafe_only = (FIXTURES / "k8s" / "SHM004-exceeds-limit.yaml").read_text()
    left = invoke("fix", "-", input=unsafe_only)
    assert left.exit_code == 1 and left.stdout == unsafe_only
    assert "-:" in left.stderr and "1 hidden fix(es) can be enabled with `--unsafe-fixes`." in left.stderr
    assert invoke("fix", "-", "--unsafe-fixes", input=unsafe_only).exit_code == 0


def test_check_counts_safe_and_unsafe_fixes_apart(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "unsafe.yaml").write_text((FIXTURES / "k8s" / "SHM004-exceeds-limit.yaml").read_text())
    checked = invoke("check", str(tmp_path))
    assert "1 fixable with `shmlint fix --write`. 1 hidden fix(es) can be enabled with `--unsafe-fixes`." in (
        checked.stdout
    )
    (tmp_path / "pod.yaml").unlink()
    only_unsafe = invoke("check", str(tmp_path))
    assert "fixable with" not in only_unsafe.stdout and "1 hidden fix(es)" in only_unsafe.stdout


def test_check_fix_writes_the_fixes_then_reports_what_is_left(tmp_path: Path, invoke) -> None:
    (tmp_path / "pod.yaml").write_text(POD)
    (tmp_path / "unsafe.yaml").write_text((FIXTURES / "k8s" / "SHM004-exceeds-limit.yaml").read_text())
    result = invoke("check", "--fix", str(tmp_path))
    assert result.exit_code == 1, result.output
    assert f"{tmp_path / 'pod.yaml'}: fixed 1 finding(s)" in result.stderr
    assert "SHM004" in result.stdout and "SHM001" not in result.stdout
    assert "sizeLimit: 8Gi" in (tmp_path / "pod.yaml").read_text()
    assert invoke("check", "--fix", "--unsafe-fixes", str(tmp_path)).exit_code == 0
    assert invoke("check", "--unsafe-fixes", str(tmp_path)).exit_code == 2  # applies fixes: only with --fix
    assert invoke("check", "--fix", "-", input=POD).exit_code == 2


def test_fix_size_below_min_shm_size_is_refused(tmp_path: Path) -> None:
    """Found: accepted silently, and the fix then wrote a size its own check flagged."""
    (tmp_path / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    (tmp_path / ".shmlint.yaml").write_text("fix-size: 512Mi\n", encoding="utf-8")
    assert_clean_error(run_shmlint_bytes("fix", "pod.yaml", cwd=tmp_path), "fix size 512Mi is below min-shm-size 1Gi")
    (tmp_path / ".shmlint.yaml").unlink()
    explicit = run_shmlint_bytes("fix", "--shm-size", "256Mi", "pod.yaml", cwd=tmp_path)  # one run's request: a warning
    assert explicit.returncode == 1 and b"warning: --fix-size: the fix size 256Mi is below" in explicit.stderr


def test_an_edit_that_fixes_nothing_is_neither_kept_nor_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.fix import apply
    from shmlint.model import Edit
    from shmlint.settings import Settings
    from shmlint.source import SourceText

    text = RUN_SCRIPT
    monkeypatch.setattr(apply, "edits_for", lambda finding, source: [Edit(0, 0, "# touched\n")])
    result = apply.fix_source(Engine(Settings()), SourceText("train.sh", text), FileKind.SHELL, "train.sh")
    assert result.applied == () and not result.changed
    assert any("did not hold" in problem for problem in result.problems)


def test_check_fix_reports_what_is_left_when_a_file_cannot_be_written(tmp_path: Path) -> None:
    """A hard-linked file is not rewritten (exit 2), and the JSON report of what is left still follows, valid,
    with the others' fixes applied."""
    script = tmp_path / "a.sh"
    script.write_text("docker run --gpus all nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3 --model m\n")
    os.link(script, tmp_path / "b.sh")
    (tmp_path / "compose.yaml").write_text(
        "services:\n  t:\n    image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\n    gpus: all\n"
    )
    done = run_shmlint("check", "--fix", "--format", "json", ".", cwd=tmp_path)
    assert done.returncode == 2 and "hard links" in done.stderr
    assert sorted(Path(f["path"]).name for f in json.loads(done.stdout)["findings"]) == ["a.sh", "b.sh"]
    assert "shm_size" in (tmp_path / "compose.yaml").read_text()
