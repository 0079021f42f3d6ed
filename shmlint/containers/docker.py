"""Docker/podman run options judged for /dev/shm, once for every syntax that writes them: a command line (``docker
run``, and the formats that pass its options: dev containers, CI jobs, Jenkins, Quadlet, Ray, systemd), Terraform's
``docker_container`` and the Python docker SDK's ``containers.run``.

An adapter reads its syntax into ``DockerOptions``: the settings in the order the file writes them, each with its
span and the words messages quote it by. This module decides what they mean, as docker does: ``--shm-size`` sizes
the IPC namespace's /dev/shm, ``--ipc`` may share another's (``shmlint.runtime.ipc``), a tmpfs, bind or volume at
/dev/shm replaces it; a GPU comes from ``--gpus``, a GPU runtime, a device node, a visibility variable or what the
format says requests one (``nvidia-docker``, a docker SDK ``DeviceRequest``).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator, Sequence

from shmlint import sizes
from shmlint.containers import Judged, torch_evidence
from shmlint.model import Evidence, Launch, ShmKind, ShmMechanism, ShmSource, Size, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.runtime import nccl
from shmlint.runtime.ipc import ipc_mode
from shmlint.runtime.mounts import Option, classify, find_option, split_options, tmpfs_source
from shmlint.runtime.shm import docker_namespace_size
from shmlint.signals import Signals, device_count, gpu_visible
from shmlint.source import Span

#: ``Setting.kind``: what an option is
GPUS, RUNTIME, DEVICE, ENV, GPU = "gpus", "runtime", "device", "env", "gpu"
SHM_SIZE, IPC, TMPFS, MOUNT, POD = "shm-size", "ipc", "tmpfs", "mount", "pod"
#: the word between two commands typed into a container's shell (``DockerOptions.typed_script``)
SEPARATOR = ";"


def with_later_commands(
    workload: Workload, commands: Sequence[tuple[str, ...]], said: str, *, own_entrypoint: bool
) -> Workload:
    """The workload running ``commands`` after its own start, as its later steps (at most a warning:
    ``Workload.command_later``), said with ``said``: one command's words as its arguments, several as one script, a
    command a line. ``own_entrypoint``: they run by themselves (``docker exec``), not as the arguments of the image's
    entrypoint (``docker compose run``)."""
    launch = workload.launch
    if launch is not None:
        arguments = commands[0] if len(commands) == 1 else ("sh", "-c", "\n".join(map(shlex.join, commands)))
        launch = launch._replace(arguments=arguments, entrypoint=() if own_entrypoint else launch.entrypoint)
    return workload._replace(
        command=f" {SEPARATOR} ".join(" ".join(command) for command in commands),
        command_later=True,
        command_from=said,
        launch=launch,
    )


class Setting(NamedTuple):
    """One option. ``value``: ``gpus``, runtime, device path, ``NAME=value``, IPC mode or mount type, as written
    (None when the file computes it); ``text``: how messages quote it; ``size`` of a size or tmpfs option; ``host``:
    the folder a bind mount gives; ``computed``: known only at run time (``--ipc=$MODE``)."""

    kind: str
    value: str | None
    text: str
    span: Span
    size: Size | None = None
    host: str | None = None
    computed: bool = False


class DockerOptions(NamedTuple):
    """What a container's options say; ``word_spans`` places each word of ``entrypoint + arguments`` where the file
    can (a command line), ``command_span`` the whole command where it cannot."""

    base_dir: str  # the file's folder, where relative paths of a launch start
    settings: tuple[Setting, ...] = ()
    image: str | None = None
    image_span: Span | None = None
    entrypoint: tuple[str, ...] = ()
    arguments: tuple[str, ...] = ()
    #: the arguments as the container receives them, where the file's shell changes them first (its expansions of a
    #: double-quoted or bare word are its own variables, not the container's); None: ``arguments``
    received: tuple[str, ...] | None = None
    command_span: Span | None = None
    word_spans: tuple[Span, ...] = ()
    launcher_label: str = "command "  # how torch command evidence is introduced ("" on a command line)
    working_dir: str = ""
    memory: Size | None = None
    unresolved: tuple[ShmSource, ...] = ()  # options spread from a value known at run time (``**options``)
    mounts: tuple[tuple[str, str], ...] = ()  # bind mounts: (container path, host path)
    #: commands typed into the container's interactive shell (documentation), one a line: then ``arguments`` are
    #: their words with ``SEPARATOR`` between two commands (for the data's patterns), the shell runs them as this
    #: script, and ``typed_commands`` holds each command's words (a command's own ``\;`` is a word of it)
    typed_script: str = ""
    typed_commands: tuple[tuple[str, ...], ...] = ()
    #: something else ran in the container unread (a CI job's actions): its typed commands are not all it runs, so
    #: that they are all utilities does not make it a utility container
    typed_incomplete: bool = False
    podman: bool = False  # podman runs it: its ``--shm-size 0`` is no limit, where docker's is its 64 MiB default
    terminal: bool = False  # a terminal is attached (``-t``, compose ``tty: true``)
    manifest: str = ""  # the file that writes the run (its own build of the image it runs is that image)


def judge_docker(options: DockerOptions, signals: Signals) -> Judged:
    words = options.entrypoint + options.arguments
    commands = options.typed_commands if options.typed_script else (words,)
    # typed commands from the first that is not a utility (a diagnostic first, ``nvidia-smi``, decides nothing of
    # what runs after it); none when all are and something else ran unread
    lead = next((i for i, c in enumerate(commands) if not signals.is_utility_command(list(c))), len(commands))
    utility = lead == len(commands) and not options.typed_incomplete
    shown = words if utility or not options.typed_script else words[sum(len(c) + 1 for c in commands[:lead]) :]
    gpu = () if utility else tuple(_gpu(options.settings, signals))
    torch = () if utility else tuple(_torch(options, words, signals))
    env = tuple(env for setting in options.settings if not setting.computed and (env := _env(setting)) is not None)
    received = options.arguments if options.received is None else options.received
    arguments = ("sh", "-c", options.typed_script) if options.typed_script else received
    passed = tuple(name for setting in options.settings if (name := _passed_name(setting)) is not None)
    launch = Launch(
        options.base_dir,
        options.entrypoint,
        arguments,
        options.working_dir,
        env,
        mounts=options.mounts,
        unknown_env=passed,
        manifest=options.manifest,
        terminal=options.terminal,
    )
    return Judged(
        gpu=gpu,
        torch=torch,
        shm=(*_shm(options.settings, podman=options.podman), *options.unresolved),
        memory_limit=options.memory,
        nccl_shm_disabled=_nccl(options.settings),
        image=options.image,
        command=" ".join(shown),
        accelerator_count=_accelerator_count(options.settings, signals) if gpu else None,
        launch=launch,
    )


def tmpfs_size(options: str | None, text: str, span: Span) -> Size | None:
    """The ``size=`` of a tmpfs option string (``size=8g,mode=1777``), read as the kernel reads it; unknown when the
    file computes it. ``text`` is what the file writes at ``span`` (``"rw,size=64m"``, ``/dev/shm:size=64m``): where
    the options are written there as read, on one line, the size is spanned on its own characters, so a fix
    rewrites only them; elsewhere a fix finds other text there and writes nothing."""
    if options is None:
        return Size(text, None, span, sizes.DOCKER)
    size = find_option(split_options(options), "size")
    if size is None:
        return None
    parsed = sizes.parse(size.value, sizes.TMPFS)
    span = option_value_span(text, options, size, span)
    return Size(size.value, parsed.bytes, span, sizes.TMPFS, parsed.error, parsed.suggestion)


def option_value_span(text: str, options: str, option: Option, span: Span) -> Span:
    """Where one option's value is written, when the file writes the option string as it was read, on one line
    (``text``, at ``span``, ends with ``options``, quoted or not); else the whole ``span``."""
    inner = text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'" else text
    if not inner.endswith(options) or span.line != span.end_line:
        return span
    at = (len(text) - len(inner)) // 2 + len(inner) - len(options) + option.start
    return span._replace(
        column=span.column + at,
        end_column=span.column + at + len(option.value),
        start=span.start + at,
        end=span.start + at + len(option.value),
    )


def _bare(value: str | None) -> str:
    return (value or "").strip().strip("\"'")


def _env(setting: Setting, name: str | None = None) -> tuple[str, str] | None:
    """(name, value) of an ``ENV`` setting (of ``name`` only, when given)."""
    if setting.kind != ENV or setting.value is None:
        return None
    key, equals, value = _bare(setting.value).partition("=")
    return (key, _bare(value)) if equals and (name is None or key == name) else None


def _passed_name(setting: Setting) -> str | None:
    """The name an ``ENV`` setting passes without a value the file holds: ``-e NAME`` (the host's value) or one
    the host shell expands (``-e TP=$TP``)."""
    if setting.kind != ENV or setting.value is None:
        return None
    key, equals, _ = _bare(setting.value).partition("=")
    return key if key and (not equals or setting.computed) else None


def _gpu(settings: tuple[Setting, ...], signals: Signals) -> Iterator[Evidence]:
    for setting in settings:
        value = _bare(setting.value)
        env = _env(setting)
        if (
            setting.kind == GPU
            or (setting.kind == GPUS and value not in ("", "0"))  # docker reads --gpus 0 as no GPUs
            or (setting.kind == RUNTIME and signals.is_gpu_runtime(value))
            or (setting.kind == DEVICE and signals.is_gpu_device(value))
            or (env is not None and signals.is_gpu_env(*env))
        ):
            yield Evidence(setting.text, setting.span)


def _torch(options: DockerOptions, words: tuple[str, ...], signals: Signals) -> Iterator[Evidence]:
    yield from torch_evidence(options.image, options.image_span, (), None, signals)
    joined = " ".join(words)
    launcher = signals.torch_command(joined)
    if not launcher:
        return
    span = options.command_span
    if options.word_spans:  # the words the launcher was found in
        begin = joined.find(launcher)
        finish, position, covered = begin + len(launcher), 0, []
        for word, place in zip(words, options.word_spans, strict=True):
            if position < finish and position + len(word) >= begin:
                covered.append(place)
            position += len(word) + 1
        last = covered[-1]
        span = covered[0]._replace(end_line=last.end_line, end_column=last.end_column, end=last.end)
    if span is not None:
        yield Evidence(f"{options.launcher_label}{launcher}", span)


def _accelerator_count(settings: tuple[Setting, ...], signals: Signals) -> int | None:
    """GPUs ``--gpus`` asks for (``2``, ``"device=0,1"``; None for ``all``), else what a counted visibility
    variable lists (``-e NVIDIA_VISIBLE_DEVICES=0,1``)."""
    gpus = [setting for setting in settings if setting.kind == GPUS]
    if gpus:
        return device_count(gpus[-1].value or "")
    listed = [
        device_count(env[1])
        for setting in settings
        for name in signals.counted_envs
        if (env := _env(setting, name)) is not None and gpu_visible(env[1])
    ]
    return max((count for count in listed if count is not None), default=None)


def _nccl(settings: tuple[Setting, ...]) -> Evidence | None:
    for setting in settings:
        env = _env(setting, nccl.SHM_DISABLE)
        if env is not None and nccl.disables_shm(env[1]):
            return Evidence(setting.text, setting.span)
    return None


def _namespace_size(setting: Setting, *, podman: bool) -> ShmSource:
    """``--shm-size``/``shm_size``; a size of 0 is docker's "not set" (its API's ShmSize 0: the daemon's 64 MiB
    default) and podman's no limit at all."""
    size = setting.size
    if size is not None and size.bytes == 0 and podman:
        return ShmSource(
            ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, setting.span, f"{setting.text} 0 (podman: no limit)"
        )
    size = docker_namespace_size(size) if size is not None else None
    return ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, setting.span, setting.text, size)


