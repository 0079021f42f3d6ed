"""Where a program's own option goes, read with ``ast``: a count given on the command line (``--num_workers 4``)
is a DataLoader's workers or a tensor-parallel size only if the code hands it to something that could make them.
A data pattern reads the option by its name; where the program is the repository's and declares the option, the
code's word wins (audit75c: ``--num_workers 4`` sized a list of Ray actors, six errors where no loader exists).

The value is followed through the program's files, by name (an attribute or a plain name that holds it, a
parameter of the repository's own function it is passed to, the object ``parse_args`` returns): it stays in the
code only where every use ends in arithmetic, a comparison, ``range``, logging or printing, or is stored under a
name followed in turn. Passed to anything else (a library's call, a subscript, a return value), it may reach a
loader, and the option stays evidence: unknown is never taken for harmless.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence

from shmlint.named_tuple import NamedTuple
from shmlint.project.pyoptions import Option
from shmlint.project.pysyntax import called

#: options of one command line followed, and names one option's value may be followed through
MAX_OPTIONS = 4
MAX_NAMES = 64
#: calls whose result is not the value: it ends there (``range(n)`` counts a loop; logging and printing show it)
_ENDS = frozenset(
    {
        *("range", "len", "print", "isinstance", "hasattr", "enumerate", "repr"),
        *("debug", "info", "warning", "warn", "error", "exception", "critical", "log"),
    }
)
#: calls whose result is the value still (``min(4, n)``), followed to where the result goes
_KEEPS = frozenset({"int", "float", "str", "min", "max", "abs", "round", "bool", "format"})
#: expressions that hold the value on: followed to where they go
_CARRIERS = (
    *(ast.BinOp, ast.UnaryOp, ast.IfExp, ast.BoolOp, ast.JoinedStr, ast.FormattedValue, ast.Starred),
    *(ast.Tuple, ast.List, ast.Set),
)
_PARSE_CALLS = frozenset({"parse_args", "parse_known_args"})


class Kept(NamedTuple):
    """A program's own option whose count its code keeps away from loaders and launchers (``--num_workers`` that
    sizes a list of Ray actors): ``shmlint.model.KeptOption`` to the tier model, made here so that a run whose walk
    never meets one does not build the class."""

    flag: str
    place: str  # where the program declares it (``batch_service.py:569``, ``opts.py:12`` of a module it imports)
    program: str  # the program's file or module as the command names it (``batch_service.py``)


class _Callable(NamedTuple):
    """One of the program's functions or classes, as a call binds its arguments."""

    positional: tuple[str, ...]
    keywords: frozenset[str]
    open_keywords: bool  # ``**kwargs``: a keyword it does not name goes on unseen


