"""The ``docker``/``podman``/``nvidia-docker`` ``run``/``create`` command line, split by the CLIs' own grammar.

Wrappers (``sudo -u x``, ``env -u X``, ``VAR=x``) in front, global options before the subcommand, and where the
options end and the image begins (``--``, a variable among the options): a value mistaken for the image shifts every
later word and turns a training run into a false "no /dev/shm" finding or hides a real one. Each option word is read
by ``shmlint.parsers.container_options`` (which options take a value, grouped short options, ``--opt=value``), and an
unquoted variable before the image by ``shmlint.parsers.option_variables``. Words come from the project's shell
tokenizer (``shmlint.parsers.shell``), so every flag keeps its offsets.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping, Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.container_options import GLOBAL_VALUE_OPTIONS, Flag, read_option, run_option_known
from shmlint.parsers.option_variables import (
    DECLARING,
    NOT_EXPANDED,
    SHM_OPTIONS,
    Assignments,
    NamedArray,
    assigned_name,
    assigned_word,
    assigned_words,
    filled_in,
    is_assignment,
    note_assignment,
    option_variable,
    options_and_image,
    quoted_value,
)
from shmlint.parsers.programs import ENGINES, SHELLS, program_name, shell_operand
from shmlint.parsers.shell import SimpleCommand, Word, array_items, commands, here_documents, top_level

#: ``$(DOCKER) run``, ``${CONTAINER_ENGINE} run``: a variable that names the engine, followed by ``run``
_ENGINE_VARIABLE = LazyRegex(r"^\$[({]?\w*(docker|podman|container_(engine|runtime|cli))\w*[)}]?$", re.IGNORECASE)
_SUBCOMMANDS = frozenset({"run", "create"})

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
    "stdbuf": frozenset({"-i", "--input", "-o", "--output", "-e", "--error"}),
    "setsid": frozenset(),
    # Slurm's srun runs the command on each node of its allocation (audit81c: ``srun --nodes=2 bash -c "docker run
    # ..."`` starting a multi-node GNN job's containers was not read): its options that take a value as a word
    "srun": frozenset(
        [
            *("-A", "-b", "-c", "-D", "-d", "-e", "-G", "-i", "-J", "-L", "-M", "-m", "-N", "-n", "-o", "-p", "-q"),
            *("-r", "-S", "-T", "-t", "-W", "-w", "-x", "-C", "--account", "--begin", "--chdir", "--comment"),
            *("--constraint", "--cpu-bind", "--cpus-per-gpu", "--cpus-per-task", "--dependency", "--distribution"),
            *("--error", "--exclude", "--export", "--gpus", "--gpus-per-node", "--gpus-per-task", "--gres"),
            *("--input", "--job-name", "--jobid", "--licenses", "--mem", "--mem-per-cpu", "--mem-per-gpu", "--mpi"),
            *("--nodelist", "--nodes", "--ntasks", "--ntasks-per-node", "--output", "--partition", "--qos"),
            *("--reservation", "--signal", "--time", "--wait", "--container-image", "--container-mounts"),
            *("--container-name", "--container-workdir", "--container-env"),
        ]
    ),
}
#: ``timeout [options] DURATION`` before the command it runs (audit65b: a CI job's ``timeout 600 docker run``)
_TIMEOUT_VALUE_OPTIONS = frozenset({"-s", "--signal", "-k", "--kill-after"})
_VARIABLE_NAME = LazyRegex(r"^\$\{?([A-Za-z_][A-Za-z0-9_]*)")
#: unquoted variables named like this stand for a list of options, not an image
_OPTION_LIKE_NAME = LazyRegex(r"ARGS|OPTS|OPTIONS|FLAGS|PARAMS|MOUNTS|VOLUMES|ENVS?\b|ENV_|_ENV|EXTRA", re.IGNORECASE)
#: an image reference as docker writes one: registry host, lower-case path, tag, digest (``pytorch/pytorch:2.3``)
_REFERENCE = LazyRegex(r"^(?:[\w.-]+(?::\d+)?/)?[a-z0-9][a-z0-9._/-]*(?::\w[\w.-]*)?(?:@\w+:[0-9a-fA-F]+)?$")
MAX_REFERENCE = 512


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


def container_commands(
    text: str, in_blocks: bool = False, variables: Mapping[str, tuple[str, ...]] | None = None
) -> Iterator[ContainerCommand]:
    """Every container run/create command in shell text (a masked file: offsets are the file's; ``in_blocks``: its
    shell is indented blocks, ``shmlint.parsers.shell.commands``), then those run from arrays (``ArrayRuns``): not
    in indented blocks, a CI job's steps, each a shell of its own whose bounds the text no longer shows.
    ``variables``: values given before the shell runs (a Makefile's own variables)."""
    assigned = Assignments(variables or {})
    simple = list(commands(text, in_blocks=in_blocks))
    handers: frozenset[str] | None = None  # the text's functions that hand their arguments on, once asked
    array_end = -1
    arrays = ArrayRuns(text, assigned, simple)
    for index, command in enumerate(simple):
        if command.words[0].start < array_end:
            continue  # an array's words (``ARGS=(--gpus all)``), not a command
        evaluated = command.words[0].text == "eval"
        if evaluated and not in_blocks:  # what ``eval "$cmd"`` runs reads names as they are before it (after it,
            arrays.note((), command)  # any may hold anything)
        given = note_assignment(command, text, assigned, (simple[i] for i in range(index + 1, len(simple))))
        array_end = given[-1].end if given else -1
        if not in_blocks and not evaluated:
            arrays.note(given, command)
        parsed = parse_container_command(command.words, text, assigned)
        if parsed is not None:
            yield parsed
            continue
        if handers is None:  # looked for once, where a command is not a container's: most texts define none
            forwards = _FORWARDS.search(text) is not None
            handers = _handers(text, frozenset(c.words[0].start for c in simple)) if forwards else frozenset()
        for inner in _handed_on(command.words, text, handers=handers):
            parsed = parse_container_command(inner.words, text, assigned)
            if parsed is not None:
                yield parsed
    yield from arrays.commands()
    if "<<" in text and _HERE_RUNNER.search(text) is not None:
        yield from _here_runs(text, in_blocks)


#: a here-document a shell runs, or one written to a script (``bash <<EOF``, ``ssh host <<EOF``, ``sbatch <<EOF``,
#: ``cat > user-data.sh <<EOF``: a machine's start-up script), on the line that opens it
_HERE_RUNNER = LazyRegex(
    r"[ \t]*(?:sudo[ \t]+(?:-[^\s]{1,16}[ \t]+){0,4})?(?:(?:(?:ba|z|da)?sh|ssh|sbatch)\b[^\n]{0,512}?<<"
    r"|(?:cat|tee)\b(?=[^\n]{0,512}<<)(?=[^\n]{0,512}?(?:\.sh|user[-_]?data|startup[-_.\w]{0,32})\b))",
    0,
    ("<<",),
)
#: here-documents read as scripts per text
MAX_HERE_RUNS = 16


def _here_runs(text: str, in_blocks: bool) -> Iterator[ContainerCommand]:
    """The container runs in the here-documents a shell runs or a script is written from (audit83d: an 8-GPU
    ``docker run`` in the user-data a launcher writes was not read), each read as a script of its own at its
    offsets. A body the shell expands keeps its ``$X`` as written: a value not known either way."""
    read = 0
    for body in here_documents(text, in_blocks=in_blocks):
        opening = text.rfind("\n", 0, max(body.start - 1, 0)) + 1
        written = text[body.start : body.end]
        if read >= MAX_HERE_RUNS or ("docker" not in written and "podman" not in written):
            continue
        if _HERE_RUNNER.match(text, opening, body.start) is None:
            continue
        read += 1
        masked = "".join(c if c == "\n" else " " for c in text[: body.start]) + text[body.start : body.end]
        yield from container_commands(masked, in_blocks)


#: a function body that hands its arguments to another shell: ``ssh "$host" "$*"``, ``bash -c "$1"``, ``eval "$@"``
_FORWARDS = LazyRegex(
    r"(?:\bssh\b|\bpdsh\b|\b(?:ba|z|da)?sh[ \t]+-[a-z]{0,4}c\b|\beval\b)[^\n]{0,400}\"\$(?:\*|@|\{?[0-9]\}?)\"",
    0,
    ("$",),
)


def _handers(text: str, starts: frozenset[int]) -> frozenset[str]:
    """The text's own functions (their names start commands the tokenizer read) whose body hands their arguments
    to another shell as text (``ssh_run() { ssh "$1" "$2"; }``): the strings a call of one passes are read as
    commands handed on (audit68a: ``ssh_run "$HOST" "docker run ..."`` in a multi-node script was not read)."""
    functions = _own_functions(text, starts, (_FUNCTION, _FUNCTION_BLOCK))
    return frozenset(name for name, body in functions if _FORWARDS.search(body) is not None)


def _own_functions(text: str, starts: frozenset[int], shapes: tuple[LazyRegex[str], ...]) -> Iterator[tuple[str, str]]:
    """The text's own functions written in one of ``shapes`` (``_FUNCTION``, ``_FUNCTION_BLOCK``), as (name,
    body): those whose header starts a command the tokenizer read (``starts``), not a here-document's text."""
    for shape in shapes:
        for match in shape.finditer(text):
            name_at = match.start(1) if match.group(1) else match.start(2)
            header_at = match.start() + len(match.group(0)) - len(match.group(0).lstrip())  # ``function`` or the name
            if name_at in starts or header_at in starts:
                yield match.group(1) or match.group(2), match.group(3)


#: a function written over lines, to the first ``}`` that starts a line (its body may hold ``{ ...; }`` groups,
#: which ``_FUNCTION`` does not read), at most 2,000 characters
_FUNCTION_BLOCK = LazyRegex(
    r"^[ \t]*(?:function[ \t]+([A-Za-z_][\w.:-]{0,63})[ \t]*(?:\([ \t]*\))?|([A-Za-z_][\w.:-]{0,63})[ \t]*\([ \t]*\))"
    r"[ \t]*\{[ \t]*\n((?:[^\n]{0,400}\n){0,40}?)\}",
    re.MULTILINE,
    ("{",),
)


#: ``ssh``'s options that take a value: the first word after them is the host, the rest the remote command
_SSH_VALUE_OPTIONS = frozenset({"-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O",
                                "-o", "-P", "-p", "-Q", "-R", "-S", "-W", "-w"})  # fmt: skip
#: programs that run a quoted command in another shell, on other hosts or in a terminal session (``clush -w h
#: "docker run ..."``, ``tmux new-session -d "docker run ..."``): a quoted argument that starts a container run is
#: read as the commands it holds, as ``ssh``'s remote command is (audit73c: a byteps launcher's workers)
_QUOTED_RUNNERS = frozenset({"clush", "pdsh", "pssh", "parallel-ssh", "tmux", "screen"})
#: how many shells deep a command handed on as a string is read (``ssh host "bash -c '...'"``)
MAX_HANDED_ON = 2


def _handed_on(
    words: Sequence[Word], text: str, depth: int = 0, handers: frozenset[str] = frozenset()
) -> Iterator[SimpleCommand]:
    """The commands a command hands to another shell as text, at their offsets in ``text``: a shell's ``-c``
    string (``bash -c "docker run ..."``, ``sudo sh -c '...'``) and ``ssh``'s remote command, one string or the
    words after the host (audit65a: a TensorRT-LLM ``docker run`` started on each node with ``ssh "$host" "..."``
    was not read). ``MAX_HANDED_ON`` shells deep."""
    index = _skip_wrappers(words, 0, text)
    if index >= len(words) or words[index].dynamic or depth >= MAX_HANDED_ON:
        return
    name, rest = program_name(words[index].text), words[index + 1 :]
    found: list[SimpleCommand] = []
    decoded = False  # the string's escapes were undone: a string inside it is not the file's text, not read
    if name in SHELLS:
        operand = shell_operand([word.text for word in rest])
        if operand is not None and operand[0]:
            found, decoded = _string_commands(rest[operand[1]], text)
    elif name == "ssh":
        host = _skip_options(rest, 0, _SSH_VALUE_OPTIONS)
        remote = rest[host + 1 :]
        if len(remote) == 1:
            found, decoded = _string_commands(remote[0], text)
        elif remote and not any(_RESPLIT.intersection(word.text) for word in remote):
            found = [SimpleCommand(tuple(remote))]  # ssh joins them with blanks for the remote shell, which splits
            # them again: as written only where no word holds a blank or a quote (the review's ``"--shm-size 8g"``)
    elif name in handers or name in _QUOTED_RUNNERS:  # the text's own function, or a program, that hands its
        # quoted arguments to another shell
        holds = _STARTS_A_RUN.match if name in handers else _RUN_WITHIN.search
        for word in rest:
            if text[word.start : word.start + 1] in ("'", '"') and holds(word.text):
                more, undone = _string_commands(word, text)
                found += more
                decoded = decoded or undone
        engine = next((at for at in range(len(rest)) if _runs_at(rest, at)), None) if name in _QUOTED_RUNNERS else None
        if engine is not None:  # its command as words (``screen -dmS w docker run``)
            found.append(SimpleCommand(tuple(rest[engine:])))
    for command in found:
        yield command
        if not decoded:
            yield from _handed_on(command.words, text, depth + 1)


#: a command that runs a container engine, as a string writes it; a string whose first command is one
_A_RUN = r"\s*(?:sudo[ \t]+)?(?:docker|podman|nvidia-docker)[ \t]+(?:container[ \t]+)?(?:run|create)\s"
_STARTS_A_RUN = LazyRegex("^" + _A_RUN)
#: a string one of whose commands runs a container engine (``cd /w && docker run ...``)
_RUN_WITHIN = LazyRegex(r"(?:^|[;&|(\n])" + _A_RUN, 0, ("docker", "podman"))


def _runs_at(words: Sequence[Word], at: int) -> bool:
    """Whether an unquoted word among a program's arguments starts a container run (``docker run``)."""
    word = words[at]
    following = words[at + 1].text if at + 1 < len(words) else ""
    return not word.dynamic and program_name(word.text) in ENGINES and following in ("run", "create", "container")


#: what the remote shell would read otherwise than the local one did in a word ssh passes on
_RESPLIT = frozenset(" \t\n'\"\\$`")


class _Held(NamedTuple):
    """An array as the text gave it: its words, its name's generation then (``Assignments.generations``), where it
    was given (its ``)``: runs of different arrays are told apart by it) and whether a function's own (``local``,
    ``declare``)."""

    words: list[Word]
    generation: int
    origin: int
    scoped: bool


class ArrayRuns:
    """Container commands run from arrays: a later command runs an array as its program (``"${CMD[@]}"``, after
    ``sudo``, ``eval`` or ``timeout``), and the array's words with the words the run adds are a container command
    (``CMD=(docker run --gpus all img t)``, ``D=(sudo docker); "${D[@]}" run --gpus all img t``). A string that
    holds a container command is read the same way when the text runs it (``cmd="docker run ..."`` then ``$cmd``
    or ``eval "$cmd"``: benchmark scripts echo the command before they run it), its words as the shell splits the
    string's text (``_string_command``). The array is read
    as the text last gave it before the run: its last value (a branch that gave another is not seen) with what
    ``+=`` added and the arrays it was made of (``CMD=(sudo "${CMD[@]}")``), none when an item was set, it was
    unset or given something else the text does not show. Each run that adds words is a command of its own, at
    the run (its fix is written into the array); one that adds none is the array's one command. Bounded:
    ``MAX_RUNS`` runs per array and per text ``MAX_TEXT_RUNS``, ``MAX_WORDS`` words kept and read."""

    MAX_RUNS = 16
    MAX_TEXT_RUNS = 512
    MAX_WORDS = 100_000

    def __init__(self, text: str, assigned: Assignments, simple: Sequence[SimpleCommand] = ()) -> None:
        self.text = text
        self.assigned = assigned
        self.simple = simple  # the text's commands: where its own functions start
        self.held: dict[str, _Held] = {}
        self.runs: dict[tuple[int, int], ContainerCommand] = {}  # by where the array was given and the run, if it adds
        self.counted: dict[int, int] = {}  # runs read per array
        self.words = 0  # words kept and read
        self.runners: frozenset[str] | None = None  # the text's functions that run their arguments, once asked

    def note(self, given: tuple[NamedArray, ...], command: SimpleCommand) -> None:
        """What a command does to the arrays: gives or adds to them, or runs one (looked for only once the text
        holds an array: most texts give none); a string that holds a container command is held as one."""
        for array in given:
            self._keep(array)
        first = command.words[0].text
        if self.held or _HOLDS_A_RUN.match(first) is not None or first in DECLARING:
            self._keep_strings(command)
        if not self.held:
            return
        if self.runners is None:
            self.runners = _runners(self.text, frozenset(c.words[0].start for c in self.simple))
        run = _array_run(command.words, self.text, self.runners)
        if run is not None:
            self._run(run[0], command.words[run[1]], command.words[run[1] + 1 :])

    def commands(self) -> Iterator[ContainerCommand]:
        """The commands read from the runs, in the order of the runs."""
        return iter(self.runs.values())

    def _current(self, name: str, generation: int) -> list[Word] | None:
        held = self.held.get(name)
        return held.words if held is not None and held.generation == generation else None

    def _drop(self, name: str) -> None:
        self.held.pop(name, None)

    def _keep(self, array: NamedArray) -> None:
        generations = self.assigned.generations
        now = generations.get(array.name, 0)
        held = self.held.get(array.name)
        if array.items is None:
            return self._drop(array.name)
        if array.appended:  # ``D+=(...)`` adds to what it holds (a name the text never gave: nothing yet)
            before = self._current(array.name, now)
            if before is None and now > 0:
                return self._drop(array.name)  # it holds what the text does not show (a string, another value)
            words = before if before is not None else []
            origin, scoped = (held.origin, held.scoped) if before is not None and held else (array.end, False)
        else:  # a new value: the arrays its items take whole are what they held (``CMD=(sudo "${CMD[@]}")``)
            if array.scoped and held is not None and held.generation == now - 1 and not held.scoped:
                return self._drop(array.name)  # a function's own over the text's: which one a run gets is not known
            words, origin, scoped = [], array.end, array.scoped
        kept = len(words)
        for item in array.items:
            whole = _WHOLE_ARRAY.match(item.text) if item.splat else None
            if whole is None:
                words.append(item)
                continue
            name = whole.group(1)
            inner = self._current(
                name, now - 1 if name == array.name and not array.appended else generations.get(name, 0)
            )
            if inner is None or self.words + len(words) - kept + len(inner) > self.MAX_WORDS:
                return self._drop(array.name)  # an array the text does not show, or past the bound: not known
            words.extend(inner)
        self.words += len(words) - kept
        if self.words > self.MAX_WORDS:
            return self._drop(array.name)
        self.held[array.name] = _Held(words, now, origin, scoped)

    def _keep_strings(self, command: SimpleCommand) -> None:
        """Hold each string a command of assignments gives that is a container command, as its words; a string
        added to (``cmd+=" --x"``) is no longer the command the text shows."""
        words = command.words[1:] if command.words[0].text in DECLARING else command.words
        for word in words:
            name, equals, _ = word.text.partition("=")
            if not equals or not is_assignment(word, self.text):
                continue
            if self.text[word.end : word.end + 1] == "(":
                continue  # an array's ``=(...)`` and ``+=(...)`` are ``_keep``'s
            own = name.rstrip("+")
            now = self.assigned.generations.get(own, 0)
            held = _string_command(word, self.text, len(name) + 1)
            if held is None:  # ``cmd+=" --gpus all"``, ``cmd="$cmd --gpus all"``: what it held, then these words
                before = self._current(own, now if own != name else now - 1)
                held = _added_to(before, word, self.text, own, appended=own != name) if before is not None else None
            if held is None or self.words + len(held) > self.MAX_WORDS:
                self._drop(own)
                continue
            self.words += len(held)
            origin = self.held[own].origin if own in self.held and own != name else word.end  # ``+=``: the same one
            self.held[own] = _Held(held, now, origin, False)

    def _run(self, name: str, at: Word, added: Sequence[Word]) -> None:
        words = self._current(name, self.assigned.generations.get(name, 0))
        if not words or len(self.runs) >= self.MAX_TEXT_RUNS:
            return
        if _rebound(self.text, name, self.held[name].origin, at.start):
            return  # ``for cmd in ...``, ``while read -r cmd``, ``printf -v cmd``: not what the text gave it
        key = (self.held[name].origin, at.start if added else -1)
        if key in self.runs or self.counted.get(key[0], 0) >= self.MAX_RUNS:
            return
        if self.words + len(words) + len(added) > self.MAX_WORDS:
            return
        self.words += len(words) + len(added)
        self.counted[key[0]] = self.counted.get(key[0], 0) + 1
        parsed = parse_container_command((*words, *added), self.text, self.assigned)
        if parsed is not None and parsed.image is not None:
            self.runs[key] = parsed._replace(first=at)  # the finding is where it runs


#: what binds a name other than an assignment: a loop's variable, ``read``/``mapfile`` (inside a ``while`` too, where
#: no command starts with them), ``printf -v``, ``declare``/``local`` without a value (the review: a held
#: ``cmd="docker run ..."`` then ``for cmd in nvidia-smi; do $cmd; done`` ran the string)
_BINDS = (
    r"(?:\b(?:for|select)[ \t]+{name}\b"
    r"|\b(?:read|mapfile|readarray)\b[^\n;&|]{{0,256}}[ \t]{name}\b"
    r"|\bprintf[ \t]+(?:-[^\s]{{1,8}}[ \t]+){{0,4}}-v[ \t]*{name}\b"
    r"|\b(?:declare|local|typeset)\b[^\n;&|=]{{0,256}}[ \t]{name}(?![=\w])"
    r"|\blet\b[^\n;&|]{{0,256}}\b{name}[ \t]*[-+*/%]?="
    r"|\(\([^\n]{{0,256}}?\b{name}[ \t]*(?:[-+*/%]?=(?!=)|\+\+|--))"
)


def _rebinds_any(text: str, word: Word, assigned: Assignments) -> bool:
    """Whether the text before ``word`` binds a name the word reads other than by an assignment: where each name
    is first bound so is found in one pass of the text (``_first_binds``), asked once a text."""
    if assigned.bound_at is None:
        assigned.bound_at = _first_binds(text)
    bound = assigned.bound_at
    return any(
        bound.get(found[1] or found[2], len(text)) < word.start
        for found in _READ_NAMES.finditer(word.text, 0, MAX_READ)
    )


#: the names a word reads (``$TP``, ``${TP}``, ``${TP:-2}``), looked for in its first ``MAX_READ`` characters
_READ_NAMES = LazyRegex(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]{0,63})|([A-Za-z_][A-Za-z0-9_]{0,63}))", 0, ("$",))
MAX_READ = 1024
#: the places a name is bound other than by an assignment (``_BINDS``' constructs), each with the words it binds
_BIND_SITES = LazyRegex(
    r"\b(?:for|select)[ \t]+(?P<loop>[A-Za-z_][A-Za-z0-9_]{0,63})\b"
    r"|\bprintf[ \t]+(?:-[^\s]{1,8}[ \t]+){0,4}-v[ \t]*(?P<printf>[A-Za-z_][A-Za-z0-9_]{0,63})\b"
    r"|\blet[ \t]+(?P<let>[A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*[-+*/%]?="
    r"|\(\([ \t]*(?P<arith>[A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*(?:[-+*/%]?=(?!=)|\+\+|--)"
    r"|\b(?:read|mapfile|readarray|declare|local|typeset)\b(?P<words>[^\n;&|=]{0,256})",
    0,
)
_NAME_WORD = LazyRegex(r"(?<![-\w$])[A-Za-z_][A-Za-z0-9_]{0,63}(?![\w=])")


