"""Manifests named as templates (``x.yaml.template``, ``x.yaml-template``, ``x.yml.tmpl``, ``x.yaml.j2``...): read
as YAML when they are plain YAML with envsubst placeholders, reported as not checked otherwise (never silent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import kind_by_name
from shmlint.format_descriptor import FileKind
from shmlint.runner import check_paths
from shmlint.settings import Settings

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: trainer}}
spec:
  containers:
  - name: trainer
    image: {image}
    command: [torchrun, --nproc_per_node=4, train.py]
    resources: {{limits: {{nvidia.com/gpu: 4}}}}
"""


@pytest.mark.parametrize(
    "name",
    ["job.yaml.template", "job.yml.template", "job.yaml-template", "job.yml.tmpl", "job.yaml.j2", "JOB.YAML.TPL"],
)
def test_template_names_are_yaml_templates(name: str) -> None:
    assert kind_by_name(name) is FileKind.YAML_TEMPLATE
    assert kind_by_name("job.yaml") is FileKind.YAML and kind_by_name("notes.template") is None


def _check(tmp_path: Path, name: str, image: str):
    (tmp_path / name).write_text(POD.format(image=image), encoding="utf-8")
    return check_paths(Settings(), [tmp_path], jobs=1)


def test_an_envsubst_template_is_read(tmp_path: Path) -> None:
    report = _check(tmp_path, "pod.yaml-template", "${REGISTRY}/trainer:${TAG}")
    assert [(f.code, f.severity.label) for f in report.findings] == [("SHM001", "error")]
    assert not report.notices


@pytest.mark.parametrize(
    ("image", "said"),
    [
        ("{{ image }}", "template (Helm/Jinja markers): not plain YAML, not checked"),  # a Jinja action
        ("@IMAGE@", "a template that is not plain YAML (invalid YAML"),  # configure_file's placeholder
    ],
)
def test_a_template_that_is_not_plain_yaml_is_reported_not_checked(tmp_path: Path, image: str, said: str) -> None:
    report = _check(tmp_path, "pod.yaml.j2", image)
    assert not report.findings  # not SHM000 either: a template is not broken YAML
    ((notice),) = report.notices
    assert said in notice.message and notice.path.endswith("pod.yaml.j2")
