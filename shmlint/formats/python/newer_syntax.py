"""Whether Python code the running interpreter rejects may be valid for a newer one: shmlint's Python can be older
than the project's, and a file written for Python 3.12 (f-strings reusing their quotes, with backslashes or comments,
PEP 701; ``type`` aliases and type parameter lists, PEP 695, with 3.13's defaults) is no defect of the file.

Said from the error alone, never by rewriting and parsing again (a rewrite that missed would report an error the
user never wrote, and fail the gate): such a file is a note that it was not checked. A line-anchored pattern and a
message test: linear in the line, whatever it holds.
"""

from __future__ import annotations

import sys

from shmlint.lazy_regex import LazyRegex

#: a statement of newer syntax, at the start of the rejected line: ``type X = ...``, ``def f[T](...)``,
#: ``class C[T]:`` (their type parameter lists are 3.12's; their defaults 3.13's)
_NEWER_STATEMENT = LazyRegex(
    r"[ \t]*(?:type[ \t]+\w+[ \t]*[\[=]|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[|class[ \t]+\w+[ \t]*\[)"
)
#: the Python that reads all of them
_NEWEST_NAMED = (3, 13)


def may_be_newer(message: str, line: str) -> bool:
    """Whether a rejection (``message`` on ``line``) may be a newer Python's syntax: any f-string complaint of a
    Python before 3.12 (PEP 701 changed what an f-string may hold), or a rejected ``type``/generic statement."""
    if sys.version_info < (3, 12) and message.startswith(("f-string", "unterminated string literal")):
        return message.startswith("f-string") or "f'" in line or 'f"' in line
    return sys.version_info < _NEWEST_NAMED and _NEWER_STATEMENT.match(line) is not None
