"""``docker run`` / ``podman run`` / ``nvidia-docker run`` command lines as workloads.

Options are read with the container CLIs' own grammar (which options take a value, grouped short options,
``--opt=value``, ``--``), because a value mistaken for the image shifts every later word and turns a training
run into a false "no /dev/shm" finding or hides a real one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shmlint import sizes
from shmlint.model import (
    CommandTarget,
    Evidence,
    Format,
    ShmKind,
    ShmMechanism,
    ShmSource,
    Size,
    SizeSlot,
    Workload,
    WorkloadId,
)
from shmlint.parsers.shell import Word, commands
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

_ENGINES = frozenset({"docker", "podman", "podman-remote", "nvidia-docker"})
#: ``$(DOCKER) run``, ``${CONTAINER_ENGINE} run``: a variable that names the engine, followed by ``run``
_ENGINE_VARIABLE = re.compile(r"^\$[({]?\w*(docker|podman|container_(engine|runtime|cli))\w*[)}]?$", re.IGNORECASE)
_SUBCOMMANDS = frozenset({"run", "create"})

#: global options of docker and podman that take a value (``docker --context x run``)
_GLOBAL_VALUE_OPTIONS = frozenset(
    [
        "-c",
        "--context",
        "--config",
        "-H",
        "--host",
        "-l",
        "--log-level",
        "--tlscacert",
        "--tlscert",
        "--tlskey",
        "--connection",
        "--url",
        "--identity",
        "--root",
        "--runroot",
        "--storage-driver",
        "--storage-opt",
        "--cgroup-manager",
        "--runtime",
        "--runtime-flag",
        "--events-backend",
        "--hooks-dir",
        "--module",
        "--ssh",
        "--tmpdir",
        "--imagestore",
        "--network-cmd-path",
        "--network-config-dir",
        "--volumepath",
        "--conmon",
        "--cni-config-dir",
        "--out",
    ]
)

#: ``run``/``create`` options of docker and podman that take a value; every other option is a boolean
_RUN_VALUE_OPTIONS = frozenset(
    [
        "-a",
        "--attach",
        "--add-host",
        "--annotation",
        "--arch",
        "--authfile",
        "--blkio-weight",
        "--blkio-weight-device",
        "-c",
        "--cpu-shares",
        "--cap-add",
        "--cap-drop",
        "--cgroup-conf",
        "--cgroup-parent",
        "--cgroupns",
        "--cgroups",
        "--chrootdirs",
        "--cidfile",
        "--conmon-pidfile",
        "--cpu-count",
        "--cpu-percent",
        "--cpu-period",
        "--cpu-quota",
        "--cpu-rt-period",
        "--cpu-rt-runtime",
        "--cpus",
        "--cpuset-cpus",
        "--cpuset-mems",
        "--creds",
        "--decryption-key",
        "--detach-keys",
        "--device",
        "--device-cgroup-rule",
        "--device-read-bps",
        "--device-read-iops",
        "--device-write-bps",
        "--device-write-iops",
        "--dns",
        "--dns-opt",
        "--dns-option",
        "--dns-search",
        "--domainname",
        "--entrypoint",
        "-e",
        "--env",
        "--env-file",
        "--env-merge",
        "--expose",
        "--gidmap",
        "--gpus",
        "--group-add",
        "--group-entry",
        "--health-cmd",
        "--health-interval",
        "--health-log-destination",
        "--health-max-log-count",
        "--health-max-log-size",
        "--health-on-failure",
        "--health-retries",
        "--health-start-interval",
        "--health-start-period",
        "--health-startup-cmd",
        "--health-startup-interval",
        "--health-startup-retries",
        "--health-startup-success",
        "--health-startup-timeout",
        "--health-timeout",
        "-h",
        "--hostname",
        "--hostuser",
        "--hosts-file",
        "--image-volume",
        "--init-path",
        "--io-maxbandwidth",
        "--io-maxiops",
        "--ip",
        "--ip6",
        "--ipc",
        "--isolation",
        "--kernel-memory",
        "-l",
        "--label",
        "--label-file",
        "--link",
        "--link-local-ip",
        "--log-driver",
        "--log-opt",
        "--mac-address",
        "-m",
        "--memory",
        "--memory-reservation",
        "--memory-swap",
        "--memory-swappiness",
        "--mount",
        "--name",
        "--net",
        "--network",
        "--net-alias",
        "--network-alias",
        "--oom-score-adj",
        "--os",
        "--passwd-entry",
        "--personality",
        "--pid",
        "--pidfile",
        "--pids-limit",
        "--platform",
        "--pod",
        "--pod-id-file",
        "--preserve-fd",
        "--preserve-fds",
        "-p",
        "--publish",
        "--pull",
        "--rdt-class",
        "--requires",
        "--restart",
        "--retry",
        "--retry-delay",
        "--runtime",
        "--sdnotify",
        "--seccomp-policy",
        "--secret",
        "--security-opt",
        "--shm-size",
        "--shm-size-systemd",
        "--stop-signal",
        "--stop-timeout",
        "--storage-opt",
        "--subgidname",
        "--subuidname",
        "--sysctl",
        "--systemd",
        "--timeout",
        "--tmpfs",
        "--tz",
        "-u",
        "--user",
        "--uidmap",
        "--ulimit",
        "--umask",
        "--unsetenv",
        "--userns",
        "--uts",
        "--variant",
        "-v",
        "--volume",
        "--volume-driver",
        "--volumes-from",
        "-w",
        "--workdir",
    ]
)
_LONG_NAMES = {"-e": "--env", "-v": "--volume", "-m": "--memory", "-u": "--user", "-w": "--workdir"}

#: prefixes that run the next word as the command, with their own options that take a value
_WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset(
        [
            "-u",
            "--user",
            "-g",
            "--group",
            "-h",
            "--host",
            "-p",
            "--prompt",
            "-C",
            "--close-from",
            "-r",
            "--role",
            "-t",
            "--type",
            "-U",
            "--other-user",
            "-D",
            "--chdir",
            "-R",
            "--chroot",
            "-T",
            "--command-timeout",
        ]
    ),
    "env": frozenset(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
    "exec": frozenset({"-a"}),
    "command": frozenset(),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
_VARIABLE_NAME = re.compile(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)")
#: unquoted variables named like this stand for a list of options, not an image
_OPTION_LIKE_NAME = re.compile(r"ARGS|OPTS|OPTIONS|FLAGS|PARAMS|MOUNTS|VOLUMES|ENVS?\b|ENV_|_ENV|EXTRA", re.IGNORECASE)
_SHM = "/dev/shm"


@dataclass(frozen=True)
class _Option:
    """One option of a ``docker run`` line with the offsets a fix needs to rewrite its value."""

    name: str  # as written, without ``=value``: ``--gpus``, ``-e``
    flag: Word
    value: Word | None  # None for a boolean option
    value_text: str
    value_start: int  # offsets of the value's own text (inside quotes, after ``=``)
    value_end: int

    @property
    def long_name(self) -> str:
        return _LONG_NAMES.get(self.name, self.name)

    @property
    def end(self) -> int:
        return self.value.end if self.value is not None else self.flag.end

    @property
    def dynamic(self) -> bool:
        return self.value is not None and self.value.dynamic

    def shown(self) -> str:
        return f"{self.name} {self.value_text}" if self.value is not None else self.name


@dataclass(frozen=True)
class _RunLine:
    """One run/create invocation split the way the CLI splits it."""

    first: Word  # the command's first word (``sudo``, ``env``, or the engine)
    engine: Word
    subcommand: str
    run_word: Word
    options: tuple[_Option, ...]
    unknown: tuple[Word, ...]  # expansions before the image that could carry more options
    image: Word | None
    arguments: tuple[Word, ...]


def extract_commands(source: SourceText, masked: str, signals: Signals) -> list[Workload]:
    """One workload per container run/create command line in the masked text."""
    workloads: list[Workload] = []
    for command in commands(masked):
        line = _run_line(command.words, masked)
        if line is not None:
            workloads.append(_workload(line, source, signals, occurrence=len(workloads)))
    return workloads


# -- splitting the command line ----------------------------------------------------------------------------------


def _run_line(words: Sequence[Word], text: str) -> _RunLine | None:
    start = next((i for i, word in enumerate(words) if not _is_assignment(word, text)), len(words))
    index = _skip_wrappers(words, start, text)
    if index >= len(words):
        return None
    engine = words[index]
    if not _is_engine(engine, words[index + 1 : index + 2]):
        return None
    index = _skip_options(words, index + 1, _GLOBAL_VALUE_OPTIONS)
    container = index < len(words) and words[index].text == "container"  # docker container run
    index += container
    if index >= len(words) or words[index].text not in _SUBCOMMANDS:
        return None
    run_word = words[index]
    options, unknown, image_index = _read_options(words, index + 1, text)
    image = words[image_index] if image_index < len(words) else None
    return _RunLine(
        first=words[start],
        engine=engine,
        subcommand=f"container {run_word.text}" if container else run_word.text,
        run_word=run_word,
        options=tuple(options),
        unknown=tuple(unknown),
        image=image,
        arguments=tuple(words[image_index + 1 :]),
    )


def _is_assignment(word: Word, text: str) -> bool:
    return bool(_ASSIGNMENT.match(text[word.start : word.end]))


def _skip_wrappers(words: Sequence[Word], index: int, text: str) -> int:
    """Index of the word that is the program: past ``VAR=x``, ``sudo -E``, ``env -u X``, ``exec``..."""
    while index < len(words):
        word = words[index]
        if _is_assignment(word, text):
            index += 1
            continue
        value_options = None if word.dynamic else _WRAPPERS.get(word.text.rsplit("/", 1)[-1])
        if value_options is None:
            return index
        index = _skip_options(words, index + 1, value_options)
    return index


def _skip_options(words: Sequence[Word], index: int, value_options: frozenset[str]) -> int:
    """Index of the first word after the leading options (and their values)."""
    while index < len(words):
        text = words[index].text
        if not text.startswith("-") or text == "-":
            break
        index += 1
        if text == "--":
            break
        if "=" not in text and text in value_options:
            index += 1
    return index


def _is_engine(word: Word, following: Sequence[Word]) -> bool:
    if word.dynamic:
        before_subcommand = bool(following) and following[0].text in _SUBCOMMANDS | {"container"}
        return before_subcommand and bool(_ENGINE_VARIABLE.match(word.text))
    return word.text.rsplit("/", 1)[-1] in _ENGINES


def _read_options(words: Sequence[Word], index: int, text: str) -> tuple[list[_Option], list[Word], int]:
    """The options, the expansions that may hold more options, and the index of the image word."""
    options: list[_Option] = []
    unknown: list[Word] = []
    while index < len(words):
        word = words[index]
        if word.text == "--":
            return options, unknown, index + 1
        if not word.text.startswith("-") or word.text == "-":
            if word.splat and _stands_for_options(word):
                unknown.append(word)
                index += 1
                continue
            return options, unknown, index
        index = _read_option(words, index, options, text)
    return options, unknown, index


def _read_option(words: Sequence[Word], index: int, options: list[_Option], text: str) -> int:
    """Read the option word at ``index`` (and its value); returns the index after them."""
    word = words[index]
    following = words[index + 1] if index + 1 < len(words) else None
    if word.text.startswith("--"):
        name, equals, attached = word.text.partition("=")
        if equals:
            options.append(_option(name, word, word, attached, text))
            return index + 1
        if name in _RUN_VALUE_OPTIONS and following is not None:
            options.append(_option(name, word, following, following.text, text))
            return index + 2
        options.append(_option(name, word, None, "", text))
        return index + 1
    for position, letter in enumerate(word.text[1:], start=1):  # grouped short options: -it, -itd, -p8080:80
        name = "-" + letter
        if name not in _RUN_VALUE_OPTIONS:
            options.append(_option(name, word, None, "", text))
            continue
        attached = word.text[position + 1 :]
        if attached:
            options.append(_option(name, word, word, attached, text))
            return index + 1
        if following is not None:
            options.append(_option(name, word, following, following.text, text))
            return index + 2
    return index + 1


def _option(name: str, flag: Word, value: Word | None, value_text: str, text: str) -> _Option:
    """An option with the offsets of its value's own characters: after ``=``, inside quotes when it can tell."""
    if value is None:
        return _Option(name, flag, None, "", flag.end, flag.end)
    size = len(value_text)
    for end in (value.end, value.end - 1):  # the value is the word's tail, before a closing quote if any
        if size and end - size >= value.start and text[end - size : end] == value_text:
            return _Option(name, flag, value, value_text, end - size, end)
    return _Option(name, flag, value, value_text, value.start, value.end)


