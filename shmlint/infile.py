"""Files that steer a run (``.shmlint.yaml``, ``pyproject.toml``, a baseline, ``.gitignore``), read only when they
are regular files of the repository being checked.

A pull request can plant ``.shmlint.yaml -> ~/.ssh/id_ed25519``: a link followed would put a runner file into
the run's messages. So the file's real path must stay inside the repository the link sits in (the top of its git
work tree, else its own folder) and outside ``.git`` (where a checkout keeps its token); a FIFO or a device is
refused without blocking, and the text read is capped. The counterpart of ``shmlint.outfile``.
"""

from __future__ import annotations

import os
import stat

#: a configuration file's cap: real ones hold a few hundred bytes, a pyproject.toml a few dozen kilobytes
CONFIG_MAX_BYTES = 1 << 20
_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)  # a FIFO does not block the open
_FLAGS |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class InputFileError(Exception):
    """A steering file that is not read; the message says why (never quoting its content), the caller names it."""


def repository_top(folder: str) -> str:
    """The top of the git work tree holding ``folder`` (a ``.git`` folder or file there), else ``folder``."""
    here = os.path.abspath(folder)
    while not os.path.lexists(os.path.join(here, ".git")):
        above = os.path.dirname(here)
        if above == here:
            return os.path.abspath(folder)
        here = above
    return here


def leaves_tree(path: str) -> bool:
    """Whether a link on the way to ``path`` leads out of its repository or into a ``.git`` folder."""
    return leaves(path, repository_top(os.path.dirname(os.path.abspath(path))))


def links_out(path: str) -> bool:
    """``leaves_tree`` for a file to check or show, asked only when a link is on the way (cheap otherwise)."""
    return os.path.realpath(path) != os.path.abspath(path) and leaves_tree(path)


def leaves(path: str, top: str) -> bool:
    """Whether ``path``, its links followed, is outside the folder ``top`` or inside a ``.git`` folder there."""
    top, real = os.path.realpath(top), os.path.realpath(path)
    if os.path.commonpath([top, real]) != top:
        return True
    return ".git" in os.path.relpath(real, top).split(os.sep)


def read_steering_text(path: str | os.PathLike[str], limit: int) -> str:
    """The UTF-8 text of ``path``, at most ``limit`` bytes; otherwise an ``InputFileError``."""
    path = os.fspath(path)
    if leaves_tree(path):
        raise InputFileError("a link out of the repository, or a file inside .git")
    try:
        handle = os.open(os.path.realpath(path), _FLAGS)
    except OSError as exc:
        raise InputFileError(exc.strerror or str(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            raise InputFileError("not a regular file")
        data = os.read(handle, limit + 1)
    except OSError as exc:
        raise InputFileError(exc.strerror or str(exc)) from None
    finally:
        os.close(handle)
    if len(data) > limit:
        raise InputFileError(f"larger than {limit:,} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(f"not UTF-8 text (byte {exc.start})") from None
