"""Kustomizations and Helm charts are checked as rendered output, with findings mapped to the files people edit."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

BASE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  selector: {matchLabels: {app: t}}
  template:
    metadata: {labels: {app: t}}
    spec:
      containers:
        - name: main
          image: busybox
"""
PATCH = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      containers:
        - name: main
          image: pytorch/pytorch:2.3.0
          command: [torchrun, --nproc_per_node=2, train.py]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
TEMPLATE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-serve
spec:
  template:
    spec:
      containers:
        - name: serve
          image: "{{ .Values.image }}"
          resources:
            limits:
              nvidia.com/gpu: {{ .Values.gpus }}
"""
RENDERED = """---
# Source: mychart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-name-serve
spec:
  template:
    spec:
      containers:
        - name: serve
          image: "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3"
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def kustomization(tmp_path: Path) -> Path:
    folder = tmp_path / "overlay"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\npatches:\n  - path: gpu.yaml\n")
    (folder / "deploy.yaml").write_text(BASE)
    (folder / "gpu.yaml").write_text(PATCH)
    return folder


def test_kustomization_is_rendered_and_mapped_to_its_files(tmp_path: Path, invoke) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    folder = kustomization(tmp_path)
    result = invoke("check", str(folder))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert f"{folder / 'gpu.yaml'}:9:11: SHM001" in result.stdout
    assert "kubectl kustomize" in result.stdout and result.stdout.count("SHM001") == 1


def test_kustomization_without_kubectl_is_checked_file_by_file(tmp_path: Path, invoke) -> None:
    folder = kustomization(tmp_path)
    python_only = str(Path(sys.executable).parent)
    result = invoke("check", str(folder), env={"PATH": python_only})
    assert "kubectl is not on PATH" in result.stdout
    # the patch is a fragment: its Deployment is the merged one, so it is named, never judged alone
    note = f"{folder / 'gpu.yaml'}: note: a kustomize patch or component file used by the kustomization in '{folder}'"
    assert note in result.stdout
    assert "SHM001" not in result.stdout and result.exit_code == 0


