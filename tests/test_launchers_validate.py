"""``shmlint validate`` can probe Terraform and Python launcher workloads: the harness derives each one's /dev/shm
from the same model the rules use, and after ``shmlint fix`` the flagged ones get a sized /dev/shm to probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.validate.backends import Provision, ShmSpec
from shmlint.validate.harness import cases_for
from tests.support import FIXTURES

GIB = 1024**3
#: fixture -> what the probe gets before and after ``shmlint fix``
EXPECTED = {
    "terraform/SHM001-docker-container.tf": (Provision.DEFAULT, Provision.IPC_SIZE, 8 * GIB),
    "terraform/SHM001-ecs-jsonencode.tf": (Provision.DEFAULT, Provision.IPC_SIZE, 8 * GIB),
    "terraform/SHM001-kubernetes-deployment.tf": (Provision.DEFAULT, Provision.MOUNT_TMPFS, 8 * GIB),
    "terraform/SHM005-batch-heredoc.tf": (Provision.IPC_SIZE, Provision.IPC_SIZE, 8 * GIB),
    "python/SHM001-docker-sdk.py": (Provision.DEFAULT, Provision.IPC_SIZE, 8 * GIB),
    "python/SHM001-flyte-gpu.py": (Provision.DEFAULT, Provision.MOUNT_TMPFS, 8 * GIB),
    "python/SHM001-metaflow-batch.py": (Provision.DEFAULT, Provision.IPC_SIZE, 8 * GIB),
    "python/SHM005-metaflow-kubernetes-constant.py": (Provision.MOUNT_TMPFS, Provision.MOUNT_TMPFS, 8 * GIB),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_flagged_launchers_are_probed_as_written_and_as_fixed(engine: Engine, name: str) -> None:
    before, after, size = EXPECTED[name]
    (candidate,) = discover([Path(FIXTURES / name)])
    cases = cases_for(engine, candidate)
    written = [c for c in cases if not c.fixed]
    fixed = [c for c in cases if c.fixed]
    assert written and fixed and all(c.flagged for c in written)
    assert all(isinstance(c.shm, ShmSpec) and c.shm.provision is before for c in written)
    assert all(isinstance(c.shm, ShmSpec) and (c.shm.provision, c.shm.bytes) == (after, size) for c in fixed)
    assert not any(c.codes for c in fixed)
