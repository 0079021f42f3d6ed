"""GitHub Actions workflows that are not the repository's CI: a ``.github/workflows`` folder below the top of the
git work tree (a vendored copy of another project, ``third_party/lib/.github/workflows/gpu.yml``, or a submodule's).
GitHub runs only the workflows at the top of a repository, so a container in such a file is never started by this
repository: a note says why it is not checked, rather than findings that fail the gate on another project's CI."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.project.repository_top import below_a_repository

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

_WORKFLOWS = (".github", "workflows")


def nested_workflow(path: str, files: ProjectFiles) -> str | None:
    """Why the workflow at ``path`` is not the repository's (the note's words), or None: the folder that holds its
    ``.github`` is below a repository's top (``project.repository_top``)."""
    parts = os.path.abspath(path).split(os.sep)
    at = next((i for i in range(len(parts) - 2, 0, -1) if tuple(parts[i : i + 2]) == _WORKFLOWS), None)
    if at is None or not below_a_repository(files, os.sep.join(parts[:at]) or os.sep):
        return None
    return (
        "a GitHub workflow below the repository's top (a copy of another project's CI, or a submodule's): GitHub "
        "runs only the workflows at the top, so nothing here starts its containers; not checked"
    )