def kept_options(
    texts: Sequence[str], arguments: Sequence[str], declared: Mapping[str, Option], program: str
) -> tuple[Kept, ...]:
    """The options ``arguments`` give a positive count to, that ``declared`` (the program's argparse options, by
    dest) holds, and whose value the program's files (``texts``, the run file first) keep to themselves; ``program``:
    how the command names the program. A file that does not parse proves nothing: none then."""
    wanted = _counted(arguments, declared)
    if not wanted:
        return ()
    trees = []
    for text in texts:
        try:
            trees.append(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ()
    code = _Program(trees)
    return tuple(Kept(flag, declared[dest].place, program) for flag, dest in wanted if code.keeps(dest))


def _counted(arguments: Sequence[str], declared: Mapping[str, Option]) -> list[tuple[str, str]]:
    """(flag, dest) of the declared options the command line gives a positive whole number."""
    by_flag = {flag: dest for dest, option in declared.items() if not option.field for flag in option.flags}
    found = []
    for at, word in enumerate(arguments):
        flag, equals, value = word.partition("=")
        if not equals:
            value = arguments[at + 1] if at + 1 < len(arguments) else ""
        if flag.startswith("-") and flag in by_flag and value.isdigit() and int(value) > 0:
            found.append((flag, by_flag[flag]))
    return list(dict.fromkeys(found))[:MAX_OPTIONS]


class _Program:
    """The program's files, with what following a value needs: each node's parent and the callables defined."""

    def __init__(self, trees: Sequence[ast.Module]) -> None:
        self.nodes: list[ast.AST] = [node for tree in trees for node in ast.walk(tree)]
        self.parents = {id(child): node for node in self.nodes for child in ast.iter_child_nodes(node)}
        self.callables: dict[str, list[_Callable]] = {}
        for node in self.nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                method = isinstance(self.parents.get(id(node)), ast.ClassDef)
                self.callables.setdefault(node.name, []).append(_signature(node.args, method=method))
            elif isinstance(node, ast.ClassDef):
                self.callables.setdefault(node.name, []).append(_class_signature(node))
        self.holders = frozenset(_parsed_names(self.nodes))

    def keeps(self, dest: str) -> bool:
        """Whether every use of the option's value, and of the ``parse_args`` object, stays in the program."""
        names, attributes = set(self.holders), {dest}
        holders = set(self.holders)
        while True:
            added = self._followed(names, attributes, holders, dest)
            if added is None:
                return False
            if added <= names:
                return True
            names |= added
            if len(names) > MAX_NAMES:
                return False

    def _followed(self, names: set[str], attributes: set[str], holders: set[str], dest: str) -> set[str] | None:
        """The names each use hands the value (or the options' object) on to, None where one may leave the
        program."""
        added: set[str] = set()
        for node in self.nodes:
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and node.attr in attributes:
                holds_object = node.attr in holders  # ``self.args = args``: ``self.args`` holds the object
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
                holds_object = node.id in holders
            else:
                continue
            parent = self.parents.get(id(node))
            if holds_object and isinstance(parent, ast.Attribute) and not parent.attr.startswith("__"):
                continue  # ``args.other``: another option's value; this one's is followed as an attribute
            handed = self._use(node)
            if handed is None:
                return None
            if holds_object:
                holders |= handed
            added |= handed
            attributes |= {name for name in handed if name != dest}
        return added

    def _use(self, node: ast.AST) -> set[str] | None:
        """The names one use of the value hands it to (empty where it ends), None where it may leave the program."""
        child, parent = node, self.parents.get(id(node))
        while parent is not None:
            if isinstance(parent, _CARRIERS):
                child, parent = parent, self.parents.get(id(parent))
                continue
            if isinstance(parent, ast.Call) and child is not parent.func:
                name = called(parent.func)
                if name in _ENDS:
                    return set()
                if name in _KEEPS:
                    child, parent = parent, self.parents.get(id(parent))
                    continue
                return self._parameters(parent, child)
            if isinstance(parent, ast.Subscript) and child is parent.slice:
                return set()  # an index: it picks an item, the item is not the value
            if isinstance(parent, ast.keyword):
                child, parent = parent, self.parents.get(id(parent))
                continue
            if isinstance(parent, (ast.Compare, ast.If, ast.While, ast.Assert, ast.Expr, ast.For)):
                return set() if not (isinstance(parent, ast.For) and child is parent.target) else None
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                return _stored(parent)
            return None  # a subscript, a return value, an attribute's base, a lambda...: it may go anywhere
        return None

    def _parameters(self, call: ast.Call, given: ast.AST) -> set[str] | None:
        """The parameters of the program's own callable that receive ``given`` (an argument or a keyword of
        ``call``); None for a callable the program does not define, or one it cannot be seen to bind."""
        signatures = self.callables.get(called(call.func))
        if not signatures or isinstance(given, ast.Starred):
            return None
        found: set[str] = set()
        for signature in signatures:
            if isinstance(given, ast.keyword):
                if given.arg is None or (given.arg not in signature.keywords and signature.open_keywords):
                    return None
                found.add(given.arg)
            else:
                at = next((i for i, argument in enumerate(call.args) if argument is given), None)
                if at is None or at >= len(signature.positional):
                    return None
                found.add(signature.positional[at])
        return found


def _signature(arguments: ast.arguments, *, method: bool) -> _Callable:
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if method and positional:
        positional = positional[1:]  # ``self``
    named = {*positional, *(a.arg for a in arguments.kwonlyargs)}
    return _Callable(tuple(positional), frozenset(named), arguments.kwarg is not None or arguments.vararg is not None)


def _class_signature(node: ast.ClassDef) -> _Callable:
    """A class's ``__init__``, or for one without (a dataclass) its annotated fields, taken by keyword."""
    init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is not None:
        return _signature(init.args, method=True)
    fields = tuple(s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name))
    return _Callable(fields, frozenset(fields), bool(node.bases))  # a base class's ``__init__`` may take more


def _stored(statement: ast.Assign | ast.AnnAssign | ast.AugAssign) -> set[str] | None:
    """The names an assignment stores the value under (``n = args.workers``, ``self.workers = workers``); None for
    a subscript or an unpacking (a config dict's key is read by anything)."""
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    found = set()
    for target in targets:
        if isinstance(target, ast.Name):
            found.add(target.id)
        elif isinstance(target, ast.Attribute):
            found.add(target.attr)
        else:
            return None
    return found


def _parsed_names(nodes: Sequence[ast.AST]) -> Iterator[str]:
    """The names the program binds to what ``parse_args`` returns (``args = parser.parse_args()``; the first of
    ``parse_known_args``'s pair)."""
    for node in nodes:
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        if called(node.value.func) not in _PARSE_CALLS:
            continue
        for target in node.targets:
            if isinstance(target, ast.Name):
                yield target.id
            elif isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
                yield target.elts[0].id
