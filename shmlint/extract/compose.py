"""docker compose files -> one Workload per service.

A service is what compose would run, not what one mapping says: merge keys, ``extends`` (same file or another)
and a ``compose.override.yaml`` beside the file all add keys. Each service is kept as a stack of *layers* (the
mappings that contribute, lowest priority first) and every lookup asks the stack, so a value keeps its own node
and file: a finding about ``shm_size`` points where ``shm_size`` is written, a finding about the service points
at its key in the file that defines it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path, PurePath, PurePosixPath

from shmlint import sizes
from shmlint.discover import COMPOSE_DEFAULT_FILES, COMPOSE_OVERRIDE_FILES, is_compose_name
from shmlint.model import (
    APPLIED_KINDS,
    Evidence,
    Format,
    ServiceTarget,
    ShmKind,
    ShmMechanism,
    ShmSource,
    Size,
    Workload,
    WorkloadId,
)
from shmlint.parsers.yamlnodes import (
    MERGE_TAG,
    MappingNode,
    Mappings,
    Node,
    ScalarNode,
    SequenceNode,
    YamlError,
    compose,
    is_null,
    scalar,
    sequence,
    walk_mappings,
)
from shmlint.signals import Signals, positive_count
from shmlint.source import SourceText, Span

ReadFile = Callable[[Path], "SourceText | None"]

SHM_PATH = "/dev/shm"
IGNORE_LABEL = "shmlint.io/ignore"
DATALOADER_LABEL = "shmlint.io/dataloader"
DEFAULT_FILES = COMPOSE_DEFAULT_FILES
OVERRIDE_FILES = COMPOSE_OVERRIDE_FILES
#: compose tags that remove a value inherited from a lower layer, or replace it instead of merging
RESET_TAG = "!reset"
OVERRIDE_TAG = "!override"
_YAML_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_VOLUME_MODE = r"(ro|rw|z|Z|shared|slave|private|rshared|rslave|rprivate|nocopy|cached|delegated|consistent)"
_VOLUME_MODES = re.compile(rf"^{_VOLUME_MODE}(,{_VOLUME_MODE})*$")
_MAX_EXTENDS = 32
_MAX_IPC_CHAIN = 32  # ``ipc: service:`` hops followed; real files have one or two, a hostile one thousands


# -- public helpers ------------------------------------------------------------------------------------------


def is_compose(path: str, documents: list[Node]) -> bool:
    """A compose file by its name, or by a top-level ``services`` mapping whose services have image or build."""
    if is_compose_name(_file_name(path)):
        return True
    mappings = Mappings()
    for document in documents:
        services = mappings.get(document, "services")
        for service_name, (_, service) in mappings.items(services).items():
            if not service_name.startswith("x-") and (
                mappings.get(service, "image") is not None or mappings.get(service, "build") is not None
            ):
                return True
    return False


def is_override(path: str | PurePath) -> bool:
    """``compose.override.yaml`` and friends: partial services that only mean something on top of a base file."""
    return _file_name(path) in OVERRIDE_FILES


def _file_name(path: str | PurePath) -> str:
    return PurePosixPath(str(path).replace("\\", "/")).name


def interpolate(text: str) -> tuple[str, bool]:
    """Compose ``${VAR:-default}`` interpolation without an environment: defaults are used, other variables are
    empty. The flag is True when every variable had a default, i.e. the result is what compose would see."""
    out: list[str] = []
    certain = True
    index = 0
    while index < len(text):
        dollar = text.find("$", index)
        if dollar == -1:
            out.append(text[index:])
            break
        out.append(text[index:dollar])
        following = text[dollar + 1 : dollar + 2]
        if following == "$":
            out.append("$")
            index = dollar + 2
        elif following == "{":
            close = _closing_brace(text, dollar + 2)
            if close == -1:
                out.append(text[dollar:])
                break
            value, known = _braced(text[dollar + 2 : close])
            out.append(value)
            certain = certain and known
            index = close + 1
        else:
            name = _NAME.match(text, dollar + 1)
            if name:
                certain = False
                index = name.end()
            else:
                out.append("$")
                index = dollar + 1
    return "".join(out), certain


def _closing_brace(text: str, start: int) -> int:
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _braced(body: str) -> tuple[str, bool]:
    """The value of ``${body}``: its default for ``NAME:-x`` / ``NAME-x``, else empty and uncertain."""
    name = _NAME.match(body)
    rest = body[name.end() :] if name else body
    for operator in (":-", "-"):
        if rest.startswith(operator):
            return interpolate(rest[len(operator) :])
    return "", False


# -- files, layers and lookups -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _File:
    """A parsed compose file; ``base_dir`` resolves its relative paths (build contexts, ``extends.file``)."""

    source: SourceText
    root: MappingNode
    base_dir: Path

    @property
    def services(self) -> Node | None:
        return next((value for key, value in self.root.value if scalar(key) == "services"), None)


@dataclass(frozen=True)
class _Layer:
    """One mapping that contributes keys to a service, with the file it is written in."""

    node: MappingNode
    file: _File


@dataclass(frozen=True)
class _Found:
    """A value and the layer it came from, so its span names the file it is written in."""

    node: Node
    layer: _Layer

    @property
    def source(self) -> SourceText:
        return self.layer.file.source

    @property
    def span(self) -> Span:
        return self.source.span(self.node.start_mark.index, self.node.end_mark.index)


@dataclass(frozen=True)
class _Service:
    """A compose service with the layers (extends, anchors, override files) that build it."""

    name: str
    key: ScalarNode  # the service key in the file that defines it
    file: _File
    mapping: MappingNode
    layers: tuple[_Layer, ...]  # lowest priority first


@dataclass(frozen=True)
class _Entry:
    """One environment variable or label: its value (None when taken from the host) and where it is written."""

    value: str | None
    span: Span


@dataclass(frozen=True)
class _Own:
    """What a service says about /dev/shm itself, before ``ipc: service:x`` is followed."""

    shm: tuple[ShmSource, ...]
    ipc_service: tuple[str, Span] | None  # the service named by ``ipc: service:<name>``


class _Extractor:
    def __init__(self, signals: Signals, read_file: ReadFile) -> None:
        self.signals = signals
        self.read_file = read_file
        self.m = Mappings()
        self.files: dict[Path, _File | None] = {}
        self.merged: dict[int, set[int]] = {}

    # -- loading ---------------------------------------------------------------------------------------------

    def load(self, path: Path) -> _File | None:
        """Another compose file (override, ``extends.file``), parsed once; None when missing or not YAML."""
        if path not in self.files:
            source = self.read_file(path)
            try:
                documents = compose(source) if source is not None else []
            except YamlError:
                documents = []
            root = next((doc for doc in documents if isinstance(doc, MappingNode)), None)
            self.files[path] = _File(source, root, path.parent) if source is not None and root else None
        return self.files[path]

    def service_node(self, file: _File | None, name: str) -> tuple[ScalarNode, MappingNode] | None:
        if file is None:
            return None
        pair = self.m.items(file.services).get(name)
        if pair is None or not isinstance(pair[1], MappingNode):
            return None
        return pair

    def service_names(self, file: _File | None) -> list[str]:
        if file is None:
            return []
        return [name for name in self.m.items(file.services) if not name.startswith("x-")]

    def chain(self, file: _File, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> tuple[_Layer, ...]:
        """The layers of one service in one file: what it ``extends`` first, then its own mapping."""
        pair = self.service_node(file, name)
        marker = (file.source.path, name)
        if pair is None or marker in seen or len(seen) > _MAX_EXTENDS:
            return ()
        mapping = pair[1]
        own = (_Layer(mapping, file),)
        extends = self.m.get(mapping, "extends")
        target_name = scalar(extends) or scalar(self.m.get(extends, "service"))
        if not target_name:
            return own
        other = scalar(self.m.get(extends, "file"))
        target_file = self.load(file.base_dir / interpolate(other)[0]) if other else file
        if target_file is None:
            return own
        return self.chain(target_file, target_name, seen | {marker}) + own

    # -- lookups across layers -------------------------------------------------------------------------------

    def walk(self, layer: _Layer, path: tuple[str, ...]) -> tuple[Node | None, bool]:
        """The node at ``path`` in one layer, and whether a tag on the way says lower layers no longer count."""
        node: Node | None = layer.node
        final = False
        for part in path:
            node = self.m.get(node, part)
            if node is None:
                return None, final
            if node.tag in (RESET_TAG, OVERRIDE_TAG):
                final = True
                if node.tag == RESET_TAG:
                    return None, True
        return node, final

    def get(self, service: _Service, *path: str) -> _Found | None:
        """The value at ``path`` from the highest layer that sets it (mappings merge, everything else overrides)."""
        for layer in reversed(service.layers):
            node, final = self.walk(layer, path)
            if node is not None and not is_null(node):
                return _Found(node, layer)
            if final:
                return None
        return None

    def every(self, service: _Service, *path: str) -> list[_Found]:
        """The value at ``path`` from every layer, lowest first, for lists that compose appends or merges."""
        found: list[_Found] = []
        for layer in service.layers:
            node, final = self.walk(layer, path)
            if final:
                found.clear()
            if node is not None and not is_null(node):
                found.append(_Found(node, layer))
        return found

    def text(self, found: _Found | None) -> str | None:
        """A scalar with compose interpolation applied (defaults used)."""
        value = scalar(found.node) if found else None
        return interpolate(value)[0] if value is not None else None

    def entries(self, service: _Service, *path: str) -> dict[str, _Entry]:
        """A ``list_or_dict`` field (environment, labels) merged by name across layers, the higher layer winning."""
        merged: dict[str, _Entry] = {}
        for found in self.every(service, *path):
            if isinstance(found.node, MappingNode):
                for name, (key, value) in self.m.items(found.node).items():
                    text = scalar(value)
                    span = found.source.span(key.start_mark.index, value.end_mark.index)
                    merged[name] = _Entry(interpolate(text)[0] if text is not None else None, span)
            for item in sequence(found.node):
                text = scalar(item)
                if text is not None:
                    name, equals, value = text.partition("=")
                    span = found.source.span(item.start_mark.index, item.end_mark.index)
                    merged[name.strip()] = _Entry(interpolate(value)[0] if equals else None, span)
        return merged

    # -- GPU and torch evidence ------------------------------------------------------------------------------

    def gpu(self, service: _Service) -> list[Evidence]:
        evidence = self.reserved_devices(service)
        gpus = self.get(service, "gpus")
        if gpus is not None and (scalar(gpus.node) or sequence(gpus.node)):
            evidence.append(Evidence(f"gpus: {_quote(gpus)}", gpus.span))
        runtime = self.get(service, "runtime")
        if runtime is not None and self.signals.is_gpu_runtime(self.text(runtime) or ""):
            evidence.append(Evidence(f"runtime: {self.text(runtime)}", runtime.span))
        environment = self.entries(service, "environment")
        for name in self.signals.gpu_envs:
            visible = environment.get(name)
            if visible is not None and visible.value is not None and self.signals.is_gpu_env(name, visible.value):
                evidence.append(Evidence(f"{name}={visible.value}", visible.span))
        evidence.extend(self.gpu_devices(service))
        return evidence

    def reserved_devices(self, service: _Service) -> list[Evidence]:
        """``deploy.resources.reservations.devices`` asking for a GPU capability or an NVIDIA driver, and swarm
        generic resources of a GPU kind."""
        evidence: list[Evidence] = []
        where = "deploy.resources.reservations.devices"
        for found in self.every(service, "deploy", "resources", "reservations", "devices"):
            for device in sequence(found.node):
                count = scalar(self.m.get(device, "count"))
                if count is not None and count != "all" and not positive_count(count):
                    continue
                capabilities = self.m.get(device, "capabilities")
                names = [scalar(item) or "" for item in sequence(capabilities)] or [scalar(capabilities) or ""]
                driver = scalar(self.m.get(device, "driver")) or ""
                if "gpu" in names:
                    evidence.append(Evidence(f"{where} capabilities [{', '.join(names)}]", _span(found, capabilities)))
                elif self.signals.is_gpu_runtime(driver) or self.signals.is_gpu_resource(driver):
                    node = self.m.get(device, "driver")
                    evidence.append(Evidence(f"{where} driver: {driver}", _span(found, node)))
        for found in self.every(service, "deploy", "resources", "reservations", "generic_resources"):
            for resource in sequence(found.node):
                spec = self.m.get(resource, "discrete_resource_spec")
                kind = scalar(self.m.get(spec, "kind")) or ""
                if "gpu" in kind.lower() and positive_count(scalar(self.m.get(spec, "value")) or "1"):
                    evidence.append(Evidence(f"generic_resources {kind}", _span(found, spec)))
        return evidence

    def gpu_devices(self, service: _Service) -> list[Evidence]:
        """``devices`` that hand an accelerator to the container: its device nodes, or CDI names."""
        evidence: list[Evidence] = []
        for found in self.every(service, "devices"):
            for device in sequence(found.node):
                host = scalar(self.m.get(device, "source")) or (scalar(device) or "").split(":", 1)[0]
                host = interpolate(host)[0]
                cdi = not host.startswith("/") and self.signals.is_gpu_resource(host.split("=", 1)[0])
                if cdi or self.signals.is_gpu_device(host):
                    evidence.append(Evidence(f"devices {host}", _span(found, device)))
        return evidence

    def words(self, service: _Service) -> list[str]:
        """The container's argv as far as the compose file sets it: entrypoint then command."""
        words: list[str] = []
        for field in ("entrypoint", "command"):
            found = self.get(service, field)
            if found is not None:
                words.extend(_command_words(found.node))
        return [interpolate(word)[0] for word in words]

    def torch(self, service: _Service, words: list[str]) -> list[Evidence]:
        evidence: list[Evidence] = []
        image = self.get(service, "image")
        image_text = self.text(image)
        if image is not None and image_text and self.signals.is_torch_image(image_text):
            evidence.append(Evidence(f"image {image_text}", image.span))
        launcher = self.signals.torch_command(" ".join(words))
        if launcher:
            found = self.get(service, "command") or self.get(service, "entrypoint")
            if found is not None:
                evidence.append(Evidence(f"command {launcher}", found.span))
        build = self.build_evidence(service)
        if build is not None:
            evidence.append(build)
        return evidence

    def build_evidence(self, service: _Service) -> Evidence | None:
        """The Dockerfile a ``build:`` names, judged with the build's args and target."""
        build = self.get(service, "build")
        if build is None:
            return None
        if isinstance(build.node, ScalarNode):
            context = self.text(build)
        else:
            context = self.text(self.get(service, "build", "context"))
        dockerfile = self.get(service, "build", "dockerfile")
        inline = self.get(service, "build", "dockerfile_inline")
        entries = self.entries(service, "build", "args").items()
        args = {name: entry.value for name, entry in entries if entry.value is not None}
        target = self.text(self.get(service, "build", "target"))
        if inline is not None:
            text, where = scalar(inline.node) or "", inline
        else:
            context = context or "."
            if re.match(r"^[a-z][a-z0-9+.-]*://|^git@|^github\.com/", context):
                return None
            path = build.layer.file.base_dir / context / (self.text(dockerfile) or "Dockerfile")
            source = self.read_file(path)
            if source is None:
                return None
            text, where = source.text, dockerfile or build
        from shmlint.parsers.dockerfile import torch_evidence_text  # dockerfile-parse loads only for builds

        reason = torch_evidence_text(text, self.signals, build_args=args, target=target)
        return Evidence(f"build: {reason}", where.span) if reason else None

    # -- /dev/shm ---------------------------------------------------------------------------------------------

    def own_shm(self, service: _Service) -> _Own:
        sources: list[ShmSource] = []
        shm_size = self.get(service, "shm_size")
        if shm_size is not None:
            sources.append(self.size_source(shm_size, ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, "shm_size"))
        ipc_source, ipc_service = self.ipc(service)
        sources.extend(ipc_source)
        sources.extend(self.tmpfs(service))
        volume = self.shm_volume(service)
        if volume is not None:
            sources.append(volume)
        build_shm = self.get(service, "build", "shm_size")
        if shm_size is None and build_shm is not None:
            sources.append(self.size_source(build_shm, ShmKind.BUILD_ONLY, ShmMechanism.BUILD_OPTION, "build.shm_size"))
        return _Own(tuple(sources), ipc_service)

    def size_source(self, found: _Found, kind: ShmKind, mechanism: ShmMechanism, description: str) -> ShmSource:
        """A size written in compose: bytes when a YAML number, else the docker grammar; a variable without a
        default makes the size unknowable."""
        size = _docker_size(found)
        if size is None:
            return ShmSource(ShmKind.UNKNOWN, mechanism, found.span, f"{description} (a variable without a default)")
        return ShmSource(kind, mechanism, found.span, description, size)

    def ipc(self, service: _Service) -> tuple[list[ShmSource], tuple[str, Span] | None]:
        found = self.get(service, "ipc")
        raw = scalar(found.node) if found else None
        if found is None or raw is None:
            return [], None
        mode, certain = interpolate(raw)
        mode = mode.strip()
        description = f"ipc: {mode}"
        if not certain:
            return [ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, found.span, f"ipc: {raw}")], None
        if mode == "host":
            return [ShmSource(ShmKind.HOST_IPC, ShmMechanism.IPC_MODE, found.span, description)], None
        if mode == "none":
            return [ShmSource(ShmKind.NONE, ShmMechanism.IPC_MODE, found.span, description)], None
        if mode.startswith("service:"):
            return [], (mode.partition(":")[2].strip(), found.span)
        if mode.startswith("container:"):
            return [ShmSource(ShmKind.SHARED, ShmMechanism.IPC_MODE, found.span, description)], None
        if mode in ("", "private", "shareable"):
            return [], None
        return [ShmSource(ShmKind.UNKNOWN, ShmMechanism.IPC_MODE, found.span, description)], None

    def tmpfs(self, service: _Service) -> list[ShmSource]:
        """Short ``tmpfs: /dev/shm`` entries; ``/dev/shm:size=1g`` carries a size, a bare path is unbounded."""
        sources: list[ShmSource] = []
        for found in self.every(service, "tmpfs"):
            for item in sequence(found.node) or [found.node]:
                text = interpolate(scalar(item) or "")[0]
                target, _, options = text.partition(":")
                if _is_shm(target):
                    entry = _Found(item, found.layer)
                    size = _option_size(entry, options)
                    sources.append(
                        ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, entry.span, f"tmpfs {text}", size)
                    )
        return sources

    def shm_volume(self, service: _Service) -> ShmSource | None:
        """The volume compose mounts at /dev/shm: volumes merge by target, the highest layer winning."""
        chosen: ShmSource | None = None
        for found in self.every(service, "volumes"):
            for item in sequence(found.node):
                source = self.volume_source(_Found(item, found.layer))
                chosen = source or chosen
        return chosen

    def volume_source(self, item: _Found) -> ShmSource | None:
        if isinstance(item.node, MappingNode):
            return self.long_volume(item)
        text = interpolate(scalar(item.node) or "")[0]
        parts = text.split(":")
        if len(parts) > 1 and _VOLUME_MODES.match(parts[-1]):
            parts.pop()
        target, origin = parts[-1], ":".join(parts[:-1])
        if not _is_shm(target):
            return None
        if not origin:
            return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, item.span, "anonymous volume at /dev/shm")
        return self.mount_source(item, origin, "bind" if origin.startswith(("/", ".", "~")) else "volume")

    def long_volume(self, item: _Found) -> ShmSource | None:
        """``{type: tmpfs|bind|volume, source, target}`` at /dev/shm."""
        target = interpolate(scalar(self.m.get(item.node, "target")) or "")[0]
        if not _is_shm(target):
            return None
        kind = scalar(self.m.get(item.node, "type")) or "volume"
        if kind == "tmpfs":
            size_node = self.m.path(item.node, "tmpfs", "size")
            size = None if is_null(size_node) else _docker_size(_Found(size_node, item.layer))
            return ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, item.span, "tmpfs mount at /dev/shm", size)
        origin = interpolate(scalar(self.m.get(item.node, "source")) or "")[0]
        if kind in ("bind", "volume"):
            return self.mount_source(item, origin, kind)
        return ShmSource(ShmKind.UNKNOWN, ShmMechanism.VOLUME, item.span, f"{kind} mount at /dev/shm")

    def mount_source(self, item: _Found, origin: str, kind: str) -> ShmSource:
        if kind == "bind":
            description = f"bind mount of {origin} at /dev/shm"
            return ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, item.span, description, host_path=origin)
        if not origin:
            return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, item.span, "anonymous volume at /dev/shm")
        return self.named_volume(item, origin)

    def named_volume(self, item: _Found, name: str) -> ShmSource:
        """A named volume is disk unless its top-level definition asks the local driver for a tmpfs."""
        definition = self.m.get(self.m.get(item.layer.file.root, "volumes"), name)
        options = self.m.get(definition, "driver_opts")
        description = f'volume "{name}" at /dev/shm'
        if (scalar(self.m.get(options, "type")) or "").strip() != "tmpfs":
            return ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, item.span, description, name=name)
        option_node = self.m.get(options, "o")
        size = _option_size(_Found(option_node, item.layer), scalar(option_node) or "") if option_node else None
        return ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, item.span, f"tmpfs {description}", size, name=name)

    # -- the rest of a workload ------------------------------------------------------------------------------

    def memory_limit(self, service: _Service) -> Size | None:
        found = self.get(service, "mem_limit") or self.get(service, "deploy", "resources", "limits", "memory")
        return _docker_size(found) if found is not None else None

    def nccl_shm_disabled(self, service: _Service) -> Evidence | None:
        entry = self.entries(service, "environment").get("NCCL_SHM_DISABLE")
        if entry is None or (entry.value or "").strip().lower() not in ("1", "true"):
            return None
        return Evidence(f"NCCL_SHM_DISABLE={entry.value}", entry.span)

    def ignored_codes(self, service: _Service) -> frozenset[str]:
        entry = self.entries(service, "labels").get(IGNORE_LABEL)
        value = entry.value if entry else None
        return frozenset(code.strip() for code in (value or "").split(",") if code.strip())

    def dataloader_text(self, service: _Service) -> Evidence | None:
        entry = self.entries(service, "labels").get(DATALOADER_LABEL)
        return Evidence(entry.value, entry.span) if entry and entry.value else None

    def target(self, service: _Service, owns: dict[str, _Own]) -> ServiceTarget | None:
        """Where a fixer writes ``shm_size``: the service's own mapping. None where an edit there would not do
        what it says: a service written as an alias, a mapping other services merge in (the edit would change
        them too), or a service that joins another one's IPC namespace (its own shm_size does not apply)."""
        mapping, key, source = service.mapping, service.key, service.file.source
        if mapping.start_mark.index < key.end_mark.index or id(mapping) in self.merged_elsewhere(service.file):
            return None
        if owns[service.name].ipc_service is not None:
            return None
        own = {scalar(k): v for k, v in mapping.value if isinstance(k, ScalarNode) and k.tag != MERGE_TAG}
        shm = own.get("shm_size")
        shm_span = source.span(shm.start_mark.index, shm.end_mark.index) if shm is not None else None
        return ServiceTarget(source.path, service.name, mapping.start_mark.index, shm_span)

    def merged_elsewhere(self, file: _File) -> set[int]:
        """Ids of the mappings that some mapping of the file merges in with ``<<`` (worked out once per file)."""
        found = self.merged.get(id(file.root))
        if found is None:
            found = self.merged[id(file.root)] = set()
            for mapping in walk_mappings(file.root):
                for key, value in mapping.value:
                    if key.tag == MERGE_TAG:
                        found.update(id(n) for n in (value.value if isinstance(value, SequenceNode) else [value]))
        return found

    # -- one workload per service ----------------------------------------------------------------------------

    def services(self, main: _File, override: _File | None) -> list[_Service]:
        """Services of the main file with the override merged on top, then services only the override adds."""
        own = self.service_names(main)
        services: list[_Service] = []
        for name in dict.fromkeys(own + self.service_names(override)):
            home = main if name in own else override
            pair = self.service_node(home, name)
            if pair is None or home is None:
                continue  # a scalar or list where a service should be: compose rejects it, shmlint skips it
            layers = self.chain(main, name) + (self.chain(override, name) if override else ())
            services.append(_Service(name, pair[0], home, pair[1], layers))
        return services

    def workloads(self, services: list[_Service]) -> list[Workload]:
        owns = {service.name: self.own_shm(service) for service in services}
        workloads: list[Workload] = []
        for service in services:
            words = self.words(service)
            utility = self.signals.is_utility_command(words)
            key = service.key
            workloads.append(
                Workload(
                    id=WorkloadId(Format.COMPOSE, "service", service.name),
                    span=service.file.source.span(key.start_mark.index, key.end_mark.index),
                    gpu=() if utility else tuple(self.gpu(service)),
                    torch=() if utility else tuple(self.torch(service, words)),
                    shm=_with_shared(service.name, owns),
                    memory_limit=self.memory_limit(service),
                    nccl_shm_disabled=self.nccl_shm_disabled(service),
                    ignored_codes=self.ignored_codes(service),
                    dataloader_text=self.dataloader_text(service),
                    target=self.target(service, owns),
                )
            )
        return workloads


