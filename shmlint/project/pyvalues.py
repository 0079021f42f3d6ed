"""A number in Python code followed to its value, where the text says it for certain: a literal, a name assigned
one literal, an argparse option (the command line's value, else its default), a key of a config file the command
line names, an environment variable the container sets, ``os.cpu_count()``. Anything else stays unknown.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator, Mapping
from types import MappingProxyType
from typing import TypeGuard

from shmlint.named_tuple import NamedTuple
from shmlint.project.configs import Setting
from shmlint.project.pyoptions import Option, on_command_line, override, reads_flag_file
from shmlint.project.pysyntax import called, dotted

_INTEGER = re.compile(r"-?[0-9]{1,6}")
_CPU_COUNTS = frozenset({"cpu_count", "process_cpu_count", "sched_getaffinity"})
#: a module's numbers exported to its importers, at most: a settings module holds a few dozen
MAX_CONSTANTS = 256


class Value(NamedTuple):
    """A followed number: ``number`` when known, ``positive`` when only known to be above zero; ``how`` says
    where it comes from, for the message."""

    number: int | None
    positive: bool
    how: str = ""


UNKNOWN = Value(None, False)
#: no name bound by a call
_UNBOUND: Mapping[str, Value] = MappingProxyType({})


class Constant(NamedTuple):
    """A name a module assigns, as its importers read it: its number (None: not known) and the line."""

    name: str
    value: Value | None
    line: int


class Context(NamedTuple):
    """What one file's values are followed through."""

    arguments: tuple[str, ...]  # the program's command line
    config: Mapping[str, Setting]
    devices: int | None
    names: Mapping[str, ast.expr | None]  # a name assigned once to a literal (None: assigned several ways), or
    # a count a condition may change (``names``)
    options: Mapping[str, Option]  # argparse dest -> its option
    env: Mapping[str, str]  # the container's environment, as its manifest sets it
    bound: Mapping[str, Value] = _UNBOUND  # a loader helper's parameters, as one call gives them (``pyhelpers``)
    #: numbers the file imports from the repository's modules, by the name it reads them as (``NUM_WORKERS`` for
    #: ``from consts import NUM_WORKERS`` or ``*``, ``consts.NUM_WORKERS`` for ``import consts``): only names an
    #: import binds last (``python_imports.imported_bindings``), so a name the file assigns after is its own
    imported: Mapping[str, Value] = _UNBOUND


def value_of(node: ast.expr, context: Context, depth: int = 0) -> Value:
    if depth > 4:
        return UNKNOWN
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _number(node.value, "")
    if isinstance(node, ast.Name):
        if node.id in context.bound:
            return context.bound[node.id]
        if node.id in context.imported:  # an import binds it after the file's own assignments, if any
            return context.imported[node.id]
        assigned = context.names.get(node.id)
        if assigned is not None:
            found = value_of(assigned, context, depth + 1)
            return found._replace(how=found.how or f", {node.id} = {found.number} at line {assigned.lineno}")
        return UNKNOWN
    if isinstance(node, ast.Attribute):
        key = dotted(node)
        assigned = context.names.get(key) if key.startswith("self.") else None
        if assigned is not None:  # set once in the file (``self.num_workers = args.get("num_workers", 4)``)
            found = value_of(assigned, context, depth + 1)
            if found.number is not None or found.positive:
                return found._replace(how=found.how or f", {key} = {found.number} at line {assigned.lineno}")
        return context.imported.get(key) or _setting(node.attr, context)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        if dotted(node.value).endswith("environ"):
            return _environment(node.slice.value, None, context, depth)
        return _setting(node.slice.value, context)
    if isinstance(node, ast.Call):
        return _call_value(node, context, depth)
    if isinstance(node, ast.IfExp):
        return _either(node, context, depth)
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):
        return _or_else(node, context, depth)
    return UNKNOWN


def _or_else(node: ast.BoolOp, context: Context, depth: int) -> Value:
    """``os.cpu_count() or 1``, ``args.workers or 4``: a count that is falsy takes the next one, so where the last is
    above zero the whole is (a truthy count is at least 1); its first known operand says how."""
    values = [value_of(operand, context, depth + 1) for operand in node.values]
    if values[0].number or values[0].positive:
        return values[0]  # taken whenever it is truthy, which a count above zero always is
    if not values[-1].positive:
        return UNKNOWN
    first = next((v for v in values if v.number or v.positive), values[-1])
    return Value(None, True, first.how)


