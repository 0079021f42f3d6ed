"""A number in Python code followed to its value, where the text says it for certain: a literal, a name assigned
one literal, an argparse option (the command line's value, else its default), a key of a config file the command
line names, an environment variable the container sets, ``os.cpu_count()``. Anything else stays unknown.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from shmlint.named_tuple import NamedTuple
from shmlint.project.configs import Setting
from shmlint.project.pyoptions import Option, on_command_line, override
from shmlint.project.pysyntax import called, dotted

_INTEGER = re.compile(r"-?[0-9]{1,6}")
_CPU_COUNTS = frozenset({"cpu_count", "process_cpu_count", "sched_getaffinity"})


class Value(NamedTuple):
    """A followed number: ``number`` when known, ``positive`` when only known to be above zero; ``how`` says
    where it comes from, for the message."""

    number: int | None
    positive: bool
    how: str = ""


UNKNOWN = Value(None, False)


class Context(NamedTuple):
    """What one file's values are followed through."""

    arguments: tuple[str, ...]  # the program's command line
    config: Mapping[str, Setting]
    devices: int | None
    names: Mapping[str, ast.expr | None]  # a name assigned once to a literal (None: assigned several ways), or
    # a count above zero once outside ``if`` statements and otherwise only inside them
    options: Mapping[str, Option]  # argparse dest -> its option
    env: Mapping[str, str]  # the container's environment, as its manifest sets it


def value_of(node: ast.expr, context: Context, depth: int = 0) -> Value:
    if depth > 4:
        return UNKNOWN
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _number(node.value, "")
    if isinstance(node, ast.Name):
        assigned = context.names.get(node.id)
        if assigned is not None:
            found = value_of(assigned, context, depth + 1)
            return found._replace(how=found.how or f", {node.id} = {found.number} at line {assigned.lineno}")
        return UNKNOWN
    if isinstance(node, ast.Attribute):
        return _setting(node.attr, context)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        if dotted(node.value).endswith("environ"):
            return _environment(node.slice.value, None, context, depth)
        return _setting(node.slice.value, context)
    if isinstance(node, ast.Call):
        return _call_value(node, context, depth)
    return UNKNOWN


def _call_value(node: ast.Call, context: Context, depth: int) -> Value:
    name = called(node.func)
    if name in _CPU_COUNTS:
        return Value(None, True, f", {name}() is at least 1")
    if name in ("min", "max") and node.args and not node.keywords:
        values = [value_of(arg, context, depth + 1) for arg in node.args]
        how = next((v.how for v in values if v.how), "")
        if name == "min":
            if all(v.positive for v in values):
                return Value(None, True, how)
            if any(v.number == 0 for v in values):
                return Value(0, False, how)
        elif any(v.positive for v in values):
            return Value(None, True, how)
        return UNKNOWN
    key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
    if isinstance(key, str) and (name == "getenv" or dotted(node.func).endswith("environ.get")):
        return _environment(key, node.args[1] if len(node.args) > 1 else None, context, depth)
    if name == "get" and isinstance(key, str):
        found = _setting(key, context)
        if found.number is None and not found.positive and len(node.args) > 1:
            return value_of(node.args[1], context, depth + 1)
        return found
    if name == "int" and len(node.args) == 1:
        return value_of(node.args[0], context, depth + 1)
    return UNKNOWN


def _environment(key: str, default: ast.expr | None, context: Context, depth: int) -> Value:
    """An environment variable: the container's value, else the code's default (a number, or a number's text)."""
    given = context.env.get(key)
    if given is not None:
        number = _int(given)
        return UNKNOWN if number is None else _number(number, f", {key}={number} in the environment")
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        number = _int(default.value)
        return UNKNOWN if number is None else _number(number, f", {key} default {number}")
    if default is not None:
        found = value_of(default, context, depth + 1)
        return found._replace(how=found.how or f", {key} default {found.number}")
    return UNKNOWN


def _setting(key: str, context: Context) -> Value:
    """An option or config key named ``key``: the command line's value, the argparse default, the config's."""
    option = context.options.get(key)
    if option is not None and option.field and key in context.config:
        option = None
    if option is not None:
        flags, default, place, _ = option
        given = on_command_line(flags, context.arguments)
        if given is not None:
            number = _int(given)
            return UNKNOWN if number is None else _number(number, f", {flags[0]} {number} on the command line")
        if default is not None:
            found = value_of(default, context._replace(options={}), 1)
            name = f"field {key}" if option.field else flags[0]
            return found._replace(
                how=f", {name} default {found.number if found.number is not None else ''}"
                f"{found.how} at {place}".replace("default  ", "default ")
            )
        return UNKNOWN
    setting = context.config.get(key)
    if setting is not None:
        given = override(key, context.arguments)
        if given is not None:  # Hydra / OmegaConf: ``data.num_workers=0`` on the command line wins
            number = _int(given)
            return UNKNOWN if number is None else _number(number, f", {key}={number} on the command line")
        return _number(setting.value, f", {key}: {setting.value} in the config")
    return UNKNOWN


def _number(number: int, how: str) -> Value:
    return Value(number, number > 0, how)


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if _INTEGER.fullmatch(text) else None


def names(nodes: list[ast.AST]) -> dict[str, ast.expr | None]:
    """Names assigned a literal number or string with ``=`` exactly once in the file, as value following reads
    them (``A = B = 8`` gives both; ``None`` for any other assignment), and a count above zero assigned once
    outside ``if`` statements and otherwise only in them (``n = 8`` then ``if lang == "ja": n = 0``): the number
    the code takes unless a condition holds. Looser than the small-batch proof's (``pydatasets``): a worker count
    followed is evidence of a need, and a parameter of the same name elsewhere does not hide it."""
    found: dict[str, ast.expr | None] = {}
    guarded = {id(inner) for node in nodes if isinstance(node, ast.If) for inner in ast.walk(node)}
    unguarded: dict[str, list[ast.expr | None]] = {}  # each name's assignments outside any ``if``
    for node in nodes:
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, (ast.AnnAssign, ast.AugAssign))
            else []
        )
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Name):
                literal = isinstance(node, ast.Assign) and isinstance(value, ast.Constant)
                found[target.id] = value if literal and target.id not in found else None
                if id(node) not in guarded:
                    unguarded.setdefault(target.id, []).append(value if literal else None)
    for name, assigned in unguarded.items():  # ``n = 8`` and ``if lang == "ja": n = 0``: 8 unless a condition
        # holds, taken as the number only when it is a count above zero (workers the default path starts)
        default = assigned[0] if len(assigned) == 1 and found[name] is None else None
        if isinstance(default, ast.Constant) and _counts(default.value):
            found[name] = default
    return found


def _counts(value: object) -> bool:
    """A literal count above zero (``True`` is an int, and no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
