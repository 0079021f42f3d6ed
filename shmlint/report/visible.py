"""Control characters from file names and YAML values made visible before they reach a terminal or a CI log.

A container named ``"c\\e]0;TITLE\\a\\e[2J"`` would otherwise retitle and clear the terminal of whoever reads the
report, and a newline would forge a report line. C0 and C1 controls, DEL and the bidirectional overrides that
reorder what is shown ("Trojan source") are written as ``\\xNN``/``\\uNNNN`` escapes; nothing else changes.
"""

from __future__ import annotations

import re

from shmlint.lazy_regex import LazyRegex

_UNSAFE = LazyRegex("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` with every control character escaped (a tab too: one finding is one line)."""
    if text.isprintable():  # no control or format character at all (what _UNSAFE matches is never printable)
        return text
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text
