"""What a compose service says about itself: GPU and torch evidence, its memory limit, ``NCCL_SHM_DISABLE``, and
the labels shmlint reads (``shmlint.io/ignore``, ``shmlint.io/dataloader``)."""

from __future__ import annotations

import os
import shlex

from shmlint.formats.compose.project import Found, Project, Service
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, Launch, Size, dockerfile_names
from shmlint.parsers.yamlnodes import Node, ScalarNode, SequenceNode, scalar, sequence
from shmlint.runtime import nccl
from shmlint.signals import Signals, device_count, gpu_visible, positive_count

IGNORE_LABEL = "shmlint.io/ignore"
DATALOADER_LABEL = "shmlint.io/dataloader"
_REMOTE_CONTEXT = LazyRegex(r"^[a-z][a-z0-9+.-]*://|^git@|^github\.com/")


def gpu_evidence(project: Project, service: Service, signals: Signals) -> list[Evidence]:
    evidence = _reserved_devices(project, service, signals)
    gpus = project.get(service, "gpus")
    if gpus is not None and (scalar(gpus.node) or sequence(gpus.node)):
        evidence.append(Evidence(f"gpus: {_quote(gpus)}", gpus.span))
    runtime = project.get(service, "runtime")
    if runtime is not None and signals.is_gpu_runtime(project.text(runtime) or ""):
        evidence.append(Evidence(f"runtime: {project.text(runtime)}", runtime.span))
    environment = project.entries(service, "environment")
    for name in signals.gpu_envs:
        visible = environment.get(name)
        if visible is not None and visible.value is not None and signals.is_gpu_env(name, visible.value):
            evidence.append(Evidence(f"{name}={visible.value}", visible.span))
    evidence.extend(_gpu_devices(project, service, signals))
    return evidence


def _reserved_devices(project: Project, service: Service, signals: Signals) -> list[Evidence]:
    """``deploy.resources.reservations.devices`` asking for a GPU capability or an NVIDIA driver, and swarm
    generic resources of a GPU kind."""
    m = project.m
    evidence: list[Evidence] = []
    where = "deploy.resources.reservations.devices"
    for found in project.every(service, "deploy", "resources", "reservations", "devices"):
        for device in sequence(found.node):
            count, certain = project.interpolate(scalar(m.get(device, "count")) or "all")
            if certain and count != "all" and not positive_count(count):
                continue  # none asked for; a count a variable gives no value here (``${GPU_COUNT}``, audit69b) may be any
            capabilities = m.get(device, "capabilities")
            names = [scalar(item) or "" for item in sequence(capabilities)] or [scalar(capabilities) or ""]
            driver = scalar(m.get(device, "driver")) or ""
            if "gpu" in names:
                evidence.append(Evidence(f"{where} capabilities [{', '.join(names)}]", found.span_of(capabilities)))
            elif signals.is_gpu_runtime(driver) or signals.is_gpu_resource(driver):
                evidence.append(Evidence(f"{where} driver: {driver}", found.span_of(m.get(device, "driver"))))
    for found in project.every(service, "deploy", "resources", "reservations", "generic_resources"):
        for resource in sequence(found.node):
            spec = m.get(resource, "discrete_resource_spec")
            kind = scalar(m.get(spec, "kind")) or ""
            if "gpu" in kind.lower() and positive_count(scalar(m.get(spec, "value")) or "1"):
                evidence.append(Evidence(f"generic_resources {kind}", found.span_of(spec)))
    return evidence


def accelerator_count(project: Project, service: Service, signals: Signals) -> int | None:
    """GPUs of a counted kind the service asks for: ``count: 2`` or ``device_ids`` in a device reservation or in
    ``gpus:``, a swarm generic GPU resource's value, or a counted visibility variable's list; None when nothing
    says how many (``count: all``, ``gpus: all``)."""
    m = project.m
    requested: list[int | None] = []
    requests = [
        *(
            d
            for f in project.every(service, "deploy", "resources", "reservations", "devices")
            for d in sequence(f.node)
        ),
        *(d for f in project.every(service, "gpus") for d in sequence(f.node)),
    ]
    for device in requests:
        capabilities = [scalar(item) or "" for item in sequence(m.get(device, "capabilities"))]
        if "gpu" in capabilities or signals.is_counted_runtime(scalar(m.get(device, "driver")) or ""):
            ids = sequence(m.get(device, "device_ids"))
            count, certain = project.interpolate(scalar(m.get(device, "count")) or "all")  # as compose reads it
            requested.append(_listed(project, ids) if ids else device_count(count) if certain else None)
    for found in project.every(service, "deploy", "resources", "reservations", "generic_resources"):
        for resource in sequence(found.node):
            spec = m.get(resource, "discrete_resource_spec")
            if "gpu" in (scalar(m.get(spec, "kind")) or "").lower():
                requested.append(device_count(scalar(m.get(spec, "value")) or ""))
    if requested:
        return None if None in requested else sum(count for count in requested if count is not None)
    environment = project.entries(service, "environment")
    listed = [
        device_count(visible.value)
        for name in signals.counted_envs
        if (visible := environment.get(name)) is not None and visible.value is not None and gpu_visible(visible.value)
    ]
    return max((count for count in listed if count is not None), default=None)


