"""One reading of numbers from hostile text, for every format: ASCII digits only, bounded length and value.

``str.isdigit`` is true for ``²`` and ``١`` (which ``int`` then refuses or reads as 1), and ``int`` of 5000 digits
raises: either one, unguarded, stopped a whole run. Every count, size and index shmlint reads from a file, an
argument or its own configuration goes through here, and an unreadable or out-of-range value is a result the caller
reports (with its file and line), never an exception.
"""

from __future__ import annotations

import re
import sys

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple

#: above any count, size in bytes or line number a real file holds (2**63 - 1, the largest docker and Kubernetes
#: take); a longer run of digits is refused before it is converted
MAX_INT = 2**63 - 1
MAX_DIGITS = len(str(MAX_INT))
#: a decimal literal longer than this is not a real setting (``float`` of 5000 digits is slow or infinite)
MAX_DECIMAL_CHARS = 64

#: a run of digits longer than ``int`` converts: where a parser that raised a bare ``ValueError`` stopped
_LONG_DIGITS = LazyRegex(rf"[0-9_]{{{sys.get_int_max_str_digits() + 1},}}")
_DECIMAL = LazyRegex(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


class ReadInt(NamedTuple):
    """A whole number read from text: ``value`` when it is one within bounds, else ``problem`` says why not."""

    value: int | None
    problem: str = ""


def read_int(text: str, *, maximum: int = MAX_INT) -> ReadInt:
    """``text`` (surrounding blanks allowed) as a non-negative whole number no greater than ``maximum``."""
    digits = text.strip()
    if not digits or not digits.isascii() or not digits.isdigit():
        return ReadInt(None, "not a whole number")
    significant = digits.lstrip("0") or "0"
    if len(significant) > MAX_DIGITS or int(significant) > maximum:
        return ReadInt(None, f"out of range (at most {maximum})")
    return ReadInt(int(significant))


def ascii_int(text: str, *, maximum: int = MAX_INT) -> int | None:
    """``read_int``'s value, for callers that treat anything unreadable as unknown."""
    return read_int(text, maximum=maximum).value


def ascii_float(text: str) -> float | None:
    """A finite decimal written in ASCII (``1``, ``0.5``, ``-2e3``), None for anything else or longer than
    ``MAX_DECIMAL_CHARS``."""
    literal = text.strip()
    if len(literal) > MAX_DECIMAL_CHARS or _DECIMAL.fullmatch(literal) is None:
        return None
    number = float(literal)
    return number if number - number == 0 else None  # inf and nan are not settings


def bounded_int(value: object, *, maximum: int = MAX_INT) -> int | None:
    """A parsed integer (JSON, TOML, Python literal) within ``0..maximum``, else None: ``str`` of a huge one
    raises, and no real count is that large. ``bool`` is not a number here."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= maximum:
        return None
    return value


def long_number_place(text: str) -> tuple[int, int]:
    """Line and column (1-based) of the first run of digits too long for ``int`` (TOML and YAML readers raise a
    bare ``ValueError`` there, without a place); the end of the text when there is none."""
    found = _LONG_DIGITS.search(text)
    offset = found.start() if found else len(text)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1