def _stands_for_options(word: Word) -> bool:
    """An expansion in the image's place that is more likely a list of options than the image."""
    name = _VARIABLE_NAME.match(word.text)
    if word.text.startswith(("$@", "$*")) or "[@]" in word.text or "[*]" in word.text:
        return True
    return bool(name and _OPTION_LIKE_NAME.search(name.group(1)))


# -- judging it --------------------------------------------------------------------------------------------------


def _workload(line: _RunLine, source: SourceText, signals: Signals, *, occurrence: int) -> Workload:
    span = source.span(line.first.start, line.first.end)
    entrypoint = [option for option in line.options if option.name == "--entrypoint" and option.value][-1:]
    command = [(option.value_text, option.flag.start, option.end) for option in entrypoint]
    command += [(word.text, word.start, word.end) for word in line.arguments]
    utility = signals.is_utility_command([text for text, _, _ in command])
    shm, slots = _shm_sources(line, source)
    memory = [option for option in line.options if option.long_name == "--memory" and option.value is not None]
    return Workload(
        id=WorkloadId(Format.COMMAND, f"{line.engine.text} {line.subcommand}", occurrence=occurrence),
        span=span,
        gpu=() if utility else tuple(_gpu_evidence(line, source, signals)),
        torch=() if utility else tuple(_torch_evidence(line, command, source, signals)),
        shm=tuple(shm),
        memory_limit=_size(memory[-1], source) if memory else None,
        nccl_shm_disabled=_nccl_shm_disabled(line, source),
        target=CommandTarget(insert_at=line.run_word.end, size_slots=tuple(slots)),
    )


