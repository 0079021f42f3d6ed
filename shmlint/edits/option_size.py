"""A size written over on its own characters, and only where the file writes there what was read: a command
line's ``--shm-size``, a size inside a mount's option string (``"rw,size=64m"``, in the kernel's spelling)."""

from __future__ import annotations

from shmlint import sizes
from shmlint.model import Edit, Size


def written_as_read(text: str, size: Size) -> bool:
    """The size's characters are the file's own where it points (``--shm-size="64"m`` reads ``64m``, but its
    quotes sit among those characters; an option string's size may be spanned on the whole string): only then is
    a new size written over them."""
    return text[size.span.start : size.span.end] == size.text


def option_size_edit(text: str, size: Size, new_bytes: int) -> list[Edit]:
    """The edit that writes ``new_bytes`` over a tmpfs option's size (``8g``, bare: it sits inside a string), or
    none where the span holds other text (the options were not written as read, or over several lines)."""
    if not written_as_read(text, size):
        return []
    return [Edit(size.span.start, size.span.end, sizes.format_docker(new_bytes))]
