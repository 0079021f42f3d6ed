"""One judge for ECS/Batch container definitions: the same definition written as ECS JSON, as Terraform's
``jsonencode`` and as a Terraform JSON heredoc reads the same. Each case below is one the two extractors used to
disagree on before they shared ``shmlint.containers.ecs``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.model import ShmKind, ShmMechanism
from shmlint.results import FileResult
from shmlint.sizes import MIB
from shmlint.source import SourceText
from tests.support import default_engine

IMAGE = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"
GPU = [{"type": "GPU", "value": "2"}]


@pytest.fixture(scope="module")
def engine() -> Engine:
    return default_engine()


def ecs_json(container: dict[str, Any], ipc: str | None, memory: str | None, host_volume: bool) -> FileResult:
    task: dict[str, Any] = {"family": "t", "containerDefinitions": [container]}
    if ipc is not None:
        task["ipcMode"] = ipc
    if memory is not None:
        task["memory"] = memory
    if host_volume:
        task["volumes"] = [{"name": "shm", "host": {"sourcePath": "/dev/shm"}}]
    return _check("task.json", json.dumps(task, indent=2), FileKind.JSON)


def terraform(
    container: dict[str, Any], ipc: str | None, memory: str | None, host_volume: bool, heredoc: bool
) -> FileResult:
    body = json.dumps([container], indent=2)  # JSON object syntax is HCL object syntax too
    lines = ['resource "aws_ecs_task_definition" "t" {', '  family = "t"']
    if ipc is not None:
        lines.append(f'  ipc_mode = "{ipc}"')
    if memory is not None:
        lines.append(f'  memory = "{memory}"')
    if host_volume:
        lines.append('  volume {\n    name      = "shm"\n    host_path = "/dev/shm"\n  }')
    lines.append(
        f"  container_definitions = <<EOF\n{body}\nEOF" if heredoc else f"  container_definitions = jsonencode({body})"
    )
    lines.append("}\n")
    return _check("main.tf", "\n".join(lines), FileKind.TERRAFORM)


def _check(name: str, text: str, kind: FileKind) -> FileResult:
    return default_engine().check_source(SourceText(name, text), kind, Path(name))


def summary(result: FileResult) -> tuple[object, ...]:
    """What the judge decided, without positions or format-specific wording."""
    (workload,) = result.workloads
    memory = workload.memory_limit.bytes if workload.memory_limit is not None else None
    shm = [(s.kind, s.mechanism, s.size.bytes if s.size else None, bool(s.size and s.size.error)) for s in workload.shm]
    torch = [e.text for e in workload.torch]
    return sorted(f.code for f in result.findings), shm, memory, workload.accelerator_count, torch


CASES = {
    # Terraform called the tmpfs a --mount (TMPFS_MOUNT); ECS passes it to docker as --tmpfs
    "tmpfs": (
        {"linuxParameters": {"tmpfs": [{"containerPath": "/dev/shm", "size": 8192}]}},
        None,
        None,
        False,
        [(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, 8192 * MIB, False)],
    ),
    # Terraform read ipc_mode host and none only
    "ipc task": ({"linuxParameters": {"sharedMemorySize": 8192}}, "task", None, False, None),
    # Terraform called any volume at /dev/shm a docker volume, without looking at the task's volumes
    "host volume": ({"mountPoints": [{"sourceVolume": "shm", "containerPath": "/dev/shm"}]}, None, None, True, None),
    # Terraform did not fall back to the task's memory
    "task memory": ({"linuxParameters": {"sharedMemorySize": 8192}}, None, "4096", False, None),
    # Terraform took a quoted size as a number; the API (and the provider's JSON decoding) refuses a string
    "quoted size": ({"linuxParameters": {"sharedMemorySize": "8192"}}, None, None, False, None),
    # Terraform judged entryPoint and command apart; ECS runs them as one command line
    "entryPoint and command": (
        {"entryPoint": ["torchrun"], "command": ["--nproc_per_node=2", "train.py"]},
        None,
        None,
        False,
        None,
    ),
    # Terraform did not read the ignore label
    "ignore label": ({"dockerLabels": {"shmlint.io/ignore": "SHM001"}}, None, None, False, None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ecs_json_and_terraform_judge_a_container_alike(case: str) -> None:
    extra, ipc, memory, host_volume, expected_shm = CASES[case]
    container = {"name": "train", "image": IMAGE, "resourceRequirements": GPU, **extra}
    ecs = summary(ecs_json(container, ipc, memory, host_volume))
    assert summary(terraform(container, ipc, memory, host_volume, heredoc=False)) == ecs
    assert summary(terraform(container, ipc, memory, host_volume, heredoc=True)) == ecs
    assert ecs[3] == 2  # the GPU count, which Terraform did not read either
    if expected_shm is not None:
        assert ecs[1] == expected_shm


def test_what_the_cases_decide() -> None:
    """The agreed answers are the right ones, not merely equal."""
    container = {"name": "train", "image": IMAGE, "resourceRequirements": GPU}

    def on(extra: dict[str, Any], ipc: str | None = None, memory: str | None = None, host: bool = False) -> Any:
        return summary(terraform({**container, **extra}, ipc, memory, host, heredoc=False))

    assert on(CASES["ipc task"][0], ipc="task")[1][0][0] == ShmKind.SHARED
    assert on(CASES["host volume"][0], host=True)[1] == [(ShmKind.HOST_PATH, ShmMechanism.BIND, None, False)]
    assert on(CASES["host volume"][0], host=True)[0] == ["SHM008"]
    assert on(CASES["task memory"][0], memory="4096")[2] == 4096 * MIB
    assert on(CASES["quoted size"][0])[0] == ["SHM011"]
    assert on(CASES["entryPoint and command"][0])[4] == ["image " + IMAGE, "command torchrun"]
    assert "SHM001" not in on(CASES["ignore label"][0])[0]
    assert "SHM001" in on({})[0]
