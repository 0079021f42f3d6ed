"""A file reached through several rendered kustomize overlays gives one finding per source location, whose detail
names every overlay whose output showed it: a base under a dev and a prod overlay is one SHM001 at the
base's container, not three (one at the base, one at each overlay's kustomization.yaml)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      containers:
        - name: train
          image: pytorch/pytorch:2.3.0
          command: [torchrun, train.py]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
SHM_PATCH = """\
- op: add
  path: /spec/template/spec/volumes
  value: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}]
- op: add
  path: /spec/template/spec/containers/0/volumeMounts
  value: [{name: dshm, mountPath: /dev/shm}]
"""


@pytest.fixture(autouse=True)
def _kubectl() -> None:
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is part of this machine image; kustomize overlays cannot be rendered without it")


def _tree(root: Path, *, prod_patch: bool = False, prefix: bool = False) -> None:
    base = root / "base"
    base.mkdir(parents=True)
    (base / "deployment.yaml").write_text(DEPLOYMENT)
    (base / "kustomization.yaml").write_text("resources:\n  - deployment.yaml\n")
    for overlay in ("dev", "prod"):
        folder = root / "overlays" / overlay
        folder.mkdir(parents=True)
        text = "resources:\n  - ../../base\n"
        if prefix:
            text += f"namePrefix: {overlay}-\n"
        if prod_patch and overlay == "prod":
            (folder / "shm.yaml").write_text(SHM_PATCH)
            text += "patches:\n  - path: shm.yaml\n    target: {kind: Deployment, name: trainer}\n"
        (folder / "kustomization.yaml").write_text(text)


def _findings(invoke, root: Path, *args: str) -> list[dict]:
    result = invoke("check", "--format", "json", *args, str(root))
    assert result.exit_code == 1, result.output
    return json.loads(result.output)["findings"]


def test_a_base_under_two_overlays_is_one_finding_naming_each_output(tmp_path: Path, invoke) -> None:
    _tree(tmp_path)
    (finding,) = _findings(invoke, tmp_path)
    assert finding["code"] == "SHM001"
    assert (finding["path"], finding["line"]) == (str(tmp_path / "base" / "deployment.yaml"), 9)
    for unit in ("base", "overlays/dev", "overlays/prod"):
        assert f"`kubectl kustomize {tmp_path / unit}`" in finding["detail"], finding["detail"]
    # the one-line message stays the rule's own: three paths made it hundreds of characters long
    assert "kustomize" not in finding["message"] and len(finding["message"]) < 200, finding["message"]
    assert finding["detail"].startswith(finding["workload"]), finding["detail"]


def test_a_name_prefix_still_maps_to_the_base_and_is_said_once(tmp_path: Path, invoke) -> None:
    """``namePrefix: dev-`` renames the rendered Deployment; it is still the base's container."""
    _tree(tmp_path, prefix=True)
    (finding,) = _findings(invoke, tmp_path)
    assert (finding["path"], finding["line"]) == (str(tmp_path / "base" / "deployment.yaml"), 9)
    assert finding["message"].startswith('Deployment/trainer, container "train"'), finding["message"]
    assert finding["detail"].startswith('Deployment/trainer, container "train"'), finding["detail"]
    assert "overlays/dev" in finding["detail"] and "overlays/prod" in finding["detail"]


def test_only_the_overlays_that_show_the_problem_are_named(tmp_path: Path, invoke) -> None:
    """prod patches a sized /dev/shm in: its output is clean, so the finding names base and dev only."""
    _tree(tmp_path, prod_patch=True)
    (finding,) = _findings(invoke, tmp_path)
    assert f"`kubectl kustomize {tmp_path / 'overlays' / 'dev'}`" in finding["detail"]
    assert "overlays/prod" not in finding["detail"]


def test_a_resource_file_also_checked_on_its_own_keeps_its_own_fixable_finding(tmp_path: Path, invoke) -> None:
    """A kustomization names a file in a subfolder: the file is checked on its own too (with a fix), and the
    rendered output repeats nothing at the kustomization."""
    (tmp_path / "app" / "workloads").mkdir(parents=True)
    (tmp_path / "app" / "workloads" / "deployment.yaml").write_text(DEPLOYMENT)
    (tmp_path / "app" / "kustomization.yaml").write_text("resources:\n  - workloads/deployment.yaml\n")
    (finding,) = _findings(invoke, tmp_path)
    assert (finding["path"], finding["line"]) == (str(tmp_path / "app" / "workloads" / "deployment.yaml"), 9)
    assert finding["fixable"] and "found in the output" not in finding["detail"]


def test_an_overlay_checked_alone_points_at_the_base_file(tmp_path: Path, invoke) -> None:
    """Only the overlay is named on the command line: the finding still points at the container in the base."""
    _tree(tmp_path)
    (finding,) = _findings(invoke, tmp_path / "overlays" / "dev")
    assert (finding["path"], finding["line"]) == (str(tmp_path / "base" / "deployment.yaml"), 9)
