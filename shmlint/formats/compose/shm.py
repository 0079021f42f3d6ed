"""The /dev/shm a compose service gets: its own declarations, then the ``ipc: service:`` graph that shares them."""

from __future__ import annotations

from shmlint import sizes
from shmlint.containers.docker import option_value_span
from shmlint.formats.compose.project import Found, Project, Service
from shmlint.model import APPLIED_KINDS, ShmKind, ShmMechanism, ShmSource, Size
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, is_null, scalar, sequence
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.mounts import (
    Mount,
    Option,
    classify_mount,
    engine_shm,
    find_option,
    parse_tmpfs,
    parse_volume,
    reaching_shm,
    split_options,
    tmpfs_source,
)
from shmlint.runtime.shm import docker_namespace_size, is_shm_path, may_be_shm_path
from shmlint.source import Span

_MAX_IPC_CHAIN = 32  # ``ipc: service:`` hops followed; real files have one or two, a hostile one thousands


class Own(NamedTuple):
    """What a service says about /dev/shm itself, before ``ipc: service:x`` is followed."""

    shm: tuple[ShmSource, ...]
    ipc_service: tuple[str, Span] | None  # the service named by ``ipc: service:<name>``


def own_shm(project: Project, service: Service) -> Own:
    sources: list[ShmSource] = []
    shm_size = project.get(service, "shm_size")
    if shm_size is not None:
        sources.append(_size_source(project, shm_size, ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, "shm_size"))
    ipc_source, ipc_service = _ipc(project, service)
    sources.extend(ipc_source)
    sources.extend(_tmpfs(project, service))
    volume = _shm_volume(project, service)
    if volume is not None:
        sources.append(volume)
    build_shm = project.get(service, "build", "shm_size")
    if shm_size is None and build_shm is not None:
        sources.append(
            _size_source(project, build_shm, ShmKind.BUILD_ONLY, ShmMechanism.BUILD_OPTION, "build.shm_size")
        )
    return Own(tuple(sources), ipc_service)


def with_shared(name: str, owns: dict[str, Own]) -> tuple[ShmSource, ...]:
    """A service's own sources plus, for ``ipc: service:x``, the applied sources of x (followed transitively):
    sharing x's IPC namespace means sharing x's /dev/shm."""
    sources: list[ShmSource] = []
    seen: set[str] = set()
    current: str | None = name
    while current is not None and current not in seen and len(seen) < _MAX_IPC_CHAIN:
        seen.add(current)
        own = owns.get(current)
        if own is None:
            break
        if current == name:
            # joining another service's IPC namespace makes this service's own shm_size meaningless
            sources.extend(s for s in own.shm if not (own.ipc_service is not None and s.namespace_size))
        else:
            sources.extend(
                source._replace(description=f'{source.description} of service "{current}" (ipc: service:{current})')
                for source in own.shm
                if source.kind in APPLIED_KINDS
            )
        if own.ipc_service is None:
            break
        current, span = own.ipc_service
        if current not in owns:
            description = f"ipc: service:{current} (no such service)"
            sources.append(ShmSource(ShmKind.SHARED, ShmMechanism.IPC_MODE, span, description))
            break
    return tuple(sources)


def _size_source(project: Project, found: Found, kind: ShmKind, mechanism: ShmMechanism, description: str) -> ShmSource:
    """A size written in compose: bytes when a YAML number, else the docker grammar; a variable without a default
    neither the project's ``.env`` nor a default sets makes the size unknowable."""
    size = project.size(found)
    if size is None:
        return ShmSource(ShmKind.UNKNOWN, mechanism, found.span, f"{description} (a variable without a value)")
    if mechanism is ShmMechanism.NAMESPACE_SIZE:
        size = docker_namespace_size(size)
    return ShmSource(kind, mechanism, found.span, description, size)


def _ipc(project: Project, service: Service) -> tuple[list[ShmSource], tuple[str, Span] | None]:
    found = project.get(service, "ipc")
    raw = scalar(found.node) if found else None
    if found is None or raw is None:
        return [], None
    text, certain = project.interpolate(raw)
    if not certain:
        return [ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, found.span, f"ipc: {raw}")], None
    mode = ipc_mode(text)
    if mode.service is not None:
        return [], (mode.service, found.span)
    if mode.kind is None:
        return [], None
    return [ShmSource(mode.kind, ShmMechanism.IPC_MODE, found.span, f"ipc: {text.strip()}")], None


def _tmpfs(project: Project, service: Service) -> list[ShmSource]:
    """Short ``tmpfs: /dev/shm`` entries; ``/dev/shm:size=1g`` carries a size, a bare path is unbounded."""
    sources: list[ShmSource] = []
    for found in project.every(service, "tmpfs"):
        for item in sequence(found.node) or [found.node]:
            raw = scalar(item) or ""
            text, certain = project.interpolate(raw)
            spec = parse_tmpfs(text)
            if is_shm_path(spec.target):
                entry = Found(item, found.layer)
                written = find_option(parse_tmpfs(raw).options, "size")
                if not certain and written is not None and "$" in written.value:  # a size from a variable no .env
                    # or default sets: unknown, never ''
                    described = f"tmpfs {raw} (a variable without a value)"
                    sources.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.TMPFS_OPTION, entry.span, described))
                    continue
                size = _option_size(entry, spec.options, text)
                sources.append(tmpfs_source(ShmMechanism.TMPFS_OPTION, entry.span, f"tmpfs {text}", size))
    return sources


