"""Where the Terraform fixer writes (``Workload.target`` of a container resource). Plain data, so it crosses process
boundaries; the extractor makes it and the writer reads it."""

from __future__ import annotations

from shmlint.named_tuple import NamedTuple


class HclTarget(NamedTuple):
    """Where the Terraform fixer writes, by offsets of closing braces (plain data that crosses processes).

    ``shape`` says what the resource is: ``pod`` (a Kubernetes provider pod spec: ``outer`` closes the pod spec
    block, ``inner`` the container block), ``docker`` (``outer`` closes the ``docker_container`` resource), or
    ``ecs-hcl``/``ecs-json`` (``outer`` closes the container definition object written in HCL or in JSON).
    ``size_slots`` pair a declaration without a size (by its span start) with the brace its size goes before."""

    shape: str
    outer: int
    inner: int = -1
    volume_names: frozenset[str] = frozenset()
    size_slots: tuple[tuple[int, int], ...] = ()
