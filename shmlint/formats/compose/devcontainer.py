"""Dev containers that run a compose service: ``hostRequirements.gpu`` gives that service a GPU.

The devcontainers CLI writes an override file for the service a ``devcontainer.json`` names, and on a host that
supports GPUs it adds ``deploy.resources.reservations.devices: [{capabilities: [gpu]}]`` there whenever
``hostRequirements.gpu`` is set: ``true``, ``"optional"`` (which only silences the CLI's warning on a host without
GPUs) or an object (devcontainers/cli ``src/spec-node/dockerCompose.ts``, ``generateFeaturesComposeOverrideContent``).
So a compose file is judged with the reservation for the services of the dev containers beside it that use it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.model import Evidence
from shmlint.parsers.jsonc import JArray, JNode, JObject, JScalar, JsoncError, JString, parse

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

#: where a dev container configuration sits relative to the folder of the compose file it may use
_BESIDE = ("devcontainer.json", ".devcontainer.json", os.path.join(".devcontainer", "devcontainer.json"))
#: named configurations (``.devcontainer/<name>/devcontainer.json``) looked at, at most
MAX_NAMED = 32


def devcontainer_gpus(compose_path: str, files: ProjectFiles) -> dict[str, Evidence]:
    """The GPU evidence per service name, from the dev containers near ``compose_path`` (beside it, in its
    ``.devcontainer`` folder, or named configurations in either) that run one of its services with
    ``hostRequirements.gpu``."""
    folder = os.path.dirname(compose_path) or "."
    named = os.path.join(folder, ".devcontainer")
    candidates = [os.path.join(folder, name) for name in _BESIDE]
    for parent in (named, folder) if os.path.basename(os.path.abspath(folder)) == ".devcontainer" else (named,):
        candidates += [os.path.join(parent, name, "devcontainer.json") for name in _folders(files, parent)]
    found: dict[str, Evidence] = {}
    for path in candidates:
        if files.has_file(path):
            found.update(_gpu_service(path, compose_path, files))
    return found


def _folders(files: ProjectFiles, parent: str) -> list[str]:
    """The first ``MAX_NAMED`` folders in ``parent``, sorted (a hostile tree cannot make the search long)."""
    return sorted(files.folders_in(parent))[:MAX_NAMED]


def _gpu_service(path: str, compose_path: str, files: ProjectFiles) -> dict[str, Evidence]:
    source = files.source(path)
    if source is None:
        return {}
    try:
        root = parse(source.text)
    except JsoncError:
        return {}  # the file's own check reports it
    if not isinstance(root, JObject):
        return {}
    composes = root.get("dockerComposeFile")
    service = root.get("service")
    listed = [composes] if isinstance(composes, JString) else composes.items if isinstance(composes, JArray) else []
    here = os.path.dirname(path)
    uses = any(
        isinstance(node, JString) and _same_file(os.path.join(here, node.value), compose_path) for node in listed
    )
    requirements = root.get("hostRequirements")
    gpu = requirements.get("gpu") if isinstance(requirements, JObject) else None
    if not uses or not isinstance(service, JString) or gpu is None or not wants_gpu(gpu):
        return {}
    shown = source.text[gpu.start : gpu.end] if not isinstance(gpu, JObject) else "{...}"
    text = f"hostRequirements.gpu: {shown} in {source.path} (the devcontainers CLI reserves a GPU for this service)"
    return {service.value: Evidence(text, source.span(gpu.start, gpu.end))}


def wants_gpu(gpu: JNode) -> bool:
    """``true``, ``"optional"`` or an object: the CLI adds the GPU wherever the host has one; ``false`` does not."""
    return (
        (isinstance(gpu, JScalar) and gpu.value is True)
        or (isinstance(gpu, JString) and gpu.value == "optional")
        or isinstance(gpu, JObject)
    )


def _same_file(first: str, second: str) -> bool:
    return os.path.normpath(os.path.abspath(first)) == os.path.normpath(os.path.abspath(second))
