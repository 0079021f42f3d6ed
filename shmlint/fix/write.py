"""Writing a fixed file so that it is always either the old bytes or the new bytes, never something between, never
outside the checked folders, and never over an edit another program made meanwhile.

The protocol (``write_atomic``): resolve the path and refuse a link that leaves the checked roots; open the file
(no link followed) and keep it open; check it holds what was read; write a temp file beside it with the same
owner, group and mode (setuid/setgid dropped, as editors do) and sync it; read the open file again, then check
that the path still names it, unwritten, immediately before the rename (an editor's save, a new file renamed over
the path, is seen there); after the rename, wait until no other process has the old file open for writing (a
Linux lease tells), then read it once more through the descriptor still open: a write that landed between the
last check and the rename, or through a handle opened before it, is found there and the file gets that text back.

``prepare`` does everything up to the written temp file and ``commit`` the rest (``write_atomic`` is the two in a
row): ``fix --write`` prepares a group of files before committing any, so that the first sync carries the data of
the whole group (one journal commit where there were sixteen); a run killed meanwhile leaves temp files, which the
next run removes (``remove_stale_temp_files``), and never a file between its two versions.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from shmlint.lazy_regex import LazyRegex

TEMP_SUFFIX = ".shmlint-tmp"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)


#: exactly the names ``_temp_file`` gives (``tempfile.mkstemp``'s eight random characters): ``.<name>.<random>``
_TEMP_NAME = LazyRegex(r"\.(.+)\.[a-z0-9_]{8}" + re.escape(TEMP_SUFFIX), re.DOTALL)


def remove_stale_temp_files(folders: set[Path], started: float) -> None:
    """Remove our own temp files that a killed run left beside the files it was writing: named exactly as ours
    (``.<name>.<random>.shmlint-tmp``) beside an existing ``<name>``, regular files, last written before this run
    ``started`` (a time.time()): nothing else is touched, and a run writing at the same time keeps its own."""
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if (match := _TEMP_NAME.fullmatch(name)) is None or not os.path.lexists(folder / match.group(1)):
                continue
            with contextlib.suppress(OSError):
                info = os.lstat(folder / name)
                if stat.S_ISREG(info.st_mode) and info.st_mtime < started:
                    os.unlink(folder / name)


class WriteError(Exception):
    """A file that could not be written; the message is meant for people."""


class FileChanged(WriteError):
    """The file no longer holds what was read and fixed: another program wrote to it meanwhile."""

    def __init__(self) -> None:
        super().__init__("file changed since it was read: not changed (run shmlint fix again)")


def write_atomic(path: Path, data: bytes, original: bytes, roots: Sequence[Path] = ()) -> None:
    """Replace the file (a link's target, keeping the link) through a temp file in the same folder.

    ``roots``: the checked folders (a named file stands for its folder); a link whose target is outside all of
    them is refused (default: the folder ``path`` is in). Refuses too when the file changed since it was read,
    is read-only, has other hard links, or its owner cannot be kept.
    """
    commit(prepare(path, data, original, roots))


class PendingWrite:
    """A fix in its temp file beside the file, written but not yet synced or renamed (``prepare``); ``commit``
    finishes the protocol, ``abandon`` takes it back. Preparing a group of files before committing any lets the
    file system sync them together: the first file's sync carries the data of the others, one journal commit
    instead of one a file."""

    __slots__ = ("before", "data", "handle", "old", "original", "real", "temp")

    def __init__(
        self, real: Path, old: int, before: os.stat_result, original: bytes, data: bytes, temp: str, handle: int
    ) -> None:
        self.real, self.old, self.before, self.original = real, old, before, original
        self.data, self.temp, self.handle = data, temp, handle


def prepare(path: Path, data: bytes, original: bytes, roots: Sequence[Path] = ()) -> PendingWrite:
    """The first half of ``write_atomic``: every check that can refuse the write, and the temp file written."""
    real = _inside(path, roots or (path.parent,))
    try:
        old = os.open(real, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _BINARY)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    try:
        before = os.fstat(old)
        _check_writable(before)
        if _read_all(old) != original:
            raise FileChanged
        temp, handle = _temp_file(real, data, before, old)
    except OSError as exc:
        os.close(old)
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    except BaseException:
        os.close(old)
        raise
    return PendingWrite(real, old, before, original, data, temp, handle)


def commit(pending: PendingWrite) -> None:
    """The second half: sync the temp file, check the file once more, rename, then look for late writers."""
    real, old, before, original = pending.real, pending.old, pending.before, pending.original
    try:
        try:
            _finish_temp(pending.temp, pending.handle, before)
            if _read_all(old) != original:
                raise FileChanged
            if os.name == "nt":  # Windows cannot rename over a file that is open: no check after the rename there
                os.close(old)
                old = -1
            _replace_if_same(pending.temp, real, before)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(pending.temp)
            raise
        late, busy = _read_after_writers(old) if old != -1 else (original, False)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    finally:
        if old != -1:
            os.close(old)
    if late != original or busy:  # another program wrote to the old file between the last check and the rename
        _carry_over(real, late, original, pending.data, before, busy)


def abandon(pending: PendingWrite) -> None:
    """A prepared write that will not be committed: its temp file removed, the file untouched."""
    for handle in (pending.handle, pending.old):
        with contextlib.suppress(OSError):
            os.close(handle)
    with contextlib.suppress(OSError):
        os.unlink(pending.temp)


def _inside(path: Path, roots: Sequence[Path]) -> Path:
    """The file the path names, when it is inside one of the roots (links resolved); else ``WriteError``."""
    real = Path(os.path.realpath(path))
    if real == Path(os.path.abspath(path)):
        return real  # no link on the way
    for root in roots:
        folder = root if root.is_dir() else root.parent
        base = Path(os.path.realpath(folder))
        if real == base or base in real.parents:
            return real
    raise WriteError(f"a symbolic link to {real}, outside the checked folders: not changed")


def _check_writable(info: os.stat_result) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise WriteError("not a regular file: not changed")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise WriteError("read-only file: not changed")
    if info.st_nlink > 1:
        raise WriteError(
            f"the file has {info.st_nlink} hard links; writing a new file would leave the other names with the old "
            "text: not changed (fix a copy, or break the link first)"
        )


def _read_all(handle: int) -> bytes:
    """The whole file through an open descriptor, from its start."""
    os.lseek(handle, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(handle, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


#: how long a write waits for another program to close the old file it has open for writing
WRITER_WAIT_SECONDS = 2.0


def _read_after_writers(handle: int) -> tuple[bytes, bool]:
    """The old file's bytes once no other process has it open for writing, and whether one still had after
    ``WRITER_WAIT_SECONDS``. It no longer has a name, so nobody can open it again: after that, nothing more can
    land in it. Where leases are not available (not Linux, not the file's owner) the bytes are read at once."""
    try:
        import fcntl

        lease = fcntl.F_SETLEASE
    except (ImportError, AttributeError):
        return _read_all(handle), False
    import time

    deadline = time.monotonic() + WRITER_WAIT_SECONDS
    while True:
        try:
            fcntl.fcntl(handle, lease, fcntl.F_RDLCK)  # refused while anyone has the file open for writing
        except BlockingIOError:
            if time.monotonic() > deadline:
                return _read_all(handle), True
            time.sleep(0.001)
            continue
        except OSError:
            return _read_all(handle), False
        fcntl.fcntl(handle, lease, fcntl.F_UNLCK)
        return _read_all(handle), False


def _replace_if_same(temp: str, real: Path, before: os.stat_result) -> None:
    """The rename, with the last look at the path just before it: still the file that was read (same device and
    inode: an editor's save by rename of a new file is seen), unwritten since (same size and modification time). Nothing
    else runs between the two; the old file's content was checked through its descriptor before."""
    now = os.lstat(real)
    if _identity(now) != _identity(before):
        raise FileChanged
    os.replace(temp, real)


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


def _temp_copy(real: Path, data: bytes, like: os.stat_result, attributes_of: int) -> str:
    """``data`` in a synced temp file beside ``real``, with the owner, group and mode of ``like`` and the extended
    attributes of the open file ``attributes_of``."""
    temp, handle = _temp_file(real, data, like, attributes_of)
    _finish_temp(temp, handle, like)
    return temp


def _temp_file(real: Path, data: bytes, like: os.stat_result, attributes_of: int) -> tuple[str, int]:
    """``data`` in a new temp file beside ``real`` with the owner and group of ``like`` and the extended attributes
    of the open file ``attributes_of``; its name and open handle."""
    import tempfile

    handle, temp_name = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=TEMP_SUFFIX)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(handle, view) :]
        _keep_owner(handle, like)
        _keep_attributes(attributes_of, handle)
    except BaseException:
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    return temp_name, handle


