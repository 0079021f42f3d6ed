"""Files shmlint creates on request (``--output``, ``--write-baseline``): never written through a link, and every
failure (a missing folder, a full disk, no permission) a message naming the path and the reason.

A symbolic link planted where the report goes (``shmlint.sarif -> ~/.bashrc`` in a pull request) would otherwise
have the run overwrite its target.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class OutputError(Exception):
    """A file that could not be written; the message names it and says why."""


def write_text_file(path: Path, text: str, what: str) -> None:
    """Create or replace ``path`` with ``text`` (UTF-8); ``what`` names the file in messages (``report``)."""
    if os.path.islink(path):
        raise OutputError(f"{path}: is a symbolic link: the {what} is not written through it (name its target)")
    try:
        handle = os.open(path, _FLAGS, 0o666)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write the {what}: {exc.strerror or exc}") from None
    try:
        with open(handle, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write the {what}: {exc.strerror or exc}") from None
