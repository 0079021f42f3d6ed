"""The commands a Python project installs (its console scripts), read from its packaging files' text: a README's
``odtk train ...`` runs ``odtk.main:main`` once the image has ``pip install``-ed the repository (setup.py's
``entry_points={'console_scripts': ['odtk=odtk.main:main']}``, NVIDIA/retinanet-examples).

pyproject.toml's ``[project.scripts]`` and Poetry's ``[tool.poetry.scripts]`` (``tomllib``), setup.cfg's
``[options.entry_points] console_scripts`` (``configparser``) and setup.py's ``entry_points`` written as a literal in
its ``setup(...)`` call or bound once to a name (``ast``; the file is never run).
"""

from __future__ import annotations

import ast
import configparser
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.work import beyond

#: the packaging files read, at the top of the folders a command's files are looked for in
PACKAGING_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
#: the most tokens of a setup.py handed to ``ast.parse`` (``parsers.work``): real ones are a few hundred lines
MAX_SETUP_TOKENS = 100_000
#: ``name = package.module:function [extras]``, as an entry point is written (the module is what runs)
_ENTRY = LazyRegex(
    r"\s*([A-Za-z0-9][A-Za-z0-9._-]{0,127})\s*=\s*([A-Za-z_][\w]{0,63}(?:\.[A-Za-z_][\w]{0,63}){0,15})"
    r"\s*(?::\s*[A-Za-z_][\w.]{0,127})?\s*(?:\[[^\]]{0,256}\])?\s*"
)


def console_scripts(file_name: str, text: str) -> dict[str, str]:
    """The console scripts one packaging file installs: script name -> the module it runs. Empty for a file that
    does not parse or says none."""
    if file_name == "pyproject.toml":
        return dict(_from_pyproject(text))
    if file_name == "setup.cfg":
        return dict(_from_setup_cfg(text))
    if file_name == "setup.py":
        return dict(_from_setup_py(text))
    return {}


def _entry(text: str) -> tuple[str, str] | None:
    found = _ENTRY.fullmatch(text)
    return (found[1], found[2]) if found else None


def _from_pyproject(text: str) -> Iterator[tuple[str, str]]:
    from shmlint.parsers.toml_tables import load_toml

    try:
        data = load_toml(text)
    except (ValueError, RecursionError):  # TOMLDecodeError is a ValueError
        return
    tool = data.get("tool")
    poetry = tool.get("poetry") if isinstance(tool, dict) else None
    project = data.get("project")
    for table in (
        project.get("scripts") if isinstance(project, dict) else None,
        poetry.get("scripts") if isinstance(poetry, dict) else None,
    ):
        if not isinstance(table, dict):
            continue
        for name, value in table.items():
            reference = value if isinstance(value, str) else value.get("reference") if isinstance(value, dict) else ""
            found = _entry(f"{name}={reference}") if isinstance(reference, str) else None
            if found is not None:
                yield found


def _from_setup_cfg(text: str) -> Iterator[tuple[str, str]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
        value = parser.get("options.entry_points", "console_scripts", fallback="")
    except configparser.Error:
        return
    yield from filter(None, map(_entry, value.splitlines()))


def _from_setup_py(text: str) -> Iterator[tuple[str, str]]:
    if beyond(text, MAX_SETUP_TOKENS) is not None:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    bound: dict[str, list[ast.expr]] = {}
    for statement in tree.body:  # a name bound at the top of the file (``entry_points = {...}``)
        if isinstance(statement, ast.Assign):
            for name in statement.targets:
                if isinstance(name, ast.Name):
                    bound.setdefault(name.id, []).append(statement.value)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node.func) == "setup"):
            continue
        for keyword in node.keywords:
            if keyword.arg != "entry_points":
                continue
            value = keyword.value
            if isinstance(value, ast.Name) and len(bound.get(value.id, ())) == 1:
                value = bound[value.id][0]
            yield from _literal_scripts(value)


def _called(func: ast.expr) -> str:
    """``setup`` for ``setup(...)``, ``setuptools.setup(...)`` and the like."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _literal_scripts(value: ast.expr) -> Iterator[tuple[str, str]]:
    """The console scripts of an ``entry_points`` dict literal: a list of strings, or one string of lines."""
    if not isinstance(value, ast.Dict):
        return
    for key, item in zip(value.keys, value.values, strict=True):
        if not (isinstance(key, ast.Constant) and key.value == "console_scripts"):
            continue
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            lines = item.value.splitlines()
        elif isinstance(item, (ast.List, ast.Tuple)):
            lines = [e.value for e in item.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        else:
            continue
        yield from filter(None, map(_entry, lines))
