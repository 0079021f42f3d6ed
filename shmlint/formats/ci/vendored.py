"""GitHub Actions workflows that are not the repository's CI: a ``.github/workflows`` folder below the top of the
git work tree (a vendored copy of another project, ``third_party/lib/.github/workflows/gpu.yml``, or a submodule's).
GitHub runs only the workflows at the top of a repository, so a container in such a file is never started by this
repository: a note says why it is not checked, rather than findings that fail the gate on another project's CI."""

from __future__ import annotations

import os
import stat

from shmlint.infile import repository_top

_WORKFLOWS = (".github", "workflows")
#: bytes of a ``.git`` file read (``gitdir: <path>``)
_GIT_FILE_BYTES = 4096


def nested_workflow(path: str) -> str | None:
    """Why the workflow at ``path`` is not the repository's (the note's words), or None: the folder that holds its
    ``.github`` is not a repository's top (a clone, or a linked work tree), and a folder above it is in a git work
    tree. Without a ``.git`` above, that folder is taken as the top (a source archive)."""
    parts = os.path.abspath(path).split(os.sep)
    at = next((i for i in range(len(parts) - 2, 0, -1) if tuple(parts[i : i + 2]) == _WORKFLOWS), None)
    if at is None:
        return None
    owner = os.sep.join(parts[:at]) or os.sep
    above = os.path.dirname(owner)
    if _own_top(owner) or above == owner or not os.path.lexists(os.path.join(repository_top(above), ".git")):
        return None
    return (
        "a GitHub workflow below the repository's top (a copy of another project's CI, or a submodule's): GitHub "
        "runs only the workflows at the top, so nothing here starts its containers; not checked"
    )


def _own_top(folder: str) -> bool:
    """Whether ``folder`` is the top of a repository of its own: a ``.git`` folder (a clone), or a ``.git`` file
    that points at a linked work tree's data (``gitdir: .../worktrees/...``); a submodule's points at its
    superproject's ``modules`` and is not its own CI's place. Read as a regular file of at most 4 KiB."""
    git = os.path.join(folder, ".git")
    try:
        found = os.lstat(git)
    except OSError:
        return False
    if stat.S_ISDIR(found.st_mode):
        return True
    if not stat.S_ISREG(found.st_mode) or found.st_size > _GIT_FILE_BYTES:
        return False
    try:
        with open(git, "rb") as handle:
            text = handle.read(_GIT_FILE_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return "/worktrees/" in text.replace("\\", "/")
