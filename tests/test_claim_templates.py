"""A StatefulSet's or an Argo Workflow's ``volumeClaimTemplates`` mounted at /dev/shm: the controller adds a
persistent volume claim of the template's name to the pod (the StatefulSet controller's ``updateStorage`` puts it in
place of a pod volume of that name), so /dev/shm is on a disk-backed claim (SHM006), not the 64 MiB default. It was
read as a mount with no volume: SHM001 "has 64 MiB", and a fix that added an emptyDir of the claim's name, which the
controller drops."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from tests.support import run_shmlint

CONTAINER = """\
        - name: main
          image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
          command: [torchrun, --nproc_per_node, "4", train.py]
          resources: {limits: {nvidia.com/gpu: 4}}
          volumeMounts:
            - {name: dshm, mountPath: /dev/shm}
"""

CLAIM = """\
    - metadata:
        name: dshm
      spec:
        accessModes: [ReadWriteOnce]
        resources: {requests: {storage: 10Gi}}
"""

STATEFULSET = f"""\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: train
spec:
  serviceName: train
  selector: {{matchLabels: {{app: train}}}}
  template:
    metadata: {{labels: {{app: train}}}}
    spec:
      containers:
{CONTAINER}@VOLUMES@  volumeClaimTemplates:
{CLAIM}"""

WORKFLOW = f"""\
apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata:
  generateName: train-
spec:
  entrypoint: train
  volumeClaimTemplates:
{CLAIM}  templates:
    - name: train
      container:
        image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
        command: [torchrun, --nproc_per_node, "4", train.py]
        resources: {{limits: {{nvidia.com/gpu: 4}}}}
        volumeMounts:
          - {{name: dshm, mountPath: /dev/shm}}
"""

SAME_NAMED_EMPTY_DIR = "      volumes:\n        - {name: dshm, emptyDir: {medium: Memory, sizeLimit: 8Gi}}\n"


def findings(engine: Engine, path: Path) -> list[tuple[str, int, str]]:
    (candidate,) = discover([path])
    return [(f.code, f.span.line, f.message) for f in engine.check_candidate(candidate).findings]


@pytest.mark.parametrize(
    ("text", "line"),
    [(STATEFULSET.replace("@VOLUMES@", ""), 20), (WORKFLOW, 9)],
    ids=["statefulset", "argo-workflow"],
)
def test_a_claim_template_at_dev_shm_is_a_disk_backed_volume(
    engine: Engine, tmp_path: Path, text: str, line: int
) -> None:
    path = tmp_path / "train.yaml"
    path.write_text(text, encoding="utf-8")
    ((code, at, message),) = findings(engine, path)
    assert (code, at) == ("SHM006", line), message  # the claim template's ``name: dshm``
    assert 'persistentVolumeClaim volume "dshm", on disk' in message
    result = run_shmlint("fix", "--write", str(path), cwd=tmp_path)
    assert result.returncode == 1 and path.read_text(encoding="utf-8") == text  # no fix writes over it; SHM006 stays


def test_the_claim_wins_over_a_pod_volume_of_its_name(engine: Engine, tmp_path: Path) -> None:
    """The StatefulSet controller replaces a pod volume named like a claim template with the claim: the Memory
    emptyDir written in the pod template never reaches the pod."""
    path = tmp_path / "train.yaml"
    path.write_text(STATEFULSET.replace("@VOLUMES@", SAME_NAMED_EMPTY_DIR), encoding="utf-8")
    assert [code for code, _, _ in findings(engine, path)] == ["SHM006"]