def _either(node: ast.IfExp, context: Context, depth: int) -> Value:
    """``0 if device == "cpu" else 8``: the larger count of the two branches, where one is above zero, said with the
    condition under which the other is taken (a GPU container takes the loader's branch: audit72d, an XTTS
    fine-tuning UI's eight loader workers); unknown where a branch is not known or both give none."""
    body, orelse = value_of(node.body, context, depth + 1), value_of(node.orelse, context, depth + 1)
    if not all(value.positive or value.number is not None for value in (body, orelse)):
        return UNKNOWN
    chosen, other, when = max(((body, orelse, "false"), (orelse, body, "true")), key=lambda pair: _size(pair[0]))
    if not chosen.positive:
        return UNKNOWN
    taken = other.number if other.number is not None else "more"
    return chosen._replace(how=f"{chosen.how}, {taken} where {_condition(node.test)} is {when}")


def _size(value: Value) -> int:
    """How large a branch's count is, for choosing: a count only known to be positive (``os.cpu_count()``) is
    taken to be larger than any written one."""
    return value.number if value.number is not None else (1 << 30 if value.positive else 0)


#: a condition with more parts than this is said as "its condition" (``ast.unparse`` recurses over the tree)
MAX_CONDITION_NODES = 24


def _condition(test: ast.expr) -> str:
    """A condition as the message quotes it, clipped; a large one (hostile nesting) is not unparsed at all."""
    if next(itertools.islice(ast.walk(test), MAX_CONDITION_NODES, None), None) is not None:  # ast.walk iterates:
        return "its condition"  # no recursion however deep the tree
    said = ast.unparse(test)
    return said if len(said) <= 40 else f"{said[:37]}..."


def _call_value(node: ast.Call, context: Context, depth: int) -> Value:
    name = called(node.func)
    if _cpu_count(node):  # also ``len(os.sched_getaffinity(0))``
        counter = node.args[0] if name == "len" else node
        return Value(None, True, f", {called(counter.func) if isinstance(counter, ast.Call) else name}() is at least 1")
    if name in ("min", "max") and node.args and not node.keywords:
        values = [value_of(arg, context, depth + 1) for arg in listed(node)]
        if not values:
            return UNKNOWN  # ``min([])`` raises
        said = sorted((v for v in values if v.how), key=lambda v: v.number is None)  # a written count first
        how = said[0].how if said else ""
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


def listed(node: ast.Call) -> list[ast.expr]:
    """The values a ``min``/``max`` call compares: its arguments, or the items of its one list or tuple
    (``min([os.cpu_count(), workers])``, as YOLO writes it)."""
    if len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
        return list(node.args[0].elts)
    return list(node.args)


def _cpu_count(node: ast.expr | None) -> TypeGuard[ast.Call]:
    """A call that counts the machine's CPUs (``N = os.cpu_count()``, audit69a): above zero, as written in place."""
    if not isinstance(node, ast.Call):
        return False
    name = called(node.func)
    return name in _CPU_COUNTS or (name == "len" and len(node.args) == 1 and _cpu_count(node.args[0]))


def text_of(node: ast.expr, context: Context) -> tuple[str, str] | None:
    """A string the code gives, with how it was found, where the text says it for certain: a literal, a name
    assigned one literal, ``os.getenv("STRATEGY", "ddp")`` (the container's value, else the default), an argparse
    option (the command line's value, else its default); None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, ""
    if isinstance(node, ast.Name):
        assigned = context.names.get(node.id)
        if isinstance(assigned, ast.Constant) and isinstance(assigned.value, str):
            return assigned.value, f", {node.id} = {assigned.value!r} at line {assigned.lineno}"
        return None
    if isinstance(node, ast.Attribute):
        option = context.options.get(node.attr)
        if option is None or option.field:
            return None
        given = on_command_line(option.flags, context.arguments)
        if given is not None:
            return given, f", {option.flags[0]} {given} on the command line"
        default = option.default
        if isinstance(default, ast.Constant) and isinstance(default.value, str):
            return default.value, f", {option.flags[0]} default {default.value!r} at {option.place}"
        return None
    key = (
        node.args[0].value
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
        else None
    )
    if not isinstance(node, ast.Call) or not isinstance(key, str):
        return None
    if called(node.func) != "getenv" and not dotted(node.func).endswith("environ.get"):
        return None
    if key in context.env:
        return context.env[key], f", {key}={context.env[key]} in the environment"
    default = node.args[1] if len(node.args) > 1 else None
    if isinstance(default, ast.Constant) and isinstance(default.value, str):
        return default.value, f", {key} default {default.value!r}"
    return None


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
        if default is not None and not reads_flag_file(context.arguments):
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


def exported_numbers(tree: ast.Module, nodes: list[ast.AST], context: Context) -> tuple[Constant, ...]:
    """The names a module's own statements assign with ``=``, each with its number where it follows for certain
    here and the line that assigns it (None: bound to a value not known), for the modules that import them: a
    name the module also binds another way (an import, a loop, a parameter), or any name of a module with a star
    import, has no number (either may rebind it)."""
    other = {name for node in nodes for name in _bound(node)}
    star = _ANY_NAME in other  # a star import may bind any name
    found: dict[str, tuple[Value | None, int]] = {}
    for statement in tree.body:
        for target in statement.targets if isinstance(statement, ast.Assign) else ():
            for name in _stored(target):
                if name in found or len(found) >= MAX_CONSTANTS:
                    continue
                assigned = context.names.get(name)
                value = value_of(target, context) if isinstance(target, ast.Name) else UNKNOWN
                if assigned is None or star or name in other or (value.number is None and not value.positive):
                    found[name] = None, statement.lineno
                else:
                    found[name] = value, assigned.lineno
    return tuple(Constant(name, value, line) for name, (value, line) in found.items())


def rebound(nodes: list[ast.AST]) -> frozenset[str]:
    """Names a file binds other than by ``import m`` (an assignment, a parameter, a loop, ``from m import``):
    where ``m.N`` is not the module ``m``'s ``N``."""
    return frozenset(
        name for node in nodes if not isinstance(node, ast.Import) for name in (*_bound(node), *_assigned(node))
    )


