"""The shell of a Makefile: its recipes, and the values its own assignments give its variables."""

from __future__ import annotations

from collections.abc import Mapping

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, offset_lines

_RULE = LazyRegex(r"^[^\s#:=][^:=]*?::?(?!=)")
_CONDITIONAL = LazyRegex(r"^[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif)(?=[ \t(#\r]|$)")
#: make's directives are words of their own: ``define-image:``, ``else-run:`` are targets (audit60b, review)
_DEFINE = LazyRegex(r"^[ \t]*(?:override[ \t]+|export[ \t]+)?define(?:[ \t\r]|$)")
_ENDEF = LazyRegex(r"^[ \t]*endef(?=[ \t#\r]|$)")
_RECIPE_PREFIX = LazyRegex(r"[@+\-\s]*")


def mask_makefile(text: str) -> str:
    """Recipe lines (tab-indented after a rule) and their continuations, without the ``@ - +`` prefixes."""
    mask = Mask(text)
    in_rule = continuing = in_define = False
    for offset, line in offset_lines(text):
        if continuing:
            mask.keep(offset, offset + len(line))
        elif in_define:
            in_define = not _ENDEF.match(line)
            continue
        elif line.startswith("\t") and in_rule:
            prefix = _RECIPE_PREFIX.match(line, 1)
            mask.keep(offset + (prefix.end() if prefix else 1), offset + len(line))
        elif _DEFINE.match(line):
            in_define, in_rule = True, False
            continue
        elif not line.strip() or line.lstrip().startswith("#") or _CONDITIONAL.match(line):
            continue
        elif _RULE.match(line) and not line.startswith("\t"):
            in_rule = True
            inline = _inline_recipe(line)
            if inline is None:
                continue
            mask.keep(offset + inline, offset + len(line))
        else:
            in_rule = False
            continue
        continuing = _continues(line)
    return mask.result()


def _inline_recipe(line: str) -> int | None:
    """Where the recipe of ``target: deps ; recipe`` starts, if the rule line has one."""
    rule = _RULE.match(line)
    semicolon = line.find(";", rule.end()) if rule else -1
    return None if semicolon == -1 else semicolon + 1


#: an assignment outside recipes: ``NAME ?= value``, ``NAME := value``, ``export NAME = value``, ``NAME += more``,
#: ``NAME != command`` (the command's output: not known here)
_ASSIGNMENT = LazyRegex(r"(?:export[ \t]+|override[ \t]+)*([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*(\?|:{1,3}|\+|!)?=(.*)")
#: a conditional's start and end (``else`` stays inside it)
_IF = LazyRegex(r"[ \t]*(?:ifeq|ifneq|ifdef|ifndef)(?=[ \t(\r]|$)")
_ENDIF = LazyRegex(r"[ \t]*endif(?=[ \t#\r]|$)")
#: ``undefine NAME``: the name holds nothing after it
_UNDEFINE = LazyRegex(r"[ \t]*(?:override[ \t]+)?undefine[ \t]+([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*")
#: a reference to a variable: ``$(NAME)`` or ``${NAME}`` (not a function call: ``$(shell pwd)``)
_REFERENCE = LazyRegex(r"\$[({]([A-Za-z_][A-Za-z0-9_]{0,63})[)}]")
#: the same written with parentheses, not after a ``$`` (``$$(cmd)`` is the shell's substitution in a recipe)
_PAREN_REFERENCE = LazyRegex(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]{0,63})\)")
#: a comment's ``#`` (make keeps an escaped ``\#`` as the character)
_COMMENT = LazyRegex(r"(?<!\\)#")
#: assignments read, lines one may continue over, characters of a value, values one name may hold (in the branches
#: of conditionals), and rounds of expansion of one variable into another at the end (``IMAGE = $(REGISTRY)/app``)
MAX_ASSIGNMENTS = 1024
MAX_CONTINUED = 64
MAX_VALUE = 1024
MAX_VALUES = 16
ROUNDS = 4


