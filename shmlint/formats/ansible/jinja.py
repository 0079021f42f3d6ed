"""Jinja in what an Ansible task runs: Ansible renders ``{{ expression }}`` before the shell or the module reads the
text, so here it is a value known only at run time, spelled as a shell variable of the same length named after the
expression (``{{ shm_size }}`` -> ``${shm_size_}``; inside single quotes ``'$shm_size'``, as Ansible's rendering does
not respect shell quotes), so that every offset stays the file's."""

from __future__ import annotations

from collections.abc import Iterable

from shmlint.lazy_regex import LazyRegex
from shmlint.signals import split_image

#: Jinja on one line, bounded: an expression longer than this stays as the words it is written with
_JINJA = LazyRegex(r"\{\{[^\n]{0,200}?\}\}|\{%[^\n]{0,200}?%\}|\{#[^\n]{0,200}?#\}")
_NOT_NAME = LazyRegex(r"[^A-Za-z0-9_]")


def jinja_as_variables(masked: str, spans: Iterable[tuple[int, int]]) -> str:
    """Jinja in the shell of each span (a task's string), length kept: ``{{ x.y }}`` -> ``${x_y___}``, inside
    single quotes ``'$x_y__'`` (the quote closed around the variable, as Ansible renders before the shell reads
    the quotes); ``{% %}`` and ``{# #}`` blanked."""
    pieces: list[str] = []
    done = 0
    for start, end in spans:
        if start < done:
            continue
        pieces.append(masked[done:start])
        quote = ""
        position = start
        for match in _JINJA.finditer(masked, start, end):
            quote = _quote_after(masked, position, match.start(), quote)
            pieces.append(masked[position : match.start()] + _as_variable(match.group(), quoted=quote == "'"))
            position = match.end()
        pieces.append(masked[position:end])
        done = end
    pieces.append(masked[done:])
    return "".join(pieces)


def _quote_after(text: str, start: int, end: int, quote: str) -> str:
    """The shell quote open at ``end`` ("" none, ``'`` or ``"``), reading from ``start`` with ``quote`` open."""
    escaped = False
    for char in text[start:end]:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
    return quote


def _as_variable(text: str, *, quoted: bool) -> str:
    if not text.startswith("{{"):
        return " " * len(text)
    name = _NOT_NAME.sub("_", text[2:-2].strip())
    if not name or name[0].isdigit():
        name = "_" + name
    if quoted:  # close the quote, expand, open it again
        return "'$" + name[: len(text) - 3].ljust(len(text) - 3, "_") + "'"
    return "${" + name[: len(text) - 3].ljust(len(text) - 3, "_") + "}"


def written_image(name: str | None) -> str | None:
    """An image reference as far as the task writes it out: its repository's path parts without Jinja, by which the
    data knows it (``{{ registry }}/dcgm-exporter:{{ version }}`` is ``dcgm-exporter``: audit72a); None where the
    image's own name, the last part, is a template."""
    if not name or "{{" not in name:
        return name or None
    marked = _JINJA.sub("\0", name)  # a placeholder with no ':' or '/' of its own
    if "{{" in marked:  # an expression too long to read: the name is not known
        return None
    repository, _ = split_image(marked)
    parts = repository.split("/")
    if not parts[-1] or "\0" in parts[-1]:
        return None
    return "/".join(part for part in parts if part and "\0" not in part)
