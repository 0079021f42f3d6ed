"""Files shmlint creates on request (``--output``, ``--write-baseline``): never written through a link, and every
failure (a missing folder, a full disk, no permission) a message naming the path and the reason.

A symbolic link planted where the report goes (``shmlint.sarif -> ~/.bashrc`` in a pull request), or as a folder
on the way (``reports -> ~/.ssh``), would otherwise have the run write outside the tree. So the path is opened one
part at a time from a folder descriptor, each part with ``O_NOFOLLOW``: a link anywhere on it is refused, named,
rather than followed (a system link such as macOS's ``/tmp`` too: name the real folder).
"""

from __future__ import annotations

import errno
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW


class OutputError(Exception):
    """A file that could not be written; the message names it and says why."""


def write_text_file(path: Path, text: str, what: str) -> None:
    """Create or replace ``path`` with ``text`` (UTF-8); ``what`` names the file in messages (``report``)."""
    handle = _create(os.fspath(path), what)
    try:
        with open(handle, "w", encoding="utf-8", errors="backslashreplace") as stream:
            stream.write(text)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write the {what}: {exc.strerror or exc}") from None


def _create(path: str, what: str) -> int:
    """The file's descriptor, reached without following a link at any part of ``path``."""
    parts = [part for part in path.split(os.sep) if part not in ("", ".")]
    if not parts or path.endswith(os.sep):
        raise OutputError(f"{path}: cannot write the {what}: not a file name")
    if os.open not in os.supports_dir_fd:  # no openat here: each part is looked at before the file is opened
        return _create_checked(path, parts, what)
    walked = os.sep if os.path.isabs(path) else ""
    folder = _open(walked or ".", _FOLDER_FLAGS, what, walked or ".", path)
    try:
        for part in parts[:-1]:
            walked = os.path.join(walked, part)
            inner = _open(part, _FOLDER_FLAGS, what, walked, path, folder)
            os.close(folder)
            folder = inner
        return _open(parts[-1], _FLAGS, what, path, path, folder)
    finally:
        os.close(folder)


def _open(name: str, flags: int, what: str, walked: str, path: str, folder: int | None = None) -> int:
    """``name`` opened in ``folder``; a link there is named by the path ``walked`` so far, any other failure by the
    whole ``path``."""
    try:
        return os.open(name, flags, 0o666, dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK) or (exc.errno == errno.ENOTDIR and os.path.islink(walked)):
            raise _linked(walked, what) from None
        raise OutputError(f"{path}: cannot write the {what}: {exc.strerror or exc}") from None


def _create_checked(path: str, parts: list[str], what: str) -> int:
    walked = os.sep if os.path.isabs(path) else ""
    for part in parts:
        walked = os.path.join(walked, part)
        if os.path.islink(walked):
            raise _linked(walked, what)
    return _open(path, _FLAGS, what, path, path)


def _linked(shown: str, what: str) -> OutputError:
    return OutputError(f"{shown}: is a symbolic link: the {what} is not written through it (name its target)")