def _assigned(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _stored(target)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        yield from _stored(node.target)


def _number(number: int, how: str) -> Value:
    return Value(number, number > 0, how)


def _int(text: str) -> int | None:
    text = text.strip()
    return int(text) if _INTEGER.fullmatch(text) else None


def names(nodes: list[ast.AST]) -> dict[str, ast.expr | None]:
    """Names assigned a literal number or string, or the CPU count, with ``=`` exactly once in the file, as value
    following reads them (``A = B = 8`` gives both; ``None`` for any other assignment), an instance attribute
    (``self.num_workers``) assigned once, whatever its value, in a file of one class that binds no name of it
    otherwise (a dataclass field), and a count above zero that a condition may change (``_defaults``). Looser than the small-batch proof's (``pydatasets``): a worker count followed is
    evidence of a need, and a parameter of the same name elsewhere does not hide it."""
    found: dict[str, ast.expr | None] = {}
    assignments: dict[str, int] = {}
    counts: dict[str, list[tuple[int, ast.Constant]]] = {}  # the counts above zero each name is assigned
    bound: set[str] = set()  # names bound otherwise too: loop and ``with`` targets, parameters, ``:=``, imports,
    # definitions, match captures
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
            literal = isinstance(node, ast.Assign) and isinstance(target, ast.Name) and isinstance(value, ast.Constant)
            named = isinstance(node, ast.Assign) and isinstance(target, ast.Name)
            counted = named and _counted(value)
            for name in _stored(target):  # also ``n, m = 0, 1``
                found[name] = value if (literal or counted) and name not in found else None
                assignments[name] = assignments.get(name, 0) + 1
                if literal and isinstance(value, ast.Constant) and _counts(value.value) and len(targets) == 1:
                    counts.setdefault(name, []).append((value.value, value))
            for attribute in _own_attributes(target):
                single = len(targets) == 1 and isinstance(target, ast.Attribute) and not isinstance(node, ast.AugAssign)
                found[attribute] = value if single and value is not None and attribute not in found else None
        bound.update(_bound(node))
    classes = sum(isinstance(node, ast.ClassDef) for node in nodes)
    for key in [key for key in found if key.startswith("self.")]:
        if classes > 1 or key[5:] in assignments or key[5:] in bound:
            found[key] = None  # whose ``self`` a read is, or a field's default (``workers: int = 0``), is not told
    if nodes and isinstance(nodes[0], ast.Module) and _ANY_NAME not in bound:
        found.update(_defaults(nodes, assignments, bound))
        found.update(_every_way_above_zero(found, counts, assignments, bound))
    return found


#: what ``min``/``max`` or ``or`` may combine with a count: a number, an option or a setting (``args.workers or 4``)
_READ = (ast.Constant, ast.Attribute, ast.Subscript)


def _counted(value: ast.expr | None, depth: int = 0) -> bool:
    """A value a name's count is followed into: the CPU count, another name (``N = M`` is followed to M), and
    ``min``/``max`` or ``or`` of those, numbers and settings (``min(os.cpu_count() or 1, 16)``, audit86c)."""
    if _cpu_count(value) or isinstance(value, ast.Name):
        return True
    if depth > 2:
        return False
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        parts = value.values
    elif isinstance(value, ast.Call) and called(value.func) in ("min", "max") and not value.keywords:
        parts = listed(value)
    else:
        return False
    return bool(parts) and all(isinstance(part, _READ) or _counted(part, depth + 1) for part in parts)


def _every_way_above_zero(
    found: dict[str, ast.expr | None],
    counts: dict[str, list[tuple[int, ast.Constant]]],
    assignments: dict[str, int],
    bound: set[str],
) -> dict[str, ast.Constant]:
    """A name assigned several ways, each a count above zero (``if cfg.kernel: N = 2`` / ``else: N = 8``): above
    zero whichever runs, so its smallest count, the one the message quotes (audit51a: a loader's workers set so
    were left unknown)."""
    return {
        name: min(values, key=lambda pair: pair[0])[1]
        for name, values in counts.items()
        if found.get(name) is None and name not in bound and len(values) == assignments[name] > 1
    }


def _own_attributes(target: ast.expr) -> Iterator[str]:
    """The instance attributes an assignment target sets, as read back: ``self.num_workers``."""
    for node in ast.walk(target):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and dotted(node.value) == "self":
            yield f"self.{node.attr}"


def _stored(target: ast.expr) -> Iterator[str]:
    """The names an assignment target binds: ``n``, and each of ``n, [m, *r]`` (not ``cfg[n]``'s, which reads)."""
    return (n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))