def _gpu_evidence(line: _RunLine, source: SourceText, signals: Signals) -> Iterable[Evidence]:
    if line.engine.text.rsplit("/", 1)[-1] == "nvidia-docker":
        yield Evidence("nvidia-docker", source.span(line.engine.start, line.engine.end))
    for option in line.options:
        if option.value is not None and _is_gpu_option(option.long_name, option.value_text, signals):
            yield Evidence(option.shown(), source.span(option.flag.start, option.end))


def _is_gpu_option(name: str, value: str, signals: Signals) -> bool:
    value = value.strip().strip("\"'")
    if name == "--gpus":
        return value != "0"  # docker reads --gpus 0 as no GPUs
    if name == "--runtime":
        return signals.is_gpu_runtime(value)
    if name == "--device":
        return _is_gpu_device(value, signals)
    if name == "--env":
        key, equals, setting = value.partition("=")
        return bool(equals) and signals.is_gpu_env(key, setting.strip().strip("\"'"))
    return False


def _is_gpu_device(value: str, signals: Signals) -> bool:
    kind, equals, _ = value.partition("=")
    if equals and "/" in kind and not kind.startswith("/"):
        return signals.is_gpu_resource(kind)  # a CDI device name: nvidia.com/gpu=all
    return signals.is_gpu_device(value.split(":", 1)[0])


