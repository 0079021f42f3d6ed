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
#: a device class, or a claim's names, that stand for GPUs (searched in any case; the admission policies read it)
GPU_CLAIM = r"gpu|\bmig\b"
_GPU = LazyRegex(GPU_CLAIM, re.IGNORECASE)
#: how a pod's claim names the template or the claim it is made from
NAMED = ("resourceClaimTemplateName", "resourceClaimName")


def device_classes(m: Mappings, objects: list[MappingNode]) -> Mapping[str, Mapping[str, str]]:
    """The device class each request of the file's ResourceClaimTemplates and ResourceClaims asks for, by the
    template's or claim's name, then the request's."""
    found: dict[str, Mapping[str, str]] = {}
    for obj in objects:
        path = _CLAIM_KINDS.get(scalar(m.get(obj, "kind")) or "")
        name = scalar(m.path(obj, "metadata", "name"))
        if path is not None and name:
            found.setdefault(name, dict(_requested_classes(m, m.path(obj, *path, "requests"))))
    return found


def _requested_classes(m: Mappings, requests: Node | None) -> Iterator[tuple[str, str]]:
    """Each request's name and device class: ``deviceClassName`` (v1beta1), ``exactly.deviceClassName`` and the
    first GPU class among ``firstAvailable`` (v1)."""
    for request in sequence(requests):
        name = scalar(m.get(request, "name")) or ""
        classes = [
            device_class
            for holder in (request, m.get(request, "exactly"), *sequence(m.get(request, "firstAvailable")))
            if (device_class := scalar(m.get(holder, "deviceClassName")))
        ]
        if classes:
            yield name, next((c for c in classes if _GPU.search(c)), classes[0])


def claimed_gpu(
    m: Mappings, spec: Node, container: Node, classes: Mapping[str, Mapping[str, str]]
) -> tuple[Node, str] | None:
    """The container's first claim that is a GPU, and how a message says it (``resource claim gpus
    (gpu.nvidia.com)``); None when it claims none. A claim that names one of its requests (``request: nic``) is
    that request's; one that names none, any of them."""
    made_from = {scalar(m.get(claim, "name")): claim for claim in sequence(m.get(spec, "resourceClaims"))}
    for claim in sequence(m.path(container, "resources", "claims")):
        name = scalar(m.get(claim, "name")) or ""
        entry = made_from.get(name)
        if not name or entry is None:
            continue
        target = next((found for key in NAMED if (found := scalar(m.get(entry, key)))), "")
        requests = classes.get(target)
        if requests is None:  # a template or claim of another file: its names say it
            if _GPU.search(f"{name} {target}"):
                return claim, f"resource claim {name}" + (f" ({target})" if target else "")
            continue
        asked = scalar(m.get(claim, "request")) or ""
        chosen = [requests[asked]] if asked in requests else ([] if asked else list(requests.values()))
        device_class = next((c for c in chosen if _GPU.search(c)), None)
        if device_class is not None:
            return claim, f"resource claim {name} ({device_class})"
    return None