#: what ``_bound`` gives for ``from x import *``: any name may be bound
_ANY_NAME = "*"


def _bound(node: ast.AST) -> Iterator[str]:
    """Names a node binds other than by ``=`` (``_ANY_NAME`` for a star import)."""
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield from _stored(node.target)
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield from _stored(node.optional_vars)
    elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
        yield node.target.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from ((alias.asname or alias.name).partition(".")[0] for alias in node.names)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.MatchAs, ast.MatchStar)):
        yield from (node.name,) if node.name else ()
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


def _defaults(nodes: list[ast.AST], assignments: dict[str, int], bound: set[str]) -> dict[str, ast.expr]:
    """``n = 8`` and, after it in the same body, ``if language == "ja": n = 0``: 8 unless the condition holds,
    the count the code starts workers with. Only where that is all the file does with the name: one count above
    zero written as a statement of a module's or function's own body, every other assignment inside ``if``
    statements of that body after it, none of them with an ``else`` (then some branch may always change it) or
    reading the name (a cap, or a use of the changed value)."""
    found: dict[str, ast.expr] = {}
    for scope in nodes:
        if not isinstance(scope, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        changed: dict[str, _Changes] | None = None  # what the body's ``if`` statements do with each name
        for index, statement in enumerate(scope.body):
            if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
                continue
            target, value = statement.targets[0], statement.value
            if not isinstance(target, ast.Name) or not isinstance(value, ast.Constant) or not _counts(value.value):
                continue
            name = target.id
            if name in bound or assignments.get(name, 0) < 2:
                continue
            changed = _changes(scope.body) if changed is None else changed
            changes = changed.get(name)
            if changes and changes.first > index and changes.keep and 1 + changes.assigned == assignments[name]:
                found[name] = value
    return found


class _Changes(NamedTuple):
    """What the ``if`` statements of one body do with a name: where the first of them is, how often they assign
    it (``assigned``), and whether each is a chain without ``else`` that never reads it (where none of its
    conditions holds, the value before it stays)."""

    first: int
    assigned: int
    keep: bool


def _changes(body: list[ast.stmt]) -> dict[str, _Changes]:
    """For each name the ``if`` statements of a body assign, what they do with it (each statement read once)."""
    found: dict[str, _Changes] = {}
    for at, statement in enumerate(body):
        if not isinstance(statement, ast.If):
            continue
        assigned: dict[str, int] = {}
        read: set[str] = set()
        for inner in ast.walk(statement):
            if isinstance(inner, ast.Name) and isinstance(inner.ctx, ast.Load):
                read.add(inner.id)
            elif isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                for target in inner.targets if isinstance(inner, ast.Assign) else [inner.target]:
                    for name in _stored(target):
                        assigned[name] = assigned.get(name, 0) + 1
                        if isinstance(inner, ast.AugAssign):  # ``n += 1`` reads it too
                            read.add(name)
        chain = statement
        while len(chain.orelse) == 1 and isinstance(chain.orelse[0], ast.If):
            chain = chain.orelse[0]
        for name, count in assigned.items():
            keep = not chain.orelse and name not in read
            before = found.get(name)
            found[name] = (
                _Changes(at, count, keep)
                if before is None
                else before._replace(assigned=before.assigned + count, keep=before.keep and keep)
            )
    return found


def _counts(value: object) -> TypeGuard[int]:
    """A literal count above zero (``True`` is an int, and no count)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
