"""DataLoader hints: a comment on or above a workload, a Kubernetes annotation or a compose label. With one, SHM005
compares against the estimated need and the fixes write the recommended size."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.dataloader import estimate
from shmlint.discover import FileKind, kind_by_name
from shmlint.fix.apply import fix_source
from shmlint.source import SourceText
from tests.support import default_engine

ENGINE = default_engine()
HINT = "workers=4 batch=8 sample=1048576 dtype=uint8"  # (4 x 2 + 2) x 8 MiB = 80 MiB
POD = """apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
{comment}  - name: train
    image: pytorch/pytorch:2.3.0
    resources: {{limits: {{nvidia.com/gpu: 1}}}}
    volumeMounts: [{{name: dshm, mountPath: /dev/shm}}]
  volumes:
  - name: dshm
    emptyDir: {{medium: Memory, sizeLimit: {size}}}
"""


def check(name: str, text: str):
    kind = kind_by_name(Path(name)) or FileKind.YAML
    return ENGINE.check_source(SourceText(name, text), kind, Path(name)), kind


@pytest.mark.parametrize(
    "name, text",
    [
        ("pod.yaml", POD.format(comment=f"  # shmlint: dataloader {HINT}\n", size="512Mi")),
        (
            "pod.yaml",
            POD.format(comment="", size="512Mi").replace(
                "- name: train", f"- name: train  # shmlint: dataloader {HINT}"
            ),
        ),
        (
            "pod.yaml",
            POD.format(comment="", size="512Mi").replace(
                "  name: p\n", f"  name: p\n  annotations:\n    shmlint.io/dataloader: '{HINT}'\n"
            ),
        ),
        (
            "compose.yaml",
            f"services:\n  t:\n    image: pytorch/pytorch\n    gpus: all\n    shm_size: 512mb\n    labels:\n      shmlint.io/dataloader: '{HINT}'\n",
        ),
        (
            "run.sh",
            f"# shmlint: dataloader {HINT}\ndocker run --gpus all --shm-size=512m pytorch/pytorch python t.py\n",
        ),
    ],
    ids=["comment-above", "comment-on-line", "annotation", "compose-label", "shell-comment"],
)
def test_a_hint_replaces_the_fixed_minimum(name: str, text: str) -> None:
    hinted, _ = check(name, text)
    assert not hinted.findings, [f.message for f in hinted.findings]  # 512 MiB >= the 80 MiB it needs
    (workload,) = [w for w in hinted.workloads if w.is_gpu_or_torch]
    assert estimate(workload.dataloader).estimate_bytes == 80 * 1024**2
    plain, _ = check(name, text.replace(HINT, "").replace("dataloader", "note"))
    assert [f.code for f in plain.findings] == ["SHM005"]  # without it, 512 MiB is below 1 GiB (GPU work)


def test_too_small_for_the_hint_and_fixed_to_the_recommendation() -> None:
    hint = "  # shmlint: dataloader workers=8 batch=64 sample=3x224x224 dtype=float32\n"  # needs ~661 MiB
    text = POD.format(comment=hint, size="512Mi")
    result, kind = check("pod.yaml", text)
    (finding,) = result.findings
    assert finding.code == "SHM005" and "estimated need" in finding.message
    recommended = estimate(result.workloads[0].dataloader).recommended_bytes
    fixed = fix_source(ENGINE, result.source, kind, Path("pod.yaml"))
    assert f"sizeLimit: {recommended // 1024**2}Mi" in fixed.text


def test_an_unreadable_hint_is_reported_where_it_is() -> None:
    text = POD.format(comment="  # shmlint: dataloader workers=eight batch=2 sample=4\n", size="8Gi")
    result, _ = check("pod.yaml", text)
    (finding,) = result.findings
    assert finding.code == "SHM000" and (finding.span.line, finding.span.column) == (7, 25)
    assert "workers=eight" in finding.message
