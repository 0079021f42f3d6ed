"""The ``docker``/``podman``/``nvidia-docker`` ``run``/``create`` command line, split by the CLIs' own grammar.

Which options take a value, grouped short options (``-it``, ``-p8080:80``), ``--opt=value``, ``--``, global
options before the subcommand, and wrappers (``sudo -u x``, ``env -u X``, ``VAR=x``) in front: a value mistaken for
the image shifts every later word and turns a training run into a false "no /dev/shm" finding or hides a real one.
Words come from the project's shell tokenizer (``shmlint.parsers.shell``), so every flag keeps its offsets.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.programs import ENGINES
from shmlint.parsers.shell import SimpleCommand, Word, commands

#: ``$(DOCKER) run``, ``${CONTAINER_ENGINE} run``: a variable that names the engine, followed by ``run``
_ENGINE_VARIABLE = LazyRegex(r"^\$[({]?\w*(docker|podman|container_(engine|runtime|cli))\w*[)}]?$", re.IGNORECASE)
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
_ASSIGNMENT = LazyRegex(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
_VARIABLE_NAME = LazyRegex(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)")
#: unquoted variables named like this stand for a list of options, not an image
_OPTION_LIKE_NAME = LazyRegex(r"ARGS|OPTS|OPTIONS|FLAGS|PARAMS|MOUNTS|VOLUMES|ENVS?\b|ENV_|_ENV|EXTRA", re.IGNORECASE)
#: a word that is one variable and nothing else: ``$NAME``, ``${NAME}``
_WHOLE_VARIABLE = LazyRegex(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$")
#: ``run`` options that take no value, besides every option ``_RUN_VALUE_OPTIONS`` names: words after an unknown
#: expansion that are all such options (then an image) show the expansion stands among the options
_RUN_BOOLEAN_OPTIONS = frozenset(
    [
        *("--rm", "--detach", "--interactive", "--tty", "--privileged", "--init", "--read-only", "--publish-all"),
        *("--quiet", "--help", "--sig-proxy", "--oom-kill-disable", "--no-healthcheck", "--disable-content-trust"),
        *("--use-api-socket", "--env-host", "--http-proxy", "--no-hosts", "--read-only-tmpfs", "--replace", "--rmi"),
        *("--rootfs", "--tls-verify", "--passwd"),
    ]
)
_RUN_BOOLEAN_LETTERS = frozenset("itdPq")
#: an image reference as docker writes one: registry host, lower-case path, tag, digest (``pytorch/pytorch:2.3``)
_REFERENCE = LazyRegex(r"^(?:[\w.-]+(?::\d+)?/)?[a-z0-9][a-z0-9._/-]*(?::\w[\w.-]*)?(?:@\w+:[0-9a-fA-F]+)?$")
MAX_REFERENCE = 512
#: options that decide nothing shmlint reads: a variable whose every value holds only others is skipped
_JUDGED_OPTIONS = frozenset(
    [
        *("--gpus", "--runtime", "--device", "--env", "--env-file", "--shm-size", "--ipc", "--tmpfs", "--mount"),
        *("--volume", "--memory", "--workdir", "--entrypoint"),
    ]
)
#: of those, the ones that decide /dev/shm: a size or mode, and a mount when it names /dev/shm
_SHM_MODES = frozenset(["--shm-size", "--ipc"])
_SHM_OPTIONS = _SHM_MODES | {"--tmpfs", "--mount", "--volume"}
#: of the judged options, the ones a variable's one value may give. A ``--shm-size`` it holds is read as that size
#: (a fix never writes into it: the words are the variable's; a new ``--shm-size`` after it wins, as docker keeps
#: the last one); a mount or IPC mode it holds stays unknown: no option written after it undoes those
_EXPANDED_OPTIONS = frozenset(["--gpus", "--runtime", "--device", "--env", "--workdir", "--entrypoint", "--shm-size"])
#: values kept per variable and characters per value: a script assigns a name a few times
MAX_VALUES = 16
MAX_VALUE = 1024
#: characters of variables' values read into one text's commands: past it a variable is unknown (3,000 lines of
#: ``docker run $X`` with a 1 KiB ``X`` would read 3 MB of options)
MAX_EXPANDED = 256 * 1024


class Flag(NamedTuple):
    """One option of a container command line, with the offsets a fix needs to rewrite its value."""

    name: str  # as written, without ``=value``: ``--gpus``, ``-e``
    flag: Word
    value: Word | None  # None for a boolean option
    value_text: str
    value_start: int  # offsets of the value's own text (inside quotes, after ``=``)
    value_end: int
    #: the variable it was read from (``$OPTS``), spanned there: its words are not the file's, a fix never edits them
    expanded_from: str = ""

    @property
    def long_name(self) -> str:
        """``--env`` for ``-e``: the name to ask for."""
        return _LONG_NAMES.get(self.name, self.name)

    @property
    def end(self) -> int:
        return self.value.end if self.value is not None else self.flag.end

    @property
    def dynamic(self) -> bool:
        return self.value is not None and self.value.dynamic

    @property
    def exact(self) -> bool:
        """The value's characters are exactly the source characters (no quotes or escapes inside)."""
        return self.value_end - self.value_start == len(self.value_text)

    def shown(self) -> str:
        return f"{self.name} {self.value_text}" if self.value is not None else self.name


