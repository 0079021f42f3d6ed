"""Rules that judge a /dev/shm size judge only sizes that reach the container (found on fresh2's slime CI files).

- A memory limit of 0 is no limit: moby's ``verifyPlatformContainerResources`` treats ``Memory == 0`` as unset, and
  ``--memory=0`` is what CI files write to say "no limit"; no /dev/shm size can exceed it.
- With host IPC a namespace size (``--shm-size``, ``shm_size``) has no effect (SHM010 says so): SHM004 and SHM005
  must not judge it as the container's /dev/shm.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine

RUN = "docker run --rm --gpus all {options} pytorch/pytorch torchrun --nproc_per_node=8 train.py\n"


def codes(engine: Engine, tmp_path: Path, options: str) -> list[str]:
    script = tmp_path / "run.sh"
    script.write_text(RUN.format(options=options), encoding="utf-8")
    (candidate,) = discover([script])
    return sorted(finding.code for finding in engine.check_candidate(candidate).findings)


@pytest.mark.parametrize("memory", ["--memory=0", "-m 0", "--memory 0b"])
def test_a_zero_memory_limit_is_no_limit(engine: Engine, tmp_path: Path, memory: str) -> None:
    assert codes(engine, tmp_path, f"--shm-size=16g {memory}") == []


def test_a_real_memory_limit_still_counts(engine: Engine, tmp_path: Path) -> None:
    assert codes(engine, tmp_path, "--shm-size=16g --memory=8g") == ["SHM004"]


def test_host_ipc_makes_a_namespace_size_moot(engine: Engine, tmp_path: Path) -> None:
    # over the limit and too small alike: neither is the container's /dev/shm, which is the host's
    assert codes(engine, tmp_path, "--ipc=host --shm-size=16g --memory=8g") == ["SHM007", "SHM010"]
    assert codes(engine, tmp_path, "--ipc=host --shm-size=1m") == ["SHM007", "SHM010"]


def test_without_host_ipc_a_small_size_is_still_too_small(engine: Engine, tmp_path: Path) -> None:
    assert codes(engine, tmp_path, "--shm-size=1m") == ["SHM005"]
