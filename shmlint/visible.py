"""Control characters from file names and YAML values made visible before they reach a terminal or a CI log, and
values quoted in messages cut to a short excerpt.

A container named ``"c\\e]0;TITLE\\a\\e[2J"`` would otherwise retitle and clear the terminal of whoever reads the
report, and a newline would forge a report line. C0 and C1 controls, DEL and the bidirectional overrides that
reorder what is shown ("Trojan source") are written as ``\\xNN``/``\\uNNNN`` escapes; nothing else changes.
A message quotes at most an excerpt of a value: a file read by mistake (a planted link) or an alias bomb stays out
of the log. Where the reader renders Markdown, a value is escaped for it too (``[x](https://...)`` in a container
name would be a link in an editor's hover).
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


#: the most of a value a message quotes: its first and last characters (a rule code, a size, a short pattern fit)
QUOTED_HEAD, QUOTED_TAIL = 32, 13


def clipped(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters, cut at the end: a name or evidence quoted in a short message."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def excerpt(text: str, head: int, tail: int, mark: str = "...") -> str:
    """``text``, or its first ``head`` and last ``tail`` characters around ``mark`` when it is longer."""
    return text if len(text) <= head + tail + len(mark) else f"{text[:head]}{mark}{text[len(text) - tail :]}"


def quoted(value: object) -> str:
    """A value in a message: quoted, a short excerpt, every control character escaped."""
    return f"'{visible(excerpt(str(value), QUOTED_HEAD, QUOTED_TAIL))}'"


#: what makes Markdown anywhere in a line (links, images, emphasis, code, strikethrough, table cells, HTML), escaped
_MARKDOWN = str.maketrans({**{char: f"\\{char}" for char in "\\`*_[]|~"}, "<": "&lt;", ">": "&gt;", "&": "&amp;"})
#: what makes a block at the start of a line (a heading, a list item, a setext underline)
_BLOCK_START = LazyRegex(r"^(\s*)([#+=-]|\d+(?=[.)]))")


def markdown(text: str) -> str:
    """``text`` shown as itself in Markdown (a table cell, an editor's hover): on one line, no link, emphasis,
    code, heading, list or HTML made of a file name or a YAML value."""
    return _BLOCK_START.sub(_escape_block, visible(text).translate(_MARKDOWN))


def _escape_block(match: re.Match[str]) -> str:
    marker = match.group(2)
    return f"{match.group(1)}\\{marker}" if not marker[0].isdigit() else f"{match.group(1)}{marker}\\"