class ContainerCommand(NamedTuple):
    """One ``run``/``create`` invocation split the way the container CLI splits it."""

    first: Word  # the command's first word (``sudo``, ``env``, or the engine)
    engine: Word
    subcommand: str  # ``run``, ``create``, ``container run``
    run_word: Word
    flags: tuple[Flag, ...]
    unknown: tuple[Word, ...]  # expansions before the image that could carry more options
    image: Word | None
    arguments: tuple[Word, ...]  # the container's own command and arguments
    #: expansions before the image that hold or may hold what decides /dev/shm (``--shm-size``, ``--ipc``, a mount
    #: there): of ``unknown``, all but variables the script gives only values without one, and a variable read as
    #: its one value's size. A ``--shm-size`` written before them may not take: docker keeps the last one
    may_set_shm: tuple[Word, ...] = ()
    #: of ``unknown``, those read as options only because options docker takes, then an image, follow them: in the
    #: image's place they could also be the image, and those words its command
    placed: tuple[Word, ...] = ()

    @property
    def name(self) -> str:
        """``docker run``, ``podman container create``."""
        return f"{self.engine.text} {self.subcommand}"

    def has_flag(self, name: str) -> bool:
        """Whether an option is given, by its long name (``--env`` also finds ``-e``)."""
        return any(flag.long_name == name for flag in self.flags)

    def flag_values(self, name: str) -> tuple[Flag, ...]:
        """The options of that long name that carry a value, in order (the last one wins for most options)."""
        return tuple(flag for flag in self.flags if flag.long_name == name and flag.value is not None)


def container_commands(text: str) -> Iterator[ContainerCommand]:
    """Every container run/create command in shell text (a masked file: offsets are the file's)."""
    assigned = Assignments()
    for command in commands(text):
        note_assignment(command, text, assigned)
        parsed = parse_container_command(command.words, text, assigned)
        if parsed is not None:
            yield parsed


class _Read(NamedTuple):
    """One value of an option variable, tokenised once: its options (spanned at 0; None when a word is no option:
    perhaps the image) and the long names among them that decide something read here."""

    parts: tuple[Word, ...]
    judged: frozenset[str]
    shm: bool  # it holds what decides /dev/shm: a ``--shm-size``, an ``--ipc`` mode, a mount there


class Assignments:
    """One text's scan state: the values its plain assignments gave each name so far (``values``), each value read
    once, and the characters of values read into commands (``MAX_EXPANDED``), so the work stays linear in the text."""

    def __init__(self) -> None:
        self.values: dict[str, tuple[str, ...]] = {}
        self._reads: dict[str, _Read | None] = {}
        self._expanded = 0

    def read(self, value: str) -> _Read | None:
        if value not in self._reads:
            self._reads[value] = _read_value(value)
        return self._reads[value]

    def spend(self, characters: int) -> bool:
        """Whether ``characters`` more of a value may be read into a command (they are counted then)."""
        if self._expanded + characters > MAX_EXPANDED:
            return False
        self._expanded += characters
        return True


def note_assignment(command: SimpleCommand, text: str, assignments: Assignments) -> None:
    """Add the values a command of plain assignments gives its names (``X=-it``, ``export X="--gpus all"``) to
    every value the text gave them before: an ``if`` is read straight through, so a name keeps each value a branch
    may give it (bounded: ``MAX_VALUES`` per name, ``MAX_VALUE`` characters each)."""
    words = command.words[1:] if command.words[0].text in ("export", "local", "declare", "readonly") else command.words
    if not words or not all(_is_assignment(word, text) for word in words):
        return
    assigned = assignments.values
    for word in words:
        name, _, value = word.text.partition("=")
        if name.endswith("+") or len(value) > MAX_VALUE or text[word.end : word.end + 1] == "(":
            assigned.pop(name.rstrip("+"), None)  # appended to, too long or an array: not known
            continue
        known = assigned.get(name, ())
        if value not in known:
            assigned[name] = (*known, value)[-MAX_VALUES:]


