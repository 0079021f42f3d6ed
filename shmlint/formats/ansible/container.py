"""``community.docker.docker_container`` and ``containers.podman.podman_container`` task arguments read into the
docker options judge's view (``shmlint.containers.docker``).

docker_container: ``shm_size``, ``ipc_mode``, ``memory``, ``device_requests`` (a GPU request: the ``nvidia``
driver or the ``gpu`` capability, with ``count``, -1 for all, or ``device_ids``), ``runtime``, ``devices``,
``env``, ``tmpfs`` (``path:options`` strings), ``mounts``, ``volumes``, ``image``, ``command``, ``entrypoint``,
``working_dir``. podman_container names some differently: ``ipc``, ``device``, ``gpus``, ``tmpfs`` as a mapping,
``volume``, ``workdir``. A task with ``state: absent`` or ``stopped`` starts nothing. Arguments given under the
task's ``args`` count too (the module's own win). A value with Jinja is known only at run time.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from shmlint import sizes
from shmlint.containers import base_dir
from shmlint.containers.docker import (
    DEVICE,
    ENV,
    GPU,
    GPUS,
    IPC,
    MOUNT,
    RUNTIME,
    SHM_SIZE,
    TMPFS,
    DockerOptions,
    Setting,
    judge_docker,
    tmpfs_size,
)
from shmlint.formats.ansible.jinja import jinja_as_variables, written_image
from shmlint.formats.ansible.target import AnsibleTarget
from shmlint.formats.ansible.tasks import Task, defaults_for
from shmlint.formats.ansible.variables import resolve
from shmlint.model import Size, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, is_null, scalar, sequence
from shmlint.runtime.mounts import Mount, engine_shm, parse_mount, parse_volume, reaching_shm
from shmlint.runtime.shm import is_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

_NOT_STARTED = frozenset({"absent", "stopped"})
#: the podman_container spellings (its name, then its alias) of docker_container arguments read here
_PODMAN = {
    "ipc_mode": ("ipc", "ipc_mode"),
    "devices": ("device", "devices"),
    "volumes": ("volume", "volumes"),
    "mounts": ("mount", "mounts"),
    "working_dir": ("workdir", "working_dir"),
}


def container_workload(
    source: SourceText, m: Mappings, task: Task, signals: Signals, role: dict[str, str]
) -> Workload | None:
    """The container a task starts, or None when it starts none (``state: absent``, arguments not a mapping);
    ``role``: the variables of its role, below the file's own."""
    if not isinstance(task.value, MappingNode):
        return None  # key=value free form: not read
    args = _Args(source, m, task, {**role, **dict(task.variables)})
    if (args.text("state") or "").strip() in _NOT_STARTED:
        return None
    image = args.node("image")
    command, entrypoint = args.node("command"), args.node("entrypoint")
    where = command or image
    memory = args.node("memory")
    image_name = args.text("image")
    view = DockerOptions(
        base_dir=base_dir(source.path),
        settings=(*_gpu(args), *_env(args), *_shm(args)),
        image=written_image(image_name),
        image_span=args.span(image) if image is not None else None,
        entrypoint=args.words(entrypoint),
        arguments=args.words(command),
        command_span=args.span(where) if where is not None else None,
        working_dir=args.text("working_dir") or "",
        memory=args.size(memory) if memory is not None else None,
        podman=args.podman,
    )
    shm_size = m.get(task.value, "shm_size")  # its own, never one merged from an anchor that other tasks share
    own = isinstance(shm_size, ScalarNode) and m.own_key(task.value, "shm_size")
    own_size = args.span(shm_size) if own and shm_size is not None else None
    name = args.text("name") or ""
    return judge_docker(view, signals).workload(
        WorkloadId(WorkloadFormat.ANSIBLE, "task", task.name or name or "(unnamed)", "", task.module, name),
        args.span(task.key),
        AnsibleTarget(task.value.start_mark.index, own_size),
    )


class _Args:
    """A task's module arguments: the module's mapping, then the task's ``args``; each by its docker_container
    name or the podman_container one."""

    def __init__(self, source: SourceText, m: Mappings, task: Task, variables: dict[str, str]) -> None:
        self.source, self.m, self.variables = source, m, variables
        self.layers = [task.value, m.get(task.task, "args"), *defaults_for(task)]
        self.podman = task.module == "podman_container"

    def node(self, name: str) -> Node | None:
        keys = _PODMAN.get(name, (name,)) if self.podman else (name,)
        for layer in self.layers:
            for key in keys:
                found = self.m.get(layer, key)
                if found is not None:
                    return found
        return None

    def text(self, name: str) -> str | None:
        return self.value(self.node(name))

    def value(self, node: Node | None) -> str | None:
        """A scalar's text, a whole ``{{ name }}`` of a known variable read as its value."""
        return resolve(scalar(node), self.variables)

    def words(self, node: Node | None) -> tuple[str, ...]:
        """A command as the module splits it: a string with shell quoting, or a list; Jinja as a variable."""
        if isinstance(node, ScalarNode):
            written = self.value(node) or ""
            command = jinja_as_variables(written, [(0, len(written))])
            try:
                return tuple(shlex.split(command))
            except ValueError:  # an unclosed quote: the module refuses it too
                return tuple(command.split())
        return tuple(word for item in sequence(node) if (word := self.value(item)) is not None)

    def span(self, node: Node) -> Span:
        return self.source.span(node.start_mark.index, node.end_mark.index)

    def size(self, node: Node) -> Size:
        """A size in docker's grammar (a YAML number is bytes); Jinja makes it known only at run time."""
        text = self.value(node) or ""
        if isinstance(node, ScalarNode) and node.tag.endswith(":int") and text.isdigit():
            return Size(text, int(text), self.span(node), sizes.DOCKER)
        return self.size_of(text if isinstance(node, ScalarNode) else None, node)

    def size_of(self, text: str | None, node: Node) -> Size:
        """A size written as ``text`` somewhere in ``node`` (a mount string's ``tmpfs-size``); None or Jinja: known
        only at run time."""
        span = self.span(node)
        if text is None or "{{" in text:
            return Size(text or "", None, span, sizes.DOCKER)
        parsed = sizes.parse_docker(text)
        return Size(text, parsed.bytes, span, sizes.DOCKER, parsed.error, parsed.suggestion)


