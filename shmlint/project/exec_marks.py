"""What the repository runs, by name, in a container another file starts: ``nvidia-docker run -d -ti --name
pyanomaly ... /bin/bash`` in a script, and ``docker exec -ti pyanomaly bash ./script/train.sh`` in the guide that
tells people to use it (audit89d). The file that starts the container names its work there only when the same
file execs into it (``extract.commandline``); here the repository's other scripts, Makefiles and documents are
read once a run for their ``docker exec NAME COMMAND`` lines, by name, bounded as the build and start marks are
(``build_marks.marked``), and only for a container that holds its accelerators and has a name of its own.

Another file may run another container of the same name, or the same one at another time: what it execs there
may only add to what the container is known to run, as a guide's later steps (``project.decide``), findings at
most warnings, said with where the line is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from shmlint.containers.docker import with_later_commands
from shmlint.discover import FileKind, discover
from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.project.build_marks import as_utf8, marked

if TYPE_CHECKING:
    from shmlint.model import Workload
    from shmlint.project.index import ProjectFiles, ProjectIndex
    from shmlint.source import SourceText

#: a line that execs into a container by name (bounded: one line, no nested quantifier)
_MARK = LazyRegex(rb"\b(?:docker|podman|nvidia-docker)(?:[ \t]+container)?[ \t]+exec[ \t]", re.MULTILINE)
_KINDS = frozenset({FileKind.SHELL, FileKind.MAKEFILE, FileKind.MARKDOWN, FileKind.RST})
#: names and commands kept for a repository (a guide execs a few)
MAX_EXECS = 256


class Execed(NamedTuple):
    """One command another file runs in a container by its name: where it is written (``Docker/README.md:57``),
    and its words."""

    where: str
    words: tuple[str, ...]


def repository_execs(files: ProjectFiles, root: str) -> Mapping[str, tuple[Execed, ...]]:
    """The commands every file of the run's roots execs into containers, by the containers' names; answered once
    a run (``ProjectFiles.per_folder``, ``root`` the key)."""
    from shmlint.parsers.container_command import exec_targets

    roots = files.roots or (root,)
    found: dict[str, list[Execed]] = {}
    kept = 0
    for candidate in marked(discover(roots, files.whole), _KINDS, files.max_bytes, _execs_by_name):
        if candidate is None or kept >= MAX_EXECS:
            break
        source = files.source(candidate.path)
        if source is None:
            continue
        shown = os.path.relpath(candidate.path, roots[0]).replace(os.sep, "/")
        for name, commands in exec_targets(_shell(source, candidate.kind)).commands.items():
            for command in commands:
                line = source.position(command.words[0].start)[0]
                found.setdefault(name, []).append(Execed(f"{shown}:{line}", tuple(w.text for w in command.words)))
                kept += 1
    return {name: tuple(execs) for name, execs in found.items()}


def _execs_by_name(kind: FileKind, data: bytes) -> bool:
    found = as_utf8(data)
    return found is not None and b"exec" in found and _MARK.search(found) is not None


def _shell(source: SourceText, kind: FileKind) -> str:
    """The file's shell at its own offsets: a document's code blocks, a Makefile's recipes, a script as it is."""
    if kind is FileKind.MARKDOWN or kind is FileKind.RST:
        from shmlint.parsers.embedded.markdown import markdown_shell_blocks
        from shmlint.parsers.embedded.rst import rst_shell_blocks

        return (markdown_shell_blocks if kind is FileKind.MARKDOWN else rst_shell_blocks)(source.text)[0]
    if kind is FileKind.MAKEFILE:
        from shmlint.parsers.embedded.makefile import mask_makefile

        return mask_makefile(source.text)
    return source.text


#: commands another file execs into one container read as its later steps (the first ones: a guide's few)
MAX_STEPS = 8


def execed_steps(workload: Workload, project: ProjectIndex) -> Workload | None:
    """What the repository's other files exec into the container by its name, as its later steps (one script, the
    commands in the order the walk finds them), or None: a container with no name, one named by a variable, or one
    no other file execs into."""
    launch = workload.launch
    if launch is None or not launch.name or "$" in launch.name or not project.roots:
        return None
    files = project.tree(project.max_bytes)
    own = os.path.relpath(os.path.abspath(workload.span.path), project.roots[0]).replace(os.sep, "/")
    execs = [e for e in files.per_folder(repository_execs, project.roots[0]).get(launch.name, ()) if e.words]
    execs = [e for e in execs if e.where.rpartition(":")[0] != own][:MAX_STEPS]  # the file's own: its extraction's
    if not execs:
        return None
    more = f" and {len(execs) - 1} more" if len(execs) > 1 else ""
    said = f"run in it by docker exec, {execs[0].where}{more}"
    return with_later_commands(workload, [execed.words for execed in execs], said, own_entrypoint=True)
