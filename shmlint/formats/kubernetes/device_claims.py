"""Dynamic Resource Allocation: a container's GPUs asked for through a resource claim (``resources.claims``, the pod's
``resourceClaims`` naming a ResourceClaimTemplate or a ResourceClaim) rather than a device plugin's count.

A claim is a GPU when the template or claim it names, in the same file, asks for a device class of GPUs
(``gpu.nvidia.com``, ``mig.nvidia.com``, ``gpu.amd.com``, ``gpu.intel.com``); one the file does not hold is a GPU
when its names say so (``single-gpu``). Audit73a: a ``torchrun`` pod whose GPU came through a claim had no finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, scalar, sequence

#: the kinds that hold device requests, and where each keeps them
_CLAIM_KINDS = {"ResourceClaimTemplate": ("spec", "spec", "devices"), "ResourceClaim": ("spec", "devices")}
#: a device class, or a claim's names, that stand for GPUs
_GPU = LazyRegex(r"gpu|\bmig\b", re.IGNORECASE)
#: a pod's claim names the template or claim it is made from, directly (v1) or under ``source`` (older alphas)
_NAMED = ("resourceClaimTemplateName", "resourceClaimName")


def device_classes(m: Mappings, objects: list[MappingNode]) -> Mapping[str, str]:
    """The device class each ResourceClaimTemplate and ResourceClaim of the file asks for first, by its name."""
    found: dict[str, str] = {}
    for obj in objects:
        path = _CLAIM_KINDS.get(scalar(m.get(obj, "kind")) or "")
        name = scalar(m.path(obj, "metadata", "name"))
        if path is None or not name:
            continue
        classes = list(_requested_classes(m, m.path(obj, *path, "requests")))
        if classes:
            found.setdefault(name, classes[0])
    return found


def _requested_classes(m: Mappings, requests: Node | None) -> Iterator[str]:
    """``requests[].deviceClassName`` (v1beta1), ``.exactly.deviceClassName`` and ``.firstAvailable[]`` (v1)."""
    for request in sequence(requests):
        for holder in (request, m.get(request, "exactly"), *sequence(m.get(request, "firstAvailable"))):
            device_class = scalar(m.get(holder, "deviceClassName"))
            if device_class:
                yield device_class


def claimed_gpu(m: Mappings, spec: Node, container: Node, classes: Mapping[str, str]) -> tuple[Node, str] | None:
    """The container's first claim that is a GPU, and how a message says it (``resource claim gpus
    (gpu.nvidia.com)``); None when it claims none."""
    made_from = {scalar(m.get(claim, "name")): claim for claim in sequence(m.get(spec, "resourceClaims"))}
    for claim in sequence(m.path(container, "resources", "claims")):
        name = scalar(m.get(claim, "name")) or ""
        entry = made_from.get(name)
        if not name or entry is None:
            continue
        target = next(
            (
                found
                for key in _NAMED
                for holder in (entry, m.get(entry, "source"))
                if (found := scalar(m.get(holder, key)))
            ),
            "",
        )
        device_class = classes.get(target)
        if device_class is not None and _GPU.search(device_class):
            return claim, f"resource claim {name} ({device_class})"
        if device_class is None and _GPU.search(f"{name} {target}"):
            return claim, f"resource claim {name}" + (f" ({target})" if target else "")
    return None
