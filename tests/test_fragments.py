"""Fragments are judged where they are completed, never alone: a pod spec without apiVersion and kind (a snippet,
a values fragment) and a core object whose containers name no image (a kustomize patch) hold no workload; a note
says so, so nothing is silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.source import SourceText

VLLM = "image: vllm/vllm-openai:v0.6.0"
SNIPPET = f"containers:\n- name: serve\n  {VLLM}\n  resources:\n    limits:\n      nvidia.com/gpu: 1\n"
SPEC_ONLY = f"spec:\n  containers:\n  - name: serve\n    {VLLM}\n    resources: {{limits: {{nvidia.com/gpu: 1}}}}\n"
PATCH = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: serve
spec:
  template:
    spec:
      containers:
      - name: serve
        resources:
          limits:
            nvidia.com/gpu: 2
"""
CRON_PATCH = """\
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: train
            args: [torchrun, train.py]
            resources: {limits: {nvidia.com/gpu: 1}}
"""


def check(engine: Engine, text: str, name: str = "part.yaml"):
    return engine.check_source(SourceText(name, text), FileKind.YAML, Path(name))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (SNIPPET, "without apiVersion and kind"),
        (SPEC_ONLY, "without apiVersion and kind"),
        (PATCH, "a Deployment whose containers name no image"),
        (CRON_PATCH, "a CronJob whose containers name no image"),
    ],
    ids=["containers-snippet", "spec-snippet", "deployment-patch", "cronjob-patch"],
)
def test_a_fragment_is_noted_not_judged(engine: Engine, text: str, why: str) -> None:
    result = check(engine, text)
    assert result.findings == () and result.workloads == ()
    (notice,) = result.notices
    assert why in notice.message and "line 1" in notice.message


def test_the_whole_object_is_still_judged(engine: Engine) -> None:
    whole = PATCH.replace("      - name: serve\n", f"      - name: serve\n        {VLLM}\n")
    assert [f.code for f in check(engine, whole).findings] == ["SHM001"]


def test_other_kinds_may_take_their_image_from_elsewhere(engine: Engine) -> None:
    """A CRD's containers may get their image from a runtime (KServe, training runtimes): not a patch."""
    other = PATCH.replace("apiVersion: apps/v1\nkind: Deployment", "apiVersion: example.com/v1\nkind: Trainer")
    assert check(engine, other).workloads


def test_in_a_multi_document_file_only_the_fragment_is_left_out(engine: Engine) -> None:
    whole = PATCH.replace("name: serve\nspec", "name: whole\nspec").replace(
        "      - name: serve\n", f"      - name: serve\n        {VLLM}\n"
    )
    result = check(engine, PATCH + "---\n" + whole)
    assert [w.id.name for w in result.workloads] == ["whole"]
    (notice,) = result.notices
    assert "line 1:" in notice.message


def test_a_fragment_in_a_readme_block_is_noted(engine: Engine) -> None:
    text = "# Serving\n\n```yaml\n" + SNIPPET + "```\n"
    result = engine.check_source(SourceText("README.md", text), FileKind.MARKDOWN, Path("README.md"))
    assert result.findings == ()
    assert any("without apiVersion and kind" in n.message for n in result.notices)