def _shm_volume(project: Project, service: Service) -> ShmSource | None:
    """The volume compose mounts at /dev/shm: volumes merge by target, the highest layer winning."""
    chosen: ShmSource | None = None
    ipc = project.interpolate(project.text(project.get(service, "ipc")) or "")[0]
    own_shm = engine_shm(ipc)
    for found in project.every(service, "volumes"):
        for item in sequence(found.node):
            source = _volume_source(project, Found(item, found.layer), own_shm)
            chosen = source or chosen
    return chosen


def _volume_source(project: Project, item: Found, engine_shm: bool) -> ShmSource | None:
    """A ``volumes`` entry at /dev/shm, short (``source:/dev/shm:ro``) or long (``{type, source, target}``)."""
    m = project.m
    if isinstance(item.node, MappingNode):
        mount = Mount(
            scalar(m.get(item.node, "type")) or "volume",
            project.interpolate(scalar(m.get(item.node, "source")) or "")[0],
            project.interpolate(scalar(m.get(item.node, "target")) or "")[0],
        )
    else:
        mount = parse_volume(project.interpolate(scalar(item.node) or "")[0])
    written, reaching = mount, reaching_shm(mount, engine_shm=engine_shm)
    if reaching is None:
        return _filled_in(project, item)
    mount = reaching
    kind, mechanism = classify_mount(mount)
    if kind is ShmKind.MEMORY:
        size_node = m.path(item.node, "tmpfs", "size")
        size = None if is_null(size_node) else project.size(Found(size_node, item.layer))
        if size is None and not is_null(size_node) and "$" in (scalar(size_node) or ""):
            described = "tmpfs mount at /dev/shm (its size a variable without a value)"
            return ShmSource(ShmKind.UNKNOWN, mechanism, item.span, described)
        return tmpfs_source(mechanism, item.span, "tmpfs mount at /dev/shm", size)
    if kind is ShmKind.HOST_PATH:
        description = f"bind mount of {written.source} at {written.target}"
        return ShmSource(kind, mechanism, item.span, description, host_path=mount.source)
    if kind is ShmKind.DISK and mount.source:
        return _named_volume(project, item, mount.source)
    if kind is ShmKind.DISK:
        return ShmSource(kind, mechanism, item.span, "anonymous volume at /dev/shm")
    return ShmSource(kind, mechanism, item.span, f"{mount.type} mount at /dev/shm")


def _filled_in(project: Project, item: Found) -> ShmSource | None:
    """A volume whose target a variable no ``.env`` or default sets (``${DATA}:${TARGET}``): compose fills it in from
    the shell's environment at run time, so it may be at /dev/shm and what the container gets there is not known,
    as for a command line's ``-v $MOUNT``. Not a target written up to a folder elsewhere (``/data/${NAME}``), nor a
    folder mounted at its own host path (``${D}:${D}``)."""
    m = project.m
    if isinstance(item.node, MappingNode):
        raw_source, raw_target = scalar(m.get(item.node, "source")) or "", scalar(m.get(item.node, "target")) or ""
    else:
        raw = scalar(item.node) or ""
        if "$" not in raw:
            return None  # nothing filled in: the mount is what it says (most volumes)
        parts = _outside_braces(raw).split(":")
        if len(parts) > 1 and parts[-1] and parts[-1].isalpha() and "$" not in parts[-1]:
            parts.pop()  # a mode (``:ro``)
        raw_target = _braced(raw, parts, len(parts) - 1)
        raw_source = _braced(raw, parts, len(parts) - 2) if len(parts) > 1 else ""
    certain = project.interpolate(raw_target)[1]
    if certain or not may_be_shm_path(raw_target, raw_source):
        return None
    described = f"volume {scalar(item.node) or raw_target} (its target a variable without a value)"
    return ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, item.span, described)


def _outside_braces(text: str) -> str:
    """``text`` with the characters inside ``${...}`` replaced by ``_``, so that a default's colon (``${A:-/x}``)
    does not split the volume."""
    out, depth = [], 0
    for at, char in enumerate(text[:4096]):
        if char == "{" and at and text[at - 1] == "$":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            out.append(char)
            continue
        out.append("_" if depth and char == ":" else char)
    return "".join(out)


def _braced(raw: str, parts: list[str], index: int) -> str:
    """Part ``index`` of ``raw`` split where ``parts`` (the split of its braces-masked copy) split it."""
    start = sum(len(part) + 1 for part in parts[:index])
    return raw[start : start + len(parts[index])]


def _named_volume(project: Project, item: Found, name: str) -> ShmSource:
    """A named volume is disk unless its top-level definition asks the local driver for a tmpfs."""
    m = project.m
    definition = m.get(m.get(item.layer.file.root, "volumes"), name)
    options = m.get(definition, "driver_opts")
    description = f'volume "{name}" at /dev/shm'
    if (scalar(m.get(options, "type")) or "").strip() != "tmpfs":
        return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, item.span, description, name=name)
    option_node = m.get(options, "o")
    found = Found(option_node, item.layer) if option_node else None
    written = scalar(option_node) or ""
    size = _option_size(found, split_options(written), written) if found else None
    return tmpfs_source(ShmMechanism.TMPFS_MOUNT, item.span, f"tmpfs {description}", size, name)


def _option_size(found: Found, options: tuple[Option, ...], read: str) -> Size | None:
    """The ``size=`` of tmpfs mount options (``size=1g,mode=1777``), read from ``read`` (the options' offsets are
    into it): spanned on its own characters where the node writes ``read`` as it is, else on the node."""
    size = find_option(options, "size")
    if size is None:
        return None
    parsed = sizes.parse(size.value, sizes.TMPFS)  # handed to the kernel's mount as written
    written = found.layer.file.source.text[found.span.start : found.span.end]
    span = option_value_span(written, read, size, found.span)
    return Size(size.value, parsed.bytes, span, sizes.TMPFS, parsed.error, parsed.suggestion)
