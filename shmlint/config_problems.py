"""Configuration problems in words a user understands, each with its key path and its place in the file.

The JSON Schema says what is allowed (editors read it too); this module turns each of its complaints into a
sentence and finds where the key is written. ruamel.yaml's round-trip loader keeps every key's line and column for
``.shmlint.yaml``; tomllib keeps none, so a ``pyproject.toml`` key is found by a bounded search of the lines of
the ``[tool.shmlint]`` table (a key written as a dotted key elsewhere in the file gets no position, only its
key path). ruamel.yaml and jsonschema, slow to import, are imported only when a configuration file exists.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from shmlint.config_error import RULE_WORDS, ConfigError, KeyPath, Problem, dumps
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.numbers import MAX_INT, bounded_int, long_number_place
from shmlint.visible import QUOTED_HEAD, QUOTED_TAIL, excerpt, quoted

#: values a configuration file may hold with its aliases expanded: a real one has a few hundred
MAX_VALUES = 100_000
#: lines of pyproject.toml searched for a key's position: the search stays linear and bounded on any file
TOML_SEARCH_LINES = 20_000
_TOML_ERROR_PLACE = LazyRegex(r"\(at (?:line (\d+), column (\d+)|end of document)\)")
_TOML_HEADER = LazyRegex(r"\s*\[")
_TYPE_WORDS = {
    "array": "a list",
    "object": "a mapping of keys to values",
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "empty",
}


def _shown(value: Any) -> str:
    """A scalar as written; a list or mapping by its kind only (it may be an alias bomb, or just long)."""
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return dumps(value)


def _kind(value: Any) -> str:
    """A value by its kind only: ``text``, ``a list``, ``a whole number``."""
    kinds = {str: "string", list: "array", dict: "object", bool: "boolean", int: "integer", float: "number"}
    return _TYPE_WORDS.get(next((name for kind, name in kinds.items() if isinstance(value, kind)), "null"), "empty")


class Document(NamedTuple):
    """A configuration file's values as plain data, and how to place a problem in its text."""

    data: Any
    locate: Callable[[Problem], Problem]


# -- reading ----------------------------------------------------------------------------------------------------


def read_document(path: Path) -> Document:
    """The file's ``shmlint`` values; unreadable text or a syntax error is a ``ConfigError`` with its place."""
    from shmlint.infile import CONFIG_MAX_BYTES, InputFileError, read_steering_text

    try:
        text = read_steering_text(path, CONFIG_MAX_BYTES)
    except InputFileError as exc:
        raise ConfigError(path, [Problem((), f"cannot read: {exc}")]) from None
    document = _read_toml(path, text) if path.name == "pyproject.toml" else _read_yaml(path, text)
    huge = [document.locate(Problem(key, f"number out of range (at most {MAX_INT})")) for key in _huge(document.data)]
    if huge:  # a 5000-digit value cannot even be shown (str() of it raises): said before any check quotes it
        raise ConfigError(path, huge)
    return document


def _huge(node: Any, key: KeyPath = (), seen: set[int] | None = None) -> Iterator[KeyPath]:
    """Where the data holds a whole number beyond ``MAX_INT`` either way (each shared node walked once)."""
    seen = set() if seen is None else seen
    if isinstance(node, dict | list):
        if id(node) in seen:
            return
        seen.add(id(node))
        pairs = node.items() if isinstance(node, dict) else enumerate(node)
        for name, value in pairs:
            yield from _huge(value, (*key, name), seen)
    elif isinstance(node, int) and not isinstance(node, bool) and bounded_int(abs(node)) is None:
        yield key


def _read_yaml(path: Path, text: str) -> Document:
    from ruamel.yaml import YAML
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        root = YAML(typ="rt", pure=True).load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (None, None)
        problem = f"{exc.context}, {exc.problem}" if exc.context and exc.problem else exc.problem or exc.context
        raise ConfigError(path, [Problem((), f"not valid YAML: {problem}", line, column)]) from None
    except YAMLError as exc:
        raise ConfigError(path, [Problem((), f"not valid YAML: {exc}")]) from None
    except ValueError:  # only int() of thousands of digits: every syntax error is a YAMLError
        line, column = long_number_place(text)
        raise ConfigError(path, [Problem((), "not valid YAML: number too long", line, column)]) from None
    data = plain({} if root is None else root)
    if _expanded_size(data, {}) > MAX_VALUES:  # validators walk every copy an alias stands for
        problem = Problem((), f"more than {MAX_VALUES:,} values once its aliases are expanded (an alias bomb?)")
        raise ConfigError(path, [problem])
    return Document(data, lambda problem: _place_yaml(root, problem))


