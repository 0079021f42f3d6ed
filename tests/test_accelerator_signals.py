"""Accelerator signals are identical in every format: each entry of the one table (``signals.ACCELERATORS``) makes
a workload a GPU workload in Kubernetes, compose and a ``docker run`` line, through the default prefilter.

Device nodes are not a Kubernetes signal: there a device plugin hands them over as an extended resource, which is
the resource entry of the same accelerator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.signals import ACCELERATORS
from shmlint.source import SourceText

ENGINE = Engine(Settings())
POD = "apiVersion: v1\nkind: Pod\nmetadata: {{name: x}}\nspec:\n{spec}  containers:\n  - name: main\n    image: busybox\n{container}"
COMPOSE = "services:\n  main:\n    image: busybox\n{service}"
RUN = "#!/bin/sh\ndocker run {options} busybox sleep 1\n"


def _cases() -> Iterator[tuple[str, str, str, FileKind, str]]:
    """(accelerator, signal, file name, kind, text) for every entry of the table in every format it applies to."""
    for accelerator in ACCELERATORS:
        for glob in accelerator.resources:
            resource = glob.replace("*", "1g.5gb")
            yield (
                accelerator.name,
                resource,
                "pod.yaml",
                FileKind.YAML,
                POD.format(spec="", container=f"    resources:\n      limits:\n        {resource}: 1\n"),
            )
            yield (
                accelerator.name,
                resource,
                "compose.yaml",
                FileKind.YAML,
                COMPOSE.format(service=f"    devices:\n      - {resource}=all\n"),
            )
            yield accelerator.name, resource, "run.sh", FileKind.SHELL, RUN.format(options=f"--device {resource}=all")
        for runtime in accelerator.runtimes:
            yield (
                accelerator.name,
                runtime,
                "pod.yaml",
                FileKind.YAML,
                POD.format(spec=f"  runtimeClassName: {runtime}\n", container=""),
            )
            yield (
                accelerator.name,
                runtime,
                "compose.yaml",
                FileKind.YAML,
                COMPOSE.format(service=f"    runtime: {runtime}\n"),
            )
            yield accelerator.name, runtime, "run.sh", FileKind.SHELL, RUN.format(options=f"--runtime={runtime}")
        for variable in accelerator.envs:
            yield (
                accelerator.name,
                variable,
                "pod.yaml",
                FileKind.YAML,
                POD.format(spec="", container=f"    env:\n    - name: {variable}\n      value: all\n"),
            )
            yield (
                accelerator.name,
                variable,
                "compose.yaml",
                FileKind.YAML,
                COMPOSE.format(service=f"    environment:\n      {variable}: all\n"),
            )
            yield accelerator.name, variable, "run.sh", FileKind.SHELL, RUN.format(options=f"-e {variable}=all")
        for prefix in accelerator.devices:
            node = f"{prefix}/renderD128" if prefix == "/dev/dri" else f"{prefix}0"
            yield (
                accelerator.name,
                node,
                "compose.yaml",
                FileKind.YAML,
                COMPOSE.format(service=f"    devices:\n      - {node}:{node}\n"),
            )
            yield accelerator.name, node, "run.sh", FileKind.SHELL, RUN.format(options=f"--device {node}")


CASES = list(_cases())


@pytest.mark.parametrize(
    ("accelerator", "signal", "name", "kind", "text"), CASES, ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES]
)
def test_every_signal_is_recognised_in_every_format(
    accelerator: str, signal: str, name: str, kind: FileKind, text: str
) -> None:
    result = ENGINE.check_source(SourceText(name, text), kind, Path(name))
    evidence = [e.text for w in result.workloads for e in w.gpu]
    assert evidence, f"{accelerator} signal {signal} not recognised in {name}:\n{text}"
    assert any(signal.lower() in e.lower() or signal.split("=")[0] in e for e in evidence), evidence


def test_the_issues_habana_examples() -> None:
    for options in ("--runtime=habana", "-e HABANA_VISIBLE_DEVICES=all"):
        text = RUN.format(options=options)
        result = ENGINE.check_source(SourceText("run.sh", text), FileKind.SHELL, Path("run.sh"))
        assert [f.code for f in result.findings] == ["SHM001"], (options, result.findings)


def test_the_table_covers_every_accelerator_family() -> None:
    names = " ".join(accelerator.name for accelerator in ACCELERATORS)
    for family in ("NVIDIA", "AMD", "Intel", "Gaudi", "Neuron", "TPU"):
        assert family in names