def make_assignments(text: str) -> dict[str, tuple[str, ...]]:
    """The values a Makefile gives its variables as ``make`` would, each name's possible values: a plain ``=`` or
    ``:=`` replaces the value, but inside a conditional (``ifeq``...``endif``) it may not run, so the value before
    stays possible beside it (a name not given one before may then be empty); ``?=`` gives a value only to a name
    without one, ``+=`` adds to each value, and a target's own assignment (``train: OPTS += --shm-size=8g``) is one
    more possible value. ``:=`` expands its references when it is read; ``=`` when it is used, so with the names'
    last values. A reference to a name of exactly one value is replaced by it; others stay (``$(shell pwd)``, a name
    from the environment), ``$(NAME)`` written ``${NAME}``, as a recipe's shell reads a variable
    (``braced_references``). A name given a value not known here (``!=``, ``define``, past ``MAX_VALUE`` characters,
    ``MAX_CONTINUED`` lines or ``MAX_VALUES`` values) is left out: what it holds is not known. Recipes (tab-led lines
    after a rule) are the shell's, not make's."""
    values: dict[str, tuple[str, ...]] = {}
    expand_late: set[str] = set()  # names whose last value was given with ``=``: expanded at the end
    unknown: set[str] = set()
    for_targets: list[tuple[str, str, str]] = []  # a target's own assignments: name, operator, value
    #: the references a name's last ``:=`` value kept (names not known where it was read): what make put there is
    #: what they held then (the environment's, or nothing), never what the file gives them later
    kept: dict[str, set[str]] = {}
    depth = count = 0
    in_rule = in_define = False
    lines = text.split("\n")
    index = 0
    while index < len(lines) and count < MAX_ASSIGNMENTS:
        first = lines[index]
        pieces = [first]
        index += 1
        while _continues(pieces[-1]) and index < len(lines) and len(pieces) <= MAX_CONTINUED:
            pieces.append(lines[index])
            index += 1
        while _continues(lines[index - 1]) and index < len(lines):  # past the bound: the rest is the same line
            index += 1
        if in_define:
            in_define = not _ENDEF.match(first)
            continue
        if (first.startswith("\t") and in_rule) or not first.strip() or first.lstrip().startswith("#"):
            continue  # a recipe line, a blank line or a comment
        line = first.strip()
        if defined := _DEFINE.match(line):
            in_define, in_rule = True, False
            named = line[defined.end() :].split(maxsplit=1)
            unknown.add(named[0].rstrip(":?+!=") if named else "")  # its value is lines of its own: not read
            continue
        if _IF.match(line):
            depth += 1
            continue
        if _ENDIF.match(line):
            depth = max(depth - 1, 0)
            continue
        if _CONDITIONAL.match(line):  # ``else``, ``else ifeq``: still inside it
            continue
        if undefined := _UNDEFINE.fullmatch(line):
            values.pop(undefined.group(1), None)
            continue
        target = _RULE.match(line)
        assignment = _ASSIGNMENT.fullmatch(line[target.end() :].lstrip() if target else line)
        in_rule = target is not None
        if assignment is None:
            continue  # a rule, a directive, or text make would refuse
        count += 1
        name, operator = assignment.group(1), assignment.group(2) or ""
        pieces[0] = assignment.group(3)
        value = " ".join((piece[:-1] if _continues(piece) else piece).strip() for piece in pieces)
        value = " ".join(_COMMENT.split(value, 1)[0].replace("\\#", "#").split())
        held = values.get(name)
        # ``:=`` expands what it gives where it is read, and so does ``+=`` on a name ``:=`` gave (make's rule)
        simple = operator.startswith(":") or (operator == "+" and held is not None and name not in expand_late)
        # (the names of one value are gathered only for a value that refers to one: most refer to none)
        if simple and "$" in value:  # a name whose ``:=`` kept a reference the file gives now is not known
            expanded = _expanded_fully(value, _single(values, unknown | _read_too_early(kept, values)))
        else:
            expanded = value
        if operator == "!" or _continues(pieces[-1]) or expanded is None or len(value) > MAX_VALUE:
            unknown.add(name)
            continue
        value = expanded
        if target is not None:  # the target's own value, whatever the file gives the name elsewhere: at the end
            for_targets.append((name, operator, value))
            continue
        if operator == "?" and held is not None:
            continue
        if not depth and operator not in ("+", "?"):
            unknown.discard(name)  # given anew: what it held before does not matter
        given = _given(operator, value, held)
        if operator.startswith(":"):
            expand_late.discard(name)
        elif held is None or operator != "+":
            expand_late.add(name)
        references = {found.group(1) for found in _REFERENCE.finditer(value)} if simple and "$" in value else set()
        if simple:
            kept[name] = references | (kept.get(name, set()) if operator == "+" else set())
        else:
            kept.pop(name, None)
        _put(values, unknown, name, given, held, depth > 0)
    for name, operator, value in for_targets:  # one more value: the target's own
        held = values.get(name)
        if operator == "?" and held is not None:
            continue
        _put(values, unknown, name, _given(operator, value, held), held, True)
    unknown.update(_read_too_early(kept, values))
    single = _single(values, unknown)  # what each name of one value holds as written: expanded where used
    for name in expand_late.intersection(values).difference(unknown):
        found = tuple(_expanded_fully(each, single) for each in values[name])
        if any(each is None for each in found):
            unknown.add(name)
        else:
            values[name] = tuple(each for each in found if each is not None)
    return {
        name: tuple(braced_references(each) for each in held)
        for name, held in values.items()
        if name not in unknown and all(len(each) <= MAX_VALUE for each in held)
    }