def _expanded_size(node: Any, sizes: dict[int, int]) -> int:
    """How many values the data holds with every alias expanded, counted once per shared node."""
    if not isinstance(node, dict | list):
        return 1
    if id(node) not in sizes:
        children = node.values() if isinstance(node, dict) else node
        sizes[id(node)] = 1 + sum(_expanded_size(child, sizes) for child in children)
    return sizes[id(node)]


def _place_yaml(root: Any, problem: Problem) -> Problem:
    """Line and column from ruamel.yaml's round-trip nodes (zero-based there, one-based here)."""
    node: Any = root
    key = problem.key
    try:
        for part in key[:-1]:
            node = node[part]
        if not key:
            return problem._replace(line=1, column=1)
        last, marks = key[-1], node.lc  # ruamel.yaml's CommentedMap and CommentedSeq keep them
        if isinstance(node, list):
            line, column = marks.item(last)
        else:
            line, column = marks.key(last) if problem.on_key else marks.value(last)
    except (KeyError, IndexError, TypeError, AttributeError):
        return problem
    return problem._replace(line=line + 1, column=column + 1)


def _read_toml(path: Path, text: str) -> Document:
    import tomllib

    from shmlint.parsers.toml_tables import load_toml

    try:
        tool = load_toml(text).get("tool", {})
    except tomllib.TOMLDecodeError as exc:
        place = _TOML_ERROR_PLACE.search(str(exc))
        line, column = (None, None) if place is None else (text.count("\n") + 1, 1)  # "at end of document"
        if place is not None and place.group(1):
            line, column = int(place.group(1)), int(place.group(2))
        message = _TOML_ERROR_PLACE.sub("", str(exc)).strip()
        raise ConfigError(path, [Problem((), f"not valid TOML: {message}", line, column)]) from None
    data = tool.get("shmlint", {}) if isinstance(tool, dict) else {}
    lines = text.splitlines()[:TOML_SEARCH_LINES]
    return Document(data, lambda problem: _place_toml(lines, problem))


def _table(lines: list[str], name: str) -> tuple[int, int] | None:
    """First and end line index of the body of the table ``[name]`` (spaces around dots allowed)."""
    parts = [re.escape(part) for part in name.split(".")]
    header = re.compile(r"\s*\[\s*" + r"\s*\.\s*".join(parts) + r"\s*\]\s*(#.*)?$")
    for number, line in enumerate(lines):
        if header.match(line):
            end = next((n for n in range(number + 1, len(lines)) if _TOML_HEADER.match(lines[n])), len(lines))
            return number + 1, end
    return None


def _place_toml(lines: list[str], problem: Problem) -> Problem:
    """The line of the problem's key in ``[tool.shmlint]`` (or its own ``[tool.shmlint.<key>]`` table)."""
    if not problem.key:
        return problem
    keys = [part for part in problem.key if isinstance(part, str)]
    found = _key_line(lines, "tool.shmlint", keys[0])
    if len(keys) > 1:  # a key of a sub-table: written inline on the key's line, or as its own table
        table = f"tool.shmlint.{keys[0]}"
        found = _key_line(lines, table, keys[1]) or found
    if found is None:
        return problem
    number, column = found
    if problem.value is not None and not problem.on_key:  # a list item: its quoted text on the key's lines
        for index in range(number, min(number + 50, len(lines))):
            at = max(lines[index].find(f'"{problem.value}"'), lines[index].find(f"'{problem.value}'"))
            if at >= 0:
                return problem._replace(line=index + 1, column=at + 1)
            if index > number and re.match(r"\s*([\w\"'-]+\s*=|\[)", lines[index]):
                break
    return problem._replace(line=number + 1, column=column + 1)