def parse_container_command(
    words: Sequence[Word], text: str, assigned: Assignments | None = None
) -> ContainerCommand | None:
    """The container command these words run (past ``VAR=x``, ``sudo``, ``env``...), or None. ``assigned``: the
    values the script gave its variables before this command, to tell an option variable from the image."""
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
    options, unknown, shm_words, placed, image_index = _read_options(words, index + 1, text, assigned or Assignments())
    image = words[image_index] if image_index < len(words) else None
    return ContainerCommand(
        first=words[start],
        engine=engine,
        subcommand=f"container {run_word.text}" if container else run_word.text,
        run_word=run_word,
        flags=tuple(options),
        unknown=tuple(unknown),
        image=image,
        arguments=tuple(words[image_index + 1 :]),
        may_set_shm=tuple(shm_words),
        placed=tuple(placed),
    )


def parse_options(words: Sequence[Word], text: str) -> tuple[tuple[Flag, ...], tuple[Word, ...]]:
    """Options alone, as a dev container's ``runArgs`` or a CI job's container ``options`` hold them (no engine, no
    image): the options, and the expansions among them that may stand for more options. Other words are skipped."""
    options: list[Flag] = []
    unknown: list[Word] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word.text.startswith("-") and word.text not in ("-", "--"):
            index = _read_option(words, index, options, text)
            continue
        if word.dynamic:
            unknown.append(word)
        index += 1
    return tuple(options), tuple(unknown)


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
    return word.text.rsplit("/", 1)[-1] in ENGINES


def _read_options(
    words: Sequence[Word], index: int, text: str, assigned: Assignments
) -> tuple[list[Flag], list[Word], list[Word], list[Word], int]:
    """The options, the expansions that may hold more options, those of them that may decide /dev/shm, those
    read so only by the options after them, and the index of the image word."""
    options: list[Flag] = []
    unknown: list[Word] = []
    shm_words: list[Word] = []
    placed: list[Word] = []
    while index < len(words):
        word = words[index]
        if word.text == "--":
            return options, unknown, shm_words, placed, index + 1
        if not word.text.startswith("-") or word.text == "-":
            if not word.splat:
                return options, unknown, shm_words, placed, index
            expanded = _option_variable(word, assigned)
            if expanded is None and _assigned_name(word, assigned):
                return (
                    options,
                    unknown,
                    shm_words,
                    placed,
                    index,
                )  # the script gives it a value that is not options: the image
            if expanded is None:
                if not _stands_for_options(word):
                    if not _options_follow(words, index + 1):
                        return options, unknown, shm_words, placed, index
                    placed.append(word)
                expanded = _NOT_EXPANDED  # it stands among the options; its value is not known here
            options.extend(expanded.flags)
            if not expanded.known:
                unknown.append(word)
            if expanded.shm:
                shm_words.append(word)
            index += 1
            continue
        index = _read_option(words, index, options, text)
    return options, unknown, shm_words, placed, index


class _Expanded(NamedTuple):
    """An option variable read from the script: the options it holds (none that decide anything read here, or
    those of its one value), or not ``known`` when its values differ in what they decide; ``shm`` when a value it
    may have holds what decides /dev/shm (a variable the script says nothing of may)."""

    flags: tuple[Flag, ...]
    known: bool = True
    shm: bool = False


_NOT_EXPANDED = _Expanded((), known=False, shm=True)


def _option_variable(word: Word, assigned: Assignments) -> _Expanded | None:
    """What an unquoted ``$NAME`` before the image stands for, from the values the script gave it; None when the
    script says nothing of it or a value is not options (then it may be the image). ``-it`` or ``""``: nothing
    read here (the word is skipped); ``--gpus all`` its one value: that option; ``--gpus device=$i`` or ``""``
    (two values that decide differently), or past ``MAX_EXPANDED``: not expanded, said as unknown."""
    values = assigned.values.get(_assigned_name(word, assigned), ())
    reads = [assigned.read(value) for value in values]
    if not reads or any(read is None for read in reads):
        return None
    judged = frozenset().union(*(read.judged for read in reads if read is not None))
    shm = any(read is not None and read.shm for read in reads)
    if not judged:
        return _Expanded(())
    one = reads[0] if len(reads) == 1 and judged <= _EXPANDED_OPTIONS else None
    if one is None or not assigned.spend(len(values[0])):
        return _Expanded((), known=False, shm=shm)
    parts = [Word(part.text, word.start, word.end, part.dynamic, part.splat) for part in one.parts]
    flags = _value_options(parts) or []
    return _Expanded(tuple(flag._replace(expanded_from=word.text) for flag in flags), shm=shm)


