"""systemd units that start containers: ``ExecStart=docker run ...`` in a ``.service``, and Podman Quadlet
``.container`` units, whose ``[Container]`` keys are ``podman run`` options (podman-systemd.unit(5)).

A Quadlet unit is read as the ``podman run`` line Quadlet generates from it: each key becomes the option it
stands for, with the key's position, so the command-line judgement (GPU evidence, /dev/shm sources, sizes) is the
same as for a ``podman run`` line, and a finding points at the key that causes it.
"""

from __future__ import annotations

import os

from shmlint.discover import StrPath
from shmlint.extract.commandline import CommandTarget, ShellText, command_workload, extract_commands
from shmlint.lazy_regex import LazyRegex
from shmlint.model import Evidence, ShmKind, ShmMechanism, ShmSource, Workload, WorkloadFormat, WorkloadId
from shmlint.parsers.run_options import option_words, options_command
from shmlint.parsers.shell import Word
from shmlint.parsers.systemd_unit import UnitEntry, read_unit, section_end, value
from shmlint.signals import Signals
from shmlint.source import SourceText

#: ``ExecStart=`` and its kin in ``[Service]``: each runs a command line
_EXEC_KEYS = frozenset({"ExecStart", "ExecStartPre", "ExecStartPost"})
#: special executable prefixes of systemd.service(5): ``-`` (failure ignored), ``@``, ``+``, ``!``, ``!!``, ``:``
_EXEC_PREFIX = LazyRegex(r"[-@+!:|]*")
#: Quadlet keys with a single value, and the ``podman run`` option each stands for
_VALUE_KEYS = {
    "ShmSize": "--shm-size",
    "AddDevice": "--device",
    "Tmpfs": "--tmpfs",
    "Mount": "--mount",
    "Volume": "--volume",
    "Memory": "--memory",
    "Entrypoint": "--entrypoint",
}
#: Quadlet keys whose value is a list of words, each one option
_LIST_KEYS = {"Environment": "--env"}


def extract_unit(source: SourceText, path: StrPath, signals: Signals) -> list[Workload]:
    """The containers a unit file starts."""
    entries = read_unit(source.text)
    workloads = _service_commands(source, entries, signals)
    if any(entry.section == "Container" for entry in entries):
        workload = _quadlet(source, path, entries, signals)
        if workload is not None:
            workloads.append(workload)
    return workloads


def _service_commands(source: SourceText, entries: list[UnitEntry], signals: Signals) -> list[Workload]:
    """``docker run``/``podman run`` in ``ExecStart=`` lines, read in place past the executable prefixes."""
    pieces = []
    for entry in entries:
        if entry.section == "Service" and entry.key in _EXEC_KEYS:
            prefix = _EXEC_PREFIX.match(source.text, entry.start)
            pieces.append((prefix.end() if prefix else entry.start, entry.end))
    if not pieces:
        return []
    mask = [" " if c != "\n" else "\n" for c in source.text]
    for start, end in pieces:
        mask[start:end] = source.text[start:end]
    return extract_commands(source, ShellText("".join(mask)), signals)


def _quadlet(source: SourceText, path: StrPath, entries: list[UnitEntry], signals: Signals) -> Workload | None:
    text = source.text
    container = [entry for entry in entries if entry.section == "Container"]
    words: list[Word] = []
    image: Word | None = None
    image_entry = container[0]
    arguments: list[Word] = []
    for entry in container:
        if entry.key in _VALUE_KEYS:
            words.extend(_value_option(text, entry, _VALUE_KEYS[entry.key]))
        elif entry.key in _LIST_KEYS:
            flag = Word(_LIST_KEYS[entry.key], entry.key_start, entry.key_start + len(entry.key))
            for word in option_words(text, [(entry.start, entry.end)]):
                words.extend((flag, word))
        elif entry.key == "PodmanArgs":
            words.extend(option_words(text, [(entry.start, entry.end)]))
        elif entry.key == "Image":
            image = _value_word(text, entry, entry.start)
            image_entry = entry
        elif entry.key == "Exec":
            arguments = option_words(text, [(entry.start, entry.end)])
    if image is None:
        return None  # Quadlet refuses a container unit without Image=
    command = options_command("podman", container[0].key_start, [*words, image, *arguments], text)
    if command is None:
        return None
    workload = command_workload(command, source, signals, occurrence=0)
    insert_at = section_end(entries, "Container")
    slots = workload.target.size_slots if isinstance(workload.target, CommandTarget) else ()
    name = next((value(text, e) for e in container if e.key == "ContainerName"), f"systemd-{_stem(path)}")
    pod = next((e for e in container if e.key == "Pod"), None)
    shm = workload.shm
    if pod is not None:  # a pod shares its IPC namespace, and so one /dev/shm, with its containers by default
        span = source.span(pod.key_start, pod.end)
        shm += (ShmSource(ShmKind.SHARED, ShmMechanism.IPC_MODE, span, f"Pod={value(text, pod)}"),)
    keys = {entry.key_start for entry in container}
    gpu = tuple(  # evidence in the unit's own words: ``AddDevice=nvidia.com/gpu=all``, not ``--device ...``
        Evidence(text[e.span.start : e.span.end], e.span) if e.span.start in keys else e for e in workload.gpu
    )
    return workload._replace(
        gpu=gpu,
        id=WorkloadId(WorkloadFormat.QUADLET, "Quadlet", _stem(path), container_kind="container", container=name),
        span=source.span(image_entry.key_start, image_entry.line_end),
        shm=shm,
        target=CommandTarget(insert_at, slots) if insert_at is not None else None,
    )


def _value_option(text: str, entry: UnitEntry, option: str) -> tuple[Word, Word]:
    """The option a single-valued key stands for: the key as the flag, its value (``AddDevice=-/dev/x``: the
    device only when it exists, the ``-`` is Quadlet's, not the device's) as the value."""
    start = entry.start + (entry.key == "AddDevice" and text.startswith("-", entry.start))
    flag = Word(option, entry.key_start, entry.key_start + len(entry.key))
    return flag, _value_word(text, entry, start)


def _value_word(text: str, entry: UnitEntry, start: int) -> Word:
    """A key's whole value as one word, spanning its own characters."""
    raw = text[start : entry.end]
    return Word(value(text, entry._replace(start=start)), start, start + len(raw.rstrip()))


def _stem(path: StrPath) -> str:
    """The unit's name without its suffix (``Path.stem``)."""
    return os.path.splitext(os.path.basename(path))[0]
