"""``docker run`` / ``podman run`` / ``nvidia-docker run`` command lines as workloads.

The command line is split by ``shmlint.parsers.container_command``; this module reads the parsed command into the
docker options judge's view (``shmlint.containers.docker``, shared with Terraform and the docker SDK) and says
where a fix can write: ``CommandTarget``, the target of every format that writes docker options (a command line, a
dev container's ``runArgs``, a CI job's ``options``, a unit's ``ExecStart=``, Ray's ``run_options``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from shmlint import sizes
from shmlint.containers import base_dir
from shmlint.containers.docker import (
    DEVICE,
    ENV,
    GPU,
    GPUS,
    IPC,
    MOUNT,
    POD,
    RUNTIME,
    SEPARATOR,
    SHM_SIZE,
    TMPFS,
    DockerOptions,
    Setting,
    judge_docker,
)
from shmlint.lazy_regex import LazyRegex
from shmlint.model import ShmKind, ShmMechanism, ShmSource, Size, Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.container_command import ContainerCommand, Execs, container_commands, exec_targets
from shmlint.parsers.container_options import Flag
from shmlint.parsers.embedded.markdown import code_line
from shmlint.parsers.option_variables import SHM_MODES
from shmlint.parsers.programs import program_name
from shmlint.parsers.shell import SimpleCommand, Word
from shmlint.runtime.mounts import Option, engine_shm, find_option, parse_mount, parse_tmpfs, parse_volume, reaching_shm
from shmlint.runtime.shm import is_shm_path, may_be_shm_path
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

if TYPE_CHECKING:
    from shmlint.parsers.embedded.shell_blocks import ShellBlocks
    from shmlint.parsers.typed import Typed


class SizeSlot(NamedTuple):
    """Where a size can be added to an option that has none (``--tmpfs /dev/shm`` -> ``--tmpfs /dev/shm:size=8g``)."""

    source_start: int  # the start of the ShmSource span it belongs to
    offset: int  # insert here
    prefix: str  # ':size=', ',size=', ',tmpfs-size='
    in_bytes: bool  # --mount tmpfs-size takes bytes


class CommandTarget(NamedTuple):
    """Where the command-line fixer writes: a new option right after ``run``/``create`` (after a variable read as
    a ``--shm-size``: docker keeps the last one), or a size in a slot. Options held in another format are spelled
    there: ``before`` and ``after`` go around a new option, and ``separator`` goes between two options written
    together (``, "``, ``"`` and ``", "`` in a JSON list)."""

    insert_at: int
    size_slots: tuple[SizeSlot, ...] = ()
    before: str = " "
    after: str = ""
    separator: str = " "
    #: starts of sizes read from a variable (``$OPTS``): raised by a new ``--shm-size`` at ``insert_at``, never
    #: written into (the words are the variable's)
    expanded: tuple[int, ...] = ()
    #: an expansion after ``insert_at`` that may hold a ``--shm-size`` of its own, which would win over a new one
    #: (or be lowered by one written after it): no option is added then
    overridable: str = ""


class ShellText(NamedTuple):
    """A file's shell with every other character masked (offsets are the file's), and how it is read: a document's
    code ``blocks`` (documentation, never a script: commands typed into an interactive container are its command,
    ``shmlint.parsers.typed``); ``in_blocks``: its shell is indented blocks (YAML block scalars), whose indentation
    is not the shell's (``shmlint.parsers.shell``); ``variables``: values given outside the shell, as if assigned
    before it (a Makefile's own variables)."""

    masked: str
    blocks: ShellBlocks | None = None
    in_blocks: bool = False
    variables: Mapping[str, tuple[str, ...]] | None = None


def extract_commands(source: SourceText, shell: ShellText, signals: Signals) -> list[Workload]:
    """One workload per container run/create command line in the masked text."""
    from shmlint.parsers.typed import LATER, container_sessions, exec_session, holds_open, terminal_kept_open

    masked, in_blocks = shell.masked, shell.in_blocks
    found = list(
        container_sessions(masked, shell.blocks)
        if shell.blocks is not None
        else ((c, None) for c in container_commands(masked, in_blocks, shell.variables))
    )
    starts: dict[str, list[int]] | None = None  # where each name's runs start: read once, for a file that execs
    workloads: list[Workload] = []
    targets: Execs | None = None  # what the text execs into each container, by its name: read once, where it may
    for command, typed in found:
        # the guide's later steps: the session itself, or what follows the commands typed in the shell's block
        later = typed if typed is not None and typed.how == LATER else typed.later if typed is not None else None
        occurrence = len(workloads)
        own = None if typed is not None and typed.how == LATER else typed
        named = command.flag_values("--name")
        if named and targets is None:
            targets = exec_targets(masked, in_blocks) if _EXEC.search(masked) is not None else Execs({}, {})
        exec_into = bool(named) and targets is not None and named[-1].value_text in targets.commands
        if exec_into and targets is not None and (own is None or later is None):
            starts = _starts_by_name(c for c, _ in found) if starts is None else starts
            execed = _execed(command, named[-1].value_text, targets, starts, shell.blocks)
            if own is None and holds_open(command):
                own = exec_session(execed, masked)  # what the file runs in its holder is its work
            elif later is None and terminal_kept_open(command):
                later = exec_session(execed, masked)  # beside the image's own start: it may only add
        workload = command_workload(command, source, signals, occurrence=occurrence, typed=own)
        if shell.blocks is not None and _inline(source.text, command.first.start):
            workload = workload._replace(mentioned=True)
        if workload.launch is not None:
            workload = _launched(workload, exec_into, named[-1].value_text if named else "")
            if later is not None and workload.gpu:  # the guide's later steps, kept for where they show more
                # (``project.decide``); not in a container given no accelerator: a guide's GPU steps cannot run there
                steps = command_workload(command, source, signals, occurrence=occurrence, typed=later)
                workload = workload._replace(later_steps=_launched(steps, exec_into)._replace(command_later=True))
        workloads.append(workload)
    return workloads


def _execed(
    command: ContainerCommand, name: str, targets: Execs, starts: Mapping[str, list[int]], blocks: ShellBlocks | None
) -> list[SimpleCommand]:
    """What the text execs into this run of the named container: after it, before the next run of the name or a
    ``docker rm``/``stop``/``kill`` of it, and in a document, in the run's own section (another section is another
    task: ``shmlint.parsers.typed``)."""
    at = command.first.start
    bounds = [*starts.get(name, ()), *targets.ends.get(name, ())]
    until = min((bound for bound in bounds if bound > at), default=1 << 62)
    section = _section_at(blocks, at) if blocks is not None else None
    return [
        c
        for c in targets.commands[name]
        if at < c.words[0].start < until and (blocks is None or _section_at(blocks, c.words[0].start) == section)
    ]


def _section_at(blocks: ShellBlocks, offset: int) -> int | None:
    """The section of the document's shell block that holds an offset."""
    for block in blocks:
        if block.lines and block.lines[0].start <= offset <= block.lines[-1].end:
            return block.section
    return None


def _starts_by_name(found: Iterable[ContainerCommand]) -> dict[str, list[int]]:
    """Where each container name's runs start, in order (a script that runs ``--name dev`` twice execs into each
    in turn)."""
    starts: dict[str, list[int]] = {}
    for command in found:
        named = command.flag_values("--name")
        if named:
            starts.setdefault(named[-1].value_text, []).append(command.first.start)
    return starts


def _inline(text: str, start: int) -> bool:
    """Whether a document's command starts an inline code span of a sentence: right after a run of backticks that
    opens one (those before it pair up), not after one that closes a span (the review: ``HOST=`hostname` docker run``
    in a fenced block), on a line that is not that span alone (a line of code: ``markdown._CODE_LINE``)."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start].removesuffix(" ")
    opening = len(before) - len(before.rstrip("`"))
    if opening not in (1, 2) or before[: len(before) - opening].count("`") % 2:
        return False
    return not code_line(text, line_start)


def _launched(workload: Workload, exec_into: bool, name: str = "") -> Workload:
    """A command line's workload whose relative paths start where its file's commands run, that says whether the
    file execs into it, and the name it runs as."""
    if workload.launch is None:
        return workload
    return workload._replace(launch=workload.launch._replace(caller_relative=True, exec_into=exec_into, name=name))


#: a container engine's ``exec`` in a text: only then are the containers it execs into looked for
_EXEC = LazyRegex(r"\bexec\b", 0, ("exec",))


#: an expansion in a word (``$X``, ``${X:-a}``, ``$(cmd)`` one level deep): what is left around it is literal
_EXPANSION = LazyRegex(r"\$(?:\{[^{}]{0,256}\}|\([^()]{0,256}\)|\w+)", 0, ("$",))


#: an image word that is the ID a build prints (``$(docker build -q -t NAME .)``), and the tag that build gives it
_BUILT_HERE = LazyRegex(
    r"\$\([ \t]*(?:sudo[ \t]+)?(?:docker|podman)[ \t]+(?:image[ \t]+)?build[ \t][^()]{0,2000}?"
    r"(?<=[ \t])(?:-t|--tag)(?:[ \t]+|=)(?P<tag>[\w./:@-]{1,256})[^()]{0,2000}\)$",
    0,
    ("build",),
)


def _named_image(image: Word | None, source: SourceText) -> Word | None:
    """The image word when it names an image: written out, or partly with variables (``nvcr.io/nim/meta/x:$TAG``,
    ``$REGISTRY/vllm/vllm-openai``), whose literal parts the image patterns (anchored to the name) match as they
    are; for the ID a build it runs prints (``$(docker build -q -t NAME .)``, audit65a), the tag the build gives
    it, where it is written (the build itself is read as the file's other builds are). One that is all expansion
    (``$IMAGE``, ``$(docker build -q .)``) names nothing."""
    if image is None or not image.dynamic:
        return image
    built = _BUILT_HERE.match(source.text, image.start, image.end)
    if built is not None:
        return Word(built["tag"], built.start("tag"), built.end("tag"))
    literal, before = image.text, ""
    for _ in range(8):  # innermost first: ``${IMAGE:-vllm/x:${TAG}}`` is all expansion, however nested
        if literal == before:
            break
        before, literal = literal, _EXPANSION.sub("", literal)
    named = literal == before and any(c.isalnum() for c in literal) and not any(c.isspace() for c in literal)
    return image if named else None


def _received(word: Word) -> str:
    """A word as the container gets it: the host shell expands a double-quoted or bare ``$X`` with its own
    variables, unknown here, so each ``$`` is escaped (``\\$X``): a ``sh -c`` string run in the container keeps it
    as written instead of taking the container's value."""
    return word.text.replace("$", "\\$") if word.dynamic else word.text


def command_workload(
    command: ContainerCommand, source: SourceText, signals: Signals, *, occurrence: int, typed: Typed | None = None
) -> Workload:
    """A container command as a workload; formats that start a container from options (Ray, Quadlet, dev containers, CI jobs) take this
    and put in their own identity, span and fix target. Commands ``typed`` into its shell replace the shell: they
    are what it runs, and the workload says where they were read."""
    entrypoint = command.flag_values("--entrypoint")[-1:] if typed is None else ()
    argv = [(flag.value_text, flag.flag.start, flag.end) for flag in entrypoint]
    argv += [(word.text, word.start, word.end) for word in command.arguments] if typed is None else _typed_argv(typed)
    settings, slots = _settings(command, source)
    memory = command.flag_values("--memory")
    workdir = command.flag_values("--workdir")[-1:]
    image = _named_image(command.image, source)
    options = DockerOptions(
        base_dir=base_dir(source.path),
        settings=tuple(settings),
        image=image.text if image is not None else None,
        image_span=source.span(image.start, image.end) if image is not None else None,
        entrypoint=tuple(flag.value_text for flag in entrypoint),
        arguments=tuple(text for text, _, _ in argv[len(entrypoint) :]),
        received=None if typed is not None else tuple(_received(word) for word in command.arguments),
        word_spans=tuple(source.span(start, end) for _, start, end in argv),
        typed_script=typed.script if typed is not None else "",
        typed_commands=tuple(tuple(w.text for w in c.words) for c in typed.commands) if typed is not None else (),
        typed_incomplete=typed is not None and bool(typed.unread),
        podman=_podman(command),
        terminal=any(flag.name in ("-t", "--tty") for flag in command.flags),
        launcher_label="",
        working_dir=workdir[0].value_text if workdir else "",
        memory=_size(memory[-1], source) if memory else None,
        unresolved=tuple(
            ShmSource(
                ShmKind.UNKNOWN,
                ShmMechanism.EXPANSION,
                source.span(word.start, word.end),
                f"{_as_written(word, source)} (expanded at run time{_PLACED if word in command.placed else ''})",
            )
            for word in command.unknown
            if word in command.may_set_shm  # one the script gives only values without a size carries none
        ),
        mounts=_binds(command),
        manifest=source.path,
    )
    return judge_docker(options, signals).workload(
        WorkloadId(WorkloadFormat.COMMAND, command.name, occurrence=occurrence),
        source.span(command.first.start, command.first.end),
        _target(command, tuple(slots)),
        command_from=_typed_at(typed, source),
    )


def _as_written(word: Word, source: SourceText) -> str:
    """An expansion as the file writes it, for messages: a cmd script's ``%ARGS%`` (read as the shell's
    ``$ARGS_``, ``shmlint.parsers.embedded.windows_scripts``) is named so; a quoted word by its value."""
    raw = source.text[word.start : word.end]
    return word.text if '"' in raw or "'" in raw else raw


#: how the description says an expansion was read as options by the words after it, not by its name or value
_PLACED = "; read as options, as docker's options follow it: if it is the image, they are its command"


def _target(command: ContainerCommand, slots: tuple[SizeSlot, ...]) -> CommandTarget:
    """A new option goes after the last variable read as a ``--shm-size`` (else after ``run``); none when an
    expansion the script does not give may hold one: written before it, it may not take; after it, lower it."""
    read = [word for word in command.may_set_shm if word not in command.unknown]
    held = [flag for flag in command.flags if flag.expanded_from and flag.long_name in SHM_MODES]  # no fix writes there
    expanded = {flag.flag.start for flag in held}
    # a variable that holds the image too (``OPTS="--shm-size=1g img"``): an option written before it does not take,
    # and none can go after it (that is the image's command)
    after = {word.text for word in read}
    overridable = next((word.text for word in command.may_set_shm if word in command.unknown), "") or next(
        (flag.expanded_from for flag in held if flag.expanded_from not in after), ""
    )
    return CommandTarget(
        insert_at=read[-1].end if read else command.run_word.end,
        size_slots=slots,
        expanded=tuple(sorted(expanded)),
        overridable=overridable,
    )


#: how a command line writes its own working directory in a bind mount's source (``-v/$(pwd)/x:/y``: a slash
#: in front of an absolute path changes nothing), also as a Makefile's recipe writes it (``$$(pwd)``, make's
#: ``$(CURDIR)`` and ``$(shell pwd)``: the folder make runs in)
_CWD = LazyRegex(r"/?\$?(\$\{?(?:PWD|CURDIR)\}?|\$\((?:pwd|PWD|CURDIR|shell[ \t]{1,8}pwd)\)|`pwd`)(?=/|:|$)")


def _binds(command: ContainerCommand) -> tuple[tuple[str, str], ...]:
    """Bind mounts (container path, host path from the working directory: ``$PWD/src`` is ``./src``, in ``-v`` and
    in ``--mount``'s ``source=``). A container
    path the host's shell fills in (``$HOME/src/app``: docker gets an absolute path of the host's) is kept as written:
    the folder is in the container, at a place no path of the files names (audit82c: a dev shell holding the
    repository at ``$HOME/src/ZERONet`` was not read as holding it)."""
    found = []
    for flag in (*command.flag_values("--volume"), *command.flag_values("--mount")):
        cwd = flag.value_text.startswith(("$", "`", "/$", "/`"))
        text = _CWD.sub(".", flag.value_text, count=1) if cwd else flag.value_text
        mount = parse_volume(text) if flag.long_name == "--volume" else parse_mount(text)
        source = mount.source
        if source.startswith(("$", "`", "/$", "/`")):  # ``--mount type=bind,source=$(pwd)/src,...`` (audit84b)
            source = _CWD.sub(".", source, count=1)
        if mount.type == "bind" and source and mount.target.startswith(("/", "$")):
            found.append((mount.target, source))
    return tuple(found)


def _typed_argv(typed: Typed) -> list[tuple[str, int, int]]:
    """The typed commands' words, one ``;`` word (empty span) between two commands: the command line the data's
    patterns read (``[^;&|]`` keeps a match inside one command)."""
    argv: list[tuple[str, int, int]] = []
    for command in typed.commands:
        if argv:
            argv.append((SEPARATOR, argv[-1][2], argv[-1][2]))
        argv += [(word.text, word.start, word.end) for word in command.words]
    return argv


def _typed_at(typed: Typed | None, source: SourceText) -> str:
    """Where typed commands were read, for messages: ``typed in the container, README.md:23-24``."""
    if typed is None:
        return ""
    first, _ = source.position(typed.start)
    last, _ = source.position(typed.end)
    return typed.said(first, last, os.path.basename(source.path) or source.path)


#: the options that carry a GPU, by their long name
_GPU_OPTIONS = {"--gpus": GPUS, "--runtime": RUNTIME, "--device": DEVICE, "--env": ENV}


def _settings(command: ContainerCommand, source: SourceText) -> tuple[list[Setting], list[SizeSlot]]:
    """The options that concern GPUs, the environment and /dev/shm, in the order the command writes them, and where
    a fix may add a size to an unsized tmpfs."""
    found: list[Setting] = []
    slots: list[SizeSlot] = []
    if program_name(command.engine.text) == "nvidia-docker":
        found.append(Setting(GPU, None, "nvidia-docker", source.span(command.engine.start, command.engine.end)))
    sizes_given = command.flag_values("--shm-size")
    ipc = command.flag_values("--ipc")
    own_shm = engine_shm(ipc[-1].value_text if ipc else None, podman=_podman(command))
    for option in command.flags:
        if option.value is None or (option.long_name == "--shm-size" and option is not sizes_given[-1]):
            continue  # docker keeps the last --shm-size
        span = source.span(option.flag.start, option.end)
        name, value = option.long_name, option.value_text.strip()
        if name in _GPU_OPTIONS:
            found.append(Setting(_GPU_OPTIONS[name], option.value_text, option.shown(), span, computed=option.dynamic))
        elif name == "--shm-size":
            found.append(Setting(SHM_SIZE, value, _said("--shm-size", option, source), span, _size(option, source)))
        elif name == "--ipc":
            found.append(Setting(IPC, value, _said(f"--ipc={value}", option, source), span, computed=option.dynamic))
        elif name == "--pod" and _podman(command) and not value.startswith("new:"):  # ``new:``: a pod of its own
            found.append(Setting(POD, value, f"--pod {value}", span, computed=option.dynamic))
        elif name == "--tmpfs":
            found.extend(_tmpfs(option, span, source, slots))
        elif name == "--mount":
            found.extend(_mount(option, span, source, slots, own_shm))
        elif name == "--volume":
            found.extend(_volume(option, span, source, own_shm))
    return found, slots


def _said(text: str, option: Flag, source: SourceText) -> str:
    """An option as a message says it: a variable's, as that variable's, written as the file writes it where it is
    the same name (``--ipc=host in $OPTS``; a Makefile's ``$(OPTS)``, which its recipe is read with as ``${OPTS}``)."""
    if not option.expanded_from:
        return text
    written = source.text[option.flag.start : option.flag.end]
    same = written.strip("${}()") == option.expanded_from.strip("${}()")
    return f"{text} in {written if same else option.expanded_from}"


def _podman(command: ContainerCommand) -> bool:
    return program_name(command.engine.text).startswith("podman")


def _tmpfs(option: Flag, span: Span, source: SourceText, slots: list[SizeSlot]) -> Iterable[Setting]:
    spec = parse_tmpfs(option.value_text)
    if not is_shm_path(spec.target):
        yield from _filled_in(option, spec.target, span, source)
        return
    size = find_option(spec.options, "size")
    if size is not None:
        unknown = option.dynamic or size.value.endswith("%")  # the kernel also takes a share of RAM: 50%
        sized = _option_size(option, size, source, unknown, sizes.TMPFS)
        yield Setting(TMPFS, option.value_text, "--tmpfs /dev/shm", span, sized)
        return
    prefix = ",size=" if spec.options else "size=" if spec.has_options else ":size="
    if not option.expanded_from:  # a variable's value is not the file's to edit
        slots.append(SizeSlot(span.start, option.end, prefix, in_bytes=False))
    yield Setting(TMPFS, option.value_text, _said("--tmpfs /dev/shm", option, source), span)


def _filled_in(option: Flag, target: str, span: Span, source: SourceText, host: str = "") -> Iterable[Setting]:
    """A mount whose target the shell fills in at run time (``--tmpfs $SPEC``, ``-v $MOUNT``): it may be at /dev/shm,
    so what the container gets there is not known (a mount type shmlint does not know). Not a folder the host's
    working or home folder names (``-v $PWD:$PWD``), nor one mounted at its own host path."""
    filled = target.strip() or option.value_text  # ``--mount "$M"`` names no target of its own
    if may_be_shm_path(filled, host):
        yield Setting(
            MOUNT,
            "",
            f"{_as_written(option.value, source) if option.value else option.value_text} "
            f"(a mount {option.name} fills in at run time)",
            span,
        )


def _mount(option: Flag, span: Span, source: SourceText, slots: list[SizeSlot], engine_shm: bool) -> Iterable[Setting]:
    """``engine_shm``: the engine mounts a /dev/shm of its own over a bind at /dev (``reaching_shm``)."""
    written = parse_mount(option.value_text)
    mount = reaching_shm(written, engine_shm=engine_shm)
    if mount is None:
        yield from _filled_in(option, written.target, span, source, written.source)
        return
    if mount.type == "tmpfs":
        size = find_option(mount.options, "tmpfs-size")
        if size is None and not option.expanded_from:
            slots.append(SizeSlot(span.start, option.end, ",tmpfs-size=", in_bytes=True))
        sized = _option_size(option, size, source, option.dynamic, sizes.DOCKER) if size is not None else None
        yield Setting(MOUNT, mount.type, "--mount type=tmpfs", span, sized)
    elif mount.type == "bind":
        host = "the host's /dev/shm" if is_shm_path(written.source) else written.source
        yield Setting(MOUNT, mount.type, f"--mount type=bind of {host}", span, host=mount.source)
    else:
        yield Setting(MOUNT, mount.type, f"--mount type={mount.type} at /dev/shm", span)


def _volume(option: Flag, span: Span, source: SourceText, engine_shm: bool) -> Iterable[Setting]:
    written = parse_volume(option.value_text)
    mount = reaching_shm(written, engine_shm=engine_shm)
    if mount is None:
        yield from _filled_in(option, written.target, span, source, written.source)
    else:
        said = _said(f"{option.name} {option.value_text}", option, source)
        yield Setting(MOUNT, mount.type, said, span, host=mount.source)


def _size(option: Flag, source: SourceText) -> Size:
    return _sized(option.value_text, option.value_start, option.value_end, source, option.dynamic)


def _option_size(option: Flag, size: Option, source: SourceText, unknown: bool, dialect: str) -> Size:
    """The size one mount option gives (``dialect``: a ``--tmpfs`` size is the kernel's to read, ``tmpfs-size``
    docker's), spanned on its own characters when the value is written as it reads."""
    if option.exact:
        start = option.value_start + size.start
        return _sized(size.value, start, start + len(size.value), source, unknown, dialect)
    return _sized(size.value, option.value_start, option.value_end, source, unknown, dialect)


def _sized(text: str, start: int, end: int, source: SourceText, dynamic: bool, dialect: str = sizes.DOCKER) -> Size:
    span = source.span(start, end)
    if dynamic:
        return Size(text, None, span, dialect)  # known only at run time: neither a size nor an error
    parsed = sizes.parse(text, dialect)
    return Size(text, parsed.bytes, span, dialect, parsed.error, parsed.suggestion)
