"""Where the Kubernetes fixer writes (``Workload.target`` of a container in a pod spec). Plain data, so it crosses
process boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class PodTarget(NamedTuple):
    """Where the Kubernetes fixer writes: the pod spec (holds ``volumes``) and the container (holds mounts), by the
    offsets of their mappings in the file."""

    pod_start: int
    container_start: int
    volume_names: frozenset[str]
