"""Where a program's own option goes, read with ``ast``: a count given on the command line (``--num_workers 4``)
is a DataLoader's workers or a tensor-parallel size only if the code hands it to something that could make them.
A data pattern reads the option by its name; where the program is the repository's and declares the option, the
code's word wins (audit75c: ``--num_workers 4`` sized a list of Ray actors, six errors where no loader exists).

The value, and every object that holds it, is followed through the program's files by name: an attribute or a
plain name it is stored under, a parameter of the program's own function or class it is passed to (called by its
plain name, or as a method of the program's own classes), the object ``parse_args`` returns and any instance that
keeps the value. It stays in the code only where every use ends in arithmetic, a comparison, an index, what a
loop counts over, logging or printing. Anything else (a library's call, a method of an object the program does not
define, a subscript's, a class attribute's or a config object's store, a function passed on or decorated, a class
with a base from elsewhere) may reach a loader, and the option stays evidence: unknown is never taken for harmless.
A program that reaches values otherwise than by their names keeps nothing at all (``exec``, ``setattr``, a star
import, a metaclass, a property's setter, a method whose instance is not ``self``, ``sys.argv`` read again, a parser
handed on or a second parser's leftovers, an option argparse hands to code of its own or stores under a name a
variable gives). Bounded: a program of more than ``MAX_NODES`` nodes, or a value that spreads to more than
``MAX_NAMES`` names, keeps nothing. Two independent reviews tried to break this; each way they found is a test.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Mapping, Sequence
from typing import Literal

from shmlint.named_tuple import NamedTuple
from shmlint.project.pyoptions import Option
from shmlint.project.pysyntax import dotted

#: options of one command line followed, names one value may spread to, nodes of one program's files, and the
#: expressions one use is followed up through
MAX_OPTIONS = 4
MAX_NAMES = 64
MAX_NODES = 200_000
MAX_CLIMB = 32
#: a count argparse reads as a whole number (``int`` takes any length, ``str.isdigit`` other scripts' digits)
MAX_DIGITS = 9
#: built-in calls whose result is not the value: it ends there (``range`` only as what a loop counts over)
_ENDS = frozenset({"len", "print", "isinstance", "hasattr", "repr", "id", "type"})
#: methods that log what they are given, called on a logger (a name that says ``log``)
_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log"})
#: names whose use lets code reach values by other ways than their names: a program that uses one keeps nothing
_REFLECTION = frozenset({"exec", "eval", "locals", "globals", "setattr", "__import__", "__setattr__", "__getattr__"})
#: argparse's own ``type=`` values; any other (a library's function or action) is handed the value
_PLAIN_TYPES = frozenset({"int", "float", "str", "bool"})
#: built-in calls whose result is the value still (``min(4, n)``): followed to where the result goes
_KEEPS = frozenset({"int", "float", "str", "min", "max", "abs", "round", "bool", "format"})
#: expressions that hold the value on: followed to where they go
_CARRIERS = (
    *(ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.JoinedStr, ast.FormattedValue),
    *(ast.Tuple, ast.List, ast.Set),
)
#: statements and expressions whose test the value ends in
_TESTS = (ast.Compare, ast.If, ast.While, ast.Assert, ast.Expr)
#: the calls that make the options' object
_PARSE_CALLS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args", "parse_known_intermixed_args"})
#: decorators that leave a method's call as written (any other may wrap it in a library's function)
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod"})


class Kept(NamedTuple):
    """A program's own option whose count its code keeps away from loaders and launchers (``--num_workers`` that
    sizes a list of Ray actors): ``shmlint.model.KeptOption`` to the tier model, made here so that a run whose walk
    never meets one does not build the class."""

    flag: str
    place: str  # where the program declares it (``batch_service.py:569``, ``opts.py:12`` of a module it imports)
    program: str  # the program's file or module as the command names it (``batch_service.py``)


class _Callable(NamedTuple):
    """One of the program's functions, methods or classes, as a call binds its arguments."""

    positional: tuple[str, ...]
    keywords: frozenset[str]
    open_ended: bool  # ``*args`` or ``**kwargs``: what it does not name goes on unseen
    scope: int = 0  # the ``id`` of the function whose parameters they are (0: a dataclass's fields)


