"""Whether Python code an older interpreter rejects is valid for a newer one: the 3.12 constructs shmlint's Python
may lack (f-strings reusing their quotes, with backslashes or comments, PEP 701; ``type`` aliases and type
parameter lists, PEP 695) are rewritten into older syntax on the rejected line, and the file parsed again, a few
times at most. Only a file that then parses is called newer Python; one broken for every Python stays an error.
"""

from __future__ import annotations

import ast
import re
import sys

from shmlint.lazy_regex import LazyRegex

#: rejected lines rewritten before giving up (each is one more parse of the file)
MAX_REWRITES = 8
#: what Python 3.11 says of PEP 701 f-strings: a backslash or a comment in an expression, and (when the line's
#: f-string holds its own quote inside braces, ``_REUSED_QUOTE``) an expression cut at that quote
_F_STRING_MESSAGES = frozenset(
    {"f-string expression part cannot include a backslash", "f-string expression part cannot include '#'"}
)
_CUT_AT_QUOTE = frozenset({"f-string: expecting '}'", "f-string: unmatched '('", "f-string: unmatched '['"})
_F_STRING = LazyRegex(r"""[fF][rR]?(?P<quote>["'])""")
_REUSED_QUOTE = LazyRegex(r"""[fF][rR]?(?P<quote>["'])[^"'\n]*\{[^}\n]*(?P=quote)""")
#: ``type Name[params] = value`` and ``def name[params](``, ``class Name[params]``
_TYPE_ALIAS = LazyRegex(r"(?P<head>[ \t]*)type[ \t]+(?P<name>\w+)[ \t]*(?P<rest>[\[=].*)", re.DOTALL)
_GENERIC = LazyRegex(r"(?P<head>[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w+)[ \t]*(?P<rest>\[.*)", re.DOTALL)


def real_error(text: str, error: SyntaxError) -> SyntaxError | None:
    """The error of ``text`` that no newer Python accepts either, None when the file parses once its newer
    constructs are written the older way (``error``: the running Python's first)."""
    lines = text.split("\n")
    for _ in range(MAX_REWRITES):
        number = error.lineno or 0
        older = _older(lines[number - 1], error.msg) if 0 < number <= len(lines) else None
        if older is None:
            return error
        lines[number - 1] = older
        try:
            ast.parse("\n".join(lines))
        except SyntaxError as again:
            error = again
        except (ValueError, RecursionError, MemoryError):
            return error
        else:
            return None
    return error


def _older(line: str, message: str) -> str | None:
    """The line in the syntax of the running Python, or None when it holds no newer construct."""
    if sys.version_info < (3, 12) and (message in _F_STRING_MESSAGES or message in _CUT_AT_QUOTE):
        return _without_f_string(line, message in _CUT_AT_QUOTE)
    alias = _TYPE_ALIAS.fullmatch(line)
    if alias is not None:
        value = _after_brackets(alias["rest"])
        return (
            f"{alias['head']}{alias['name']}{value}" if value is not None and value.lstrip().startswith("=") else None
        )
    generic = _GENERIC.fullmatch(line)
    if generic is not None:
        rest = _after_brackets(generic["rest"])
        return f"{generic['head']}{rest}" if rest is not None else None
    return None


def _without_f_string(line: str, reused: bool) -> str | None:
    """The line with its f-string, from its prefix to the line's last quote of its kind, written as ``""``: the
    expression around it stays whole. ``reused``: only an f-string that holds its own quote inside braces."""
    start = (_REUSED_QUOTE if reused else _F_STRING).search(line)
    if start is None:
        return None
    end = line.rfind(start["quote"])
    return f'{line[: start.start()]}""{line[end + 1 :]}' if end > start.end() - 1 else None


def _after_brackets(text: str) -> str | None:
    """``text`` past the bracketed list it may start with (nested brackets counted), or None when it never
    closes on this line."""
    if not text.startswith("["):
        return text
    depth = 0
    for index, character in enumerate(text):
        depth += {"[": 1, "]": -1}.get(character, 0)
        if depth == 0:
            return text[index + 1 :]
    return None
