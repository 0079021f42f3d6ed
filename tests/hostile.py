"""Inputs and checks shared by the tests of hostile input (test_hostile_files, test_bounded_work,
test_output_safety, test_path_safety, test_never_silent, ...): a flagged pod and docker line, alias bombs, and the
assertions that a run did not crash and still checked the good file beside the hostile one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from shmlint.config import ConfigError, load_effective
from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import default_engine, run_shmlint_bytes

POD = """apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
  - name: gpu
    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
    command: ["torchrun", "--nproc_per_node=2", "train.py"]
    resources:
      limits:
        nvidia.com/gpu: 1
"""


POD_LINE = 7  # where SHM001 is reported: the container's "name" key


RUN = "docker run --rm --gpus all pytorch/pytorch:2.3.0 torchrun --nproc_per_node=2 train.py\n"


def decoded(stream: bytes) -> str:
    return stream.decode("utf-8", "replace")


def assert_no_crash(result: subprocess.CompletedProcess) -> None:
    err = decoded(result.stderr)
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]


def check_json(*paths: str, cwd: Path, **kwargs) -> tuple[subprocess.CompletedProcess, dict]:
    result = run_shmlint_bytes("check", "--format", "json", *paths, cwd=cwd, **kwargs)
    assert_no_crash(result)
    assert result.returncode in (0, 1), (result.returncode, decoded(result.stderr))
    return result, json.loads(result.stdout)


def findings_for(document: dict, path: str) -> list[dict]:
    return [f for f in document["findings"] if f["path"] == path]


def assert_good_pod_still_checked(document: dict, path: str = "good.yaml") -> None:
    codes = [(f["code"], f["line"]) for f in findings_for(document, path)]
    assert ("SHM001", POD_LINE) in codes, f"the other file was not checked: {document['findings']}"


def _laughs(key: str, anchor: str, first: str, levels: int, width: int) -> list[str]:
    """Level 0 holds ``first``; each next level lists the one before ``width`` times (``key`` formats the level)."""
    lines = [f"{key.format(0)}: &{anchor}0 {first}"]
    for level in range(1, levels):
        lines.append(f"{key.format(level)}: &{anchor}{level} [" + ", ".join([f"*{anchor}{level - 1}"] * width) + "]")
    return lines


def bomb(kind: str, levels: int = 12, width: int = 10) -> str:
    """Billion laughs: ``width ** levels`` nodes once expanded."""
    if kind == "classic":
        lol = "[" + ", ".join(['"lol"'] * 10) + "]"
        return "\n".join(_laughs("a{}", "a", lol, levels, width)) + "\n"
    if kind == "kubernetes":
        lines = [
            "apiVersion: v1",
            "kind: Pod",
            "metadata: {name: bomb}",
            *_laughs("x-{}", "e", "[{name: NCCL_SHM_DISABLE, value: '1'}, {name: A, value: b}]", levels, width),
        ]
        last = f"*e{levels - 1}"
        lines += [
            "spec:",
            "  containers:",
            "  - name: gpu",
            "    image: pytorch/pytorch",
            "    resources: {limits: {nvidia.com/gpu: 1}}",
            f"    env: {last}",
            f"    args: {last}",
            f"    volumeMounts: {last}",
            f"  volumes: {last}",
            f"  initContainers: {last}",
        ]
        return "\n".join(lines) + "\n"
    if kind == "compose":
        lines = _laughs("x-{}", "s", "{image: pytorch/pytorch, environment: [NCCL_SHM_DISABLE=1]}", levels, width)
        last = f"*s{levels - 1}"
        lines += [
            "services:",
            "  train:",
            "    image: pytorch/pytorch",
            "    gpus: all",
            f"    environment: {last}",
            f"    volumes: {last}",
            f"    tmpfs: {last}",
            f"    command: {last}",
            f"    extends: {last}",
        ]
        return "\n".join(lines) + "\n"
    if kind == "merge-keys":
        lines = [
            "apiVersion: v1",
            "kind: Pod",
            "metadata: {name: bomb}",
            "x-0: &m0 {containers: [{name: c, image: x}]}",
        ]
        for level in range(1, 200):
            lines.append(f"x-{level}: &m{level} {{<<: [" + ", ".join(f"*m{i}" for i in range(level)) + "]}")
        lines += ["spec: *m199"]
        return "\n".join(lines) + "\n"
    lines = ["on: push", "jobs:", "  x0: &j0 {runs-on: linux, steps: [{run: 'docker run --gpus all pytorch/pytorch'}]}"]
    for level in range(1, levels):
        lines.append(
            f"  x{level}: &j{level} {{runs-on: linux, steps: ["
            + ", ".join([f"{{run: 'echo', env: *j{level - 1}}}"] * width)
            + "]}"
        )
    return "\n".join(lines) + "\n"


#: torchrun with its process count: several local processes on the pod's GPUs are the evidence of a need (NCCL
#: between them; on the CPU they talk gloo, over TCP)
TORCHRUN_COMMAND = '["torchrun", "--nproc_per_node=2", "train.py"]'
POD_TEMPLATE = (
    """apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    command: """
    + TORCHRUN_COMMAND
    + "\n    resources: {{limits: {{nvidia.com/gpu: 2}}}}\n"
)


def assert_clean_error(run: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit 2 with a message, never a traceback or "internal error"."""
    err = run.stderr.decode(errors="replace")
    assert run.returncode == 2, (run.returncode, err[-2000:])
    assert "internal error" not in err and "Traceback" not in err, err[-2000:]
    for needle in needles:
        assert needle in err, err[-2000:]


BIG = "9" * 5000  # int() of it raises ("Exceeds the limit (4300 digits)")


SUPERSCRIPT = "\u00b2"  # "²".isdigit() is True, int("²") raises


def check_in_process(name: str, text: str, kind: FileKind, settings: Settings | None = None) -> list[str]:
    """The findings of one file checked in-process, as ``CODE message`` lines."""
    engine = Engine(settings) if settings else default_engine()
    result = engine.check_source(SourceText(name, text), kind, name)
    return [f"{finding.code} {finding.message}" for finding in result.findings]


ALIASED_POD = """apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
  - name: c0
    image: pytorch/pytorch
    command: [torchrun, --nproc_per_node=2, train.py]
    env: &env [{{name: NVIDIA_VISIBLE_DEVICES, value: "{value}"}}]
    resources: &res {{limits: {{nvidia.com/gpu: 1}}}}
{more}"""


def aliased_pod(containers: int, value_chars: int) -> str:
    more = "".join(f"  - {{name: c{i}, image: x, env: *env, resources: *res}}\n" for i in range(1, containers))
    return ALIASED_POD.format(value="0," * (value_chars // 2) + "1", more=more)


#: what a runner file looks like: none of it may reach a message
SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"


TORCHRUN_POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: train
    image: nvcr.io/nvidia/pytorch:24.05-py3
    command: ["torchrun", "--nproc_per_node=2", "train.py"]
    resources: {limits: {nvidia.com/gpu: 2}}
"""


def config_error(start: Path) -> str:
    with pytest.raises(ConfigError) as error:
        load_effective(start)
    return str(error.value)


RUN_SCRIPT = "#!/bin/sh\ndocker run --gpus all pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime torchrun --nproc_per_node=2 train.py\n"
