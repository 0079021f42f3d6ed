"""The shell of a Makefile: its recipes, and the values its own assignments give its variables."""

from __future__ import annotations

from collections.abc import Mapping

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import Mask, offset_lines

_RULE = LazyRegex(r"^[^\s#:=][^:=]*?::?(?!=)")
_CONDITIONAL = LazyRegex(r"^[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DEFINE = LazyRegex(r"^[ \t]*(?:override[ \t]+|export[ \t]+)?define\b")
_ENDEF = LazyRegex(r"^[ \t]*endef\b")
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
_ASSIGNMENT = LazyRegex(r"(?:export[ \t]+|override[ \t]+)?([A-Za-z_][A-Za-z0-9_]{0,63})[ \t]*(\?|:{1,3}|\+|!)?=(.*)")
#: a reference to a variable: ``$(NAME)`` or ``${NAME}`` (not a function call: ``$(shell pwd)``)
_REFERENCE = LazyRegex(r"\$[({]([A-Za-z_][A-Za-z0-9_]{0,63})[)}]")
#: the same written with parentheses, not after a ``$`` (``$$(cmd)`` is the shell's substitution in a recipe)
_PAREN_REFERENCE = LazyRegex(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]{0,63})\)")
#: assignments read, lines one may continue over, characters of a value, and rounds of substitution of one
#: variable into another (``IMAGE ?= $(REGISTRY)/app``; ``A = $(B)$(B)`` cannot grow without end)
MAX_ASSIGNMENTS = 1024
MAX_CONTINUED = 64
MAX_VALUE = 1024
ROUNDS = 4


def make_assignments(text: str) -> dict[str, tuple[str, ...]]:
    """The values the Makefile's assignments outside recipes give each name, in the order written: a name given
    two values (in two branches of an ``ifeq``) keeps both, ``?=`` gives nothing to a name already given one, and
    ``+=`` adds to each. Continued lines are joined with a space, comments cut. A reference to a name the file gives
    is its first value (a plain ``make``'s default) where that is known in full; any other reference stays
    (``$(shell ...)``, a name from the environment), ``$(NAME)`` written ``${NAME}``, as a recipe's shell reads a
    variable (``braced_references``). A name given a value not known (``!=``, past ``MAX_VALUE`` characters or
    ``MAX_CONTINUED`` lines) is left out: what it holds is not known."""
    found: dict[str, list[str]] = {}
    unknown: set[str] = set()
    lines = text.split("\n")
    index = count = 0
    while index < len(lines) and count < MAX_ASSIGNMENTS:
        first = lines[index]
        pieces = [first]
        index += 1
        while _continues(pieces[-1]) and index < len(lines) and len(pieces) <= MAX_CONTINUED:
            pieces.append(lines[index])
            index += 1
        match = None if first.startswith("\t") else _ASSIGNMENT.fullmatch(first.lstrip(" "))
        if match is None:
            continue  # a recipe, a rule, a directive, or a line continued from one
        count += 1
        name, operator = match.group(1), match.group(2) or ""
        pieces[0] = match.group(3)
        value = " ".join((piece[:-1] if _continues(piece) else piece).strip() for piece in pieces)
        value = " ".join(value.split("#", 1)[0].split())
        if operator == "!" or _continues(pieces[-1]) or len(value) > MAX_VALUE:
            unknown.add(name)
        elif operator == "+":
            found[name] = [f"{held} {value}".strip() for held in found.get(name, [""])]
        elif operator != "?" or name not in found:
            found.setdefault(name, []).append(value)
    for _ in range(ROUNDS):
        known = {
            name: values[0]
            for name, values in found.items()
            if name not in unknown and "$" not in values[0] and len(values[0]) <= MAX_VALUE
        }
        found = {name: [substituted(value, known) for value in values] for name, values in found.items()}
    return {
        name: tuple(braced_references(value) for value in values)
        for name, values in found.items()
        if name not in unknown and all(len(value) <= MAX_VALUE for value in values)
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
