"""The repository's folders a container bind-mounts, and what it finds at its paths through them: the walk
(``shmlint.project.follow``) reads the code a container runs where the mounts put it, not only where the image copies
it.
"""

from __future__ import annotations

import os
import posixpath

from shmlint.model import Launch
from shmlint.project.index import MAX_PARTS, Reader, holds
from shmlint.project.launchers import known

#: bind mounts of one container looked at
MAX_MOUNTS = 16
#: folders above a file's own where a relative bind mount's source is looked for
MAX_ABOVE = 3


def bound_folders(launch: Launch, reader: Reader) -> list[tuple[str, str]]:
    """The repository's bind-mounted folders: (container path, real folder), in the order they are written; a
    relative source from the file's folder, and for a script's or a document's run line (``caller_relative``) else
    from the nearest folder above it that has it, or the repository's top (a script in ``docker/`` run from the top
    as ``./docker/run.sh`` mounts the top's ``./src``)."""
    found = []
    starts = [launch.base_dir]
    while launch.caller_relative and len(starts) <= MAX_ABOVE:
        above = os.path.dirname(os.path.abspath(starts[-1]))
        if above == os.path.abspath(starts[-1]) or reader.folder(above) is None:  # the top, or above every root
            break
        starts.append(above)
    for mounted, source in launch.mounts[:MAX_MOUNTS]:
        caller = launch.caller_relative and not os.path.isabs(source)
        tried = [*starts, *reader.index.roots] if caller else starts[:1]
        host = next((real for start in tried if (real := reader.folder(os.path.join(start, source)))), None)
        if host is None and source.startswith("/"):
            host = _authors_clone(source, launch.base_dir, reader)
        if host is not None:
            found.append((mounted.rstrip("/") or "/", host))
    return found


#: path parts that say a host folder holds data, not the repository's code
_DATA_PARTS = frozenset(
    {"data", "dataset", "datasets", "models", "checkpoints", "weights", "outputs", "output", "results", "logs", "cache"}
)


def _authors_clone(source: str, base_dir: str, reader: Reader) -> str | None:
    """The repository's folder an absolute path of its author's machine stands for: one that ends in the name of the
    file's own folder or of a folder above it in the repository (``-v /mnt/w/prj/GraduateWork/UNIT/:...`` in
    ``UNIT/docker.sh``), or in the name the clone knows its repository by (audit77a: a training container held the
    repository's code by its author's path, and none of it was read). A path the shell still fills in is not one."""
    name = posixpath.basename(source.rstrip("/"))
    if not name or not known(source) or _DATA_PARTS.intersection(source.lower().split("/")):
        return None  # a dataset's or a model store's path named like the folder is not the code
    folder = reader.folder(base_dir)
    for _ in range(MAX_PARTS):
        if folder is None:
            break
        if os.path.basename(folder) == name:
            return folder
        above = os.path.dirname(folder)
        folder = reader.folder(above) if above != folder else None
    from shmlint.project.own_image import root_name  # for a mount of a path from another machine only

    index = reader.index
    return next((reader.folder(root) for root in index.roots if root_name(index, root) == name), None)


def covers(mounted: str, path: str) -> bool:
    """Whether a mount at the container path ``mounted`` (a folder or a file, from the repository or not) is what
    the container sees at ``path``."""
    return mounted.startswith("/") and holds(posixpath.normpath(mounted), path)


def mounted_folders(binds: list[tuple[str, str]], workdir: str, reader: Reader) -> list[str]:
    """The repository's folders bind-mounted into the container (``./src:/workspace``), which is what the container
    finds at those paths: the folder its working directory falls in first, then the others."""
    first = [mapped for mapped in reader.through_binds(binds, workdir) if mapped is not None]
    return list(dict.fromkeys(first + [host for _, host in binds]))
