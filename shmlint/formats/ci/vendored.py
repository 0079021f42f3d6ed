"""GitHub Actions workflows that are not the repository's CI: a ``.github/workflows`` folder below the top of the
git work tree (a vendored copy of another project, ``third_party/lib/.github/workflows/gpu.yml``). GitHub runs only
the workflows at the top of a repository, so a container in such a file is never started by this repository: a
note says why it is not checked, rather than findings that fail the gate on another project's CI."""

from __future__ import annotations

import os

from shmlint.infile import repository_top

_WORKFLOWS = (".github", "workflows")


def nested_workflow(path: str) -> str | None:
    """Why the workflow at ``path`` is not the repository's (the note's words), or None: its ``.github/workflows``
    folder is not at the top of the git work tree that holds it. Without a ``.git`` above, the folder that holds
    ``.github`` is taken as the top (a source archive)."""
    parts = os.path.abspath(path).split(os.sep)
    at = next((i for i in range(len(parts) - 2, 0, -1) if tuple(parts[i : i + 2]) == _WORKFLOWS), None)
    if at is None:
        return None
    owner = os.sep.join(parts[:at]) or os.sep
    if repository_top(owner) == owner:
        return None
    return (
        "a GitHub workflow below the repository's top (a copy of another project's CI): GitHub runs only the "
        "workflows at the top, so nothing here starts its containers; not checked"
    )