def _key_line(lines: list[str], table: str, key: str) -> tuple[int, int] | None:
    body = _table(lines, table)
    if body is None:
        return None
    pattern = re.compile(r"(\s*)(?:" + re.escape(key) + r'|"' + re.escape(key) + r'"|\'' + re.escape(key) + r"')\s*=")
    for number in range(*body):
        match = pattern.match(lines[number])
        if match:
            return number, len(match.group(1))
    own = _table(lines, f"{table}.{key}")
    return (own[0] - 1, 0) if own else None


def plain(node: Any, seen: dict[int, Any] | None = None) -> Any:
    """Round-trip nodes as the dicts, lists, strings and numbers the rest of shmlint expects. A node that aliases
    share is converted once and stays shared: an alias bomb stays as small as its text."""
    seen = {} if seen is None else seen
    if isinstance(node, Mapping | list) and id(node) in seen:
        return seen[id(node)]
    if isinstance(node, Mapping):
        converted: dict[str, Any] = {}
        seen[id(node)] = converted
        converted.update((str(key), plain(value, seen)) for key, value in node.items())
        return converted
    if isinstance(node, list):
        items: list[Any] = []
        seen[id(node)] = items
        items.extend(plain(item, seen) for item in node)
        return items
    if isinstance(node, bool) or node is None:
        return node
    for kind in (str, int, float):
        if isinstance(node, kind):
            return kind(node)
    return node


# -- the schema's complaints in words ---------------------------------------------------------------------------


def schema_problems(data: Any, schema: Mapping[str, Any]) -> list[Problem]:
    """Every schema violation, each said once in words (never the schema's regular expression)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    problems = [problem for error in validator.iter_errors(data) for problem in _explain(error, schema)]
    return list(dict.fromkeys(problems))


def _explain(error: Any, schema: Mapping[str, Any]) -> Iterator[Problem]:
    key: KeyPath = tuple(error.absolute_path)
    kind, instance, expected = error.validator, error.instance, error.validator_value
    definitions = schema.get("$defs", {})
    if kind == "additionalProperties" and isinstance(instance, Mapping):
        import difflib

        known = list(error.schema.get("properties", {}))
        for name in (name for name in instance if name not in known):
            close = difflib.get_close_matches(str(name), known, n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            yield Problem((*key, name), f"unknown key ({hint}known keys: {', '.join(known)})", on_key=True)
    elif kind == "pattern" and "propertyNames" in error.relative_schema_path:
        yield Problem((*key, instance), f"{quoted(instance)} {_pattern_words(error.schema, definitions)}", on_key=True)
    elif kind == "pattern":
        yield Problem(key, f"{quoted(instance)} {_pattern_words(error.schema, definitions)}", value=str(instance))
    elif kind == "type":
        wanted = " or ".join(_TYPE_WORDS.get(t, t) for t in ([expected] if isinstance(expected, str) else expected))
        shown = _shown(instance) if key else _kind(instance)  # a whole file that is not a mapping: not quoted
        yield Problem(key, f"must be {wanted}, not {shown}", value=_value(instance))
    elif kind == "enum":
        yield Problem(
            key, f"must be one of {', '.join(map(str, expected))}, not {_shown(instance)}", value=_value(instance)
        )
    elif kind == "uniqueItems":
        counts = Counter(_shown(item) for item in instance)
        yield Problem(key, f"lists {', '.join(item for item, n in counts.items() if n > 1)} more than once")
    elif kind == "minLength":
        yield Problem(key, "must not be empty", value=_value(instance))
    elif kind == "minimum":
        yield Problem(key, f"must be at least {expected}, not {_shown(instance)}")
    elif kind == "oneOf" and error.schema == definitions.get("size"):
        yield Problem(key, f"{_shown(instance)} is not a size (e.g. 8Gi or 8g, or a whole number of bytes)")
    else:
        yield Problem(key, excerpt(error.message, 2 * QUOTED_HEAD, 2 * QUOTED_TAIL))


def _pattern_words(where: Mapping[str, Any], definitions: Mapping[str, Any]) -> str:
    return RULE_WORDS if where == definitions.get("rule") else "is not allowed here"


def _value(instance: Any) -> str | None:
    return instance if isinstance(instance, str) else None
