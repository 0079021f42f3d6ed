"""The compose file sets a repository names, so that an override is judged merged with its base, as it runs.

``docker compose -f compose.yml -f compose.gpu.yml up`` in a script, a Makefile or the docs, and ``COMPOSE_FILE`` in
a ``.env`` file, say which files compose merges. A file read alone would be judged as a whole project: an override
that only adds a GPU reservation would miss the base's ``shm_size``, and a fix written there could lower it.

Only the compose file's own folder is looked at, and only a bounded number of small files in it: a set is read from
words as they are written (a path holding ``$VAR`` is unknown, and the set is not used).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.source import SourceText

if TYPE_CHECKING:
    from shmlint.project.index import ProjectFiles

#: at most this many files of a folder are read for sets, each at most this large (the rest is left unread)
MAX_FILES = 32
MAX_BYTES = 256 * 1024
_SCRIPT_SUFFIXES = (".sh", ".bash", ".mk", ".md")
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_COMPOSE_WORDS = LazyRegex(r"(?:docker|podman)[- ]compose\b")
_COMPOSE_FILE = LazyRegex(r"^[ \t]*(?:export[ \t]+)?COMPOSE_FILE[ \t]*=[ \t]*['\"]?([^'\"\r\n#]*)", re.MULTILINE)
_SEPARATOR = LazyRegex(r"^[ \t]*(?:export[ \t]+)?COMPOSE_PATH_SEPARATOR[ \t]*=[ \t]*['\"]?([:;])", re.MULTILINE)
#: compose's global options that take a value (the value is not a subcommand)
_VALUED = frozenset(
    {"-p", "--project-name", "--env-file", "--profile", "--project-directory", "--ansi", "--progress", "--parallel"}
)


class FileSet(NamedTuple):
    """Compose files merged in this order (normalised paths), and where the repository names them."""

    files: tuple[str, ...]
    where: str  # "Makefile:12", ".env (COMPOSE_FILE)"


def named_sets(files: ProjectFiles, folder: str) -> list[FileSet]:
    """Every set of two or more compose files named in ``folder``'s scripts, Makefiles, Markdown and ``.env``
    (asked through ``files.per_folder``: once a folder)."""
    found: list[FileSet] = []
    env = files.source(os.path.join(folder, ".env"))
    if env is not None:
        found += _env_sets(folder, env.text)
    for name in _candidates(files, folder):
        source = files.source(os.path.join(folder, name))
        if source is not None and len(source.text) <= MAX_BYTES and _COMPOSE_WORDS.search(source.text):
            found += _command_sets(folder, name, source.text)
    return found


def env_file_named(files: ProjectFiles, folder: str) -> bool:
    """Whether a script, Makefile or document of ``folder`` runs compose with ``--env-file`` or
    ``--project-directory``: then the folder's ``.env`` may not be what compose reads (asked through
    ``files.per_folder``)."""
    from shmlint.parsers.shell import commands

    for name in _candidates(files, folder):
        source = files.source(os.path.join(folder, name))
        if source is None or len(source.text) > MAX_BYTES or not _COMPOSE_WORDS.search(source.text):
            continue
        for command in commands(source.text):
            words = [w.text for w in command.words]
            start = _after_compose(words)
            if start is not None and any(_names_env(word) for word in _global_options(words[start:])):
                return True
    return False


def _names_env(word: str) -> bool:
    return word.split("=", 1)[0] in ("--env-file", "--project-directory")


def _global_options(words: list[str]) -> Iterator[str]:
    """The words of a compose invocation up to its subcommand."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        yield words[index]
        index += 2 if words[index] in _VALUED or words[index] in ("-f", "--file") else 1


def _candidates(files: ProjectFiles, folder: str) -> list[str]:
    wanted = [n for n in sorted(files.files_in(folder)) if n in _MAKEFILES or n.endswith(_SCRIPT_SUFFIXES)]
    return wanted[:MAX_FILES]


def _env_sets(folder: str, text: str) -> list[FileSet]:
    match = _COMPOSE_FILE.search(text)
    if match is None or "$" in match.group(1):
        return []
    separator = _SEPARATOR.search(text)
    parts = [p.strip() for p in match.group(1).split(separator.group(1) if separator else ":") if p.strip()]
    return [FileSet(_resolved(folder, parts), ".env (COMPOSE_FILE)")] if len(parts) > 1 else []


def _command_sets(folder: str, name: str, text: str) -> list[FileSet]:
    from shmlint.parsers.shell import commands

    sets = []
    source = SourceText(name, text)  # the lines of commands, from one line table
    for command in commands(text):
        files = list(_file_options([w.text for w in command.words], [w.dynamic for w in command.words]))
        if len(files) > 1 and None not in files:
            line = source.position(command.words[0].start)[0]
            sets.append(FileSet(_resolved(folder, [f for f in files if f is not None]), f"{name}:{line}"))
    return sets


def _file_options(words: list[str], dynamic: list[bool]) -> Iterator[str | None]:
    """The ``-f``/``--file`` values of a compose invocation among ``words`` (None for one only known at run time),
    read up to its subcommand (after it, ``-f`` means something else: ``logs -f`` follows)."""
    start = _after_compose(words)
    if start is None:
        return
    index = start
    while index < len(words):
        word = words[index]
        if word in ("-f", "--file") and index + 1 < len(words):
            yield None if dynamic[index + 1] else words[index + 1]
            index += 2
        elif word.startswith("--file="):
            yield None if dynamic[index] else word.removeprefix("--file=")
            index += 1
        elif word in _VALUED:
            index += 2
        elif word.startswith("-"):
            index += 1
        else:
            return  # the subcommand


def _after_compose(words: list[str]) -> int | None:
    for index, word in enumerate(words):
        base = os.path.basename(word)
        if base in ("docker-compose", "podman-compose"):
            return index + 1
        if base in ("docker", "podman") and index + 1 < len(words) and words[index + 1] == "compose":
            return index + 2
    return None


def _resolved(folder: str, files: list[str]) -> tuple[str, ...]:
    """Paths as compose reads them from the folder it runs in (the scripts' own folder)."""
    return tuple(os.path.normpath(os.path.join(folder, f)) for f in files)
