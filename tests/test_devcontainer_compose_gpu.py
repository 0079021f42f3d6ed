"""A compose-based dev container with ``hostRequirements.gpu``: the devcontainers CLI reserves a GPU for its service
(devcontainers/cli ``src/spec-node/dockerCompose.ts``, ``generateFeaturesComposeOverrideContent``: ``deploy:
resources: reservations: devices: [{capabilities: [gpu]}]`` whenever the value is set and the host has GPUs), so the
service is judged, and fixed in its compose file, like the same service with that reservation written out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from shmlint.results import FileResult

SERVICE = """services:
  trainer:
    image: pytorch/pytorch:2.4.0-cuda12.1-cudnn9-runtime
    command: torchrun --nproc_per_node=2 train.py
"""
RESERVED = (
    SERVICE
    + """    deploy:
      resources:
        reservations:
          devices:
            - capabilities: [gpu]
"""
)


def _check(engine: Engine, path: Path) -> FileResult:
    (candidate,) = discover([path])
    return engine.check_candidate(candidate)


def _dev_container(root: Path, gpu: object, compose: str = "../compose.yaml", service: str = "trainer") -> Path:
    (root / ".devcontainer").mkdir(parents=True)
    config = {"dockerComposeFile": [compose], "service": service, "hostRequirements": {"gpu": gpu}}
    (root / ".devcontainer" / "devcontainer.json").write_text(json.dumps(config))
    (root / "compose.yaml").write_text(SERVICE)
    return root / "compose.yaml"


def _shape(result: FileResult) -> list[tuple[object, ...]]:
    return [
        (
            f.code,
            f.severity,
            f.span.line,
            f.span.column,
            (f.fix.action, f.fix.title, f.fix.size_bytes) if f.fix else None,
        )
        for f in result.findings
    ]


@pytest.mark.parametrize("gpu", [True, "optional", {"cores": 2, "memory": "16gb"}], ids=["true", "optional", "object"])
def test_the_service_is_judged_with_the_gpu_reservation(engine: Engine, tmp_path: Path, gpu: object) -> None:
    compose = _dev_container(tmp_path / "dev", gpu)
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "compose.yaml").write_text(RESERVED)
    dev, plain = _check(engine, compose), _check(engine, tmp_path / "plain" / "compose.yaml")
    assert [f.code for f in plain.findings] == ["SHM001"]
    assert _shape(dev) == _shape(plain)
    (workload,) = dev.workloads
    assert [e.text.split(" in ")[0] for e in workload.gpu] == [
        f"hostRequirements.gpu: {json.dumps(gpu) if not isinstance(gpu, dict) else '{...}'}"
    ]


def test_the_fix_writes_shm_size_in_the_compose_file(engine: Engine, tmp_path: Path) -> None:
    compose = _dev_container(tmp_path, "optional")
    (candidate,) = discover([compose])
    result = engine.check_candidate(candidate)
    assert result.source is not None
    fixed = fix_source(engine, result.source, candidate.kind, candidate.path)
    assert 'shm_size: "8gb"' in fixed.text and fixed.text.startswith(SERVICE.rstrip("\n"))


@pytest.mark.parametrize(
    ("gpu", "compose", "service"),
    [(False, "../compose.yaml", "trainer"), (True, "../other.yaml", "trainer"), (True, "../compose.yaml", "web")],
    ids=["gpu-false", "another-compose-file", "another-service"],
)
def test_no_reservation_where_the_cli_adds_none(
    engine: Engine, tmp_path: Path, gpu: object, compose: str, service: str
) -> None:
    path = _dev_container(tmp_path, gpu, compose, service)
    assert not _check(engine, path).workloads[0].gpu


def test_the_dev_container_note_says_where_the_service_is_judged(engine: Engine, tmp_path: Path) -> None:
    _dev_container(tmp_path, True)
    (notice,) = _check(engine, tmp_path / ".devcontainer" / "devcontainer.json").notices
    assert "with the GPU reservation hostRequirements.gpu adds; runArgs do not apply" in notice.message


@pytest.mark.parametrize(
    ("config", "compose", "listed"),
    [
        (".devcontainer/devcontainer.json", ".devcontainer/docker-compose.yml", "docker-compose.yml"),
        (".devcontainer/gpu/devcontainer.json", "compose.yaml", "../../compose.yaml"),
        (".devcontainer/gpu/devcontainer.json", ".devcontainer/compose.yaml", "../compose.yaml"),
        (".devcontainer.json", "compose.yaml", "compose.yaml"),
    ],
    ids=["template-layout", "named-config", "named-config-beside", "dotfile"],
)
def test_the_layouts_dev_containers_come_in(
    engine: Engine, tmp_path: Path, config: str, compose: str, listed: str
) -> None:
    (tmp_path / config).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / compose).parent.mkdir(parents=True, exist_ok=True)
    settings = {"dockerComposeFile": listed, "service": "trainer", "hostRequirements": {"gpu": True}}
    (tmp_path / config).write_text(json.dumps(settings))
    (tmp_path / compose).write_text(SERVICE)
    assert [f.code for f in _check(engine, tmp_path / compose).findings] == ["SHM001"]
