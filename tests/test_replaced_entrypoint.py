"""A container with no accelerator that replaces its image's entrypoint runs that command, not the image's server
(``need._replaced_on_the_cpu``): a cache master or a client in a serving image is judged by its own command."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.runner import check_paths
from shmlint.settings import Settings

_POD = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: d}}
spec:
  template:
    spec:
      containers:
        - name: main
          image: lmsysorg/sglang:v0.5.5
{fields}
"""


def _missing(root: Path, name: str, text: str) -> list[str]:
    (root / name).write_text(text)
    report = check_paths(Settings(undecided="show"), [root / name], jobs=1)
    return [f.severity.label for f in report.findings if f.code == "SHM001"]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        # the serving image's own server, started by its default command or named again: it needs /dev/shm
        ("", ["error"]),
        ("          args: [python3, -m, sglang.launch_server, --model-path, m]", ["error"]),
        ("          command: [python3, -m, sglang.launch_server, --model-path, m]", ["error"]),
        # another program in its place: the image's name says nothing of it
        ("          command: [mooncake_master]\n          args: [--rpc_port, '50051']", []),
        ("          command: [/bin/sh, -c, 'python3 bench_client.py --url http://server:30000']", []),
        # with an accelerator the image stays evidence: its entrypoint is as often a wrapper that starts the server
        ("          command: [/start.sh]\n          resources: {limits: {nvidia.com/gpu: 1}}", ["error"]),
    ],
)
def test_kubernetes_command_on_the_cpu(tmp_path: Path, fields: str, expected: list[str]) -> None:
    assert _missing(tmp_path, "d.yaml", _POD.format(fields=fields)) == expected


@pytest.mark.parametrize(
    ("service", "expected"),
    [
        ("image: lmsysorg/sglang:v0.5.5\n    command: python3 -m sglang.launch_server --model-path m", ["error"]),
        ("image: lmsysorg/sglang:v0.5.5\n    entrypoint: [mooncake_store]", []),
    ],
)
def test_compose_entrypoint_on_the_cpu(tmp_path: Path, service: str, expected: list[str]) -> None:
    assert _missing(tmp_path, "compose.yaml", f"services:\n  s:\n    {service}\n") == expected


def test_docker_run_entrypoint_on_the_cpu(tmp_path: Path) -> None:
    script = "docker run --entrypoint mooncake_master lmsysorg/sglang:v0.5.5\ndocker run lmsysorg/sglang:v0.5.5\n"
    assert _missing(tmp_path, "run.sh", script) == ["error"]
