"""Bug 4: ``--ipc=none`` / ``ipc: none`` gives a GPU/torch container no /dev/shm at all; SHM013 reports it.

Before SHM013 these workloads got no finding: the ``none`` declaration counted as an applied /dev/shm source, so
SHM001 stayed quiet, and no other rule looked at it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from shmlint.settings import Settings
from shmlint.severity import Severity
from shmlint.source import SourceText

ENGINE = Engine(Settings(undecided="show"))
IMAGE = "pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime"


def check(name: str, text: str):
    kind = FileKind.YAML if name.endswith(".yaml") else FileKind.SHELL
    return ENGINE.check_source(SourceText(name, text), kind, Path(name))


def codes(name: str, text: str) -> list[str]:
    return [finding.code for finding in check(name, text).findings]


def fixed(name: str, text: str, *, unsafe: bool) -> str:
    kind = FileKind.YAML if name.endswith(".yaml") else FileKind.SHELL
    result = check(name, text)
    assert result.source is not None
    return fix_source(ENGINE, result.source, kind, Path(name), unsafe=unsafe).text


def compose(service: str) -> str:
    return f"services:\n  train:\n    image: {IMAGE}\n    gpus: all\n{service}"


@pytest.mark.parametrize("ipc", ["ipc: none", 'ipc: "none"', "ipc: ${IPC_MODE:-none}"])
def test_a_compose_gpu_service_with_ipc_none_gets_exactly_shm013(ipc: str) -> None:
    assert codes("compose.yaml", compose(f"    {ipc}\n")) == ["SHM013"]


@pytest.mark.parametrize(
    "line",
    [
        f"docker run --gpus all --ipc=none {IMAGE} python train.py --num-workers 4",
        f"docker run --gpus all --ipc none {IMAGE} python train.py --num-workers=4",
        f"podman run --device nvidia.com/gpu=all --ipc=none {IMAGE} torchrun --nproc_per_node=2 train.py",
        f"docker create --gpus 2 --ipc=none {IMAGE} torchrun --nproc_per_node=2 train.py",
    ],
)
def test_a_docker_run_gpu_line_with_ipc_none_gets_exactly_shm013(line: str) -> None:
    result = check("run.sh", f"#!/bin/sh\n{line}\n")
    assert [f.code for f in result.findings] == ["SHM013"]
    (finding,) = result.findings
    assert finding.severity is Severity.ERROR and finding.slug == "ipc-none"
    assert "--ipc" in line[finding.span.column - 1 :][:6]  # it points at the --ipc option


def test_the_finding_points_at_the_compose_ipc_value() -> None:
    (finding,) = check("compose.yaml", compose("    ipc: none\n")).findings
    assert (finding.span.line, finding.span.column) == (5, 10)


def test_a_cpu_workload_with_ipc_none_is_left_alone() -> None:
    assert codes("run.sh", "docker run --ipc=none redis:7\n") == []
    assert codes("compose.yaml", "services:\n  cache:\n    image: redis:7\n    ipc: none\n") == []


@pytest.mark.parametrize(
    ("mount", "expected"),
    [
        ("--tmpfs /dev/shm:size=8g", []),
        ("--mount type=tmpfs,destination=/dev/shm,tmpfs-size=8589934592", []),
        ("--tmpfs /dev/shm", ["SHM003"]),  # the tmpfs decides, unsized: judged as any tmpfs is
        ("--tmpfs /dev/shm:size=64m", ["SHM005"]),
    ],
)
def test_a_tmpfs_mounted_at_dev_shm_despite_ipc_none_is_judged_instead(mount: str, expected: list[str]) -> None:
    assert codes("run.sh", f"docker run --gpus all --ipc=none {mount} {IMAGE} python t.py\n") == expected


def test_an_unresolvable_expansion_lowers_it_to_a_warning() -> None:
    (finding,) = check(
        "run.sh", f"docker run --gpus all --ipc=none $EXTRA {IMAGE} torchrun --nproc_per_node=2 t.py\n"
    ).findings
    assert finding.code == "SHM013" and finding.severity is Severity.WARNING
    assert "$EXTRA" in finding.detail


def test_the_fix_is_unsafe_and_makes_the_namespace_private_with_a_size() -> None:
    text = f"docker run --gpus all --ipc none {IMAGE} python t.py\n"
    (finding,) = check("run.sh", text).findings
    assert finding.fix is not None and finding.fix.applicability is Applicability.UNSAFE
    assert fixed("run.sh", text, unsafe=False) == text
    after = fixed("run.sh", text, unsafe=True)
    assert after == f"docker run --gpus all --ipc=private --shm-size=8g {IMAGE} python t.py\n"
    assert codes("run.sh", after) == []


def test_a_size_already_written_is_kept_and_takes_effect_once_private() -> None:
    text = compose('    ipc: none\n    shm_size: "16gb"\n')
    assert codes("compose.yaml", text) == ["SHM013"]
    after = fixed("compose.yaml", text, unsafe=True)
    assert after == compose('    ipc: private\n    shm_size: "16gb"\n')
    assert codes("compose.yaml", after) == []


def test_compose_fix_adds_shm_size_to_the_service() -> None:
    after = fixed("compose.yaml", compose("    ipc: none\n"), unsafe=True)
    assert after == compose('    ipc: private\n    shm_size: "8gb"\n')


@pytest.mark.parametrize(
    "text",
    [
        # merged in from an anchor other services share
        "x-locked: &locked\n  ipc: none\nservices:\n  train:\n    <<: *locked\n    image: "
        + IMAGE
        + "\n    gpus: all\n",
        # spelled through a variable's default
        compose("    ipc: ${IPC_MODE:-none}\n"),
    ],
)
def test_no_fix_when_the_setting_is_not_the_services_own_literal(text: str) -> None:
    (finding,) = check("compose.yaml", text).findings
    assert finding.code == "SHM013" and finding.fix is None


def test_shm001_does_not_report_it_too() -> None:
    """``none`` is a decision about /dev/shm, not its absence: SHM001 (64 MiB default) would be wrong here."""
    line = f"docker run --gpus all --ipc=none {IMAGE} python t.py\n"
    assert "SHM001" not in codes("run.sh", line)
    assert codes("run.sh", line.replace("--ipc=none ", "")) == ["SHM001"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("--ipc=none --ipc=shareable --shm-size 8g", []),
        ("--ipc=host --ipc=private --shm-size 8g", []),
        ("--ipc=host --ipc=none", ["SHM013"]),
        ("--ipc none --ipc host", ["SHM007"]),
    ],
)
def test_the_last_ipc_option_is_the_one_docker_keeps(options: str, expected: list[str]) -> None:
    """``--ipc`` is a string option: docker and podman keep the last one, as they keep the last ``--shm-size``."""
    assert codes("run.sh", f"docker run --gpus all {options} vllm/vllm-openai:latest\n") == expected
