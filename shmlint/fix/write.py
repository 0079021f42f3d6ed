"""Writing a fixed file so that it is always either the old bytes or the new bytes, never something between."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".shmlint-tmp"


def remove_stale_temp_files(folders: set[Path]) -> None:
    """Remove our own temp files (``.<name>.<random>.shmlint-tmp``) that a killed run left beside the files it was
    writing; nothing else is touched."""
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if name.startswith(".") and name.endswith(TEMP_SUFFIX):
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)


class WriteError(Exception):
    """A file that could not be written; the message is meant for people."""


def write_atomic(path: Path, data: bytes, original: bytes) -> None:
    """Replace the file (a link's target, keeping the link) through a temp file in the same folder.

    Refuses when the file changed since it was read, or is read-only; keeps the file mode.
    """
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(real)
        if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
            raise WriteError("read-only file: not changed")
        if real.read_bytes() != original:
            raise WriteError("file changed since it was read: not changed (run shmlint fix again)")
        handle, temp_name = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise WriteError(f"cannot write: {exc.strerror or exc}") from None
    try:
        with os.fdopen(handle, "wb") as temp:
            temp.write(data)
            temp.flush()
            os.fsync(temp.fileno())
        os.chmod(temp_name, stat.S_IMODE(info.st_mode))
        os.replace(temp_name, real)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        if isinstance(exc, OSError):
            raise WriteError(f"cannot write: {exc.strerror or exc}") from None
        raise
