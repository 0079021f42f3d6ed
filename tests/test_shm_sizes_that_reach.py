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


ZERO_COMPOSE = """\
services:
  train:
    image: pytorch/pytorch
    command: torchrun --nproc_per_node=8 train.py
    shm_size: 0
    deploy: {resources: {reservations: {devices: [{capabilities: [gpu]}]}}}
"""

ZERO_ANSIBLE = """\
- hosts: gpu
  tasks:
    - name: train
      {module}:
        name: train
        image: pytorch/pytorch
        command: torchrun --nproc_per_node=8 train.py
        shm_size: 0
        {gpu}
"""


def _messages(engine: Engine, path: Path) -> list[tuple[str, str]]:
    (candidate,) = discover([path])
    return [(f.code, f.message) for f in engine.check_candidate(candidate).findings]


def test_a_zero_shm_size_in_compose_is_dockers_default(engine: Engine, tmp_path: Path) -> None:
    """docker compose passes ``shm_size: 0`` to the API as a ShmSize of 0, which the daemon reads as not set: the
    64 MiB default, said in the message (it was read as 0 bytes: "/dev/shm 0 is under 1 GiB")."""
    path = tmp_path / "compose.yaml"
    path.write_text(ZERO_COMPOSE, encoding="utf-8")
    ((code, message),) = _messages(engine, path)
    assert code == "SHM005" and "/dev/shm 0 (64 MiB) is under 1 GiB" in message


@pytest.mark.parametrize(
    ("module", "gpu", "expected"),
    [
        (
            "community.docker.docker_container",
            "device_requests: [{driver: nvidia, count: -1, capabilities: [[gpu]]}]",
            ("SHM005", "/dev/shm 0 (64 MiB) is under"),
        ),
        ("containers.podman.podman_container", "device: [nvidia.com/gpu=all]", ("SHM003", "podman: no limit")),
    ],
)
def test_a_zero_shm_size_in_ansible_is_read_as_its_engine_reads_it(
    engine: Engine, tmp_path: Path, module: str, gpu: str, expected: tuple[str, str]
) -> None:
    """The same rule for the two modules as for their command lines: docker's default, podman's no limit."""
    path = tmp_path / "play.yml"
    path.write_text(ZERO_ANSIBLE.format(module=module, gpu=gpu), encoding="utf-8")
    ((code, message),) = _messages(engine, path)
    assert code == expected[0] and expected[1] in message


@pytest.mark.parametrize(
    "options",
    ["--tmpfs /dev/shm:size=0", "--mount type=tmpfs,dst=/dev/shm,tmpfs-size=0", "--tmpfs /dev/shm:rw,size=0k"],
)
def test_a_tmpfs_of_size_zero_is_no_limit(engine: Engine, tmp_path: Path, options: str) -> None:
    """The kernel reads a tmpfs ``size=0`` as no limit, and docker sets no size for a ``tmpfs-size`` of 0: an
    unbounded /dev/shm (SHM003), which no safe fix sizes, not 0 bytes raised to 8 GiB (a lower size than it has)."""
    assert codes(engine, tmp_path, options) == ["SHM003"]
    script = tmp_path / "run.sh"
    from tests.support import run_shmlint

    run_shmlint("fix", "--write", str(script), cwd=tmp_path)
    assert options in script.read_text()


def test_a_compose_tmpfs_of_size_zero_is_no_limit(engine: Engine, tmp_path: Path) -> None:
    path = tmp_path / "compose.yaml"
    path.write_text(ZERO_COMPOSE.replace("shm_size: 0", 'tmpfs: ["/dev/shm:size=0"]'), encoding="utf-8")
    ((code, message),) = _messages(engine, path)
    assert code == "SHM003" and "(size 0: no limit)" in message
