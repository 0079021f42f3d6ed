"""The paths git tracks in a work tree, read from its index file.

A ``.gitignore`` pattern leaves out only files git does not track: a file added before the pattern (or with
``git add -f``) is in every clone, and a CI gate that skipped it would pass a workload that runs. The index is read
as data, never by running git: a checked repository's own configuration can make git run commands
(``core.fsmonitor``), and a pull request must not get a command run on the CI machine.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import re
import stat
import struct

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.source import InputError, read_bytes

#: larger than the index of any repository a linter walks (about 100 bytes a file); a larger one is not read
MAX_INDEX_BYTES = 64 * 1024 * 1024
#: what a ``.git`` file (a linked work tree, a submodule) may hold: one ``gitdir:`` line
_GITDIR_FILE_BYTES = 4096
#: ctime, mtime, dev, ino, mode, uid, gid, size: the fixed fields before an entry's object name
_STAT_BYTES = 40
_EXTENDED = 0x4000
_NAME_LENGTH = 0x0FFF
#: longer than any path git writes on Linux (PATH_MAX is 4096): a longer name is no index git wrote
_NAME_BYTES_MAX = 4096


class TrackedPaths(NamedTuple):
    """What git tracks, as POSIX paths relative to the top of the work tree."""

    files: frozenset[str]
    ordered: tuple[str, ...]  # the same, sorted: a folder holds a tracked file when one sorts right after it

    def holds(self, path: str, is_dir: bool) -> bool:
        """Whether git tracks this file, or a file in this folder (a submodule and a sparse index's folder are
        entries of their own)."""
        if path in self.files or not is_dir:
            return path in self.files
        below = path + "/"
        at = bisect.bisect_left(self.ordered, below)
        return at < len(self.ordered) and self.ordered[at].startswith(below)


def tracked_paths(top: str) -> TrackedPaths | str | None:
    """The paths the index of the work tree at ``top`` holds (none before the first ``git add``); None where
    ``top`` holds no ``.git``; why not, where the index is there but not read (a link, too large, a format this
    reader does not know, such as a split index): then ``.gitignore`` decides alone, and the walk says so."""
    found = _index_file(top)
    if found is None:
        return None
    index, followed = found
    if not followed:
        return index  # why not
    if not os.path.lexists(index):
        return TrackedPaths(frozenset(), ())
    data = _read_regular(index, MAX_INDEX_BYTES)
    if data is None:
        return f"not a regular file of at most {MAX_INDEX_BYTES // (1024 * 1024)} MiB"
    names = _entry_names(data)
    if names is None:
        return "a split index or another form this reader does not know"
    files = frozenset(name.rstrip("/") for name in names)  # a sparse index writes a folder entry as ``dir/``
    return TrackedPaths(files, tuple(sorted(files)))


def _index_file(top: str) -> tuple[str, bool] | None:
    """``.git/index``, or the index of the git folder a ``.git`` file names, and True; None without a ``.git``.
    A ``.git`` that is a link is not followed (a pull request could point it anywhere): why, and False."""
    dot_git = os.path.join(top, ".git")
    try:
        mode = os.lstat(dot_git).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return os.path.join(dot_git, "index"), True
    if not stat.S_ISREG(mode):
        return ".git is a link, not followed", False
    text = _read_regular(dot_git, _GITDIR_FILE_BYTES)
    line = text.decode("utf-8", "surrogateescape").strip() if text is not None else ""
    gitdir = line.removeprefix("gitdir:").strip()
    folder = os.path.join(top, gitdir) if line.startswith("gitdir:") and gitdir and "\0" not in gitdir else ""
    if not folder or not os.path.isdir(folder):
        return ".git names no git folder", False
    return os.path.join(folder, "index"), True


def _read_regular(path: str, limit: int) -> bytes | None:
    """A regular file's bytes when it holds at most ``limit`` (``source.read_bytes``: a FIFO or a device is never
    opened); None for anything else."""
    try:
        return read_bytes(path, limit)
    except (InputError, ValueError):  # ValueError: a NUL in the name
        return None


def _entry_names(data: bytes) -> list[str] | None:
    """The path of each entry of an index file (versions 2 to 4, SHA-1 or SHA-256 object names); None for
    anything else. The hash length is not written in the index: the one whose first entry's name is where its
    length says is taken."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version, count = struct.unpack_from(">II", data, 4)
    if version not in (2, 3, 4):
        return None
    for hash_bytes in (20, 32):
        names = _names(data, version, count, hash_bytes)
        if names is not None:
            return names
    return None


def _names(data: bytes, version: int, count: int, hash_bytes: int) -> list[str] | None:
    names: list[str] = []
    previous = b""
    position = 12
    spent = 0
    flags_at = _STAT_BYTES + hash_bytes
    try:
        for _ in range(count):
            start = position
            (flags,) = struct.unpack_from(">H", data, start + flags_at)
            position = start + flags_at + 2 + (2 if flags & _EXTENDED and version >= 3 else 0)
            if version == 4:
                strip, position = _varint(data, position)
                if strip > len(previous):
                    return None
                end = data.index(b"\0", position)
                name = previous[: len(previous) - strip] + data[position:end]
                position = end + 1
            else:
                end = data.index(b"\0", position)
                name = data[position:end]
                position = start + ((end - start) // 8 + 1) * 8  # padded with 1-8 NULs to a multiple of 8
            length = flags & _NAME_LENGTH
            if length != min(len(name), _NAME_LENGTH) or not name or len(name) > _NAME_BYTES_MAX:
                return None
            spent += len(name)
            if spent > MAX_INDEX_BYTES:  # prefix compression can make names outgrow the file: not past its bound
                return None
            names.append(name.decode("utf-8", "surrogateescape"))
            previous = name
        if _split(data, position, hash_bytes):
            return None
    except (struct.error, ValueError, IndexError):  # the file ends inside an entry, or a prefix length overflows
        return None
    return names


def _split(data: bytes, position: int, hash_bytes: int) -> bool:
    """Whether the extensions after the entries hold ``link``: a split index, whose entries are only the changes
    to a shared index elsewhere (read alone, its tracked files would look untracked)."""
    while position + 8 <= len(data) - hash_bytes:
        signature, size = data[position : position + 4], struct.unpack_from(">I", data, position + 4)[0]
        if signature == b"link":
            return True
        position += 8 + size
    return False


def _varint(data: bytes, position: int) -> tuple[int, int]:
    """Git's offset encoding (a version 4 entry's prefix length): seven bits a byte, each continuation adding
    one before shifting, so every value has exactly one spelling."""
    byte = data[position]
    position += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[position]
        position += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
        if value > _NAME_BYTES_MAX:  # longer than any path: a hostile run of continuation bytes stops here
            raise ValueError("prefix length out of range")
    return value, position


#: submodules of one ``.gitmodules`` kept (the file itself is within the run's file size)
MAX_SUBMODULES = 64
_SUBMODULE_PATH = LazyRegex(r"^[ \t]*path[ \t]*=[ \t]*(\S[^\r\n]{0,255}?)[ \t]*\r?$", re.MULTILINE, ("path",))


def submodule_paths(text: str) -> tuple[str, ...]:
    """The folders a ``.gitmodules`` file names as submodules (``path = vendor/lib``), normalised, in order."""
    found = (posixpath.normpath(m.group(1).strip('"')) for m in _SUBMODULE_PATH.finditer(text))
    return tuple(dict.fromkeys(p for p in found if p not in (".", "..") and not p.startswith(("/", "../"))))[
        :MAX_SUBMODULES
    ]