def _first_binds(text: str) -> dict[str, int]:
    """Where the text first binds each name other than by an assignment: a loop's variable, ``printf -v``, ``let``
    and ``(( ))``, and the names ``read``/``mapfile``/``declare`` are given (an option's value among them, ``-d
    ,``, is taken for a name too: it only makes a value be left unread)."""
    found: dict[str, int] = {}
    for site in _BIND_SITES.finditer(text):
        named = site["loop"] or site["printf"] or site["let"] or site["arith"]
        names = [named] if named else _NAME_WORD.findall(site["words"] or "")
        for name in names:
            found.setdefault(name, site.start())
    return found


def _rebound(text: str, name: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` binds ``name`` other than by an assignment (``_BINDS``)."""
    return end > start and re.compile(_BINDS.format(name=re.escape(name))).search(text, start, end) is not None


#: a word that is all of an array: ``"${NAME[@]}"``, ``${NAME[*]}``, also as ``set -u`` scripts write it so that an
#: empty one expands to nothing, ``${NAME[@]+"${NAME[@]}"}``
_WHOLE_ARRAY = LazyRegex(r'^\$\{([A-Za-z_][A-Za-z0-9_]{0,63})\[[@*]\](?::?\+"?\$\{\1\[[@*]\]\}"?)?\}$', 0, ("${",))
#: a word that is all of a string, ``$NAME`` or ``${NAME}``: run, it is a command held in a string
_WHOLE_STRING = LazyRegex(r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]{0,63})\}|([A-Za-z_][A-Za-z0-9_]{0,63}))$", 0, ("$",))
#: an assignment whose value starts a container engine's run (``cmd="sudo docker run``): one held as a command
_HOLDS_A_RUN = LazyRegex(
    r"^[A-Za-z_][A-Za-z0-9_]{0,63}=[ \t]*(?:sudo[ \t]+)?(?:docker|podman|nvidia-docker)[ \t]+(?:container[ \t]+)?"
    r"(?:run|create)(?:[ \t]|$)",
    0,
    ("=",),
)


def _string_command(word: Word, text: str, value_at: int) -> list[Word] | None:
    """The words of a container command an assignment word's string holds, at their offsets in ``text``
    (``value_at``: where the value starts in the word), as the shell reads the string again when it runs it: one
    command, or None."""
    if _HOLDS_A_RUN.match(word.text) is None:
        return None
    found, _ = _string_commands(word, text, value_at)
    return list(found[0].words) if len(found) == 1 else None


def _added_to(before: list[Word], word: Word, text: str, name: str, *, appended: bool) -> list[Word] | None:
    """A held command string's words after an assignment adds to it: ``cmd+=" --gpus all"`` (``appended``), or
    ``cmd="$cmd --gpus all"`` / ``cmd="${cmd} ..."`` (the value starts by reading it): what it held, then the
    value's own words, as ``eval "$cmd"`` reads the string again (audit86c: a training run built up line by line,
    each option in its own ``if``, read straight through as arrays' ``+=`` are). None for any other value (one that
    reads the name elsewhere, or holds more than one command)."""
    value_at = len(name) + (2 if appended else 1)
    found, _ = _string_commands(word, text, value_at)
    if len(found) != 1:
        return list(before) if not found and appended else None  # ``cmd+=""`` adds nothing
    words = list(found[0].words)
    if not appended:
        first = _WHOLE_STRING.match(words[0].text) if words else None
        if first is None or (first.group(1) or first.group(2)) != name:
            return None
        words = words[1:]
    return [*before, *words]


def _string_commands(word: Word, text: str, value_at: int = 0) -> tuple[list[SimpleCommand], bool]:
    """The commands a word's text holds from ``value_at`` on, read again as shell (as ``eval``, ``sh -c`` and a
    remote shell read it), at their offsets in ``text``, and whether escapes were undone to read them: a string
    quoted whole is read as its value (a double-quoted one's escapes undone: ``\\`` at a line's end continues the
    command there); one quoted in parts is read as written. Only a single-quoted string's ``$(...)`` is the inner
    shell's to run: any other the shell that hands the string on runs first, and its own reading of the file says
    it (the review: one ``docker run`` in ``bash -c "$(...)"`` was two findings). Past ``MAX_HANDED_TEXT``
    characters, none."""
    start, end = word.start + value_at, word.end
    if end - start > MAX_HANDED_TEXT:
        return [], False
    quote = text[start] if end - start >= 2 and text[start] in "\"'" and text[end - 1] == text[start] else ""
    where: Sequence[int]
    if quote == '"':
        value, where = _double_quoted_value(text, start + 1, end - 1)
    else:
        start, end = (start + 1, end - 1) if quote else (start, end)
        value, where = text[start:end], range(start, end + 1)
    found = [
        SimpleCommand(tuple(_placed(each, where) for each in command.words), command.depth)
        for command in commands(value)
        if quote == "'" or command.depth == 0
    ]
    return found, quote == '"' and len(value) != end - start - 2


#: the most characters of a string read again as shell
MAX_HANDED_TEXT = 64_000
#: what a backslash escapes inside double quotes (POSIX: ``$``, backquote, ``"``, backslash and a newline)
_DOUBLE_QUOTED_ESCAPES = frozenset('$`"\\\n')


def _double_quoted_value(text: str, start: int, end: int) -> tuple[str, list[int]]:
    """The value the shell gives ``text[start:end]`` inside double quotes (``\\"`` is ``"``, a backslash and a
    newline are nothing), and where each of its characters is in ``text``, then where it ends."""
    value: list[str] = []
    where: list[int] = []
    at = start
    while at < end:
        if text[at] == "\\" and at + 1 < end and text[at + 1] in _DOUBLE_QUOTED_ESCAPES:
            if text[at + 1] != "\n":
                value.append(text[at + 1])
                where.append(at + 1)
            at += 2
            continue
        value.append(text[at])
        where.append(at)
        at += 1
    where.append(end)
    return "".join(value), where


def _placed(word: Word, where: Sequence[int]) -> Word:
    """A word read from a string's value, at its offsets in the file (``where``: each value character's)."""
    end = where[word.end - 1] + 1 if word.end > word.start else where[word.start]
    return dataclasses.replace(word, start=where[word.start], end=end)


#: a shell function's header and body (``run() { ...; }``, ``function run { ...; }``): its body is read up to its
#: first ``}`` (no braces inside), at most 2,000 characters
_FUNCTION = LazyRegex(
    r"^[ \t]*(?:function[ \t]+([A-Za-z_][\w.:-]{0,63})[ \t]*(?:\([ \t]*\))?|([A-Za-z_][\w.:-]{0,63})[ \t]*\([ \t]*\))"
    r"\s{0,16}\{([^{}]{0,2000})\}",
    re.MULTILINE,
    ("{",),
)
#: what runs the arguments as a command in such a body (``"$@"``, ``exec "$@"``)
_ARGUMENTS = frozenset({"$@", "${@}"})
_RUNNING_WRAPPERS = frozenset({"exec", "eval", "command", "sudo"})


def _runners(text: str, starts: frozenset[int]) -> frozenset[str]:
    """The text's own functions (their names start commands the tokenizer read: not a here-document's text) whose
    body runs their arguments as a command, read as shell (not ``"$@"`` in a string, an array or an argument)."""
    found = set()
    for name, body in _own_functions(text, starts, (_FUNCTION,)):
        listed = list(top_level(commands(body)))
        array_end = -1
        for index, command in enumerate(listed):
            if command.words[0].start < array_end:
                continue  # an array's words (``ARGS=("$@")``), not a command
            array = array_items(body, command.words[-1], listed[index + 1 :])
            array_end = array.end if array is not None else -1
            words = list(command.words)
            while words and words[0].text in _RUNNING_WRAPPERS:
                words = words[1:]
            if words and words[0].text in _ARGUMENTS and words[0].splat:
                found.add(name)
                break
    return frozenset(found)


def _array_run(words: Sequence[Word], text: str, runners: frozenset[str] = frozenset()) -> tuple[str, int] | None:
    """The array a command runs as its program (``sudo "${CMD[@]}"``, ``eval "${CMD[*]}"``, ``timeout 1h
    "${CMD[@]}"``, ``run "${CMD[@]}"`` with one of the text's ``runners``) and the index of its word, or None. A
    quoted ``"${CMD[*]}"`` is one word, a program of that whole name, unless ``eval`` reads it again."""
    index = next((i for i, word in enumerate(words) if not is_assignment(word, text)), len(words))
    evaluated = False
    for _ in range(4):  # wrappers in front of wrappers, a few deep
        if index < len(words) and words[index].text == "eval":
            evaluated, index = True, index + 1
        if index + 1 < len(words) and words[index].text == "command" and words[index + 1].text in ("-v", "-V"):
            return None  # ``command -v "${D[@]}"`` asks where the program is, it runs nothing
        index = _skip_wrappers(words, index, text)
        if index < len(words) and not words[index].dynamic and words[index].text in runners:
            index += 1
    word = words[index].text if index < len(words) else ""
    whole = _WHOLE_ARRAY.match(word) or _WHOLE_STRING.match(word)
    if whole is None or not (words[index].splat or evaluated):
        return None
    return whole.group(1) or whole.group(2), index


def parse_container_command(
    words: Sequence[Word], text: str, assigned: Assignments | None = None
) -> ContainerCommand | None:
    """The container command these words run (past ``VAR=x``, ``sudo``, ``env``...), or None. ``assigned``: the
    values the script gave its variables before this command, to tell an option variable from the image."""
    start = next((i for i, word in enumerate(words) if not is_assignment(word, text)), len(words))
    index = _skip_wrappers(words, start, text)
    if index >= len(words):
        return None
    engine = words[index]
    resolved = assigned_word(engine, assigned) if engine.dynamic and assigned is not None else None
    if resolved is not None and _is_engine(resolved, ()):  # ``B=podman`` earlier: ``$B run ...`` is podman's
        engine = resolved
    elif not _is_engine(engine, words[index + 1 : index + 2]):
        return None
    index = _skip_options(words, index + 1, GLOBAL_VALUE_OPTIONS)
    container = index < len(words) and words[index].text == "container"  # docker container run
    index += container
    if index >= len(words) or words[index].text not in _SUBCOMMANDS:
        return None
    run_word = words[index]
    read = _read_options(words, index + 1, text, assigned or Assignments())
    image = read.words[read.image_index] if read.image_index < len(read.words) else None
    arguments = tuple(read.words[read.image_index + 1 :])
    if image is not None and image.dynamic and assigned is not None:  # ``IMAGE=x`` earlier: ``docker run $IMAGE``
        image = assigned_word(image, assigned) or image
    if assigned is not None:  # ``CMD="python3 train.py"`` earlier: ``docker run img $CMD``; ``TP=2``: ``"$TP"``
        # the word before each: after a shell's ``-c``, a quoted variable's value is taken whole
        before = (None, *arguments)[: len(arguments)]
        arguments = tuple(
            part
            for word, last in zip(arguments, before, strict=True)
            for part in _with_values(word, assigned, text, last)
        )
    return ContainerCommand(
        first=words[start],
        engine=engine,
        subcommand=f"container {run_word.text}" if container else run_word.text,
        run_word=run_word,
        flags=read.flags,
        unknown=read.unknown,
        image=image,
        arguments=arguments,
        may_set_shm=read.shm_words,
        placed=read.placed,
    )


#: ``docker exec`` options that take a value (the container's name comes after them)
_EXEC_VALUE_OPTIONS = frozenset({"-e", "--env", "--env-file", "-u", "--user", "-w", "--workdir", "--detach-keys"})


#: commands one container is said to run by ``docker exec``, at most (a script runs a few)
MAX_EXECED = 16
#: subcommands that end a named container: what is exec'd by that name after them runs in another one
_ENDS = frozenset({"rm", "stop", "kill"})


class Execs(NamedTuple):
    """What a text runs in its containers by name (``docker exec -it dev python train.py``: ``dev``, ``python
    train.py``, at most ``MAX_EXECED`` a name), and where it ends each (``docker rm -f dev``: its offset)."""

    commands: dict[str, tuple[SimpleCommand, ...]]
    ends: dict[str, tuple[int, ...]]


def exec_targets(text: str, in_blocks: bool = False) -> Execs:
    """The containers the text runs commands in, by name, each with those commands in order, and the offsets of the
    commands that stop or remove each."""
    found: dict[str, list[SimpleCommand]] = {}
    ends: dict[str, list[int]] = {}
    for command in commands(text, in_blocks=in_blocks):
        words = command.words
        index = _skip_wrappers(words, 0, text)
        if index + 1 >= len(words) or program_name(words[index].text) not in ENGINES:
            continue
        index += 1 + (words[index + 1].text == "container")
        if index >= len(words):
            continue
        if words[index].text == "exec":
            target = _skip_options(words, index + 1, _EXEC_VALUE_OPTIONS)
            if target < len(words) and not words[target].dynamic:
                run = found.setdefault(words[target].text, [])
                if target + 1 < len(words) and len(run) < MAX_EXECED:
                    run.append(SimpleCommand(words[target + 1 :], command.depth))
        elif words[index].text in _ENDS:
            for word in words[index + 1 :]:
                if not word.text.startswith("-"):
                    ends.setdefault(word.text, []).append(command.words[0].start)
    return Execs({name: tuple(run) for name, run in found.items()}, {name: tuple(at) for name, at in ends.items()})


def parse_options(words: Sequence[Word], text: str) -> tuple[tuple[Flag, ...], tuple[Word, ...]]:
    """Options alone, as a dev container's ``runArgs`` or a CI job's container ``options`` hold them (no engine, no
    image): the options, and the expansions among them that may stand for more options. Other words are skipped."""
    options: list[Flag] = []
    unknown: list[Word] = []
    index = 0
    while index < len(words):
        word = words[index]
        if word.text.startswith("-") and word.text not in ("-", "--"):
            index = read_option(words, index, options, text)
            continue
        if word.dynamic:
            unknown.append(word)
        index += 1
    return tuple(options), tuple(unknown)


def _skip_wrappers(words: Sequence[Word], index: int, text: str) -> int:
    """Index of the word that is the program: past ``VAR=x``, ``sudo -E``, ``env -u X``, ``exec``, ``timeout 1h``..."""
    while index < len(words):
        word = words[index]
        if is_assignment(word, text):
            index += 1
            continue
        if not word.dynamic and word.text.rsplit("/", 1)[-1] == "timeout":
            index = _skip_options(words, index + 1, _TIMEOUT_VALUE_OPTIONS) + 1  # and its duration
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
    return program_name(word.text) in ENGINES


class _ReadOptions(NamedTuple):
    """What ``_read_options`` read: the options, the expansions that may hold more options, those of them that may
    decide /dev/shm, those read so only by the options after them, the words with the option variables that
    hold the image spliced in, and the index of the image word among them."""

    flags: tuple[Flag, ...]
    unknown: tuple[Word, ...]
    shm_words: tuple[Word, ...]
    placed: tuple[Word, ...]
    words: tuple[Word, ...]
    image_index: int


def _read_options(given: Sequence[Word], index: int, text: str, assigned: Assignments) -> _ReadOptions:
    """The options up to the image. A variable the script gave one value of options and the image (``docker_args="--gpus
    all -v $PWD:/w img:1"``, run as ``docker run $docker_args``) is its words, where the variable is."""
    options: list[Flag] = []
    unknown: list[Word] = []
    shm_words: list[Word] = []
    placed: list[Word] = []
    words = tuple(given)
    spliced: dict[tuple[int, int], str] = {}  # where each variable spliced in was, and how it was written

    def read(image_index: int) -> _ReadOptions:
        return _ReadOptions(tuple(options), tuple(unknown), tuple(shm_words), tuple(placed), words, image_index)

    while index < len(words):
        word = words[index]
        if word.text == "--":
            return read(index + 1)
        if not word.text.startswith("-") or word.text == "-":
            if not word.splat:
                return read(index)
            expanded = option_variable(word, assigned)
            if expanded is None and assigned_name(word, assigned):
                split = options_and_image(word, assigned)
                if split is not None:  # options, then a written-out image: its words, read as written (once: the
                    # image ends the options)
                    words = (*words[:index], *split, *words[index + 1 :])
                    spliced[(word.start, word.end)] = word.text
                    continue
                return read(index)  # the script gives it a value that is not options: the image
            if expanded is None:
                if not _stands_for_options(word):
                    if not _options_follow(words, index + 1):
                        return read(index)
                    placed.append(word)
                expanded = NOT_EXPANDED  # it stands among the options; its value is not known here
            options.extend(expanded.flags)
            if not expanded.known:
                unknown.append(word)
            if expanded.shm:
                shm_words.append(word)
            index += 1
            continue
        before = len(options)
        index = read_option(words, index, options, text)
        if spliced:  # a variable's options are said as its, and no fix writes into them
            options[before:] = [_from_variable(flag, spliced) for flag in options[before:]]
        options[before:] = [_assigned_value(flag, assigned) for flag in options[before:]]
    return read(index)


def _with_values(word: Word, assigned: Assignments, text: str, previous: Word | None = None) -> tuple[Word, ...]:
    """A word of the container's command with the plain values the script gave its variables put in: a variable of
    one value split as the shell splits it (``CMD="python3 train.py"``, ``docker run img $CMD``), or filled in
    (``TP=2``, or ``TP=${TP:-2}``, then ``--tensor-parallel-size "$TP"``: audit80a, a setting that decides the need
    was read as an expansion); still an expansion where any variable in it stays one. A word that also holds a
    ``$`` the host's shell leaves to the container (``\\$TP``, ``'$TP'``) is left as written, as is one reading a
    name the text binds other than by an assignment before it (``for TP in``, ``printf -v TP``, ``let``, ``(( ))``:
    the review). A quoted one after ``-c`` (``bash -c "$ARGS"``) is the script's value whole (``quoted_value``);
    elsewhere a quoted value of several words is one word, a program of that whole name, and is left as written."""
    if not word.dynamic:
        return (word,)
    raw = text[word.start : word.end]
    if "\\$" in raw or "'" in raw or _rebinds_any(text, word, assigned):
        return (word,)
    split = assigned_words(word, assigned)
    if split:
        return split
    value = assigned_word(word, assigned)
    if value is None and previous is not None and previous.text == "-c":
        value = quoted_value(word, assigned)
    if value is not None:
        return (value,)
    filled = filled_in(word.text, assigned)
    if filled == word.text:
        return (word,)
    return (Word(filled, word.start, word.end, "$" in filled or "`" in filled, word.splat),)


def _assigned_value(flag: Flag, assigned: Assignments) -> Flag:
    """A /dev/shm option whose value holds variables the script gave one plain value before (``T=/dev/shm:size=8g;
    docker run --tmpfs $T``, ``--shm-size=$S``, ``-v $PWD:$WORKDIR``): with those values put in, said as the
    variables', which no fix writes into."""
    if flag.value is None or not flag.dynamic or flag.long_name not in SHM_OPTIONS:
        return flag
    written = (
        flag.value
        if flag.value is not flag.flag
        else Word(flag.value_text, flag.value_start, flag.value_end, dynamic=True)  # ``--opt=$V``
    )
    value = assigned_word(written, assigned)
    if value is None:
        text = filled_in(written.text, assigned)
        if text == written.text:
            return flag
        value = Word(text, written.start, written.end, dynamic="$" in text or "`" in text)
    return flag._replace(value=value, value_text=value.text, expanded_from=written.text)


def _from_variable(flag: Flag, spliced: dict[tuple[int, int], str]) -> Flag:
    """An option read from a spliced variable's words, said as that variable's (a fix never writes into it)."""
    variable = spliced.get((flag.flag.start, flag.flag.end))
    return flag._replace(expanded_from=variable) if variable is not None else flag


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
        if not run_option_known(words[index].text):
            return False
        index = read_option(words, index, [], "")
    return index < len(words) and index > first and _may_be_image(words[index])


def _may_be_image(word: Word) -> bool:
    """An expansion, or a word written as an image reference (lower-case repository, optional tag or digest)."""
    return word.splat or word.dynamic or bool(len(word.text) <= MAX_REFERENCE and _REFERENCE.match(word.text))


def _stands_for_options(word: Word) -> bool:
    """An expansion in the image's place that is more likely a list of options than the image."""
    name = _VARIABLE_NAME.match(word.text)
    if word.text.startswith(("$@", "$*", "${@}", "${*}")) or "[@]" in word.text or "[*]" in word.text:
        return True
    return bool(name and _OPTION_LIKE_NAME.search(name.group(1)))