def _with_shared(name: str, owns: dict[str, _Own]) -> tuple[ShmSource, ...]:
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
                replace(source, description=f'{source.description} of service "{current}" (ipc: service:{current})')
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


def _span(found: _Found, node: Node | None) -> Span:
    target = node if node is not None else found.node
    return found.source.span(target.start_mark.index, target.end_mark.index)


def _quote(found: _Found, limit: int = 60) -> str:
    """The value as written, on one line, for messages."""
    text = " ".join(found.source.text[found.node.start_mark.index : found.node.end_mark.index].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _command_words(node: Node) -> list[str]:
    if isinstance(node, SequenceNode):
        return [value for value in (scalar(item) for item in node.value) if value is not None]
    text = scalar(node) or ""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _is_shm(path: str) -> bool:
    return path.strip().rstrip("/") == SHM_PATH


def _docker_size(found: _Found | None) -> Size | None:
    """A docker-dialect Size from a compose value; None for a variable without a default or a non-scalar."""
    raw = scalar(found.node) if found else None
    if found is None or raw is None:
        return None
    text, certain = interpolate(raw)
    if not certain:
        return None
    if found.node.tag in _YAML_NUMBER_TAGS:
        number = _yaml_number(text)
        if number is not None:
            return Size(raw, number, found.span, sizes.DOCKER)
    parsed = sizes.parse(text, sizes.DOCKER)
    suggestion = parsed.suggestion if text == raw else None
    return Size(raw, parsed.bytes, found.span, sizes.DOCKER, parsed.error, suggestion)


def _yaml_number(text: str) -> int | None:
    try:
        return int(text.replace("_", ""), 0)
    except ValueError:
        pass
    try:
        return int(float(text))
    except (ValueError, OverflowError):
        return None


def _option_size(found: _Found, options: str) -> Size | None:
    """The ``size=`` of tmpfs mount options (``size=1g,mode=1777``), spanned on the node that holds them."""
    for option in options.split(","):
        name, _, value = option.partition("=")
        if name.strip() == "size" and value.strip():
            parsed = sizes.parse(value.strip(), sizes.DOCKER)
            return Size(value.strip(), parsed.bytes, found.span, sizes.DOCKER, parsed.error, parsed.suggestion)
    return None


# -- entry point ---------------------------------------------------------------------------------------------


def extract_compose(
    source: SourceText,
    documents: list[Node],
    signals: Signals,
    *,
    base_dir: Path,
    read_file: ReadFile,
) -> list[Workload]:
    """One Workload per service defined in this file, with ``extends`` and the default override file merged in.

    A default file and its override are judged together, as ``docker compose`` runs them; each file reports the
    services it defines (a service only the override adds belongs to the override), so findings and fixes land in
    the file that holds the service.
    """
    extractor = _Extractor(signals, read_file)
    name = _file_name(source.path)
    root = next((doc for doc in documents if isinstance(doc, MappingNode)), None)
    if root is None:
        return []
    this = _File(source, root, base_dir)
    main, override = this, None
    if is_override(name):
        base = next((f for f in (extractor.load(base_dir / b) for b in DEFAULT_FILES) if f is not None), None)
        main, override = (base, this) if base is not None else (this, None)
    elif name in DEFAULT_FILES:
        override = next((f for f in (extractor.load(base_dir / o) for o in OVERRIDE_FILES) if f is not None), None)
    workloads = extractor.workloads(extractor.services(main, override))
    return [w for w in workloads if w.span.path == source.path]