#: what a followed name stands for: ("name", "local", "attribute", "self" or "returned", the name, whether it is an
#: object that holds the value); a "local" name is ``<id of its function>:<name>``: a function's own variable
_Item = tuple[str, str, bool]
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
#: what starts a scope of its own below a function: its names are not the function's
_SCOPES = (*_FUNCTIONS, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def kept_options(
    files: Sequence[tuple[str, str]], arguments: Sequence[str], declared: Mapping[str, Option], program: str
) -> tuple[Kept, ...]:
    """The options ``arguments`` give a positive count to, that ``declared`` (the program's argparse options, by
    dest) holds, and whose value the program's files (``files``: path and text, the run file first) keep to
    themselves; ``program``: how the command names the program. A file that does not parse proves nothing: none
    then."""
    wanted = _counted(arguments, declared)
    if not wanted:
        return ()
    trees = []
    for _, text in files:
        try:
            trees.append(ast.parse(text))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return ()
    code = _Program.of(trees, [path for path, _ in files])
    if code is None:
        return ()
    return tuple(Kept(flag, declared[dest].place, program) for flag, dest in wanted if code.keeps(dest))


def _counted(arguments: Sequence[str], declared: Mapping[str, Option]) -> list[tuple[str, str]]:
    """(flag, dest) of the declared options the command line gives a positive whole number."""
    by_flag: dict[str, str] = {}
    shared: set[str] = set()  # a flag two options declare (subcommands, two parsers): whose value it is is not known
    for dest, option in declared.items():
        for flag in option.flags if not option.field else ():
            if flag in by_flag:
                shared.add(flag)
            by_flag[flag] = dest
    for flag in shared:
        del by_flag[flag]
    found = []
    for at, word in enumerate(arguments):
        flag, equals, value = word.partition("=")
        if not equals:
            value = arguments[at + 1] if at + 1 < len(arguments) else ""
        count = value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS and int(value) > 0
        if flag.startswith("-") and flag in by_flag and count:
            found.append((flag, by_flag[flag]))
    return list(dict.fromkeys(found))[:MAX_OPTIONS]


class _Program:
    """The program's files, indexed once: each node's parent, the loads of each name and attribute, and the
    callables the program defines (only by names no import binds)."""

    def __init__(self, nodes: list[ast.AST], paths: Sequence[str]) -> None:
        self.parents = {id(child): node for node in nodes for child in ast.iter_child_nodes(node)}
        self.names: dict[str, list[ast.Name]] = {}
        self.attributes: dict[str, list[ast.Attribute]] = {}
        self.calls: dict[str, list[ast.Call]] = {}  # calls of a plain name: where a function's result goes
        self.parsed: list[ast.Call] = []  # ``parse_args()``, ``parse_known_args()``: the options' object made
        imported: set[str] = set()  # names imports bind from outside the program
        stored: set[str] = set()  # names an assignment, a loop or ``with`` binds: a def or class name rebound
        systems: set[str] = {"sys"}  # the names ``sys`` goes by
        #: the names ``import m`` binds to a module of the program's own files (``import service_pb2_grpc``)
        self.own_modules: set[str] = set()
        #: what the program does that this cannot follow: then it keeps nothing (``opaque``)
        self.opaque = False
        #: the files (their ``Module`` nodes, by ``id``) that reach names by other ways (``exec``, ``globals()``, a
        #: metaclass, a property's setter), and those that import another of the program's files
        self.reflective: set[int] = set()
        importing: set[int] = set()
        module = 0
        for node in nodes:
            if isinstance(node, ast.Module):  # each tree's nodes follow its own module (``of``)
                module = id(node)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                self.names.setdefault(node.id, []).append(node)
                if node.id in _REFLECTION:
                    self.reflective.add(module)
            elif isinstance(node, ast.Name):
                stored.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                self.attributes.setdefault(node.attr, []).append(node)
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    self.calls.setdefault(node.func.id, []).append(node)
                name = _decorator(node.func)
                if name in _PARSE_CALLS:
                    self.parsed.append(node)
                    # another parser, or a library that reads the command line again, takes what it leaves
                    self.opaque = self.opaque or "known" in name or any(k.arg == "namespace" for k in node.keywords)
                self.opaque = self.opaque or name == "add_subparsers" or (name == "add_argument" and _handed(node))
            elif isinstance(node, ast.Import):
                if any(_own_module(alias.name, paths) for alias in node.names):
                    importing.add(module)
                imported.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
                systems.update(alias.asname or alias.name for alias in node.names if alias.name == "sys")
                self.own_modules.update(
                    alias.asname or alias.name
                    for alias in node.names
                    if (alias.asname or "." not in alias.name) and _own_module(alias.name, paths)
                )
            elif isinstance(node, ast.ImportFrom):
                star = any(alias.name == "*" for alias in node.names)
                argv = node.module == "sys" and any(alias.name == "argv" for alias in node.names)
                self.opaque = self.opaque or star or argv
                if _local(node, paths):
                    importing.add(module)
                else:
                    imported.update((alias.asname or alias.name).partition(".")[0] for alias in node.names)
            elif (isinstance(node, ast.ClassDef) and any(k.arg == "metaclass" for k in node.keywords)) or (
                isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                and (node.name in _REFLECTION or _setter(node))
            ):
                self.reflective.add(module)
        # a file that reaches names by other ways reaches the value only if it is the program run, reads the
        # program's other files, or is where the value goes (``keeps``): a generated protobuf module's
        # ``globals()`` (audit87d) reaches its own names only
        run = id(nodes[0]) if nodes else 0
        self.opaque = self.opaque or any(file == run or file in importing for file in self.reflective)
        unbound = imported | stored  # a name bound otherwise than by its def may be a library's function
        # a parser handed on (``mylib.cli(parser)``): what parses the command line is not the program's
        self.opaque = self.opaque or any(not self._reads_from(use, calls=True) for use in self._parsers(nodes))
        self.functions: dict[str, list[_Callable | None]] = {}
        self.methods: dict[str, list[_Callable | None]] = {}
        self.defining: dict[str, list[str]] = {}  # method name -> the classes that define it
        self.classes: dict[str, ast.ClassDef] = {}
        self._local_names: dict[int, frozenset[str]] = {}  # each function's own variables (``_locals``), once
        for node in nodes:
            parent = self.parents.get(id(node))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if isinstance(parent, ast.ClassDef):
                    self.methods.setdefault(node.name, []).append(_method(node))
                    self.defining.setdefault(node.name, []).append(parent.name)
                elif isinstance(parent, ast.Module) and node.name not in unbound:
                    self.functions.setdefault(node.name, []).append(None if node.decorator_list else _plain(node))
                self.opaque = self.opaque or (isinstance(parent, ast.ClassDef) and not _takes_self(node))
            elif isinstance(node, ast.ClassDef) and isinstance(parent, ast.Module) and node.name not in unbound:
                self.classes[node.name] = node
        #: each class's own ``self``: its loads in the class's methods (a nested class's are its own)
        self.selves: dict[str, list[ast.Name]] = {}
        for node in self.names.get("self", ()):
            scope = self._class_of(node)
            if scope is not None:
                self.selves.setdefault(scope.name, []).append(node)
        #: ``sys.argv`` read other than by argparse: the command line may go on to another program as it is
        self.argv_read = any(
            isinstance(node.value, ast.Name) and node.value.id in systems and not self._parsed(node)
            for node in self.attributes.get("argv", ())
        )

    @classmethod
    def of(cls, trees: Sequence[ast.Module], paths: Sequence[str]) -> _Program | None:
        """The program, or None where it is too large to follow within the bound."""
        nodes: list[ast.AST] = []
        for tree in trees:
            nodes.extend(itertools.islice(ast.walk(tree), MAX_NODES + 1 - len(nodes)))
            if len(nodes) > MAX_NODES:
                return None
        return cls(nodes, paths)

    def keeps(self, dest: str) -> bool:
        """Whether every use of the option's value, and of every object that holds it (the one ``parse_args``
        makes first), stays in the program."""
        if self.argv_read or self.opaque:
            return False
        queue: list[_Item] = [("attribute", dest, False)]
        for call in self.parsed:
            made = self._made(call)
            if made is None:
                return False
            queue += made
        seen: set[_Item] = set()
        while queue:
            item = queue.pop()
            if item in seen:
                continue
            seen.add(item)
            if len(seen) > MAX_NAMES:
                return False
            kind, name, holder = item
            for node in self._uses(kind, name):
                if self.reflective and self._module_of(node) in self.reflective:
                    return False
                if holder and self._reads_from(node):
                    continue  # ``args.other``: another option's value; this one's is followed by its own name
                handed = self._use(node, holder)
                if handed is None:
                    return False
                queue.extend(handed)
                if kind == "attribute" and isinstance(node, ast.Attribute):
                    queue.extend(self._object(node.value))  # ``args`` of ``args.num_workers``, ``self.args`` too
        return True

    def _module_of(self, node: ast.AST) -> int:
        """The ``id`` of the file's ``Module`` a node is in."""
        while not isinstance(node, ast.Module) and (above := self.parents.get(id(node))) is not None:
            node = above
        return id(node)

    def _made(self, call: ast.Call) -> list[_Item] | None:
        """Where the options' object goes from the call that makes it: ``parse_known_args``'s pair unpacked keeps
        it in its first name (the rest are words it did not parse: the option is not among them)."""
        above = self.parents.get(id(call))
        if (
            isinstance(above, ast.Assign)
            and len(above.targets) == 1
            and isinstance(pair := above.targets[0], ast.Tuple)
            and pair.elts
            and isinstance(pair.elts[0], ast.Name)
        ):
            return [self._named(pair.elts[0], pair.elts[0].id, True)]
        return self._use(call, holder=True)

    def _uses(self, kind: str, name: str) -> Sequence[ast.expr]:
        if kind == "self":
            return self.selves.get(name, ())
        if kind == "returned":
            return self.calls.get(name, ())
        if kind == "local":  # the function's own variable: its uses in that function (and the ones nested in it)
            scope, _, plain = name.partition(":")
            return [use for use in self.names.get(plain, ()) if self._binding(use, plain) == int(scope)]
        if kind == "name":  # a module's: its uses where no function binds the name of its own
            return [use for use in self.names.get(name, ()) if self._binding(use, name) == 0]
        return self.attributes.get(name, ())

    def _named(self, node: ast.AST, name: str, holder: bool) -> _Item:
        """The item of a name at ``node``: the variable of the function that binds it there, else the module's."""
        return _variable(self._binding(node, name), name, holder)

    def _binding(self, node: ast.AST, name: str) -> int:
        """The ``id`` of the function whose own variable ``name`` is at ``node`` (0: a module's, or not known to be
        a function's: then every module-level use counts, never fewer uses than Python's)."""
        above = self.parents.get(id(node))
        while above is not None:
            if isinstance(above, _FUNCTIONS) and name in self._locals(above):
                return id(above)
            above = self.parents.get(id(above))
        return 0

    def _locals(self, function: ast.AST) -> frozenset[str]:
        """A function's own variables: its parameters and the names its body stores, outside the scopes nested in
        it, less those it declares ``global``/``nonlocal``; binding forms left out (an import, ``except ... as``)
        leave a name the module's, whose uses are all counted."""
        found = self._local_names.get(id(function))
        if found is not None:
            return found
        arguments = function.args  # type: ignore[attr-defined]
        names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
        declared: set[str] = set()
        todo = list(ast.iter_child_nodes(function))
        while todo:
            node = todo.pop()
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                declared.update(node.names)
            if not isinstance(node, _SCOPES):
                todo.extend(ast.iter_child_nodes(node))
        found = self._local_names[id(function)] = frozenset(names - declared)
        return found

    def _object(self, node: ast.expr) -> list[_Item]:
        """The object an attribute is read from, followed as a holder: a name (``args``), the class's own ``self``,
        or an attribute of one (``self.args``)."""
        if isinstance(node, ast.Name):
            scope = self._class_of(node) if node.id == "self" else None
            return [("self", scope.name, True)] if scope is not None else [self._named(node, node.id, True)]
        if isinstance(node, ast.Attribute):
            return [("attribute", node.attr, True)]
        return []

    def _parsers(self, nodes: list[ast.AST]) -> list[ast.Name]:
        """The loads of every name an ``ArgumentParser(...)`` is assigned to."""
        names = {
            target.id
            for node in nodes
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            if _decorator(node.value.func) == "ArgumentParser"
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        return [use for name in names for use in self.names.get(name, ())]

    def _called_only(self, function: str) -> bool:
        """Whether an undecorated function of the program's own is named only to be called (``fit(get_w())``):
        passed on (``mylib.fit(get_w)``) or reached as an attribute, its result goes where this does not follow."""
        if any(signature is None for signature in self.functions.get(function, [None])):
            return False
        calls = {id(call.func) for call in self.calls.get(function, ())}
        return function not in self.attributes and all(id(n) in calls for n in self.names.get(function, ()))

    def _counted_over(self, call: ast.Call) -> bool:
        """``range(n)`` as what a loop counts over (``for _ in range(n)``): its numbers are not the value."""
        above = self.parents.get(id(call))
        return isinstance(above, (ast.For, ast.comprehension)) and above.iter is call

    def _function_of(self, node: ast.AST) -> str | None:
        """The module-level function of the program's own that ``node`` is in (a method's callers are not
        followed: None)."""
        scope = self.parents.get(id(node))
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            scope = self.parents.get(id(scope))
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.name in self.functions:
            return scope.name if isinstance(self.parents.get(id(scope)), ast.Module) else None
        return None

    def _class_of(self, node: ast.AST) -> ast.ClassDef | None:
        scope = self.parents.get(id(node))
        while scope is not None and not isinstance(scope, ast.ClassDef):
            scope = self.parents.get(id(scope))
        return scope if isinstance(scope, ast.ClassDef) else None

    def _reads_from(self, node: ast.expr, *, calls: bool = False) -> bool:
        """Whether a use of an object only reads an attribute from it (``calls``: or calls a method of it), not a
        dunder."""
        parent = self.parents.get(id(node))
        if not isinstance(parent, ast.Attribute) or parent.value is not node or parent.attr.startswith("__"):
            return False
        above = self.parents.get(id(parent))
        return calls or not (isinstance(above, ast.Call) and above.func is parent)

    def _use(self, node: ast.expr, holder: bool) -> list[_Item] | None:
        """What one use hands the value (or the object) on to: nothing where it ends, None where it may leave."""
        child: ast.AST = node
        parent = self.parents.get(id(node))
        for _ in range(MAX_CLIMB):
            if parent is None:
                return None
            if isinstance(parent, _CARRIERS) or (isinstance(parent, ast.IfExp) and child is not parent.test):
                child, parent = parent, self.parents.get(id(parent))
                continue
            if isinstance(parent, ast.keyword):
                child, parent = parent, self.parents.get(id(parent))
                continue
            if isinstance(parent, ast.Attribute) and parent.value is child:
                return self._receiver(parent)  # a method called on it
            if isinstance(parent, ast.Call) and child is not parent.func:
                found = self._argument(parent, child, holder)
                if found is not True:
                    return found
                child, parent = parent, self.parents.get(id(parent))
                continue
            if isinstance(parent, ast.Subscript):
                return [] if child is parent.slice else None  # an index picks an item; the item is not the value
            if isinstance(parent, (*_TESTS, ast.IfExp)):
                return []
            if isinstance(parent, ast.For) and child is parent.iter:
                return _targets([parent.target], holder, self)
            if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and child is parent.value:
                targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
                return _targets(targets, holder, self)
            if isinstance(parent, ast.Return):
                function = self._function_of(parent)  # its callers get it: followed from each call
                return (
                    [("returned", function, holder)] if function is not None and self._called_only(function) else None
                )
            return None  # a return value, a lambda, a comprehension, a subscript's value...: it may go anywhere
        return None

    def _argument(self, call: ast.Call, given: ast.AST, holder: bool) -> list[_Item] | Literal[True] | None:
        """An argument of a call: [] where the call ends it, True where the call's result is the value still, the
        parameters of the program's own callable that receive it (and for a class of its own, the instance made,
        which holds it), or None."""
        func = call.func
        if isinstance(func, ast.Name) and func.id not in self.functions and func.id not in self.classes:
            if func.id in _ENDS or (func.id == "range" and self._counted_over(call)):
                return []
            return True if func.id in _KEEPS and not holder else None
        if isinstance(func, ast.Attribute) and func.attr in _LOGGING and "log" in dotted(func.value).lower():
            return []
        if isinstance(given, ast.Starred) or (isinstance(given, ast.keyword) and given.arg is None):
            return None
        if isinstance(func, ast.Name) and func.id in self.classes:
            signature = self._constructor(self.classes[func.id])
            made = self._use(call, holder=True)  # the instance keeps what it is given, as a field or in its self
            bound = _bind([signature], call, given) if signature is not None else None
            if bound is None or made is None:
                return None
            fields = [item for scope, p in bound for item in (_variable(scope, p, holder), ("attribute", p, holder))]
            return [*fields, ("self", func.id, True), *made]
        if isinstance(func, ast.Name):
            bound = _bind(self.functions[func.id], call, given)
        elif self._own_modules_function(func):  # ``service_pb2_grpc.add_servicer(servicer, server)``
            bound = _bind(self.functions[func.attr], call, given)  # type: ignore[attr-defined]
        elif isinstance(func, ast.Attribute) and _on_self(func) and self._own_method(call, func.attr):
            bound = _bind(self.methods[func.attr], call, given)  # ``self.make(n)``: a method of the program's own
        else:
            return None
        return None if bound is None else [_variable(scope, p, holder) for scope, p in bound]

    def _receiver(self, attribute: ast.Attribute) -> list[_Item] | None:
        """An object a method is called on (``orchestrator.process(...)``), or whose method is handed on to be
        called later (``handler(servicer.Generate)``, a gRPC service's table): it stays in the program where that
        method is the program's own (the object is its ``self`` there, followed as any holder is); whoever calls it
        gives it only its arguments."""
        above = self.parents.get(id(attribute))
        called = isinstance(above, ast.Call) and above.func is attribute
        handed = isinstance(above, (ast.Call, ast.keyword)) and not called
        if (called or handed) and attribute.attr in self.methods:
            return [("self", owner, True) for owner in self.defining[attribute.attr]]
        return None

    def _own_modules_function(self, func: ast.expr) -> bool:
        """``m.f`` where ``m`` is a module of the program's own files it imports and ``f`` a function they define."""
        return (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in self.own_modules
            and func.attr in self.functions
        )

    def _constructor(self, node: ast.ClassDef) -> _Callable | None:
        """How a class of the program's own binds its arguments: its ``__init__``, or with none its annotated
        fields (a dataclass). A base from outside the program may read what the instance keeps: None then."""
        if not self._own_lineage(node, frozenset()):
            return None
        if node.decorator_list and not all(_decorator(d) == "dataclass" for d in node.decorator_list):
            return None
        init = next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
        if init is not None:
            return _method(init)
        fields = tuple(
            s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
        )
        return _Callable(fields, frozenset(fields), False)

    def _own_method(self, call: ast.Call, name: str) -> bool:
        """Whether ``self.name(...)`` in a class of the program's own lineage calls a method that lineage defines
        (in a class with a library's base it may be the library's)."""
        scope = self._class_of(call)
        if scope is None or not self._own_lineage(scope, frozenset()):
            return False
        lineage, seen = [scope], {scope.name}
        while lineage:
            node = lineage.pop()
            if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in node.body):
                return True
            for base in node.bases:
                if isinstance(base, ast.Name) and base.id in self.classes and base.id not in seen:
                    seen.add(base.id)
                    lineage.append(self.classes[base.id])
        return False

    def _own_lineage(self, node: ast.ClassDef, seen: frozenset[str]) -> bool:
        """Whether every class the class derives from, however far up, is the program's own: by its name, or as an
        attribute of a module of its own files it imports (``service_pb2_grpc.ServiceServicer``, audit87d: a gRPC
        servicer whose threads took ``--num_workers``)."""
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            name = base.id if isinstance(base, ast.Name) else None
            if (
                isinstance(base, ast.Attribute)
                and isinstance(base.value, ast.Name)
                and base.value.id in self.own_modules
            ):
                name = base.attr
            if name is None or name not in self.classes or name in seen:
                return False
            if not self._own_lineage(self.classes[name], seen | {node.name}):
                return False
        return True

    def _parsed(self, node: ast.Attribute) -> bool:
        """``sys.argv`` handed to argparse itself (``parser.parse_args(sys.argv[1:])``)."""
        above: ast.AST | None = self.parents.get(id(node))
        if isinstance(above, ast.Subscript):
            above = self.parents.get(id(above))
        return isinstance(above, ast.Call) and _decorator(above.func) in _PARSE_CALLS

    def own_class(self, node: ast.AST) -> str | None:
        """The class ``node`` is in, where its bases are all the program's own (no library reads its ``self``)."""
        scope = self._class_of(node)
        return scope.name if scope is not None and self._constructor(scope) is not None else None


def _variable(scope: int, name: str, holder: bool) -> _Item:
    """The item of a variable: a function's own (``scope``, its ``id``), else the module's, whose every use counts
    (a dataclass's field too)."""
    return ("local", f"{scope}:{name}", holder) if scope else ("name", name, holder)


def _targets(targets: Sequence[ast.expr], holder: bool, code: _Program) -> list[_Item] | None:
    """The names an assignment or a loop stores the value under: a plain name, or an attribute of ``self`` in a
    class of the program's own (then its ``self`` holds it too); None for anything else (a config object's
    attribute, a subscript, an unpacking)."""
    found: list[_Item] = []
    if targets and isinstance(code.parents.get(id(code.parents.get(id(targets[0])))), ast.ClassDef):
        return None  # a class attribute: read as ``self.X`` or ``Class.X``, and the class may go anywhere
    for target in targets:
        owner = code.own_class(target) if isinstance(target, ast.Attribute) and _on_self(target) else None
        if isinstance(target, ast.Name):  # a module's global is read as ``module.W`` too
            found += [code._named(target, target.id, holder), ("attribute", target.id, holder)]
        elif isinstance(target, ast.Attribute) and owner is not None:
            found += [("attribute", target.attr, holder), ("self", owner, True)]
        else:
            return None
    return found


def _on_self(node: ast.expr) -> bool:
    """``self.x``: an attribute of the instance a method runs on."""
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _bind(signatures: Sequence[_Callable | None], call: ast.Call, given: ast.AST) -> set[tuple[int, str]] | None:
    """The parameters that receive ``given`` in every definition the call may reach (with the ``id`` of the function
    they are variables of), or None where one cannot be seen to bind it (a decorated function, a keyword it does
    not name, a position past its parameters)."""
    found: set[tuple[int, str]] = set()
    for signature in signatures:
        if signature is None:
            return None
        if isinstance(given, ast.keyword):
            if given.arg is None or given.arg not in signature.keywords:
                return None
            found.add((signature.scope, given.arg))
            continue
        at = next((i for i, argument in enumerate(call.args) if argument is given), None)
        if at is None or at >= len(signature.positional):
            return None
        found.add((signature.scope, signature.positional[at]))
    return found


def _plain(node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Callable:
    arguments = node.args
    positional = tuple(a.arg for a in (*arguments.posonlyargs, *arguments.args))
    named = {*positional, *(a.arg for a in arguments.kwonlyargs)}
    return _Callable(
        positional, frozenset(named), arguments.kwarg is not None or arguments.vararg is not None, id(node)
    )


def _method(node: ast.FunctionDef | ast.AsyncFunctionDef) -> _Callable | None:
    """A method as a call on an instance binds it: without ``self`` (``cls``), a static method as written; None for
    one another decorator may wrap."""
    decorators = {_decorator(d) for d in node.decorator_list}
    if not decorators <= _PLAIN_DECORATORS:
        return None
    plain = _plain(node)
    if "staticmethod" in decorators or not plain.positional:
        return plain
    return plain._replace(positional=plain.positional[1:], keywords=plain.keywords - {plain.positional[0]})


def _decorator(node: ast.expr) -> str:
    """A decorator's or a called function's last name (``dataclasses.dataclass``, ``dataclass(frozen=True)``)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _local(node: ast.ImportFrom, paths: Sequence[str]) -> bool:
    """Whether ``from m import name`` imports from one of the program's own files: a relative import, or a module
    whose file is among them (``from pipeline import build`` beside ``pipeline.py``); what it binds is then the
    program's own function or class, found by its name."""
    return bool(node.level) or _own_module(node.module or "", paths)


def _own_module(name: str, paths: Sequence[str]) -> bool:
    """Whether the module ``name`` (dotted) is one of the program's own files."""
    module = name.replace(".", "/")
    ends = (f"/{module}.py", f"/{module}/__init__.py")
    return bool(module) and any(f"/{path}".replace("\\", "/").endswith(ends) for path in paths)


def _handed(node: ast.Call) -> bool:
    """An ``add_argument`` this cannot follow: a ``type=`` other than a builtin's or an ``action=`` that is not one of
    argparse's names (the value is handed to code of their own), a ``dest=`` a name gives."""
    for keyword in node.keywords:
        value = keyword.value
        if keyword.arg == "type" and not (isinstance(value, ast.Name) and value.id in _PLAIN_TYPES):
            return True
        if keyword.arg in ("action", "dest") and not isinstance(value, ast.Constant):
            return True  # an action of its own, or a dest a name gives (its attribute is not the flag's)
    return False


def _setter(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A property's setter (``@x.setter``): an attribute store runs it."""
    return any(isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter") for d in node.decorator_list)


def _takes_self(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A method whose instance is named ``self`` (or a class's ``cls``, or a static method): one that names it
    otherwise hands its instance on under a name this does not follow."""
    decorators = {_decorator(d) for d in node.decorator_list}
    if "staticmethod" in decorators:
        return True
    first = [*node.args.posonlyargs, *node.args.args][:1]
    return bool(first) and first[0].arg in ("self", "cls")