def _read_too_early(kept: Mapping[str, set[str]], values: Mapping[str, tuple[str, ...]]) -> set[str]:
    """The names whose ``:=`` value kept a reference to a name the file gives (by now): it held something else
    where the ``:=`` read it (the environment's value, or nothing), which is not known here."""
    return {name for name, references in kept.items() if not references.isdisjoint(values)}


def _given(operator: str, value: str, held: tuple[str, ...] | None) -> tuple[str, ...]:
    """The values an assignment gives: ``+=`` adds to each value the name held (to nothing, when none)."""
    return tuple(f"{each} {value}".strip() for each in held or ("",)) if operator == "+" else (value,)


def _put(
    values: dict[str, tuple[str, ...]],
    unknown: set[str],
    name: str,
    given: tuple[str, ...],
    held: tuple[str, ...] | None,
    maybe: bool,
) -> None:
    """Give a name its values; where the assignment ``maybe`` does not run (in a conditional, for one target), what
    it held before stays possible beside them (nothing: empty)."""
    if maybe:
        given = tuple(dict.fromkeys((*(held if held is not None else ("",)), *given)))
    values[name] = given
    if len(given) > MAX_VALUES or any(len(each) > MAX_VALUE for each in given):
        unknown.add(name)


def _expanded(value: str, single: Mapping[str, str]) -> str | None:
    """``value`` with its references to names of one value replaced, or None once it would pass ``MAX_VALUE``
    characters (``A = $(B)$(B)...`` grows each round)."""
    parts: list[str] = []
    size = at = 0
    for reference in _REFERENCE.finditer(value):
        part = value[at : reference.start()] + single.get(reference.group(1), reference.group(0))
        size += len(part)
        if size > MAX_VALUE:
            return None
        parts.append(part)
        at = reference.end()
    parts.append(value[at:])
    return None if size + len(value) - at > MAX_VALUE else "".join(parts)


def _expanded_fully(value: str, single: Mapping[str, str]) -> str | None:
    """``value`` expanded as make expands it, references within references too (``WORKSPACE = /w/$(PROJECT)``,
    then ``OPTS := -w $(WORKSPACE)``), up to ``ROUNDS`` levels; None past ``MAX_VALUE`` characters (a name that
    refers to itself grows each round)."""
    expanded: str | None = value
    for _ in range(ROUNDS):
        if expanded is None or "$" not in expanded:
            break
        expanded = _expanded(expanded, single)
    return expanded


def _single(values: Mapping[str, tuple[str, ...]], unknown: set[str]) -> dict[str, str]:
    """The names of one value known here (its own references expanded where it is used): what a reference to them
    is replaced by."""
    return {
        name: held[0]
        for name, held in values.items()
        if len(held) == 1 and name not in unknown and len(held[0]) <= MAX_VALUE
    }


def substituted(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with each reference to a name of ``variables`` replaced by its value."""
    return _REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def braced_references(text: str) -> str:
    """``$(NAME)`` written ``${NAME}``: the same variable to make, and what the shell reads as a variable (it would
    run ``$(NAME)`` as a command); the same length, so offsets stay the file's."""
    return _PAREN_REFERENCE.sub(lambda m: "${" + m.group(1) + "}", text)


def _continues(line: str) -> bool:
    body = line.rstrip()
    return body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 == 1
