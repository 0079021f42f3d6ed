"""One threshold story: a size that ``shmlint size`` recommends is never flagged by SHM005 when the user follows
the printed advice (the size written in the format's own syntax, and the printed hint line above the workload)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.source import SourceText
from shmlint.validate.commands import size

KUBERNETES = """\
apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
  {hint}
  - name: train
    image: pytorch/pytorch
    resources:
      limits:
        nvidia.com/gpu: 1
    volumeMounts:
    - name: dshm
      mountPath: /dev/shm
  volumes:
  - name: dshm
    emptyDir:
      medium: Memory
      sizeLimit: {kubernetes}
"""
COMPOSE = """\
services:
  {hint}
  train:
    image: pytorch/pytorch
    gpus: all
    shm_size: {compose}
"""
SHELL = """\
#!/bin/sh
{hint}
docker run --gpus all --shm-size={docker} pytorch/pytorch python train.py
"""
CASES = (
    (KUBERNETES, "pod.yaml", FileKind.YAML),
    (COMPOSE, "compose.yaml", FileKind.YAML),
    (SHELL, "run.sh", FileKind.SHELL),
)
_WRITE = re.compile(
    r"sizeLimit: (?P<kubernetes>\S+), docker/podman --shm-size=(?P<docker>\S+), compose shm_size: (?P<compose>\S+)"
)
_DECLARE = re.compile(r"^declare it:\s+(?P<hint># shmlint: dataloader .*)$", re.MULTILINE)

profiles = st.fixed_dictionaries(
    {
        "--workers": st.integers(0, 64),
        "--prefetch-factor": st.integers(1, 8),
        "--batch-size": st.integers(1, 1024),
        "--procs": st.integers(1, 8),
    }
)
samples = st.one_of(
    st.integers(1, 64 << 20).map(lambda n: ("--sample-bytes", str(n))),
    st.tuples(
        st.lists(st.integers(1, 512), min_size=1, max_size=3), st.sampled_from(["uint8", "float16", "float32"])
    ).map(lambda shape: ("--sample-shape", "x".join(map(str, shape[0])), "--dtype", shape[1])),
)


def advice(arguments: list[str]) -> tuple[dict[str, str], str]:
    result = CliRunner().invoke(size, arguments)
    assert result.exit_code == 0, result.output
    written, declared = _WRITE.search(result.output), _DECLARE.search(result.output)
    assert written is not None and declared is not None, result.output
    return written.groupdict(), declared.group("hint")


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(profile=profiles, sample=samples)
def test_following_the_advice_never_meets_shm005(profile: dict[str, int], sample: tuple[str, ...]) -> None:
    arguments = [item for option, value in profile.items() for item in (option, str(value))] + list(sample)
    sizes, hint = advice(arguments)
    engine = Engine(Settings(undecided="show"))
    for template, name, kind in CASES:
        text = template.format(hint=hint, **sizes)
        result = engine.check_source(SourceText(name, text), kind, Path(name))
        (workload,) = [w for w in result.workloads if w.is_gpu_or_torch]
        assert workload.dataloader is not None, f"the printed hint was not read:\n{text}"
        codes = [f.code for f in result.findings]
        assert "SHM005" not in codes and "SHM000" not in codes, (text, [f.message for f in result.findings])


def test_a_size_below_min_shm_size_says_why_it_is_enough() -> None:
    result = CliRunner().invoke(size, ["--workers", "2", "--batch-size", "8", "--sample-shape", "3x224x224"])
    assert "recommended: 67,108,864 B (64 MiB)" in result.output
    assert "without it shm-too-small compares the size with min-shm-size (1 GiB unless configured)" in result.output
    hint = "# shmlint: dataloader workers=2 batch=8 sample=3x224x224 dtype=float32 prefetch=2 procs=1"
    assert f"declare it:  {hint}" in result.output
