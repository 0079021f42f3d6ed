"""The names a module's ``from m import`` statements bind (``parsers/python_imports.py``), against what Python
itself binds when it runs the same statements."""

from __future__ import annotations

import ast
import sys
import types

from hypothesis import given
from hypothesis import strategies as st

from shmlint.parsers.python_imports import assignment_lines, from_imports, imported_bindings

UNKNOWN = object()
#: the modules the reader knows, with what they export (a name bound to a value not known: None)
KNOWN = {"consts": {"A": 1, "B": 2, "_C": 3, "D": None}, "settings": {"A": 10, "C": 30}}
#: a module the reader does not read (a library's): Python binds the names imported from it by name all the same.
#: Its star import binds none (``__all__ = []``): the reader takes a library's star import to bind no count of the
#: repository's (``from torch.nn import *`` does not rebind ``NUM_WORKERS``)
ELSEWHERE = {"A": 100, "B": 200, "C": 300, "D": 400}
#: what the file's own assignments give
OWN = -1

_NAMES = st.sampled_from(["A", "B", "C", "_C", "D"])
_STATEMENT = st.one_of(
    st.tuples(st.just("from"), st.sampled_from([*KNOWN, "elsewhere"]), _NAMES, st.sampled_from(["", "A", "C"])),
    st.tuples(st.just("star"), st.sampled_from([*KNOWN, "elsewhere"])),
    st.tuples(st.just("assign"), _NAMES),
)


def _line(statement: tuple) -> str:
    if statement[0] == "from":
        _, module, name, alias = statement
        return f"from {module} import {name}" + (f" as {alias}" if alias else "")
    if statement[0] == "star":
        return f"from {statement[1]} import *"
    return f"{statement[1]} = {OWN}"


def _modules() -> dict[str, types.ModuleType]:
    made = {}
    for name, values in {**KNOWN, "elsewhere": ELSEWHERE}.items():
        module = types.ModuleType(name)
        for key, value in values.items():
            setattr(module, key, 0 if value is None else value)
        if name == "elsewhere":
            module.__all__ = []  # type: ignore[attr-defined]
        made[name] = module
    return made


def _run(source: str) -> dict[str, object]:
    """What Python binds, running ``source`` with the modules above (whatever an import of a missing name
    raises stops it: such a file does not import)."""
    saved = {name: sys.modules.get(name) for name in [*KNOWN, "elsewhere"]}
    sys.modules.update(_modules())
    namespace: dict[str, object] = {}
    try:
        exec(compile(source, "<generated>", "exec"), namespace)
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    return namespace


@given(st.lists(_STATEMENT, max_size=8))
def test_imported_bindings_are_what_python_binds(statements: list[tuple]) -> None:
    """Each name the reader says an import binds last has the value Python gives it (``UNKNOWN`` exactly where it
    comes from a module not read, or one that binds it to a value not known); every other name is the file's
    own or not bound at all."""
    source = "\n".join(_line(statement) for statement in statements) + "\n"
    try:
        namespace = _run(source)
    except ImportError:
        return  # ``from consts import C``: no such name, the file does not run
    tree = ast.parse(source)
    found = imported_bindings(
        from_imports(tree.body), lambda module: KNOWN.get(module), assignment_lines(tree.body), UNKNOWN
    )
    for name in {"A", "B", "C", "_C", "D"}:
        if name in found:
            value = namespace[name]
            known = found[name]
            assert value != OWN
            assert known is UNKNOWN if value in ELSEWHERE.values() or value == 0 else known == value
        else:
            assert namespace.get(name, OWN) == OWN


def test_a_relative_import_keeps_its_level_and_each_alias_its_line() -> None:
    tree = ast.parse("import os\nfrom ..pkg.consts import A as B, C\nfrom . import consts\n")
    assert [tuple(imported) for imported in from_imports(tree.body)] == [
        ("..pkg.consts", "A", "B", 2),
        ("..pkg.consts", "C", "C", 2),
        (".", "consts", "consts", 3),
    ]


def test_assignment_lines_are_the_last_of_every_target() -> None:
    tree = ast.parse("A = 1\nB, (C, *D) = x\nA += 2\nE: int = 3\nF[0] = 4\nG.h = 5\n")
    assert assignment_lines(tree.body) == {"A": 3, "B": 2, "C": 2, "D": 2, "E": 4}