def _read_value(value: str) -> _Read | None:
    """A variable's value read as options (None when a word of it is not one)."""
    parts = tuple(part for command in commands(value) for part in command.words)
    flags = _value_options(parts)
    if flags is None:
        return None
    names = {flag.long_name for flag in flags}
    shm = any(
        flag.long_name in _SHM_OPTIONS and (flag.long_name in _SHM_MODES or "/dev/shm" in flag.value_text)
        for flag in flags
    )
    return _Read(parts, frozenset(names & _JUDGED_OPTIONS), shm)


def _value_options(parts: Sequence[Word]) -> list[Flag] | None:
    """The options of a value's words, or None at a word no option takes (perhaps the image)."""
    flags: list[Flag] = []
    position = 0
    while position < len(parts):
        if not parts[position].text.startswith("-") or parts[position].text in ("-", "--"):
            return None
        position = _read_option(parts, position, flags, "")
    return flags


def _assigned_name(word: Word, assigned: Assignments) -> str:
    """The name of a one-variable word the script assigned, or ""."""
    whole = _WHOLE_VARIABLE.match(word.text)
    name = (whole.group(1) or whole.group(2)) if whole else ""
    return name if name in assigned.values else ""


def _options_follow(words: Sequence[Word], index: int) -> bool:
    """Whether the words after an unknown expansion read as docker reads them when it stands among the options:
    options docker knows (one at least), then a word that may be an image. Else the expansion is the image and the
    words its command (``$IMG -d``, ``$IMG -m torch.distributed.run --nproc_per_node=2 t.py``): the reading that
    keeps the command's evidence."""
    first = index
    if first >= len(words) or words[first].text in ("-", "--"):
        return False
    while index < len(words) and words[index].text.startswith("-") and words[index].text != "-":
        if words[index].text == "--":
            index += 1
            break
        if not _docker_knows(words[index].text):
            return False
        index = _read_option(words, index, [], "")
    return index < len(words) and index > first and _may_be_image(words[index])


def _docker_knows(option: str) -> bool:
    """An option word the run command takes (``--gpus``, ``--rm=false``, ``-itp8080:80``); an unknown one is an
    error to docker, so the words are not its options."""
    name = option.partition("=")[0]
    if name.startswith("--"):
        return name in _RUN_VALUE_OPTIONS or name in _RUN_BOOLEAN_OPTIONS
    for letter in name[1:]:
        if "-" + letter in _RUN_VALUE_OPTIONS:
            return True  # the rest of the word is its value
        if letter not in _RUN_BOOLEAN_LETTERS:
            return False
    return len(name) > 1


def _may_be_image(word: Word) -> bool:
    """An expansion, or a word written as an image reference (lower-case repository, optional tag or digest)."""
    return word.splat or word.dynamic or bool(len(word.text) <= MAX_REFERENCE and _REFERENCE.match(word.text))


def _read_option(words: Sequence[Word], index: int, options: list[Flag], text: str) -> int:
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


def _option(name: str, flag: Word, value: Word | None, value_text: str, text: str) -> Flag:
    """An option with the offsets of its value's own characters: after ``=``, inside quotes when it can tell."""
    if value is None:
        return Flag(name, flag, None, "", flag.end, flag.end)
    size = len(value_text)
    for end in (value.end, value.end - 1):  # the value is the word's tail, before a closing quote if any
        if size and end - size >= value.start and text[end - size : end] == value_text:
            return Flag(name, flag, value, value_text, end - size, end)
    return Flag(name, flag, value, value_text, value.start, value.end)


def _stands_for_options(word: Word) -> bool:
    """An expansion in the image's place that is more likely a list of options than the image."""
    name = _VARIABLE_NAME.match(word.text)
    if word.text.startswith(("$@", "$*")) or "[@]" in word.text or "[*]" in word.text:
        return True
    return bool(name and _OPTION_LIKE_NAME.search(name.group(1)))
