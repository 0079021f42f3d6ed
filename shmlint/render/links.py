"""What ``helm template`` may read: a chart whose links all stay in the repository.

Helm loads every file of a chart folder, following symbolic links, and ``.Files.Get`` puts any of them into the
rendered output (and so into findings and logs). A pull request could add ``files/x -> ~/.ssh/id_ed25519`` to a
chart. So before Helm runs, the chart is walked (links to folders followed, each real folder once, a bounded
number of entries) and any link whose target leaves the repository (the top of the chart's git work tree, else
the chart itself) or enters ``.git`` keeps the chart from being rendered.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.infile import leaves, repository_top

if TYPE_CHECKING:
    from pathlib import Path

#: files and folders looked at in one chart (a real chart has dozens; its vendored subcharts a few hundred)
MAX_ENTRIES = 20_000


def chart_blocker(root: Path) -> str | None:
    """Why Helm must not read the chart at ``root`` (a link out of the repository, or too many entries), or None."""
    top = repository_top(str(root))
    stack, seen, entries = [str(root)], set(), 0
    while stack:
        folder = stack.pop()
        if os.path.realpath(folder) in seen:
            continue
        seen.add(os.path.realpath(folder))
        try:
            with os.scandir(folder) as scanner:
                found = list(scanner)
        except OSError as exc:
            return f"{folder}: cannot read folder: {exc.strerror or exc}"
        entries += len(found)
        if entries > MAX_ENTRIES:
            return f"more than {MAX_ENTRIES:,} files and folders in the chart"
        for entry in found:
            if entry.is_symlink() and leaves(entry.path, top):
                return f"{entry.path}: a symbolic link out of the repository (or into .git), which Helm would read"
            if entry.is_dir():  # a link to a folder in the repository: Helm reads what is behind it too
                stack.append(entry.path)
    return None
