"""Loader helpers: a module-level function that makes a DataLoader with the worker count its caller gives
(``def build_loader(dataset, batch_size): return DataLoader(..., num_workers=min(batch_size, os.cpu_count()))``).
The loader alone says nothing certain; a call of the helper says what it starts with, the caller's arguments (or
the helper's defaults) put into the loader's worker expression. A class whose one loader takes ``self.<attribute>``
workers that its ``__init__`` sets from its parameters is such a helper too, called by constructing it
(``_class_helper``).

Read so only where the text leaves no doubt of which function runs and what its parameters give the loader. The
helper: a plain function of the module (no decorator, which may pass arguments of its own; no ``*args`` or
``**kwargs``; no generator, which makes nothing when called), its name bound once there, making one loader, in its
own body (no other one, not even in a nested function, that a call could get instead), whose workers are not
otherwise known, with a worker expression of its parameters (never reassigned there), whole numbers, the built-in
``min``/``max``/``int`` and the standard library's CPU count, written in the call or in a name of its own assigned
once, in its body's own block, above the loader (``nw = min([os.cpu_count(), workers])``). The call: by the helper's name where that name is the
module's one binding of it (the ``def``, or a module-level ``from module import`` of the module that defines it),
after that binding when at module level, in a module no star import or ``del`` leaves unsure, not in the ``if
__name__ == "__main__":`` block of a module the program imports, bound by Python's rules; an argument that is a
name of the calling function's own is not known. Like any loader in the code read, the helper's is taken to be
made once it is called (which branch of the helper returns it is not followed).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set

from shmlint.named_tuple import NamedTuple
from shmlint.project.pyscopes import Scope
from shmlint.project.pysyntax import dotted
from shmlint.project.pyvalues import UNKNOWN, Context, Value, listed, value_of

#: built-in functions a worker expression may call: they are worked out from their arguments alone
_PURE_CALLS = frozenset({"min", "max", "int"})
#: the standard library's CPU counts (at least one)
_CPU_COUNTS = frozenset({"os.cpu_count", "os.process_cpu_count", "multiprocessing.cpu_count"})


class LoaderHelper(NamedTuple):
    """A function that makes a DataLoader whose workers are its parameters' doing: its parameters in order (the
    positional ones first, ``positional_only`` of them only so), those a call must give, the defaults known in its
    own module, the worker expression, how the loader is written, and where it is (``line 198`` in the file
    itself, ``data/every_dream.py:198`` once another module imports it)."""

    name: str
    parameters: tuple[str, ...]
    positional: int
    positional_only: int
    required: frozenset[str]
    defaults: tuple[tuple[str, Value], ...]
    workers: ast.expr
    shown: str
    place: str
    defined: int  # the line of its ``def`` (of the import, in an importing module): a call above it at module level
    # runs before the name is bound
    attribute: str = ""  # a class's: the attribute its loader reads, which a module that makes it may set again


#: a loader whose workers are not known: its worker expression (None when not given by name or position) and
#: how it is written in messages, by the loader call's ``id``
Unknown = Mapping[int, tuple[ast.expr | None, str]]


def loader_helpers(
    found: Sequence[Scope], context: Context, loaders: Set[int], unknown: Unknown
) -> tuple[LoaderHelper, ...]:
    """The module's loader helpers (``found``: the file's scopes, the module's first; ``loaders``: the ``id`` of
    every loader call in the file, ``unknown`` those whose workers are not known)."""
    module = found[0]
    helpers: list[LoaderHelper] = []
    for scope in found[1:]:
        function = scope.root
        if isinstance(function, ast.ClassDef) and scope.outer is module:
            helpers += filter(None, [_class_helper(scope, found, context, loaders, unknown)])
            continue
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.outer is not module:
            continue
        arguments = function.args
        if function.decorator_list or arguments.vararg is not None or arguments.kwarg is not None:
            continue  # a decorator may give arguments of its own; a caller's may land anywhere
        if module.bound.get(function.name) != 1:
            continue  # redefined, rebound or imported over: which one a call reaches is not read
        if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in scope.nodes):
            continue  # a generator: calling it makes nothing yet
        made = [node for node in ast.walk(function) if id(node) in loaders]  # any other may be the one a call gets
        own = len(made) == 1 and any(node is made[0] for node in scope.nodes)  # not a nested function's
        written, shown = unknown.get(id(made[0]), (None, "")) if own else (None, "")
        if written is None:
            continue
        positional = [*arguments.posonlyargs, *arguments.args]
        parameters = tuple(a.arg for a in positional) + tuple(a.arg for a in arguments.kwonlyargs)
        plain = {name for name in parameters if scope.bound.get(name) == 1}
        workers = _local_value(written, scope, plain)
        if not _made_of(workers, plain, {name for name in _PURE_CALLS if name in module.bound or name in scope.bound}):
            continue
        defaults = _defaults(positional, arguments, context)
        required = frozenset(parameters) - {name for name, _ in defaults}
        helper = LoaderHelper(
            function.name,
            parameters,
            len(positional),
            len(arguments.posonlyargs),
            required,
            defaults,
            workers,
            shown,
            f"line {written.lineno}",
            function.lineno,
        )
        helpers.append(helper)
    return tuple(helpers)


def _class_helper(
    scope: Scope, found: Sequence[Scope], context: Context, loaders: Set[int], unknown: Unknown
) -> LoaderHelper | None:
    """A class whose methods make one DataLoader, with ``self.<attribute>`` workers that its ``__init__`` sets once, in
    its own block, from its parameters (``def __init__(self, ..., num_workers: int = 4): self.num_workers =
    num_workers``; audit84a): a construction of the class gives its loader's workers, as a call gives a helper's.
    Not where anything else in the file sets that attribute (of any object: which one is not read) or calls
    ``setattr``, nor for a decorated class or ``__init__``, or one with ``*args``/``**kwargs``."""
    module, cls = found[0], scope.root
    if not isinstance(cls, ast.ClassDef) or cls.decorator_list or module.bound.get(cls.name) != 1:
        return None
    named = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    named |= {t.id for n in cls.body if isinstance(n, (ast.Assign, ast.AnnAssign)) for t in _targets(n)}
    if named & _ATTRIBUTE_HOOKS:
        return None  # what reading or setting an attribute does is the class's own
    inits = [node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == "__init__"]
    init = next((s for s in found if len(inits) == 1 and s.root is inits[0]), None)
    if init is None or not isinstance(function := init.root, ast.FunctionDef) or function.decorator_list:
        return None
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    if arguments.vararg is not None or arguments.kwarg is not None or not positional or positional[0].arg != "self":
        return None
    made = [node for node in ast.walk(cls) if id(node) in loaders]
    written, shown = unknown.get(id(made[0]), (None, "")) if len(made) == 1 else (None, "")
    if not (isinstance(written, ast.Attribute) and dotted(written) == f"self.{written.attr}") or written.attr in named:
        return None  # a property or a class attribute of that name (the review): not what ``__init__`` keeps
    sets = _attributes_set(found)
    if sets is None or sets[written.attr] != 1:
        return None  # set again elsewhere in the file, or ``setattr``: which value the loader reads is not read
    value = next(
        (
            statement.value
            for statement in function.body  # its own block: not a branch's
            if isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and dotted(statement.targets[0]) == f"self.{written.attr}"
        ),
        None,
    )
    parameters = tuple(a.arg for a in positional[1:]) + tuple(a.arg for a in arguments.kwonlyargs)
    plain = {name for name in parameters if init.bound.get(name) == 1}
    shadowed = {name for name in _PURE_CALLS if name in module.bound or name in init.bound}
    if value is None or not _made_of(value, plain, shadowed):
        return None
    defaults = _defaults(positional[1:], arguments, context)
    return LoaderHelper(
        cls.name,
        parameters,
        len(positional) - 1,
        max(0, len(arguments.posonlyargs) - 1),
        frozenset(parameters) - {name for name, _ in defaults},
        defaults,
        value,
        shown,
        f"line {written.lineno}",
        cls.lineno,
        written.attr,
    )


#: methods that decide what reading or setting an attribute does
_ATTRIBUTE_HOOKS = frozenset({"__setattr__", "__getattr__", "__getattribute__", "__slots__"})


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.Name]:
    """The plain names a class body's assignment binds (a class attribute that an instance's would hide)."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return [target for target in targets if isinstance(target, ast.Name)]


