"""Whether a folder of the checked tree is the top of a repository of its own, or a part of the one above it (a
vendored copy of another project, a submodule): asked of the folders that would hold a repository's own CI."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from shmlint.infile import repository_top
from shmlint.source import InputError, read_bytes

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

#: bytes of a ``.git`` file read (``gitdir: <path>``)
_GIT_FILE_BYTES = 4096


def below_a_repository(files: ProjectFiles, folder: str) -> bool:
    """Whether ``folder`` is inside the work tree of a repository above it and not a repository's top itself (a
    clone, or a linked work tree); asked once a run for each folder. Without a ``.git`` above, it is its own top
    (a source archive)."""
    return files.per_folder(_below, os.path.abspath(folder))


def _below(_: ProjectFiles, folder: str) -> bool:
    above = os.path.dirname(folder)
    if _own_top(folder) or above == folder:
        return False
    return os.path.lexists(os.path.join(repository_top(above), ".git"))


def _own_top(folder: str) -> bool:
    """Whether ``folder`` is the top of a repository of its own: a ``.git`` folder (a clone), or a ``.git`` file
    that points at a linked work tree's data (``gitdir: .../worktrees/...``); a submodule's points at its
    superproject's ``modules`` and is a part of that one. Read as a regular file of at most 4 KiB."""
    git = os.path.join(folder, ".git")
    try:
        found = os.lstat(git)
    except OSError:
        return False
    if stat.S_ISDIR(found.st_mode):
        return True
    if not stat.S_ISREG(found.st_mode):
        return False
    try:  # the shared bounded read: a FIFO swapped in after the lstat never blocks it
        text = read_bytes(git, _GIT_FILE_BYTES).decode("utf-8", "replace")
    except InputError:
        return False
    return "/worktrees/" in text.replace("\\", "/")
