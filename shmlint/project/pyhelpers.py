"""Loader helpers: a module-level function that makes a DataLoader with the worker count its caller gives
(``def build_loader(dataset, batch_size, workers=4): return DataLoader(..., num_workers=min(batch_size,
os.cpu_count()))``). The loader alone says nothing certain; a call of the helper says what it starts with, the
caller's arguments (or the helper's defaults) put into the loader's worker expression.

Only an expression made of the function's parameters, whole numbers, ``min``/``max``/``int`` and the CPU count is
followed, so it can be worked out anywhere the helper is called, in its own file or in a module that imports it by
name. A call that cannot be bound (``*args``, ``**kwargs``) or whose value is not known says nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence

from shmlint.named_tuple import NamedTuple
from shmlint.project.pysyntax import called
from shmlint.project.pyvalues import Context, Value, value_of

#: functions a worker expression may call: they are worked out from their arguments alone
_PURE_CALLS = frozenset({"min", "max", "int", "cpu_count", "process_cpu_count"})


class LoaderHelper(NamedTuple):
    """A function that makes a DataLoader whose workers are its parameters' doing: its parameters in order (to
    bind positional arguments), the defaults known in its own module, the worker expression, and where the
    loader is (``line 198`` in the file itself, ``data/every_dream.py:198`` once another module imports it)."""

    name: str
    parameters: tuple[str, ...]  # the positional ones first
    positional: int
    defaults: tuple[tuple[str, Value], ...]
    workers: ast.expr
    shown: str  # the loader call as written, shortened: ``DataLoader(num_workers=min(batch_size, os.cpu_count()))``
    place: str


def loader_helpers(tree: ast.Module, context: Context, shown: Mapping[int, str]) -> tuple[LoaderHelper, ...]:
    """The module's loader helpers; ``shown`` gives, by the loader call's ``id``, how its workers are written
    (only loaders whose workers were not known are there)."""
    found = []
    for function in tree.body:
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = function.args
        if arguments.vararg is not None or arguments.kwarg is not None:
            continue  # a caller's arguments may land anywhere
        positional = [*arguments.posonlyargs, *arguments.args]
        parameters = tuple(a.arg for a in positional) + tuple(a.arg for a in arguments.kwonlyargs)
        defaults = _defaults(positional, arguments, context)
        for node in ast.walk(function):
            text = shown.get(id(node))
            if text is None or not isinstance(node, ast.Call):
                continue
            workers = next((k.value for k in node.keywords if k.arg == "num_workers"), None)
            if workers is None and len(node.args) > 5:
                workers = node.args[5]
            if workers is not None and _made_of(workers, frozenset(parameters)):
                found.append(
                    LoaderHelper(
                        function.name, parameters, len(positional), defaults, workers, text, f"line {node.lineno}"
                    )
                )
                break
    return tuple(found)


def _defaults(
    positional: Sequence[ast.arg], arguments: ast.arguments, context: Context
) -> tuple[tuple[str, Value], ...]:
    """The parameters' default values as the module knows them."""
    with_default = [a.arg for a in positional][len(positional) - len(arguments.defaults) :]
    pairs = list(zip(with_default, arguments.defaults, strict=True))
    pairs += [(a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None]
    return tuple((name, value_of(default, context)) for name, default in pairs)


def _made_of(expression: ast.expr, parameters: frozenset[str]) -> bool:
    """Whether the expression uses at least one parameter and nothing but parameters, whole numbers and the pure
    calls (``min(batch_size, os.cpu_count())``)."""
    uses = False
    for node in _operands(expression):
        if isinstance(node, ast.Name) and node.id in parameters:
            uses = True
        elif not (isinstance(node, ast.Constant) and type(node.value) is int):
            return False
    return uses


def _operands(node: ast.expr) -> Iterator[ast.expr]:
    """The leaves of an expression of pure calls (a call itself is a leaf when it is not one of them)."""
    if isinstance(node, ast.Call) and called(node.func) in _PURE_CALLS and not node.keywords:
        if called(node.func) in ("cpu_count", "process_cpu_count"):
            return
        for argument in node.args:
            yield from _operands(argument)
    else:
        yield node


def imported_helper(where: str, helper: LoaderHelper) -> LoaderHelper:
    """A helper another module defines (``where``: that module), for the files that import it."""
    return helper._replace(place=f"{where}:{helper.place.removeprefix('line ')}")


def helper_calls(
    nodes: Sequence[ast.AST], helpers: Mapping[str, LoaderHelper], context: Context
) -> Iterator[tuple[ast.Call, LoaderHelper, Value]]:
    """Each call of a helper by its name and the workers its loader gets there, where that is known."""
    for node in nodes:
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        helper = helpers.get(node.func.id)
        bound = _bind(node, helper, context) if helper is not None else None
        if helper is None or bound is None:
            continue
        value = value_of(helper.workers, Context((), {}, None, {}, {}, {}, bound))
        if value.positive or value.number is not None:
            yield node, helper, value


def _bind(call: ast.Call, helper: LoaderHelper, context: Context) -> dict[str, Value] | None:
    """The helper's parameters as this call gives them (its arguments worked out in the caller's file, else the
    helper's defaults); None when the call cannot be bound as Python would."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if len(call.args) > helper.positional:
        return None
    given: dict[str, ast.expr] = dict(zip(helper.parameters, call.args, strict=False))  # the first ones
    for keyword in call.keywords:
        if keyword.arg not in helper.parameters or keyword.arg in given:
            return None
        given[keyword.arg] = keyword.value
    bound = dict(helper.defaults)
    bound.update((name, value_of(argument, context)) for name, argument in given.items())
    return bound