def _listed(project: Project, ids: list[Node]) -> int | None:
    """The GPUs ``device_ids`` lists: each entry as compose interpolates it, an entry of several (``"0,1"``, which
    the runtime reads as two: audit89a's probe of a generator that writes one) counted as its parts; None where a
    variable compose cannot resolve may hold several."""
    count = 0
    for item in ids:
        text, certain = project.interpolate(scalar(item) or "")
        if not certain:
            return None
        count += sum(1 for part in text.split(",") if part.strip())
    return count


def _gpu_devices(project: Project, service: Service, signals: Signals) -> list[Evidence]:
    """``devices`` that hand a GPU to the container (``Signals.is_gpu_device``: device nodes, CDI names)."""
    evidence: list[Evidence] = []
    for found in project.every(service, "devices"):
        for device in sequence(found.node):
            host = scalar(project.m.get(device, "source")) or (scalar(device) or "").split(":", 1)[0]
            host = project.interpolate(host)[0]
            if signals.is_gpu_device(host):
                evidence.append(Evidence(f"devices {host}", found.span_of(device)))
    return evidence


def command_words(project: Project, service: Service) -> list[str]:
    """The container's argv as far as the compose file sets it: entrypoint then command."""
    words: list[str] = []
    for field in ("entrypoint", "command"):
        found = project.get(service, field)
        if found is not None:
            words.extend(_argv(found.node))
    return [project.plain(word) for word in words]


def launch(project: Project, service: Service, beside: bool) -> Launch:
    """What the service starts and where it is built, for following it into the repository (``shmlint.project``):
    paths are taken as compose does, relative to the folder of the file that writes them. ``beside``: no service
    of the file builds, so a service that pulls its image takes the Dockerfile beside the file as that image's
    (a project that publishes its own image: ``# pull from Docker Hub instead of building locally``), as a
    Kubernetes manifest does; a build of the image's name found elsewhere wins over it."""
    parts: dict[str, tuple[str, ...]] = {}
    for field in ("entrypoint", "command"):
        found = project.get(service, field)
        parts[field] = tuple(project.plain(word) for word in _argv(found.node)) if found is not None else ()
    build = project.get(service, "build")
    base_dir = str((build.layer.file if build is not None else service.file).base_dir)
    context, dockerfile, inline = _build_parts(project, service)
    entries = project.entries(service, "environment").items()
    env = tuple((name, entry.value) for name, entry in entries if entry.value)
    return Launch(
        base_dir,
        parts["entrypoint"],
        parts["command"],
        project.text(project.get(service, "working_dir")) or "",
        env,
        context,
        dockerfile,
        inline,
        dockerfile_beside=beside and not context and not inline,
        mounts=tuple(_binds(project, service)),
        unknown_env=tuple(name for name, entry in entries if entry.value is None),
        terminal=(project.text(project.get(service, "tty")) or "").strip().lower() == "true",
    )


def _binds(project: Project, service: Service) -> list[tuple[str, str]]:
    """Bind mounts of host folders (container path, host path from the folder of the file that writes it)."""
    from shmlint.runtime.mounts import Mount, parse_volume

    found = []
    for entry in project.every(service, "volumes"):
        folder = str(entry.layer.file.base_dir)
        for item in sequence(entry.node):
            if isinstance(item, ScalarNode):
                mount = parse_volume(project.interpolate(scalar(item) or "")[0])
            else:
                text = [
                    project.interpolate(scalar(project.m.get(item, key)) or "")[0]
                    for key in ("type", "source", "target")
                ]
                mount = Mount(text[0] or "volume", text[1], text[2])
            if mount.type == "bind" and mount.source and mount.target.startswith("/"):
                found.append((mount.target, os.path.abspath(os.path.join(folder, mount.source))))
    return found