def _env(value: str, name: str) -> str | None:
    """The value an ``-e NAME=value`` option gives ``name``, or None when it sets something else."""
    key, equals, setting = value.partition("=")
    return setting.strip().strip("\"'") if equals and key == name else None


def _torch_evidence(
    line: _RunLine, command: list[tuple[str, int, int]], source: SourceText, signals: Signals
) -> Iterable[Evidence]:
    image = line.image
    if image is not None and not image.dynamic and signals.is_torch_image(image.text):
        yield Evidence(f"image {image.text}", source.span(image.start, image.end))
    joined = " ".join(text for text, _, _ in command)
    launcher = signals.torch_command(joined)
    if launcher:
        begin = joined.find(launcher)
        finish = begin + len(launcher)
        covered, position = [], 0
        for text, start, end in command:  # the words the launcher text was found in
            if position < finish and position + len(text) >= begin:
                covered.append((start, end))
            position += len(text) + 1
        yield Evidence(launcher, source.span(covered[0][0], covered[-1][1]))


def _nccl_shm_disabled(line: _RunLine, source: SourceText) -> Evidence | None:
    for option in line.options:
        if option.long_name == "--env" and _env(option.value_text, "NCCL_SHM_DISABLE") == "1":
            return Evidence(option.shown(), source.span(option.flag.start, option.end))
    return None


def _shm_sources(line: _RunLine, source: SourceText) -> tuple[list[ShmSource], list[SizeSlot]]:
    found: list[ShmSource] = []
    slots: list[SizeSlot] = []
    for option in line.options:
        if option.value is None:
            continue
        span = source.span(option.flag.start, option.end)
        name, value = option.long_name, option.value_text.strip()
        if name == "--shm-size":
            found.append(
                ShmSource(ShmKind.MEMORY, ShmMechanism.NAMESPACE_SIZE, span, "--shm-size", _size(option, source))
            )
        elif name == "--ipc":
            kind = _ipc_kind(value, option.dynamic)
            if kind is not None:
                found.append(ShmSource(kind, ShmMechanism.IPC_MODE, span, f"--ipc={value}"))
        elif name == "--tmpfs":
            found.extend(_tmpfs(option, span, source, slots))
        elif name == "--mount":
            found.extend(_mount(option, span, source, slots))
        elif name == "--volume":
            found.extend(_volume(option, span))
    for word in line.unknown:
        description = f"{word.text} (expanded at run time)"
        span = source.span(word.start, word.end)
        found.append(ShmSource(ShmKind.UNKNOWN, ShmMechanism.EXPANSION, span, description))
    return found, slots


