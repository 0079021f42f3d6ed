"""A size written inside a mount's option string (``"rw,size=64m"``): replaced on its own characters, in the
kernel's spelling, and only where the file writes there what was read."""

from __future__ import annotations

from shmlint import sizes
from shmlint.model import Edit, Size


def option_size_edit(text: str, size: Size, new_bytes: int) -> list[Edit]:
    """The edit that writes ``new_bytes`` over a tmpfs option's size (``8g``, bare: it sits inside a string), or
    none where the span holds other text (the options were not written as read, or over several lines)."""
    span = size.span
    if text[span.start : span.end] != size.text:
        return []
    return [Edit(span.start, span.end, sizes.format_docker(new_bytes))]
