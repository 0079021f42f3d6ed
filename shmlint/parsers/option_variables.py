"""What an unquoted ``$VAR`` before the image of a ``docker run`` stands for, from the script's own assignments.

``OPTS="--gpus all"; docker run $OPTS img``: a variable the script gives only option values is read as those options
(or skipped when none of them decides anything read here), one it gives a value that is not options may be the
image, and one it says nothing of stays unknown. The work is bounded per text (``MAX_VALUES``, ``MAX_VALUE``,
``MAX_EXPANDED``) and each value is tokenised once. The values are read with the options' own grammar
(``shmlint.parsers.container_options``); ``shmlint.parsers.container_command`` asks this module at each expansion.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.container_options import Flag, read_option
from shmlint.parsers.shell import SimpleCommand, Word, array_items, commands, environment_default, top_level
from shmlint.runtime.mounts import Mount, Tmpfs, parse_mount, parse_tmpfs, parse_volume
from shmlint.runtime.shm import SHM_PATH, clean_container_path, may_be_shm_path

_ASSIGNMENT = LazyRegex(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
#: a one-variable expansion inside a string value: ``$NAME`` or ``${NAME}``
_VARIABLE_IN_VALUE = LazyRegex(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
#: a word that is one variable and nothing else: ``$NAME``, ``${NAME}`` (``${NAME-}``, ``${NAME:-}``: the same where it
#: is set), or all of an array, ``${NAME[@]}``, also as ``set -u`` scripts write it, ``${NAME[@]+"${NAME[@]}"}`` (its
#: items where it is set: audit80a, a sized launcher's ``--shm-size`` read as unresolved)
_WHOLE_VARIABLE = LazyRegex(
    r"^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)(?::?-)?\}|([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\[[@*]\]\}"
    r"|\{([A-Za-z_][A-Za-z0-9_]*)\[@\]\+\"\$\{\4\[@\]\}\"\})$"
)
#: commands that read a file of assignments into the script
_SOURCING = frozenset({"source", "."})
#: builtins whose arguments are assignments after their options
DECLARING = frozenset({"export", "local", "declare", "typeset", "readonly"})
#: of those, the ones that give a function's own variable inside a function
_SCOPING = frozenset({"local", "declare", "typeset"})
#: a command that changes a name other than by a plain assignment: an array's item, ``unset``, ``read``/``mapfile``
_CHANGED_ELSEWHERE = LazyRegex(
    r"([A-Za-z_][A-Za-z0-9_]{0,63})\[[^\n=]{0,96}?\]\+?="
    r"|(?:unset|read|mapfile|readarray)((?:[ \t]+-[A-Za-z]{1,8}(?:[ \t]+[^\s-][^\s]{0,8})?){0,16}"
    r"(?:[ \t]+[A-Za-z_][A-Za-z0-9_]{0,63}){1,8})"
)
#: options that decide nothing shmlint reads: a variable whose every value holds only others is skipped
_JUDGED_OPTIONS = frozenset(
    [
        *("--gpus", "--runtime", "--device", "--env", "--env-file", "--shm-size", "--ipc", "--tmpfs", "--mount"),
        *("--volume", "--memory", "--workdir", "--entrypoint"),
    ]
)
#: of those, the ones that decide /dev/shm: a size or mode, and a mount when it names /dev/shm
SHM_MODES = frozenset(["--shm-size", "--ipc"])
#: the options that may decide /dev/shm: its size or mode, or a mount that may be at it
SHM_OPTIONS = SHM_MODES | {"--tmpfs", "--volume", "--mount"}
#: of the judged options, the ones a variable's one value may give. A ``--shm-size`` it holds is read as that size
#: (a fix never writes into it: the words are the variable's; a new ``--shm-size`` after it wins, as docker keeps
#: the last one); so is an IPC mode (``OPTS="--ipc=host"``: the host's /dev/shm, found on an untuned repository,
#: audit51a; no fix rewrites it there, and a ``--shm-size`` added after it sizes a private one); a mount at /dev/shm
#: it holds stays unknown: no option written after it undoes that, unless it is a ``--volume`` written out in full
#: (``_binds_shm``), read as what it is (mounts elsewhere are read too, when nothing in the value decides /dev/shm)
_EXPANDED_OPTIONS = frozenset(
    ["--gpus", "--runtime", "--device", "--env", "--workdir", "--entrypoint", "--shm-size", "--ipc"]
)
#: of those, the ones that only give the container an accelerator: a variable that holds them in one branch and
#: nothing in the others (``GPU=--gpus all`` on a GPU host, ``GPU=""`` elsewhere) is read as them, as what runs
#: needs /dev/shm on either branch and the accelerator is where it runs
_ACCELERATORS = frozenset(["--gpus", "--runtime", "--device"])
#: what the branches of a GPU variable may give besides it: the devices' environment
_BRANCH_OPTIONS = frozenset(["--gpus", "--env"])
#: a ``--gpus`` value's count (``2``, ``count=2``) or device list (``device=0,1``, quoted or not)
_GPUS_COUNT = LazyRegex(r"[\"']?(?:count=)?([0-9]{1,4})[\"']?")
_GPUS_DEVICES = LazyRegex(r"[\"']?device=([\w,-]{1,512})[\"']?")
#: values kept per variable and characters per value: a script assigns a name a few times
MAX_VALUES = 16
MAX_VALUE = 1024
#: characters of variables' values read into one text's commands: past it a variable is unknown (3,000 lines of
#: ``docker run $X`` with a 1 KiB ``X`` would read 3 MB of options)
MAX_EXPANDED = 256 * 1024


class _Read(NamedTuple):
    """One value of an option variable, tokenised once: its options (spanned at 0; None when a word is no option:
    perhaps the image) and the long names among them that decide something read here."""

    parts: tuple[Word, ...]
    judged: frozenset[str]
    shm: bool  # it holds what decides /dev/shm: a ``--shm-size``, an ``--ipc`` mode, a mount there
    mounts_shm: bool  # of those, a mount that is or may be there
    opaque: bool  # an expansion stands where an option would (``--gpus all $EXTRA``): it may be any options


class Assignments:
    """One text's scan state: the values its plain assignments gave each name so far (``values``), each value read
    once, and the characters of values read into commands (``MAX_EXPANDED``), so the work stays linear in the text."""

    def __init__(self, given: Mapping[str, tuple[str, ...]] | None = None) -> None:
        """``given``: values the names hold before the text runs (a Makefile's variables for its recipes)."""
        self.values: dict[str, tuple[str, ...]] = {name: values[-MAX_VALUES:] for name, values in (given or {}).items()}
        self.arrays: set[str] = set()  # names whose value is an array's items
        self.sourced = False  # a file of assignments was read in (``source .env``): any name may be set
        #: names given a value before such a file was read in, and not since: what they hold now is not known
        self.stale: set[str] = set()
        self.read: set[str] = set()  # names a command has read
        #: names given another value after a command read them: which value a later command gets depends on the
        #: order the script runs in, not only on its branches
        self.late: set[str] = set()
        #: how many times each name was given a value, had an item set, was unset or read into: an array read as
        #: a command is what ``"${NAME[@]}"`` runs only while the count stays what it was when the array was given
        self.generations: dict[str, int] = {}
        self._reads: dict[str, _Read | None] = {}
        self.built_up: dict[tuple[str, ...], bool] = {}  # ``_built_up``'s answer for each set of values
        #: where the text first binds each name other than by an assignment (``for TP in``), found once a text
        self.bound_at: dict[str, int] | None = None
        self._expanded = 0

    def read_value(self, value: str) -> _Read | None:
        if value not in self._reads:
            self._reads[value] = _read_value(value)
        return self._reads[value]

    def spend(self, characters: int) -> bool:
        """Whether ``characters`` more of a value may be read into a command (they are counted then)."""
        if self._expanded + characters > MAX_EXPANDED:
            return False
        self._expanded += characters
        return True


def note_assignment(
    command: SimpleCommand, text: str, assignments: Assignments, rest: Iterable[SimpleCommand] = ()
) -> tuple[NamedArray, ...]:
    """Add the values a command of plain assignments gives its names (``X=-it``, ``export X="--gpus all"``) to
    every value the text gave them before: an ``if`` is read straight through, so a name keeps each value a branch
    may give it (bounded: ``MAX_VALUES`` per name, ``MAX_VALUE`` characters each); a new value after a command read
    the name marks it ``late`` (``option_variable`` then reads no branch's value as the one that runs). An array
    (``ARGS=(--gpus all)``, its words the commands ``rest`` begins with) is its words, for ``"${ARGS[@]}"``.
    Returns the arrays it gives or adds to, in order; the last one's ``end`` is the offset up to which the
    following commands are arrays' words."""
    first = command.words[0].text
    if _reads_assignments_in(command, text):  # it may set any name: what they held is not known after it
        assignments.sourced = True
        assignments.stale.update(assignments.values)
    # the command past its prefix assignments (``IFS=, read -r -a A``: the review)
    at = next((word.start for word in command.words if not is_assignment(word, text)), command.words[0].start)
    changed = _CHANGED_ELSEWHERE.match(text, at) if first not in _SOURCING else None
    if changed is not None:  # ``A[3]=x``, ``unset A``, ``read -a A``: what the name holds is not known
        for name in (changed.group(1) or changed.group(2) or "").split():  # options' words too: never a value
            assignments.values.pop(name, None)
            assignments.arrays.discard(name)
            assignments.generations[name] = assignments.generations.get(name, 0) + 1
        return ()
    words = command.words
    if first in DECLARING:  # ``declare -a CMD=(...)``, ``local -r X=1``: past the builtin and its options
        words = words[1:]
        while words and words[0].text.startswith("-"):
            words = words[1:]
    if not words or not all(is_assignment(word, text) for word in words):
        return ()
    assigned = assignments.values
    arrays: list[NamedArray] = []
    for word in words:
        name, _, value = word.text.partition("=")
        if not name.endswith("+"):  # a new value (``+=`` keeps the old one and adds to it)
            assignments.generations[name] = assignments.generations.get(name, 0) + 1
        array = array_items(text, word, rest) if not value else None
        if array is not None:
            own = name.rstrip("+")  # ``CMD+=(...)``: its words are added to the array's
            arrays.append(NamedArray(own, array.items, array.end, appended=own != name, scoped=first in _SCOPING))
            value = " ".join(_quoted(item) for item in array.items or ())
            kept = array.items is not None and all(_kept(item) for item in array.items) and len(value) <= MAX_VALUE
            added = _array_values(own, value, own != name, assignments) if kept else None
            name = own
            if added is None:
                assigned.pop(name, None)  # an item the text does not give, or too long: not known
                assignments.arrays.discard(name)
                continue
            assignments.arrays.add(name)
            given: tuple[str, ...] = added
        else:
            strings = _string_values(name, value, word.dynamic, assignments)
            name = name.rstrip("+")
            if strings is None or text[word.end : word.end + 1] == "(":
                assigned.pop(name, None)  # added to what is not known, too long, or an array not read: not known
                assignments.arrays.discard(name)
                continue
            assignments.arrays.discard(name)
            given = strings
        assignments.stale.discard(name)  # given a value since the file of assignments was read in
        known = assigned.get(name, ())
        for each in given:
            if name in assignments.read and each not in known:
                assignments.late.add(name)
            if each not in known:
                known = (*known, each)[-MAX_VALUES:]
        assigned[name] = known
    return tuple(arrays)


def _array_values(name: str, value: str, appended: bool, assignments: Assignments) -> tuple[str, ...] | None:
    """The values an array assignment gives its name, as its items' words: its own; for ``+=(...)``, those words
    after each value the array held (read straight through branches as strings are: ``flags+=(-d)`` in one branch,
    ``flags+=(--rm)`` in the other; audit80a, a launcher's ``--gpus`` in such an array gave no finding at all).
    None where what it held is not known (a name the text never gave: a caller's ``export A=...`` becomes its first
    item, as ``X+=" -it"`` of a string is read) or the text's budget of values read (``MAX_EXPANDED``) is spent."""
    if not appended:
        return (value,)
    if name not in assignments.values or name not in assignments.arrays or name in assignments.stale:
        return None  # what it held is not known: a name the text never gave may be a caller's (``export A=...``)
    given = tuple(f"{old} {value}" if old else value for old in assignments.values[name])
    if any(len(each) > MAX_VALUE for each in given) or not assignments.spend(sum(map(len, given))):
        return None
    return given


def _string_values(name: str, value: str, dynamic: bool, assignments: Assignments) -> tuple[str, ...] | None:
    """The values a string assignment gives its name: its own; for one that adds to what the name holds (``X+="
    -it"``) or reads it (``ENV="${ENV} --gpus all"``, as scripts build options up), that value after each value the
    name held, as the shell puts it there. Where what it held is not known (a name the script did not give a value,
    or gave one before a file of assignments was read in; a value with quotes the reading would have to rewrite), a
    value that adds to it is ``${NAME}`` and the value (an expansion: unknown where it is read), and one that reads
    it is kept as written (one that reads it through an operator, ``${ENV:+$ENV }``, gets what it held inside the
    operator's braces: still an expansion). None when it adds to an array, when a value is too long, or when the
    text's budget of values read (``MAX_EXPANDED``) is spent."""
    own = name.rstrip("+")
    appended = name != own
    reads_itself = dynamic and any(_expanded_name(match) == own for match in _VARIABLE_IN_VALUE.finditer(value))
    held = assignments.values.get(own, ()) if own not in assignments.arrays and own not in assignments.stale else ()
    if not appended and not reads_itself:
        given: tuple[str, ...] = (value,)
    elif not held or any(char in old for old in held for char in "'\"\\`"):
        if appended and own not in assignments.arrays:  # what it held, unknown, then this: ``${E} --gpus all``
            return None if len(value) > MAX_VALUE else (f"${{{own}}}{value}",)
        return None if appended else (value,)
    elif appended:
        given = tuple(old + value for old in held)
    else:
        given = tuple(_put_in(value, own, old) for old in held)
    if any(len(each) > MAX_VALUE for each in given):
        return None
    if (appended or reads_itself) and not assignments.spend(sum(map(len, given))):
        return None  # each such line may make MAX_VALUES values: they count against the text's budget
    return given


def _put_in(value: str, name: str, held: str) -> str:
    """``value`` with what ``name`` held where it reads ``$name`` or ``${name}``."""
    return _VARIABLE_IN_VALUE.sub(lambda match: held if _expanded_name(match) == name else match[0], value)


def _expanded_name(match: re.Match[str]) -> str:
    return match[1] or match[2]


def _reads_assignments_in(command: SimpleCommand, text: str) -> bool:
    """A command that may give any name a value: ``source``/``.`` of a file, ``eval``, and a declaring builtin
    given an expansion to split into assignments (``export $(grep -v '^#' .env | xargs)``)."""
    first = command.words[0].text
    if first in _SOURCING or first == "eval":
        return True
    return first in DECLARING and any(word.dynamic and not is_assignment(word, text) for word in command.words[1:])


class NamedArray(NamedTuple):
    """An array assignment (``CMD=(docker run ...)``, or ``CMD+=(...)``, ``appended``): its name, its items (None
    when the text ends before its ``)``) and the offset of that ``)``."""

    name: str
    items: tuple[Word, ...] | None
    end: int
    appended: bool = False
    scoped: bool = False  # given with ``local``/``declare``/``typeset``: a function's own when inside one


def _kept(item: Word) -> bool:
    """An array item whose value is read back as one word: written out, or one word that holds an expansion
    (``"$PWD:/w"``, ``"$X"``: it stays an expansion, and one where an option would be leaves the array unknown);
    not one that may split into several (``$X``, ``"${A[@]}"``) nor one whose expansion holds quotes or escapes
    this reading would have to rewrite."""
    return not item.dynamic or (not item.splat and not any(char in item.text for char in '"\\`'))


def _quoted(item: Word) -> str:
    """An array item as one shell word again, for the value's words to be read back as the array's items (one that
    holds an expansion in double quotes: it stays one)."""
    if item.dynamic:
        return f'"{item.text}"'
    text = item.text
    return text if text and all(char.isalnum() or char in "-_=./:,@%+" for char in text) else shlex.quote(text)


def is_assignment(word: Word, text: str) -> bool:
    """``NAME=value`` as the source spells it: a quoted ``"A=b"`` is a word, not an assignment."""
    return bool(_ASSIGNMENT.match(text[word.start : word.end]))


class Expanded(NamedTuple):
    """An option variable read from the script: the options it holds (none that decide anything read here, or
    those of its one value), or not ``known`` when its values differ in what they decide; ``shm`` when a value it
    may have holds what decides /dev/shm (a variable the script says nothing of may)."""

    flags: tuple[Flag, ...]
    known: bool = True
    shm: bool = False


NOT_EXPANDED = Expanded((), known=False, shm=True)


def option_variable(word: Word, assigned: Assignments) -> Expanded | None:
    """What an unquoted ``$NAME`` before the image stands for, from the values the script gave it; None when the
    script says nothing of it or a value is not options (then it may be the image). ``-it`` or ``""``: nothing
    read here (the word is skipped); ``--gpus all`` its one value, or its one value besides values that decide
    nothing (``""`` on a host without a GPU), all assigned before any command read it: that option; ``--gpus
    device=$i`` or ``--gpus 1`` (two values that decide differently), a value assigned after a command read it
    (``G=""`` after ``docker run $G``: which one this run gets is the script's order, not its branches), or past
    ``MAX_EXPANDED``: not expanded, said as unknown."""
    name = assigned_name(word, assigned)
    values = assigned.values.get(name, ())
    if name:
        assigned.read.add(name)
    if name not in assigned.late and _built_up(values, assigned):
        values = values[-1:]
    reads = [assigned.read_value(value) for value in values]
    if not reads or any(read is None for read in reads):
        return None
    judged = frozenset().union(*(read.judged for read in reads if read is not None))
    shm = any(read is not None and read.shm for read in reads)
    if any(read is not None and read.opaque for read in reads):
        return Expanded((), known=False, shm=True)
    if not judged:
        return Expanded(())
    given = [(value, read) for value, read in zip(values, reads, strict=True) if read is not None and read.judged]
    branches = len(reads) > 1 and name not in assigned.late  # values the branches before this read give it
    mounts_shm = any(read is not None and read.mounts_shm for read in reads)
    expandable = _EXPANDED_OPTIONS if mounts_shm else _EXPANDED_OPTIONS | _MOUNT_TARGETS.keys()
    one = given[0] if len(given) == 1 and judged <= (expandable if len(reads) == 1 else _ACCELERATORS) else None
    one = one if len(reads) == 1 or branches else None
    if one is None and branches and all(read is not None and _gpus_only(read) for read in reads):
        # each branch gives GPUs its own way (``--gpus all``, or ``--gpus "device=$NV_GPU" -e
        # NVIDIA_VISIBLE_DEVICES=$NV_GPU``: NVIDIA's MLPerf run_with_docker.sh, audit69d): GPUs run on every branch;
        # the one that says the fewest is read (one that counts none first), whatever the order of the branches
        one = min(given, key=lambda pair: _gpus_counted(pair[1]))
    if one is None or not assigned.spend(len(one[0])):
        return Expanded((), known=False, shm=shm)
    parts = [Word(part.text, word.start, word.end, part.dynamic, part.splat) for part in one[1].parts]
    flags, _ = _value_options(parts) or ([], False)
    return Expanded(tuple(flag._replace(expanded_from=word.text) for flag in flags), shm=shm)


def _gpus_only(read: _Read) -> bool:
    """Whether a value gives GPUs and decides nothing else read here but their environment."""
    return "--gpus" in read.judged and read.judged <= _BRANCH_OPTIONS


def _gpus_counted(read: _Read) -> int:
    """How many GPUs a value's ``--gpus`` counts (``2``, ``count=2``, ``device=0,1``), -1 for none counted (``all``,
    a variable): the branch that says the fewest is the one read."""
    flags, _ = _value_options(list(read.parts)) or ([], False)
    value = next((flag.value_text for flag in flags if flag.long_name == "--gpus"), "")
    if (count := _GPUS_COUNT.fullmatch(value)) is not None:
        return int(count.group(1))
    devices = _GPUS_DEVICES.fullmatch(value)
    return len(devices.group(1).split(",")) if devices is not None else -1


def _built_up(values: tuple[str, ...], assigned: Assignments) -> bool:
    """Values a script built up by adding to one name under conditions (``E=-it``, then ``E="$E --gpus all"`` and
    ``E="$E -e X=1"`` under two ``if``s): the last holds every other's words in their order, and none decides
    /dev/shm (options a ``--shm-size`` or a mount would undo stay unknown). The last is then what runs when every
    condition holds: the container as its accelerator branch runs. Worked out once for each set of values."""
    if len(values) < 2:
        return False
    if values not in assigned.built_up:
        reads = [assigned.read_value(value) for value in values]
        last = values[-1].split()
        assigned.built_up[values] = not any(read is None or read.shm for read in reads) and all(
            _in_order(value.split(), last) for value in values[:-1]
        )
    return assigned.built_up[values]


def _in_order(words: list[str], within: list[str]) -> bool:
    """Whether ``words`` appear in ``within`` in the same order (a subsequence)."""
    remaining = iter(within)
    return all(word in remaining for word in words)


def _read_value(value: str) -> _Read | None:
    """A variable's value read as options (None when a word of it is not one)."""
    parts = tuple(part for command in top_level(commands(value)) for part in command.words)
    read = _value_options(parts)
    if read is None:
        return None
    flags, opaque = read
    names = {flag.long_name for flag in flags}
    mounts_shm = opaque or any(_may_mount_shm(flag) and not _binds_shm(flag) for flag in flags)
    shm = mounts_shm or any(flag.long_name in SHM_MODES or _binds_shm(flag) for flag in flags)
    return _Read(parts, frozenset(names & _JUDGED_OPTIONS), shm, mounts_shm, opaque)


def _may_mount_shm(flag: Flag) -> bool:
    """A mount option whose target is /dev/shm or holds it (``/dev``, ``/``), or one the shell fills in at run time
    (``--tmpfs $SPEC``, ``-v $A:$B``). One whose target is written out elsewhere (``-v $PWD:/workspace``) changes
    nothing there."""
    if flag.long_name not in _MOUNT_TARGETS:
        return False
    mount = _MOUNT_TARGETS[flag.long_name](flag.value_text)
    target = mount.target.strip()
    if not target or may_be_shm_path(target, mount.source if isinstance(mount, Mount) else ""):
        return True
    return clean_container_path(target) in ("/", "/dev", SHM_PATH)  # docker cleans it: ``//dev/shm``, ``/dev/./shm``


def _binds_shm(flag: Flag) -> bool:
    """A ``--volume`` written out in full that binds a host path at /dev/shm (``-v /dev/shm:/dev/shm``): read as the
    mount it is, as the same option on the command line is (audit59a: a Makefile's ``DOCKER_OPTS`` made the
    host's /dev/shm "unresolved"). It has no size a fix could write into the variable's words."""
    if flag.long_name != "--volume" or _expands(flag.value_text):
        return False
    mount = parse_volume(flag.value_text)
    return bool(mount.source) and clean_container_path(mount.target.strip()) == SHM_PATH


#: the mount options and how each one's value names its target
_MOUNT_TARGETS: dict[str, Callable[[str], Tmpfs | Mount]] = {
    "--tmpfs": parse_tmpfs,
    "--volume": parse_volume,
    "--mount": parse_mount,
}


def _expands(value: str) -> bool:
    """A value the shell fills in at run time (``--tmpfs $SPEC``): it may name /dev/shm."""
    return "$" in value or "`" in value


def _value_options(parts: Sequence[Word]) -> tuple[list[Flag], bool] | None:
    """The options of a value's words and whether an expansion stands where an option would among them (its value
    may be any options: ``--gpus all "$MAYBE_IPC"``), or None at a written-out word no option takes, or when the
    value is only expansions (``${IMAGE:-acme/app}``): perhaps the image."""
    flags: list[Flag] = []
    opaque = False
    position = 0
    while position < len(parts):
        if parts[position].dynamic and not parts[position].text.startswith("-"):
            opaque = True
            position += 1
            continue
        if not parts[position].text.startswith("-") or parts[position].text in ("-", "--"):
            return None
        position = read_option(parts, position, flags, "")
    return (flags, opaque) if flags or not opaque else None  # only expansions: perhaps the image


def assigned_word(word: Word, assigned: Assignments) -> Word | None:
    """A one-variable word (``$IMAGE``, ``"${IMAGE}"``) whose name the script gave one plain value before
    (``IMAGE=vllm/vllm-openai:v0.6.3``): that value, where the word is; None when it had none, several, or one
    that holds an expansion or a blank."""
    name = assigned_name(word, assigned)
    values = assigned.values.get(name, ()) if name else ()
    value = _defaulted(values[0], assigned, name) if len(values) == 1 else ""
    if not value or any(char.isspace() or char in "$`" for char in value):
        return None
    return Word(value, word.start, word.end)


#: references filled in within one word, at most
MAX_FILLED = 8


def filled_in(text: str, assigned: Assignments) -> str:
    """A word's text with each variable the script gave one plain value (no blank, no expansion) put in
    (``$PWD:$WORKDIR`` after ``WORKDIR=/workspace``: ``$PWD:/workspace``); other references stay as written, as do
    names a file of assignments read in since may have set, and arrays (``$A`` is only their first item)."""

    def value(found: re.Match[str]) -> str:
        name = found.group(1) or found.group(2)
        values = assigned.values.get(name, ()) if name not in assigned.stale and name not in assigned.arrays else ()
        plain = _defaulted(values[0], assigned, name) if len(values) == 1 else ""
        return plain if plain and not any(char.isspace() or char in "$`" for char in plain) else found.group()

    return _VARIABLE_IN_VALUE.sub(value, text, count=MAX_FILLED)


def _defaulted(value: str, assigned: Assignments, name: str) -> str:
    """A value as the script runs when the environment does not set what it defaults from: ``${IMAGE:-acme/app}``
    (also ``IMAGE=${IMAGE:-acme/app}``) is ``acme/app`` where the script itself never gives the other name a value
    nor reads a file of assignments in; any other value as it is."""
    default = environment_default(value)
    if default is None or assigned.sourced or (default[0] != name and default[0] in assigned.values):
        return value
    return default[1]


def assigned_words(word: Word, assigned: Assignments) -> tuple[Word, ...] | None:
    """The words an unquoted one-variable word of the container's command splits into (``CMD="python3 train.py
    $@"; docker run img $CMD``), where the script gave the name one plain value before: its words, where the word
    is (an expansion among them stays one, marked as such); None when it had none or several values, when the word
    is quoted (``"$CMD"`` is one word: a program of that whole name), or the value substitutes a command."""
    name = assigned_name(word, assigned) if word.splat else ""
    values = assigned.values.get(name, ()) if name else ()
    if len(values) != 1:
        return None
    value = values[0] if name in assigned.arrays else _defaulted(values[0], assigned, name)
    # quotes and operators the shell keeps as characters when it splits a value (an array's words are its own)
    quoted = name not in assigned.arrays and any(char in value for char in "'\"\\;&|<>()")
    if not value.strip() or quoted or "`" in value or "$(" in value:
        return None  # empty, quoted, or a substitution
    if not assigned.spend(len(value)):
        return None
    parts = [part for command in commands(value) for part in command.words]
    return tuple(Word(part.text, word.start, word.end, part.dynamic, part.splat) for part in parts)


def quoted_value(word: Word, assigned: Assignments) -> Word | None:
    """A quoted one-variable word (``bash -c "$ARGS"``) whose name the script gave a value: that value as one word,
    as the shell passes it (a name it reads stays an expansion); where branches give it several (``ARGS="$ARGS
    --config x"`` in an ``if``), the last, read straight through as options are. None for an unquoted word, an
    array, or a value that substitutes a command."""
    name = assigned_name(word, assigned) if not word.splat else ""
    values = assigned.values.get(name, ()) if name and name not in assigned.arrays else ()
    value = _defaulted(values[-1], assigned, name) if values else ""
    if not value.strip() or "`" in value or "$(" in value:
        return None
    return Word(value, word.start, word.end, "$" in value)


def options_and_image(word: Word, assigned: Assignments) -> tuple[Word, ...] | None:
    """The words of a variable the script gave one value of options and then the image (and perhaps its command:
    ``docker_args="--gpus all -v $PWD:/w --rm img:1"``, run as ``docker run $docker_args``), where the word is;
    None for any other value, and for one that may mount /dev/shm (a fix would have to write into the variable's
    value). A ``--shm-size`` or ``--ipc`` it holds is read (audit51a: ``OPTS="--ipc=host ... img"`` was read as
    the image, with 64 MiB); no fix adds an option beside them (``commandline._target``)."""
    words = assigned_words(word, assigned)
    if not words or not words[0].text.startswith("-"):
        return None
    flags: list[Flag] = []
    index = 0
    while index < len(words) and words[index].text.startswith("-") and words[index].text not in ("-", "--"):
        index = read_option(words, index, flags, "")
    mounts_shm = any(_may_mount_shm(flag) for flag in flags)
    return words if index < len(words) and not words[index].dynamic and not mounts_shm else None


def assigned_name(word: Word, assigned: Assignments) -> str:
    """The name of a one-variable word the script assigned, or "": an array's only as all of it (``"${A[@]}"``;
    ``$A`` is its first item), another name's never so."""
    whole = _WHOLE_VARIABLE.match(word.text)
    if whole is None:
        return ""
    name = whole.group(1) or whole.group(2) or whole.group(3) or whole.group(4)
    array = bool(whole.group(3) or whole.group(4))
    if name not in assigned.values or (name in assigned.arrays) != array or name in assigned.stale:
        return ""  # a file of assignments read in since may have given it anything
    return name
