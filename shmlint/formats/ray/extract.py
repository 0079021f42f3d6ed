"""Ray cluster launcher YAML (``ray up``): the container its ``docker`` section starts on each node type.

What Ray does, from ``DockerCommandRunner.run_init`` in ``python/ray/autoscaler/_private/command_runner.py``
(ray-project/ray): the container of a node runs ``docker run`` (``podman`` with ``use_podman``) with
``run_options`` followed by ``head_run_options`` or ``worker_run_options``, on ``head_image``/``worker_image``
or else ``image``. ``_auto_configure_shm`` then appends ``--shm-size`` sized from the node's available memory,
unless ``disable_shm_size_detection`` is set or one of those options already contains ``--shm-size``. So only
the second case without a size of one's own leaves a container on docker's 64 MiB. What runs in the container is
the node's ``head_start_ray_commands``/``worker_start_ray_commands`` (``ray start`` unless written otherwise),
which the launcher execs into it: Ray's object store, in /dev/shm.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.commandline import CommandTarget, command_workload
from shmlint.formats.ray.target import RayTarget
from shmlint.model import Evidence, Workload, WorkloadFormat, WorkloadId
from shmlint.numbers import ascii_float
from shmlint.parsers.run_options import option_words, options_command
from shmlint.parsers.shell import Word
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, is_null, scalar, sequence
from shmlint.signals import Signals
from shmlint.source import SourceText

_SELF_SIZED = "Ray's cluster launcher (it adds --shm-size from the node's available memory)"
_FALSE_BOOLS = frozenset({"false", "no", "off", "n"})
#: what the launcher execs into a node's container when the config writes no start commands
_DEFAULT_START = "ray start"


def is_ray_cluster(documents: list[Node]) -> bool:
    """One document naming the cluster and its cloud at the top level, as ``ray up`` requires."""
    m = Mappings()
    return len(documents) == 1 and all(m.get(documents[0], key) is not None for key in ("cluster_name", "provider"))


def extract_ray(source: SourceText, documents: list[Node], signals: Signals) -> list[Workload]:
    """One container per node type (a node type's own ``docker`` keys replace the cluster's, as Ray merges them),
    or a head and a worker container when the config lists no node types."""
    m = Mappings()
    (config,) = documents
    head = scalar(m.get(config, "head_node_type"))
    types = m.items(m.get(config, "available_node_types"))
    nodes = [(name, "head" if name == head else "worker", node) for name, (_, node) in types.items()]
    found = (_node_container(source, m, config, name, role, node, signals) for name, role, node in nodes)
    legacy = (_node_container(source, m, config, "", role, None, signals) for role in ("head", "worker"))
    return [workload for workload in (found if nodes else legacy) if workload is not None]


def _node_container(
    source: SourceText, m: Mappings, config: Node, name: str, role: str, node: Node | None, signals: Signals
) -> Workload | None:
    """The container Ray starts on a node of this type, or None when its ``docker`` section names no image."""
    layers = [d for d in (m.get(node, "docker"), m.get(config, "docker")) if isinstance(d, MappingNode) and d.value]
    if not layers:
        return None

    def get(key: str) -> Node | None:
        return next((m.get(d, key) for d in layers if m.key(d, key) is not None), None)

    image = get(f"{role}_image") or get("image")
    if not isinstance(image, ScalarNode) or not scalar(image):
        return None
    options = [*sequence(get("run_options")), *sequence(get(f"{role}_run_options"))]
    pieces = [_inside(option) for option in options if isinstance(option, ScalarNode)]
    words = [*option_words(source.text, pieces), _word(image)]
    engine = "podman" if _truthy(get("use_podman")) else "docker"
    holder = next((d for d in layers if m.key(d, "run_options") is not None), layers[-1])  # where Ray reads them
    command = options_command(engine, holder.start_mark.index, words, source.text)
    if command is None:
        return None
    workload = command_workload(command, source, signals, occurrence=0)
    disabled = next(
        (m.key(d, "disable_shm_size_detection") for d in layers if m.key(d, "disable_shm_size_detection")), None
    )
    self_sized = not _truthy(get("disable_shm_size_detection")) and not any(
        "--shm-size" in (scalar(option) or "") for option in options
    )
    at = disabled if disabled is not None and not self_sized else image
    slots = workload.target.size_slots if isinstance(workload.target, CommandTarget) else ()
    cluster = scalar(m.get(config, "cluster_name")) or ""
    container = scalar(get("container_name")) or ""
    key = f"{role}_start_ray_commands"
    listed = m.key(config, key) is not None and not is_null(m.get(config, key))  # ``[]`` replaces the default too
    started = [text.strip() for item in sequence(m.get(config, key)) if (text := _string(item)) and text.strip()]
    return workload._replace(
        id=WorkloadId(WorkloadFormat.RAY, "Ray cluster", cluster, _role(name, role), "container", container),
        command=" ; ".join(started) if listed else _DEFAULT_START,  # the launcher execs these into the container
        command_from=(key if started else "") if listed else "the launcher's default",
        span=source.span(at.start_mark.index, at.end_mark.index),
        gpu=(*workload.gpu, *_gpu_resources(source, m, name, node)),
        shm_managed_by=_SELF_SIZED if self_sized else None,
        target=RayTarget(holder.start_mark.index, slots),
    )


def _string(node: Node) -> str:
    """A list item Ray runs as a command: a string scalar (a number or a mapping is no command)."""
    return node.value if isinstance(node, ScalarNode) and node.tag.endswith(":str") else ""


def _truthy(node: Node | None) -> bool:
    """What Python makes of the value Ray reads with ``docker_config.get(key)``: a quoted ``"false"`` is a
    non-empty string, and so true."""
    if node is None or is_null(node):
        return False
    value: str = node.value if isinstance(node, ScalarNode) else ""
    if not isinstance(node, ScalarNode):
        return bool(node.value)  # a mapping or a list: true when not empty
    kind = node.tag.rsplit(":", 1)[-1]
    if kind == "bool":
        return value.lower() not in _FALSE_BOOLS
    if kind in ("int", "float"):
        number = ascii_float(value.replace("_", ""))
        return number is None or number != 0  # None: 0x1f, 1:30 (sexagesimal), never zero in a real config
    return value != ""


def _role(name: str, role: str) -> str:
    """``gpu_worker``, ``head_gpu (head)``; ``head``/``worker`` for a config without node types."""
    if not name:
        return role
    return f"{name} (head)" if role == "head" else name


def _gpu_resources(source: SourceText, m: Mappings, name: str, node: Node | None) -> Iterator[Evidence]:
    """``resources: {GPU: n}`` of the node type."""
    gpus = m.path(node, "resources", "GPU")
    count = scalar(gpus)
    if gpus is not None and count and count.strip("0.") != "":
        yield Evidence(
            f"node type {name} resources GPU: {count}", source.span(gpus.start_mark.index, gpus.end_mark.index)
        )


def _inside(node: ScalarNode) -> tuple[int, int]:
    """The characters of a scalar's value: inside its quotes when it has them."""
    start, end = node.start_mark.index, node.end_mark.index
    return (start + 1, end - 1) if node.style in ("'", '"') else (start, end)


def _word(node: ScalarNode) -> Word:
    start, end = _inside(node)
    return Word(node.value, start, end)
