"""validate and check share one model: an operator-managed /dev/shm (KubeRay) and a suppressed finding mean to
the validation harness what they mean to ``check``, so the fixture tree gives no disagreement."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.effective import ShmState, effective_shm
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.sizes import GIB
from shmlint.validate.backends import Provision, Reaper, ShmSpec
from shmlint.validate.harness import Case, Row, cases_for, render, run_cases, table_cells
from tests.support import ROOT, namespace_backend

KUBERAY_AND_SUPPRESSED = ROOT / "fixtures" / "k8s" / "good-kuberay-and-cpu.yaml"
RAY_WITH_LIMIT = """\
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
  headGroupSpec:
    template:
      spec:
        containers:
        - name: ray-head
          image: rayproject/ray-ml:2.9.0-gpu
          resources:
            limits: {nvidia.com/gpu: 1, memory: 4Gi}
"""


def _cases(path: Path) -> dict[str, list[Case]]:
    by_workload: dict[str, list[Case]] = {}
    for candidate in discover([path]):
        for case in cases_for(Engine(Settings(undecided="show")), candidate):
            by_workload.setdefault(case.workload, []).append(case)
    return by_workload


def _named(cases: dict[str, list[Case]], part: str) -> list[Case]:
    (name,) = [name for name in cases if part in name]
    return cases[name]


def test_kuberay_head_gets_the_operators_memory_tmpfs_not_the_default() -> None:
    (ray,) = _named(_cases(KUBERAY_AND_SUPPRESSED), "ray-head")
    assert ray.codes == () and not ray.flagged  # check does not flag it ...
    assert isinstance(ray.shm, ShmSpec)  # ... because KubeRay mounts a Memory emptyDir (the probe mounts it bounded)
    assert (ray.shm.provision, ray.shm.bytes) == (Provision.MOUNT_TMPFS, None)


def test_the_operators_tmpfs_is_bounded_by_the_memory_limit(tmp_path: Path) -> None:
    (tmp_path / "ray.yaml").write_text(RAY_WITH_LIMIT)
    checked = Engine(Settings(undecided="show")).check_candidate(next(iter(discover([tmp_path / "ray.yaml"]))))
    (workload,) = [w for w in checked.workloads if w.is_gpu_or_torch]
    effective = effective_shm(workload)
    assert (effective.state, effective.bytes) == (ShmState.OPERATOR, 4 * GIB)


def test_a_suppressed_finding_is_still_a_predicted_failure_and_is_not_fixed() -> None:
    cases = _named(_cases(KUBERAY_AND_SUPPRESSED), "suppressed")
    assert len(cases) == 1, "a suppressed finding is not fixed, so there is no [after fix] case"
    (case,) = cases
    assert case.codes == () and case.suppressed == ("SHM001",)
    assert case.flagged and isinstance(case.shm, ShmSpec) and case.shm.provision is Provision.DEFAULT


def test_an_undecided_finding_is_a_predicted_failure_labelled_undecided_and_not_fixed() -> None:
    """By default (``undecided: summary``) check only counts it; validate still probes the prediction."""
    path = ROOT / "fixtures" / "k8s" / "SHM001-pytorchjob.yaml"
    cases = [case for candidate in discover([path]) for case in cases_for(Engine(Settings()), candidate)]
    assert cases and all(c.codes == () and c.undecided == ("SHM001",) and c.flagged for c in cases)
    assert not any(c.fixed for c in cases)  # check does not list it, so fix does not write it
    assert all(table_cells(Row(c, "namespace", None, 0.0))[3] == "SHM001 (undecided)" for c in cases)


@pytest.fixture(scope="module")
def namespace():
    reaper = Reaper()
    yield namespace_backend(reaper), reaper
    reaper.kill_all()


@pytest.mark.validation  # a real torch DataLoader (the validation extra)
def test_probes_of_the_kuberay_and_suppressed_fixture_agree(namespace) -> None:
    backend, reaper = namespace
    cases = [case for group in _cases(KUBERAY_AND_SUPPRESSED).values() for case in group]
    rows = run_cases(cases, [backend], reaper, jobs=2)
    assert len(rows) == 2 and all(row.verdict == "yes" for row in rows), render(rows)
    assert "SHM001 (suppressed)" in render(rows)
