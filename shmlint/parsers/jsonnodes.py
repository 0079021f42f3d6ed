"""JSON read into the same position-carrying nodes as YAML (``shmlint.parsers.yamlnodes``).

The standard library's ``json`` keeps no positions, and every finding needs a line and column. JSON is YAML 1.2
flow syntax, so the project's YAML node reader gives each value its position with the same bounds on work (event
count, nesting depth, nothing constructed). Two differences are handled here, nothing else is written twice:

- ``json`` decides what is JSON at all. YAML also accepts a trailing comma, a comment or an unquoted word, which
  the AWS CLI and CloudFormation refuse, so such a file is reported where ``json`` stops, as they would.
- libyaml refuses UTF-16 surrogate-pair escapes (``\\ud83d\\ude00``), which JSON allows: they are replaced by an
  escape of the same length before composing, so every offset still points into the file. Only the text of such
  a string changes, and no setting shmlint reads is spelled with one.
"""

from __future__ import annotations

import json

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.yamlnodes import Node, YamlError, compose
from shmlint.source import SourceText

#: an escaped surrogate (``\ud800``-``\udfff``) after an even number of backslashes (an odd count escapes the
#: backslash itself, and the ``u`` is then plain text); bounded: fixed width after the backslash run
_SURROGATE = LazyRegex(r"(?<!\\)((?:\\\\)*)\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def check_json(source: SourceText) -> None:
    """Raise ``YamlError`` (the reader-neutral syntax error) with the position where ``json`` stops."""
    try:
        json.loads(source.text, parse_int=str)  # syntax only: no int() of a 5000-digit literal
    except json.JSONDecodeError as exc:
        line, column = source.position(exc.pos)
        raise YamlError(f"invalid JSON: {exc.msg}", line, column, exc.pos) from None
    except RecursionError:
        raise YamlError("invalid JSON: nesting too deep to read", 1, 1, 0) from None


def compose_json(source: SourceText) -> list[Node]:
    """The file's one value as nodes, after ``check_json``; raises ``YamlError`` (or ``TooComplex``)."""
    check_json(source)
    text = source.text
    if "\\u" in text:
        text = _SURROGATE.sub(lambda match: match.group(1) + "\\u003f", text)
    return compose(source.with_text(text))