def _attributes_set(found: Sequence[Scope]) -> Counter[str] | None:
    """How many times a file sets each attribute name on any object (``self.num_workers = w``, ``data.num_workers =
    0``), or None where it calls ``setattr`` (any name): the class helper's own file and the files that make it."""
    names: Counter[str] = Counter()
    for scope in found:
        for node in scope.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names[node.attr] += 1
            elif isinstance(node, ast.Call) and dotted(node.func) == "setattr":
                return None
    return names


def _local_value(workers: ast.expr, scope: Scope, parameters: set[str]) -> ast.expr:
    """A worker expression that is a name of the helper's own, assigned once in its body's own block and before the
    loader (``nw = min(os.cpu_count(), workers)`` then ``DataLoader(..., num_workers=nw)``, as YOLO's
    ``create_dataloader`` writes it): what it was assigned; any other expression as it is."""
    if not isinstance(workers, ast.Name) or workers.id in parameters or scope.bound.get(workers.id) != 1:
        return workers
    if any(isinstance(n, ast.AugAssign) and dotted(n.target) == workers.id for n in scope.nodes):
        return workers  # ``nw += 2`` changes it after (the scope's count leaves such additions out)
    blocks = scope.assigned.get(workers.id, {})
    given = blocks.get(id(getattr(scope.root, "body", None)), [])  # the function's own block: not a branch's
    return given[0][1] if len(given) == 1 and len(blocks) == 1 and given[0][0] < workers.lineno else workers


