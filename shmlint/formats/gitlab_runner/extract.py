"""A GitLab runner's ``config.toml``: every ``[[runners]]`` entry with a docker executor starts its jobs' containers
with the settings of its ``[runners.docker]`` table, whatever the jobs' ``.gitlab-ci.yml`` says.

The settings are docker options under other names (``gpus``, ``shm_size`` in bytes, ``ipcmode``, ``memory``,
``devices``, ``volumes``, ``tmpfs``, the runner's ``environment``), so they are read as those options and judged
like a ``docker run`` line. ``shm_size = 0`` is docker's default of 64 MiB, as if it were not set. ``tomllib``
reads the values; ``shmlint.parsers.toml_tables`` says where they are written.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.docker_options import options_workload
from shmlint.formats.gitlab_runner.target import TableTarget
from shmlint.model import Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.container_options import Flag
from shmlint.parsers.shell import Word
from shmlint.parsers.toml_tables import KeyLine, Table, load_toml, tables
from shmlint.signals import Signals
from shmlint.source import SourceText

#: ``[runners.docker]`` keys that are a docker option with a single value
_OPTIONS = {
    "gpus": "--gpus",
    "runtime": "--runtime",
    "ipcmode": "--ipc",
    "memory": "--memory",
    "shm_size": "--shm-size",
}
#: keys whose value is a list of docker option values (``environment`` belongs to the runner itself)
_LISTS = {"devices": "--device", "volumes": "--volume", "environment": "--env"}


def extract_gitlab_runner(source: SourceText, signals: Signals) -> list[Workload]:
    """One workload per docker runner; raises ``tomllib.TOMLDecodeError``."""
    settings = load_toml(source.text)
    runners = settings.get("runners")
    if not isinstance(runners, list):
        return []
    workloads = []
    for runner, located in zip(runners, _runner_tables(tables(source.text)), strict=False):
        docker = runner.get("docker") if isinstance(runner, dict) else None
        if not isinstance(docker, dict) or not str(runner.get("executor", "docker")).startswith("docker"):
            continue
        workloads.append(_workload(source, signals, runner, docker, located))
    return workloads


def _runner_tables(found: list[Table]) -> Iterator[dict[str, Table]]:
    """For each ``[[runners]]`` entry, its tables by name (``runners``, ``runners.docker``...)."""
    current: dict[str, Table] | None = None
    for table in found:
        if table.array and table.name == "runners":
            if current is not None:
                yield current
            current = {}
        if current is not None and table.name.startswith("runners"):
            current.setdefault(table.name, table)
    if current is not None:
        yield current


def _workload(source: SourceText, signals: Signals, runner: dict, docker: dict, located: dict[str, Table]) -> Workload:
    runner_table, docker_table = located.get("runners"), located.get("runners.docker")
    flags = list(_flags(source, docker, docker_table, ("gpus", "runtime", "ipcmode", "memory", "devices", "volumes")))
    shm_key = _key(docker_table, "shm_size")
    size = docker.get("shm_size")
    if isinstance(size, int) and not isinstance(size, bool) and size > 0:  # 0 is the default; a string is refused
        flags.extend(_flags(source, docker, docker_table, ("shm_size",)))
    flags.extend(_tmpfs(source, docker, located.get("runners.docker.tmpfs"), docker_table))
    flags.extend(_flags(source, runner, runner_table, ("environment",)))
    anchor = _key(docker_table, "gpus") or docker_table or runner_table
    start = anchor.key_start if isinstance(anchor, KeyLine) else anchor.start if anchor else 0
    image = docker.get("image")
    image_key = _key(docker_table, "image")
    name = runner.get("name")
    return options_workload(
        source,
        signals,
        id=WorkloadId(WorkloadFormat.GITLAB_RUNNER, "runner", str(name or ""), container_kind="job containers"),
        span=source.span(start, start + (len(anchor.key) if isinstance(anchor, KeyLine) else 1)),
        words=(),
        image=Word(image, image_key.value_start, image_key.value_end) if image_key and isinstance(image, str) else None,
        extra=flags,
        target=_target(source, docker_table, shm_key),
    )


def _key(table: Table | None, name: str) -> KeyLine | None:
    return next((key for key in reversed(table.keys) if key.key == name), None) if table else None


def _flags(source: SourceText, values: dict, table: Table | None, names: tuple[str, ...]) -> Iterator[Flag]:
    for name in names:
        located, value = _key(table, name), values.get(name)
        if located is None or value is None:
            continue
        option = _OPTIONS.get(name) or _LISTS[name]
        items = value if isinstance(value, list) else [value]
        cursor = located.value_start
        for item in items:
            text = str(item)
            found = source.text.find(text, cursor)
            start, end = (found, found + len(text)) if found != -1 else (located.value_start, located.value_end)
            cursor = max(cursor, end)
            key = Word(name, located.key_start, located.key_start + len(name))
            yield Flag(option, key, Word(text, start, end), text, start, end)


def _tmpfs(source: SourceText, docker: dict, table: Table | None, docker_table: Table | None) -> Iterator[Flag]:
    """``[runners.docker.tmpfs]`` (or an inline ``tmpfs = {...}``): ``"/dev/shm" = "rw,size=1g"``."""
    mounts = docker.get("tmpfs")
    if not isinstance(mounts, dict):
        return
    for target, options in mounts.items():
        located = _key(table, target) or _key(docker_table, "tmpfs")
        if located is None:
            continue
        text = f"{target}:{options}" if options else str(target)
        key = Word(str(target), located.key_start, located.key_start + len(str(target)))
        value = Word(text, located.value_start, located.value_end)
        yield Flag("--tmpfs", key, value, text, located.value_start, located.value_end)


def _target(source: SourceText, table: Table | None, shm_size: KeyLine | None) -> TableTarget | None:
    """``shm_size`` goes over the value there, or on a new line after the table's last key, indented like it."""
    if table is None:
        return None
    existing = None
    if shm_size is not None:  # the whole value, quotes too: a quoted size is refused, the number replaces it
        start, end = shm_size.value_start, shm_size.value_end
        quoted = source.text[start - 1 : start] in ("'", '"') and source.text[end : end + 1] == source.text[start - 1]
        existing = (start - 1, end + 1) if quoted else (start, end)
    last = table.keys[-1] if table.keys else None
    insert_at = last.line_end if last else table.header_end
    line_start = source.text.rfind("\n", 0, last.key_start if last else table.start) + 1
    indent = source.text[line_start : last.key_start if last else table.start]
    if not last:
        indent += "  "
    return TableTarget(insert_at, source.newline + indent, existing)