def _shm(settings: tuple[Setting, ...], *, podman: bool) -> Iterator[ShmSource]:
    last_ipc = next((s for s in reversed(settings) if s.kind == IPC), None)  # a string option: the last one wins
    for setting in settings:
        if setting.kind == IPC and setting is not last_ipc:
            continue
        if setting.kind == SHM_SIZE:
            yield _namespace_size(setting, podman=podman)
        elif setting.kind == IPC:
            known = setting.value is not None and not setting.computed
            kind = ipc_mode(setting.value).kind if known and setting.value is not None else ShmKind.UNKNOWN
            if kind is not None:
                yield ShmSource(kind, ShmMechanism.IPC_MODE, setting.span, setting.text)
        elif setting.kind == TMPFS:
            yield tmpfs_source(ShmMechanism.TMPFS_OPTION, setting.span, setting.text, setting.size)
        elif setting.kind == POD and last_ipc is None:  # a pod shares its IPC namespace, so one /dev/shm, with its
            # containers by default (podman pod create --share), sized where the pod is made
            yield ShmSource(ShmKind.SHARED, ShmMechanism.IPC_MODE, setting.span, setting.text)
        elif setting.kind == MOUNT:
            kind, mechanism = classify(setting.value or "")
            host = setting.host if kind is ShmKind.HOST_PATH else None
            if kind is ShmKind.MEMORY:
                yield tmpfs_source(mechanism, setting.span, setting.text, setting.size)
            else:
                yield ShmSource(kind, mechanism, setting.span, setting.text, setting.size, host_path=host)