def _gpu(args: _Args) -> Iterator[Setting]:
    """GPU device requests, podman's ``gpus``, the runtime and GPU device nodes."""
    for request in sequence(args.node("device_requests")):
        driver = scalar(args.m.get(request, "driver")) or ""
        capabilities = {scalar(c) for group in sequence(args.m.get(request, "capabilities")) for c in sequence(group)}
        if driver != "nvidia" and "gpu" not in capabilities:
            continue
        count = scalar(args.m.get(request, "count"))
        ids = [text for item in sequence(args.m.get(request, "device_ids")) if (text := scalar(item)) is not None]
        text = args.source.text[request.start_mark.index : request.end_mark.index]
        shown = f"device_requests {' '.join(text.split())[:60]}"
        if ids:
            yield Setting(GPUS, "device=" + ",".join(ids), shown, args.span(request))
        elif count is not None and "{{" not in count:
            yield Setting(GPUS, "all" if count.strip() == "-1" else count.strip(), shown, args.span(request))
        else:
            yield Setting(GPU, None, shown, args.span(request))
    for name, kind in (("gpus", GPUS), ("runtime", RUNTIME)):
        node = args.node(name)
        if node is not None:
            value = args.value(node)
            yield Setting(kind, value, f"{name}: {value or '?'}", args.span(node), computed=_jinja(value))
    for device in sequence(args.node("devices")):
        path = (scalar(device) or scalar(args.m.get(device, "path_on_host")) or "").split(":", 1)[0]
        yield Setting(DEVICE, path, f"devices {path}", args.span(device))


def _env(args: _Args) -> Iterator[Setting]:
    for name, (_, value) in args.m.items(args.node("env")).items():
        text = scalar(value)
        if text is not None:
            yield Setting(ENV, f"{name}={text}", f"env {name}={text}", args.span(value), computed=_jinja(text))


def _shm(args: _Args) -> Iterator[Setting]:
    size = args.node("shm_size")
    if not is_null(size) and size is not None:  # an empty ``shm_size:`` is the module's default
        yield Setting(SHM_SIZE, None, "shm_size", args.span(size), args.size(size))
    ipc = args.node("ipc_mode")
    if ipc is not None:
        value = args.value(ipc)
        shown = f"{'ipc' if args.podman else 'ipc_mode'}: {value or '?'}"
        yield Setting(IPC, value, shown, args.span(ipc), computed=_jinja(value))
    yield from _tmpfs(args)
    yield from _mounts(args)


def _tmpfs(args: _Args) -> Iterator[Setting]:
    """docker_container's ``path:options`` strings, podman_container's ``path: options`` mapping."""
    tmpfs = args.node("tmpfs")
    entries: list[tuple[str, str | None, Node]] = []
    if isinstance(tmpfs, MappingNode):
        entries = [(path, scalar(value), value) for path, (_, value) in args.m.items(tmpfs).items()]
    else:
        for item in sequence(tmpfs):
            folder, _, written = (scalar(item) or "").partition(":")
            entries.append((folder, written, item))
    for path, options, node in entries:
        if is_shm_path(path):
            span = args.span(node)
            text = args.source.text[node.start_mark.index : node.end_mark.index]
            yield Setting(TMPFS, options, "tmpfs /dev/shm", span, tmpfs_size(options or "", text, span))


def _mounts(args: _Args) -> Iterator[Setting]:
    """``mounts`` at /dev/shm (docker_container: mappings, ``type`` volume unless said; podman_container: ``--mount``
    strings) and ``volumes`` strings."""
    own_shm = engine_shm(scalar(args.node("ipc_mode")), podman=args.podman)
    for item in sequence(args.node("mounts")):
        written = scalar(item)
        if written is not None:
            mount = parse_mount(written)
            size_text = next((o.value for o in mount.options if o.key == "tmpfs-size"), None)
        else:
            fields = {key: scalar(value) or "" for key, (_, value) in args.m.items(item).items()}
            mount = Mount(fields.get("type") or "volume", fields.get("source", ""), fields.get("target", ""))
            size_text = fields.get("tmpfs_size")
        reaching = reaching_shm(mount, engine_shm=own_shm)
        if reaching is None:
            continue
        span = args.span(item)
        if mount.type == "tmpfs":
            size = args.size_of(size_text, item) if size_text is not None else None
            yield Setting(MOUNT, "tmpfs", "mounts tmpfs /dev/shm", span, size)
        elif mount.type == "bind":
            host = reaching.source or "?"
            yield Setting(MOUNT, "bind", f"mounts bind of {mount.source or '?'}", span, host=host)
        else:
            yield Setting(MOUNT, mount.type, f"mounts {mount.type} at /dev/shm", span)
    for volume in sequence(args.node("volumes")):
        at_shm = reaching_shm(parse_volume(scalar(volume) or ""), engine_shm=own_shm)
        if at_shm is not None:
            bound = at_shm.source if at_shm.type == "bind" else None
            yield Setting(MOUNT, at_shm.type, f"volumes {scalar(volume)}", args.span(volume), host=bound)


def _jinja(value: str | None) -> bool:
    return value is not None and "{{" in value