def _finish_temp(temp_name: str, handle: int, like: os.stat_result) -> None:
    """The temp file synced, closed and given the mode of ``like`` (setuid and setgid dropped)."""
    try:
        try:
            os.fsync(handle)
        finally:
            os.close(handle)
        os.chmod(temp_name, stat.S_IMODE(like.st_mode) & ~(stat.S_ISUID | stat.S_ISGID))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise


def _keep_owner(handle: int, like: os.stat_result) -> None:
    """A rewrite by root, or by a group member, must not hand the file to a new owner."""
    if not hasattr(os, "fchown"):
        return
    mine = os.fstat(handle)
    if (mine.st_uid, mine.st_gid) == (like.st_uid, like.st_gid):
        return
    try:
        os.fchown(handle, like.st_uid, like.st_gid)
    except PermissionError:
        raise WriteError(
            f"cannot keep the file's owner and group ({like.st_uid}:{like.st_gid}) in a rewrite: not changed"
        ) from None


#: errors that mean "this file system, or this platform, has no extended attributes": nothing to keep
_NO_XATTRS = frozenset({errno.ENOTSUP, errno.EOPNOTSUPP, getattr(errno, "ENODATA", errno.ENOENT)})


def _keep_attributes(source: int, target: int) -> None:
    """Extended attributes (ACLs in ``system.posix_acl_*``, the SELinux label in ``security.selinux``, ``user.*``)
    copied from the file to its rewrite, which would otherwise lose them. One that cannot be set, unless the new
    file already has it, refuses the write, as an owner that cannot be kept does."""
    if not hasattr(os, "listxattr"):
        return
    for name, value in _attributes(source):
        try:
            if _attribute(target, name) != value:
                os.setxattr(target, name, value)
        except OSError as exc:
            if exc.errno in _NO_XATTRS:
                return
            raise WriteError(f"cannot keep the extended attribute {name!r} in a rewrite: not changed") from None