def _defaults(
    positional: Sequence[ast.arg], arguments: ast.arguments, context: Context
) -> tuple[tuple[str, Value], ...]:
    """The parameters that have a default, with its value as the module knows it (said as the default)."""
    with_default = [a.arg for a in positional][len(positional) - len(arguments.defaults) :]
    pairs = list(zip(with_default, arguments.defaults, strict=True))
    pairs += [(a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d is not None]
    return tuple((name, _said(value_of(default, context), f"{name}={{}} by default")) for name, default in pairs)


def _said(value: Value, how: str) -> Value:
    """A value whose origin the message would not show (a literal) said as ``how`` with its number."""
    return value._replace(how=f", {how.format(value.number)}") if not value.how and value.number is not None else value


def _made_of(expression: ast.expr, parameters: set[str], shadowed: set[str]) -> bool:
    """Whether the expression uses at least one of ``parameters`` and nothing but them, whole numbers and the pure
    calls (``min(batch_size, os.cpu_count())``; not a ``min`` the code binds itself: ``shadowed``)."""
    uses = False
    for node in _operands(expression, shadowed):
        if isinstance(node, ast.Name) and node.id in parameters:
            uses = True
        elif not (isinstance(node, ast.Constant) and type(node.value) is int):
            return False
    return uses


def _operands(node: ast.expr, shadowed: set[str]) -> Iterator[ast.expr]:
    """The leaves of an expression of pure calls: a CPU count has none, any other call is a leaf."""
    if isinstance(node, ast.Call) and not node.keywords:
        if dotted(node.func) in _CPU_COUNTS and not node.args:
            return
        if isinstance(node.func, ast.Name) and node.func.id in _PURE_CALLS and node.func.id not in shadowed:
            for argument in listed(node):
                yield from _operands(argument, shadowed)
            return
    yield node


def imported_helper(where: str, helper: LoaderHelper) -> LoaderHelper:
    """A helper another module defines (``where``: that module), for the files that import it."""
    return helper._replace(place=f"{where}:{helper.place.removeprefix('line ')}")


def helper_calls(
    found: Sequence[Scope],
    own: Sequence[LoaderHelper],
    imported: Mapping[str, LoaderHelper],
    context: Context,
    *,
    run_as_main: bool,
) -> Iterator[tuple[ast.Call, str, LoaderHelper, Value]]:
    """Each call of a helper, with the name it is called by (the module's ``own``, or one a module-level ``from ... import`` binds under the name
    given as the key, its ``defined`` the import's line) that starts its loader's workers, and the workers there.
    Not in a module a star import or a ``del`` leaves unsure of what a name is, nor inside ``if __name__ ==
    "__main__":`` of a module that is imported, not run (``run_as_main``): a self-test there never runs."""
    module = found[0]
    if "*" in module.bound or any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del) for n in module.nodes):
        return
    by_name = {name: helper for name, helper in imported.items() if module.bound.get(name) == 1}
    if any(helper.attribute for helper in by_name.values()):  # a class another module defines: this file may set
        sets = _attributes_set(found)  # the attribute its loader reads on what it makes (the review)
        by_name = {n: h for n, h in by_name.items() if not h.attribute or (sets is not None and not sets[h.attribute])}
    by_name.update((helper.name, helper) for helper in own)
    unrun = set() if run_as_main else _main_block(module.root)
    for scope in found:
        for node in scope.nodes:
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or id(node) in unrun:
                continue
            helper = by_name.get(node.func.id)
            if helper is None or scope.binding(node.func.id) is not module:
                continue
            if scope is module and node.lineno < helper.defined:
                continue  # runs before the name is bound
            bound = _bind(node, helper, scope, module, context)
            value = value_of(helper.workers, context._replace(bound=bound)) if bound is not None else None
            if value is not None and value.positive:
                yield node, node.func.id, helper, value


