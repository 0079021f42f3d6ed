"""No fix is written in a Dockerfile: /dev/shm is sized where the image runs (``docker run --shm-size``, compose
``shm_size``, a pod's Memory ``emptyDir``), which the finding says."""

from __future__ import annotations

from shmlint.model import Edit, Fix, Workload
from shmlint.source import SourceText


def can_write(fix: Fix, workload: Workload, source: SourceText) -> bool:
    return False


def edits_for(fix: Fix, workload: Workload, source: SourceText) -> list[Edit]:
    return []
