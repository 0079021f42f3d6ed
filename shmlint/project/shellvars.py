"""The commands a shell script runs, with its variables expanded where the script itself says their values.

Only what is certain from the text: the workload's environment, plain assignments earlier in the script
(``X=1``, ``export X=...``, ``X=${X:-8}``), bash arrays (``ARGS=(...)``, ``ARGS+=(...)``) expanded by
``"${ARGS[@]}"``, and the script's own arguments (``$1``, ``"$@"``). A word whose value the text does not give
(``$(nproc)``, an unknown variable) stays as written, marked, so nothing downstream reads a guess as a fact.
Expansion is bounded: each word at most ``MAX_WORD`` characters, each array at most ``MAX_ITEMS`` words.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from shmlint.named_tuple import NamedTuple
from shmlint.parsers.shell import Word, array_items, commands
from shmlint.project.launchers import UNKNOWN
from shmlint.source import SourceText

MAX_WORD = 4096
MAX_ITEMS = 256
#: names a script exports that are passed on (each command's environment is a copy of their values)
MAX_EXPORTED = 256
#: commands read per script: more than a real launcher script holds
MAX_COMMANDS = 2000

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,63})(\+?)=(.*)", re.DOTALL)
_DECLARERS = frozenset({"export", "local", "declare", "typeset", "readonly"})
# $NAME, ${NAME}, ${NAME:-default} / ${NAME-default}, ${NAME[@]} / ${NAME[*]}, $1..$9, $@, $*
_REFERENCE = re.compile(
    r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]{0,63}|[0-9]|[@*])(?P<all>\[[@*]\])?"
    r"(?:(?P<op>:?-)(?P<default>[^{}$`]{0,256}))?\}|(?P<plain>[A-Za-z_][A-Za-z0-9_]{0,63}|[0-9@*]))"
)

Variables = Mapping[str, tuple[str, ...]]


class Line(NamedTuple):
    """One command a script runs: its 1-based line, its words after expansion, and the environment it gets (the
    script's own environment, the variables it exports, the assignments in front of the command)."""

    line: int
    argv: tuple[str, ...]
    env: Variables = MappingProxyType({})


def expand_word(word: Word | str, variables: Variables, positional: Sequence[str] = ()) -> tuple[str, ...]:
    """The words one shell word becomes: several for ``"${A[@]}"`` and ``"$@"``, one otherwise; a value the text
    does not give is kept marked as unknown."""
    text = word.text if isinstance(word, Word) else word
    if "$" not in text or (isinstance(word, Word) and not word.dynamic):  # ``'$X'``, ``\$X``: the text itself
        return (text,)
    whole = _REFERENCE.fullmatch(text)
    if whole is not None:
        name = whole.group("braced") or whole.group("plain")
        if name in ("@", "*") or whole.group("all"):
            values = tuple(positional) if name in ("@", "*") else variables.get(name)
            if values is not None:
                return values[:MAX_ITEMS]
    out: list[str] = []
    certain = True
    position = 0
    for match in _REFERENCE.finditer(text):
        out.append(text[position : match.start()])
        position = match.end()
        value = _value(match, variables, positional)
        if value is None:
            certain = False
            out.append(match.group(0))
        else:
            out.append(value)
    out.append(text[position:])
    result = "".join(out)[:MAX_WORD]
    if "$(" in text or "`" in text or not certain:
        return (UNKNOWN + result,)
    return (result,)


def _value(match: re.Match[str], variables: Variables, positional: Sequence[str]) -> str | None:
    name = match.group("braced") or match.group("plain")
    if name.isdigit():
        index = int(name)
        found: str | None = positional[index - 1] if 0 < index <= len(positional) else None
    elif name in ("@", "*"):
        found = " ".join(positional)
    else:
        values = variables.get(name)
        found = " ".join(values) if values is not None else None
    default = match.group("default")
    if default is not None and (found is None or (found == "" and match.group("op") == ":-")):
        return default if "$" not in default else None
    return found


def script_commands(
    text: str, env: Variables, positional: Sequence[str] = (), *, in_blocks: bool = False
) -> list[Line]:
    """The commands of a script in order, expanded; assignments update the variables as they go (an ``if`` or a
    loop is read straight through, so a variable keeps the last value the text gives it before the command).
    ``in_blocks``: the text is a document's code blocks, masked (``shmlint.parsers.shell.here_documents``)."""
    variables: dict[str, tuple[str, ...]] = dict(env)
    exported = set(env)  # what the script's own environment holds is passed on to what it runs
    snapshot: Variables | None = MappingProxyType(dict(env))  # shared by the lines until an exported value
    # changes; None: changed since, taken again only when a command line needs it (a script of many exports and
    # assignments would otherwise copy every exported value at each one)
    found: list[Line] = []
    simple = list(commands(text, in_blocks=in_blocks))[:MAX_COMMANDS]
    source = SourceText("", text)  # the lines of commands, from one line table
    skip_until = -1
    for index, command in enumerate(simple):
        words = command.words
        if words[0].start < skip_until:
            continue
        argv = list(words)
        exporting = argv[0].text == "export" or (
            argv[0].text in _DECLARERS and any(w.text.startswith("-") and "x" in w.text for w in argv[1:])
        )
        if argv[0].text in _DECLARERS:
            argv = [w for w in argv[1:] if not w.text.startswith("-")]
        if exporting:
            names = (named.group(0) for w in argv if (named := _NAME.match(w.text)) is not None)
            exported.update(itertools.islice(names, max(0, MAX_EXPORTED - len(exported))))
            snapshot = None
            argv = [w for w in argv if not _NAME.fullmatch(w.text)]  # ``export NAME``: nothing to run or assign
            if not argv:
                continue
        assigned = [(_ASSIGNMENT.fullmatch(w.text), w) for w in argv]
        if argv and all(match for match, _ in assigned):
            for match, word in assigned:
                assert match is not None
                name, append, value = match.groups()
                array = array_items(text, word, itertools.islice(simple, index + 1, None)) if value == "" else None
                if array is not None and array.items is None:  # an array whose items cannot be read exactly
                    skip_until = array.end
                    variables.pop(name, None)
                    continue
                if array is not None and array.items is not None:
                    items, skip_until = array.items, array.end
                    values = tuple(v for w in items for v in expand_word(w, variables, positional))
                else:
                    values = expand_word(value, variables, positional)
                    values = (" ".join(values),) if values else ("",)
                variables[name] = ((variables.get(name, ()) if append else ()) + values)[:MAX_ITEMS]
                if name in exported:
                    snapshot = None
            continue
        start = next((i for i, (match, _) in enumerate(assigned) if match is None), len(argv))
        expanded = tuple(v for w in argv[start:] for v in expand_word(w, variables, positional))
        if expanded:
            given = {  # ``NAME=value cmd``: in that command's environment only
                match.group(1): (" ".join(expand_word(match.group(3), variables, positional)),)
                for match, _ in assigned[:start]
                if match is not None
            }
            if snapshot is None:
                snapshot = _exported(variables, exported)
            line_env = MappingProxyType({**snapshot, **given}) if given else snapshot
            found.append(Line(source.position(words[0].start)[0], expanded, line_env))
    return found


def _exported(variables: Variables, exported: set[str]) -> Variables:
    return MappingProxyType({name: variables[name] for name in exported if name in variables})