def _ipc_kind(value: str, dynamic: bool) -> ShmKind | None:
    if dynamic:
        return ShmKind.UNKNOWN
    mode = value.lower()
    if mode == "host":
        return ShmKind.HOST_IPC
    if mode == "none":
        return ShmKind.NONE
    if mode.startswith(("container:", "ns:")):
        return ShmKind.SHARED
    return None  # private, shareable, empty: the container's own /dev/shm at the default size


def _tmpfs(option: _Option, span: Span, source: SourceText, slots: list[SizeSlot]) -> Iterable[ShmSource]:
    path, colon, mount_options = option.value_text.partition(":")
    if path.rstrip("/") != _SHM:
        return
    offset = option.value_start + len(path) + len(colon)
    for item in mount_options.split(","):
        key, equals, size = item.partition("=")
        if equals and key.strip() == "size":
            start = offset + len(key) + 1 if _exact(option) else option.value_start
            end = start + len(size) if _exact(option) else option.value_end
            unknown = option.dynamic or size.strip().endswith("%")  # the kernel also takes a share of RAM: 50%
            sized = _sized(size, start, end, source, unknown)
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "--tmpfs /dev/shm", sized)
            return
        offset += len(item) + 1
    prefix = ",size=" if mount_options else "size=" if colon else ":size="
    slots.append(SizeSlot(span.start, option.end, prefix, in_bytes=False))
    yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_OPTION, span, "--tmpfs /dev/shm")


def _mount(option: _Option, span: Span, source: SourceText, slots: list[SizeSlot]) -> Iterable[ShmSource]:
    fields: dict[str, tuple[str, int]] = {}
    offset = option.value_start
    for item in option.value_text.split(","):
        key, equals, value = item.partition("=")
        fields[key.strip().lower()] = (value.strip() if equals else "true", offset + len(key) + len(equals))
        offset += len(item) + 1
    target = next((fields[key][0] for key in ("destination", "dst", "target") if key in fields), "")
    if target.rstrip("/") != _SHM:
        return
    kind = fields.get("type", ("volume", 0))[0].lower()
    if kind == "tmpfs":
        if "tmpfs-size" in fields:
            size, start = fields["tmpfs-size"]
            end = start + len(size)
            if not _exact(option):
                start, end = option.value_start, option.value_end
            sized = _sized(size, start, end, source, option.dynamic)
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "--mount type=tmpfs", sized)
        else:
            slots.append(SizeSlot(span.start, option.end, ",tmpfs-size=", in_bytes=True))
            yield ShmSource(ShmKind.MEMORY, ShmMechanism.TMPFS_MOUNT, span, "--mount type=tmpfs")
        return
    origin = next((fields[key][0] for key in ("source", "src") if key in fields), "")
    if kind == "bind" and origin.rstrip("/") == _SHM:
        yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, "--mount type=bind of the host's /dev/shm")
    else:
        yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, f"--mount type={kind} at /dev/shm")


def _volume(option: _Option, span: Span) -> Iterable[ShmSource]:
    parts = option.value_text.split(":")
    if len(parts) == 1:
        target, origin = parts[0], ""
    else:
        origin, target = parts[0], parts[1]
    if target.rstrip("/") != _SHM:
        return
    if origin.rstrip("/") == _SHM:
        yield ShmSource(ShmKind.HOST_PATH, ShmMechanism.BIND, span, f"{option.name} {option.value_text}")
    else:
        yield ShmSource(ShmKind.DISK, ShmMechanism.VOLUME, span, f"{option.name} {option.value_text}")


def _exact(option: _Option) -> bool:
    """True when the value's characters are exactly the source characters (no quotes or escapes inside)."""
    return option.value_end - option.value_start == len(option.value_text)


def _size(option: _Option, source: SourceText) -> Size:
    return _sized(option.value_text, option.value_start, option.value_end, source, option.dynamic)


def _sized(text: str, start: int, end: int, source: SourceText, dynamic: bool) -> Size:
    span = source.span(start, end)
    if dynamic:
        return Size(text, None, span, sizes.DOCKER)  # known only at run time: neither a size nor an error
    parsed = sizes.parse(text, sizes.DOCKER)
    return Size(text, parsed.bytes, span, sizes.DOCKER, parsed.error, parsed.suggestion)