def _build_parts(project: Project, service: Service) -> tuple[str, str, str]:
    """The build context (a local folder only), its Dockerfile and an inline Dockerfile; empty where none."""
    build = project.get(service, "build")
    if build is None:
        return "", "", ""
    if isinstance(build.node, ScalarNode):
        context = project.text(build) or "."
    else:
        context = project.text(project.get(service, "build", "context")) or "."
    inline_node = project.get(service, "build", "dockerfile_inline")
    inline = (scalar(inline_node.node) or "") if inline_node is not None else ""
    if _REMOTE_CONTEXT.match(context):
        return "", "", inline
    return context, project.text(project.get(service, "build", "dockerfile")) or "", inline


def torch_evidence(project: Project, service: Service, signals: Signals, words: list[str]) -> list[Evidence]:
    evidence: list[Evidence] = []
    image = project.get(service, "image")
    image_text = project.text(image)
    if image is not None and image_text and signals.is_torch_image(image_text):
        evidence.append(Evidence(f"image {image_text}", image.span))
    launcher = signals.torch_command(" ".join(words))
    if launcher:
        found = project.get(service, "command") or project.get(service, "entrypoint")
        if found is not None:
            evidence.append(Evidence(f"command {launcher}", found.span))
    build = _build_evidence(project, service, signals)
    if build is not None:
        evidence.append(build)
    return evidence


def _build_evidence(project: Project, service: Service, signals: Signals) -> Evidence | None:
    """The Dockerfile a ``build:`` names, judged with the build's args and target."""
    build = project.get(service, "build")
    if build is None:
        return None
    context, _, _ = _build_parts(project, service)
    dockerfile = project.get(service, "build", "dockerfile")
    inline = project.get(service, "build", "dockerfile_inline")
    entries = project.entries(service, "build", "args").items()
    args = {name: entry.value for name, entry in entries if entry.value is not None}
    target = project.text(project.get(service, "build", "target"))
    if inline is not None:
        text, where = scalar(inline.node) or "", inline
    else:
        if not context:  # a remote context
            return None
        folder = build.layer.file.base_dir / context
        names = dockerfile_names(project.text(dockerfile))
        source = next(filter(None, (project.files.source(folder / name) for name in names)), None)
        if source is None:
            return None
        text, where = source.text, dockerfile or build
    from shmlint.parsers.dockerfile import torch_evidence_text  # dockerfile-parse loads only for builds

    reason = torch_evidence_text(text, signals, build_args=args, target=target)
    return Evidence(f"build: {reason}", where.span) if reason else None


def memory_limit(project: Project, service: Service) -> Size | None:
    found = project.get(service, "mem_limit") or project.get(service, "deploy", "resources", "limits", "memory")
    return project.size(found) if found is not None else None


def nccl_shm_disabled(project: Project, service: Service) -> Evidence | None:
    entry = project.entries(service, "environment").get(nccl.SHM_DISABLE)
    if entry is None or entry.value is None or not nccl.disables_shm(entry.value):
        return None
    return Evidence(f"{nccl.SHM_DISABLE}={entry.value}", entry.span)


def ignored_codes(project: Project, service: Service) -> frozenset[str]:
    entry = project.entries(service, "labels").get(IGNORE_LABEL)
    value = entry.value if entry else None
    return frozenset(code.strip() for code in (value or "").split(",") if code.strip())


def dataloader_text(project: Project, service: Service) -> Evidence | None:
    entry = project.entries(service, "labels").get(DATALOADER_LABEL)
    return Evidence(entry.value, entry.span) if entry and entry.value else None


def _quote(found: Found, limit: int = 60) -> str:
    """The value as written, on one line, for messages."""
    text = " ".join(found.source.text[found.node.start_mark.index : found.node.end_mark.index].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _argv(node: Node) -> list[str]:
    """``command``/``entrypoint`` as compose splits them: a list as is, a string by shell-like word splitting (no
    shell runs it: ``&&`` is an argument, so this is not the shell tokenizer's job)."""
    if isinstance(node, SequenceNode):
        return [value for value in (scalar(item) for item in node.value) if value is not None]
    text = scalar(node) or ""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()