def test_broken_kustomization_is_reported_not_crashed_on(tmp_path: Path, invoke) -> None:
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    folder = kustomization(tmp_path)
    (folder / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\n  - deploy.yaml\n")  # an id twice
    result = invoke("check", str(folder))
    assert result.exit_code == 1 and "SHM000" in result.stdout and "could not be rendered" in result.stdout
    assert "Traceback" not in result.stderr


def test_a_broken_resource_is_said_once_where_it_is(tmp_path: Path, invoke) -> None:
    """A kustomization that cannot build because a resource it reads is not YAML: that file's own SHM000 says
    so, and the unit is not rendered (a note naming the file), not a second SHM000 for the same defect."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    folder = kustomization(tmp_path)
    (folder / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n    c: d\n")
    (folder / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\n  - broken.yaml\n")
    result = invoke("check", str(folder))
    assert result.stdout.count("SHM000") == 1 and f"{folder / 'broken.yaml'}:5:" in result.stdout, result.stdout
    assert (
        "reads 'broken.yaml', which is not valid YAML" in result.stdout and "could not be rendered" not in result.stdout
    )


@pytest.mark.parametrize("layout", ["subfolder", "base-and-overlay"])
def test_a_broken_resource_the_run_checks_is_said_once_wherever_it_is(tmp_path: Path, invoke, layout: str) -> None:
    """A resource in a folder below the kustomization's, or a base's file when the run checks the base and its
    overlay: the run checks that file, so its own SHM000 is the one (each render that fails on it is a note)."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    base = kustomization(tmp_path)
    (base / "manifests").mkdir()
    (base / "manifests" / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n    c: d\n")
    (base / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\n  - manifests/broken.yaml\n")
    if layout == "base-and-overlay":
        (tmp_path / "prod").mkdir()
        (tmp_path / "prod" / "kustomization.yaml").write_text("resources:\n  - ../overlay\n")
    result = invoke("check", str(tmp_path))
    assert result.stdout.count("SHM000") == 1 and "broken.yaml:5:" in result.stdout, result.stdout
    assert "could not be rendered" not in result.stdout


def test_a_broken_resource_whose_own_check_is_only_a_note_leaves_the_render_failure_shm000(
    tmp_path: Path, invoke
) -> None:
    """A broken resource with no GPU, torch or /dev/shm word that looks like no manifest gets only a note of its own:
    the failed render stays SHM000, or nothing would fail the gate while the unit's GPU deployment goes unjudged."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    base = kustomization(tmp_path)
    (base / "manifests").mkdir()
    (base / "manifests" / "broken.yaml").write_text("data:\n  a: b\n    c: d\n")
    (base / "kustomization.yaml").write_text(
        "resources:\n  - deploy.yaml\n  - manifests/broken.yaml\npatches:\n  - path: gpu.yaml\n"
    )
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 1 and "SHM000" in result.stdout and "could not be rendered" in result.stdout
    assert "broken.yaml: note: not valid YAML" in result.stdout


def test_a_broken_resource_outside_the_run_leaves_the_render_failure_shm000(tmp_path: Path, invoke) -> None:
    """Only a file the run checks reports its own defect: a broken file of a base above the checked overlay is
    not checked, so the overlay's failed render stays the SHM000 that says so."""
    if shutil.which("kubectl") is None:
        pytest.skip("kubectl is not on PATH: the kustomize renderer cannot be tested without it")
    base = kustomization(tmp_path)
    (base / "broken.yaml").write_text("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\n    c: d\n")
    (base / "kustomization.yaml").write_text("resources:\n  - deploy.yaml\n  - broken.yaml\n")
    overlay = tmp_path / "prod"
    overlay.mkdir()
    (overlay / "kustomization.yaml").write_text("resources:\n  - ../overlay\n")
    result = invoke("check", str(overlay))
    assert result.exit_code == 1 and "SHM000" in result.stdout and "could not be rendered" in result.stdout


@pytest.mark.parametrize(
    ("kustomization", "absent"),
    [
        ("resources:\n  - deploy.yaml\n  - generated/crds.yaml\n", "generated/crds.yaml"),
        ("resources: [deploy.yaml]\nconfigMapGenerator:\n  - name: env\n    envs: [.env]\n", ".env"),
        ("resources: [deploy.yaml]\nsecretGenerator:\n  - name: s\n    files: [key=secret.txt]\n", "secret.txt"),
        ("resources: [deploy.yaml]\npatches:\n  - path: local-patch.yaml\n", "local-patch.yaml"),
        ("resources: [deploy.yaml]\npatchesStrategicMerge: [local-patch.yaml]\n", "local-patch.yaml"),
    ],
)
def test_a_kustomization_naming_a_file_the_checkout_lacks_is_a_note_not_shm000(
    tmp_path: Path, invoke, kustomization: str, absent: str
) -> None:
    """A file made by a build step (an ``.env``, CRDs a Makefile downloads) or not committed: kustomize cannot build
    the kustomization as checked out, which says nothing of its workloads; its files are checked one by one."""
    folder = tmp_path / "overlay"
    folder.mkdir()
    (folder / "kustomization.yaml").write_text(kustomization)
    (folder / "deploy.yaml").write_text(BASE.replace("busybox", "pytorch/pytorch"))
    result = invoke("check", str(folder))
    assert result.exit_code == 0 and "SHM000" not in result.stdout, result.stdout
    assert f"names '{absent}', which is not in the checkout" in result.stdout
    assert "its files are checked one by one" in result.stdout


def chart(tmp_path: Path) -> Path:
    root = tmp_path / "mychart"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    (root / "values.yaml").write_text("image: nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3\ngpus: 1\n")
    (root / "templates" / "deployment.yaml").write_text(TEMPLATE)
    return root


def stand_in_helm(tmp_path: Path, body: str) -> str:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "helm"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}/usr/bin:/bin"


def test_chart_is_rendered_with_helm_and_mapped_to_the_template(tmp_path: Path, invoke) -> None:
    root = chart(tmp_path)
    (tmp_path / "rendered.yaml").write_text(RENDERED)
    answer = f'[ "$1" = template ] && [ "$2" = -- ] && [ "$3" = "{root}" ] && cat "{tmp_path / "rendered.yaml"}"'
    path = stand_in_helm(tmp_path, f'[ "$1" = version ] && echo v3.0.0 && exit 0; {answer}')
    result = invoke("check", str(root), env={"PATH": path})
    assert result.exit_code == 1, result.stdout + result.stderr
    assert f"{root / 'templates' / 'deployment.yaml'}:9:11: SHM001" in result.stdout
    assert "helm template" in result.stdout


def test_failing_helm_is_reported(tmp_path: Path, invoke) -> None:
    root = chart(tmp_path)
    path = stand_in_helm(tmp_path, 'echo "Error: values are broken" >&2; exit 1')
    result = invoke("check", str(root), env={"PATH": path})
    assert result.exit_code == 1 and "values are broken" in result.stdout and "Traceback" not in result.stderr


def test_chart_without_helm_gets_one_notice(tmp_path: Path, invoke) -> None:
    root = chart(tmp_path)
    (root / "templates" / "service.yaml").write_text("kind: Service\nmetadata:\n  name: {{ .Release.Name }}\n")
    result = invoke("check", str(root), env={"PATH": str(Path(sys.executable).parent)})
    assert result.exit_code == 0, result.stdout
    assert (
        result.stdout.count("Helm chart not rendered") == 1 and "SHM000" not in result.stdout
    )  # one note, and the summary


@pytest.mark.parametrize(
    "kustomization", ["resources: [{name}.yaml]\n", "configMapGenerator: [{{name: x, files: [k={name}.txt]}}]\n"]
)
def test_a_file_name_too_long_to_look_up_is_absent_not_a_crash(tmp_path: Path, invoke, kustomization: str) -> None:
    """The system refuses to look up a 300-character name (ENAMETOOLONG, which Python raises): not in the checkout."""
    (tmp_path / "kustomization.yaml").write_text(kustomization.format(name="a" * 300))
    result = invoke("check", str(tmp_path))
    assert result.exit_code == 0 and "which is not in the checkout" in result.stdout, result.stdout + result.stderr


def test_a_clean_run_with_a_chart_left_unrendered_does_not_say_all_checked(tmp_path: Path, invoke) -> None:
    """A Helm chart whose templates were not checked (no helm on PATH) is not "All checked": the summary counts the
    units left unrendered (an audit's run said "All checked: no findings" over ten charts none of which was read)."""
    root = chart(tmp_path)
    result = invoke("check", str(root), env={"PATH": str(Path(sys.executable).parent)})
    assert result.exit_code == 0, result.stdout + result.stderr
    assert "helm is not on PATH" in result.stdout and "All checked" not in result.stdout
    assert "not rendered, so not checked whole: 1 Helm chart(s), 1 of the charts asking for accelerators (above)." in (
        result.stdout
    )


def test_a_chart_left_unrendered_says_when_it_asks_for_accelerators(tmp_path: Path, invoke) -> None:
    """audit56b: an MPIJob in a chart was a real risk no note set apart from 43 charts of storage and routes. A chart
    whose files name an accelerator resource is said to ask for them, in its note, the summary and the JSON."""
    plain = tmp_path / "routes"
    (plain / "templates").mkdir(parents=True)
    (plain / "Chart.yaml").write_text("apiVersion: v2\nname: routes\nversion: 0.1.0\n")
    (plain / "templates" / "svc.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: {{ .Values.n }}}\n")
    gpu = chart(tmp_path)
    (gpu / "values.yaml").write_text("resources:\n  limits:\n    nvidia.com/gpu: 8\n")
    env = {"PATH": str(Path(sys.executable).parent)}
    result = invoke("check", str(tmp_path), env=env)
    assert "not checked whole: 2 Helm chart(s), 1 of the charts asking for accelerators (above)." in result.stdout
    assert (
        result.stdout.count("its templates, which ask for accelerators, are not checked but for plain YAML ones") == 1
    )
    units = json.loads(invoke("check", "--format", "json", str(tmp_path), env=env).stdout)["rendering"]["units"]
    assert sorted((Path(u["path"]).name, u["accelerators"]) for u in units) == [("mychart", True), ("routes", False)]


@pytest.mark.parametrize(
    "values",
    [
        "image: nginx\nresources: {}\n  # limits:\n  #   nvidia.com/gpu: 1\n",  # a comment
        "nodeSelector:\n  nvidia.com/gpu.present: 'true'\n",  # a node label, no request
    ],
)
def test_a_chart_that_only_mentions_a_gpu_does_not_ask_for_one(tmp_path: Path, invoke, values: str) -> None:
    """Only a resource written as a key asks for accelerators (review: a commented-out limit and a node label did)."""
    root = chart(tmp_path)
    (root / "templates" / "deployment.yaml").write_text("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")
    (root / "values.yaml").write_text(values)
    (root / "README.md").write_text("Set resources.limits.nvidia.com/gpu to use a GPU.\n")
    result = invoke("check", "--format", "json", str(tmp_path), env={"PATH": str(Path(sys.executable).parent)})
    (unit,) = json.loads(result.stdout)["rendering"]["units"]
    assert unit["accelerators"] is False