def _attributes(handle: int) -> Iterator[tuple[str, bytes]]:
    try:
        names = os.listxattr(handle)
    except OSError as exc:
        if exc.errno in _NO_XATTRS:
            return
        raise
    for name in names:
        value = _attribute(handle, name)
        if value is not None:  # removed meanwhile
            yield name, value


def _attribute(handle: int, name: str) -> bytes | None:
    try:
        return os.getxattr(handle, name)
    except OSError as exc:
        if exc.errno in _NO_XATTRS:
            return None
        raise


def _carry_over(real: Path, late: bytes, original: bytes, data: bytes, like: os.stat_result, busy: bool) -> None:
    """Another program wrote to the old file during the rename (or still has it open). Text it appended is
    appended to the fixed file too, in place (``O_APPEND``: no second rename, so no second window), as if it had
    come just after the fix. Any other change: the file gets the other program's text back and the fix is dropped;
    if the fixed file was written to meanwhile as well, that text is kept beside it."""
    if late.startswith(original) and not busy:
        try:
            handle = os.open(real, os.O_WRONLY | os.O_APPEND | _NOFOLLOW | _CLOEXEC | _BINARY)
            try:
                view = memoryview(late)[len(original) :]
                while view:
                    view = view[os.write(handle, view) :]
                os.fsync(handle)
            finally:
                os.close(handle)
        except OSError as exc:
            raise WriteError(f"text appended by another program during the write could not be kept: {exc}") from None
        return
    try:
        new = os.open(real, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _BINARY)
        try:
            target = real if _read_all(new) == data else real.with_name(f"{real.name}.shmlint-concurrent")
            os.replace(_temp_copy(real, late, like, new), target)
            if target == real and _read_after_writers(new)[0] != data:  # written to during the put-back
                target = real.with_name(f"{real.name}.shmlint-concurrent")
                os.replace(_temp_copy(real, _read_all(new), like, new), target)
        finally:
            os.close(new)
    except (OSError, WriteError) as exc:
        raise WriteError(f"changed by another program while it was written, and cannot be put back: {exc}") from None
    why = "another program has the file open for writing" if busy else "changed by another program while it was written"
    where = "" if target == real else f"; the text written to the fixed version is saved in {target}"
    raise WriteError(f"{why}: the file has that program's text, not fixed (run shmlint fix again){where}")
