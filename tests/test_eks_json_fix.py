"""An AWS Batch job definition on EKS written in JSON gets the Kubernetes fix spelled in JSON: a Memory emptyDir in
``podProperties.volumes`` and its mount at /dev/shm, a mount for an unmounted one, a larger ``sizeLimit``."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.fix.apply import fix_source
from tests.support import FIXTURES

BASE = json.loads((FIXTURES / "aws-eks" / "SHM001-batch-eks.json").read_text())


def _variant(volume: dict | None, mounted: bool) -> dict:
    document = copy.deepcopy(BASE)
    pod = document["eksProperties"]["podProperties"]
    if volume is not None:
        pod["volumes"] = [volume]
    if mounted:
        pod["containers"][0]["volumeMounts"] = [{"name": "dshm", "mountPath": "/dev/shm"}]
    return document


@pytest.mark.parametrize(
    ("document", "code"),
    [
        (_variant(None, False), "SHM001"),
        (_variant({"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "32Mi"}}, True), "SHM005"),
        (_variant({"name": "dshm", "emptyDir": {"medium": "Memory", "sizeLimit": "8Gi"}}, False), "SHM002"),
    ],
    ids=["missing", "too-small", "unmounted"],
)
@pytest.mark.parametrize("indent", [None, 2], ids=["one-line", "indented"])
def test_the_fix_is_json_and_settles_the_finding(
    engine: Engine, tmp_path: Path, document: dict, code: str, indent: int | None
) -> None:
    path = tmp_path / "job.json"
    path.write_text(json.dumps(document, indent=indent))
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    assert code in {f.code for f in result.findings} and all(f.fix for f in result.findings if f.code == code)
    assert result.source is not None
    fixed = fix_source(engine, result.source, candidate.kind, candidate.path).text
    pod = json.loads(fixed)["eksProperties"]["podProperties"]  # still JSON
    assert {"name": "dshm", "mountPath": "/dev/shm"} in pod["containers"][0]["volumeMounts"]
    (volume,) = pod["volumes"]
    assert volume["emptyDir"]["medium"] == "Memory" and volume["emptyDir"]["sizeLimit"] in ("8Gi", "16Gi")
    path.write_text(fixed)
    assert not [f for f in engine.check_candidate(candidate).findings if f.code == code]