def _main_block(module: ast.AST) -> set[int]:
    """The ``id`` of every node inside the module's ``if __name__ == "__main__":`` blocks."""
    return {
        id(node)
        for statement in getattr(module, "body", [])
        if isinstance(statement, ast.If) and _is_main_test(statement.test)
        for part in statement.body
        for node in ast.walk(part)
    }


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = (test.left, test.comparators[0])
    named = sum(isinstance(side, ast.Name) and side.id == "__name__" for side in sides)
    main = sum(isinstance(side, ast.Constant) and side.value == "__main__" for side in sides)
    return named == 1 and main == 1


def _bind(
    call: ast.Call, helper: LoaderHelper, scope: Scope, module: Scope, context: Context
) -> dict[str, Value] | None:
    """The helper's parameters as this call gives them, bound as Python binds them (the caller's arguments worked
    out in the caller's file, else the helper's defaults); None when Python would refuse the call or binds at run
    time (``*args``, ``**kwargs``). An argument that reads a name of the calling function's own is not known."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if len(call.args) > helper.positional:
        return None
    given: dict[str, ast.expr] = dict(zip(helper.parameters, call.args, strict=False))  # the first ones
    for keyword in call.keywords:
        name = keyword.arg
        if name not in helper.parameters[helper.positional_only :] or name in given:
            return None
        given[name] = keyword.value
    if not helper.required <= given.keys():
        return None
    bound = dict(helper.defaults)
    for name, argument in given.items():
        local = _reads_local(argument, scope, module)
        bound[name] = UNKNOWN if local else _said(value_of(argument, context), f"{name}={{}} at the call")
    return bound


def _reads_local(argument: ast.expr, scope: Scope, module: Scope) -> bool:
    """Whether the argument reads a plain name the calling function binds itself (a parameter, a local): its value
    is the caller's caller's. A name read for an attribute (``args.batch_size``) is followed as options are."""
    bases = {id(node.value) for node in ast.walk(argument) if isinstance(node, (ast.Attribute, ast.Subscript))}
    return any(
        isinstance(node, ast.Name) and id(node) not in bases and scope.binding(node.id) not in (module, None)
        for node in ast.walk(argument)
    )
