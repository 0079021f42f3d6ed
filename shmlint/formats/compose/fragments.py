"""Compose services that are a part of a service another file defines (an overlay such as ``compose.gpu.yml``
beside ``compose.yml``), merged by a set of files the repository does not name where shmlint looks.

Judged alone, such a part says the wrong thing: its GPU without the base's ``ipc: host``, or a fix that writes a
``shm_size`` below the base's. So it is a note, not a workload. The folder's compose files are read once a run
(``ProjectFiles.per_folder``) into the names of the services each defines whole.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from shmlint.formats.compose import is_compose_name
from shmlint.formats.compose.project import Project, Service
from shmlint.model import CONTEXT_DOCKERFILES

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles


def part_of_another(project: Project, service: Service) -> str | None:
    """Why ``service`` is a part of one another file defines (the note's words), or None when it is a service of
    its own: it has an image or a build with a context of its own (its own, from ``extends`` or from the files
    merged with it).

    A service with no image and no build cannot run alone: it is a part when a compose file beside it defines
    the service whole, or when its folder has more entries than are listed (that file may be among the rest). A
    build that only gives ``args`` builds the folder's ``Dockerfile`` when alone: it is a part when a file beside it
    defines the service whole, or when there is no such Dockerfile to build."""
    if project.get(service, "image") is not None or _whole_build(project, service):
        return None
    files, folder = project.files, str(service.file.base_dir)
    own = os.path.basename(service.file.source.path)
    others = sorted(set(files.per_folder(_whole_services, folder).get(service.name, ())) - {own})
    has_build = project.get(service, "build") is not None
    what = "builds with neither a context nor a Dockerfile" if has_build else "has neither an image nor a build"
    if others:
        return (
            f'service "{service.name}" {what}, and {others[0]} beside it defines the service with one: a part of that '
            "service, merged by a set the repository's scripts do not name; not judged alone"
        )
    listed = files.complete(folder) or files.cut(folder)  # else nothing beside the file may be read (a document's)
    if has_build and listed and not any(files.has_file(os.path.join(folder, name)) for name in CONTEXT_DOCKERFILES):
        return (
            f'service "{service.name}" builds with neither a context nor a Dockerfile, and its folder holds no '
            "Dockerfile: compose cannot run it alone, so it is a part of a service another file defines; not judged "
            "alone"
        )
    if not has_build and files.cut(folder):
        return (
            f'service "{service.name}" has neither an image nor a build, so compose cannot run it alone, and its '
            "folder has more entries than are listed: a part of a service another file defines; not judged alone"
        )
    return None


def _whole_build(project: Project, service: Service) -> bool:
    """A ``build`` that names what it builds: a context (a string, or ``context``) or a Dockerfile."""
    build = project.get(service, "build")
    if build is None:
        return False
    if project.text(build) is not None:
        return True
    return any(project.get(service, "build", key) is not None for key in ("context", "dockerfile", "dockerfile_inline"))


def _whole_services(files: ProjectFiles, folder: str) -> dict[str, tuple[str, ...]]:
    """The services the folder's compose files (among its listed entries) define whole, each with the names of
    the files that do, read once a run."""
    project = Project(files)
    found: dict[str, list[str]] = {}
    for name in sorted(files.files_in(folder)):
        if not is_compose_name(name):
            continue
        file = project.load(Path(folder) / name)
        for service in project.services([file] if file is not None else []):
            if project.get(service, "image") is not None or _whole_build(project, service):
                found.setdefault(service.name, []).append(name)
    return {service: tuple(names) for service, names in found.items()}
