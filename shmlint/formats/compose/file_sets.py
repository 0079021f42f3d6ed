"""The compose file sets a repository names, so that an override is judged merged with its base, as it runs.

``docker compose -f compose.yml -f compose.gpu.yml up`` in a script, a Makefile or the docs, and ``COMPOSE_FILE`` in
a ``.env`` file, say which files compose merges. A file read alone would be judged as a whole project: an override
that only adds a GPU reservation would miss the base's ``shm_size``, and a fix written there could lower it.

The compose file's own folder is looked at, and the three folders above it inside the checked tree (a root
Makefile's ``-f docker/compose.yaml -f docker/compose.gpu.yaml``), and only a bounded number of small files in each:
a set is read from words as they are written (a path holding ``$VAR`` is unknown, and the set is not used).
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
    from shmlint.parsers.shell import SimpleCommand
    from shmlint.parsers.typed import Typed
    from shmlint.project.index import ProjectFiles

#: at most this many files of a folder are read for sets, each at most this large (the rest is left unread)
MAX_FILES = 32
MAX_BYTES = 256 * 1024
_SCRIPT_SUFFIXES = (".sh", ".bash", ".mk", ".md")
_MAKEFILES = frozenset({"Makefile", "makefile", "GNUmakefile"})
_COMPOSE_WORDS = LazyRegex(r"(?:docker|podman)[- ]compose\b")
#: a Makefile variable whose value is a compose command (the review: sets and ``--env-file`` kept there)
_MAKE_COMPOSE = LazyRegex(
    r"^[ \t]*(?:export[ \t]+|override[ \t]+)?[A-Za-z_][\w.-]{0,63}[ \t]*[:?+!]{0,3}=[ \t]*"
    r"((?:docker|podman)[- ]compose\b[^\n]{0,2000})$",
    re.MULTILINE,
    ("compose",),
)
#: a compose command written as inline code in a sentence, on one line
_INLINE_COMPOSE = LazyRegex(r"(?<!`)`((?:docker|podman)[- ]compose\b[^`\n]{0,2000})`(?!`)", 0, ("compose",))
_COMPOSE_FILE = LazyRegex(r"^[ \t]*(?:export[ \t]+)?COMPOSE_FILE[ \t]*=[ \t]*['\"]?([^'\"\r\n#]*)", re.MULTILINE)
_SEPARATOR = LazyRegex(r"^[ \t]*(?:export[ \t]+)?COMPOSE_PATH_SEPARATOR[ \t]*=[ \t]*['\"]?([:;])", re.MULTILINE)
#: compose's global options that make the folder's ``.env`` maybe not the one it reads
_ENV_OPTIONS = frozenset({"--env-file", "--project-directory"})
#: compose's global options that take a value (the value is not a subcommand)
_VALUED = frozenset(
    {"-p", "--project-name", "--env-file", "--profile", "--project-directory", "--ansi", "--progress", "--parallel"}
)


class FileSet(NamedTuple):
    """Compose files merged in this order (normalised paths), and where the repository names them."""

    files: tuple[str, ...]
    where: str  # "Makefile:12", ".env (COMPOSE_FILE)"


#: folders above a compose file whose scripts may name its set (a root Makefile's ``-f docker/compose.yaml -f
#: docker/compose.gpu.yaml``); the index lists none outside the checked roots
FOLDERS_UP = 3


def sets_naming(files: ProjectFiles, folder: str) -> list[FileSet]:
    """The sets named in a compose file's folder and the ``FOLDERS_UP`` folders above it, nearest first."""
    folders = _folders_up(folder)
    found = []
    for each in folders:
        for named in files.per_folder(named_sets, each):
            found.append(named)
            if each != folder and _run_from(files, named, each, folder):
                names = [os.path.basename(path) for path in named.files]
                found.append(named._replace(files=_resolved(folder, names)))
    return found


def _folders_up(folder: str) -> list[str]:
    """The folder and the ``FOLDERS_UP`` folders above it, nearest first."""
    folders = [folder]
    for _ in range(FOLDERS_UP):
        above = os.path.dirname(os.path.abspath(folders[-1]))
        if above == os.path.abspath(folders[-1]):
            break
        folders.append(above)
    return folders


def _run_from(files: ProjectFiles, named: FileSet, where: str, folder: str) -> bool:
    """Whether a set named in a folder above by file names alone is ``folder``'s, run from there: none of its files
    is where it is named, and all are in ``folder`` (audit69d: a README's ``docker compose -f docker-compose.yml -f
    docker-compose.gpu.yml up`` after the guide's ``cd docker``)."""
    home = os.path.normpath(where)
    return all(os.path.dirname(path) == home and not files.has_file(path) for path in named.files) and all(
        files.has_file(os.path.join(folder, os.path.basename(path))) for path in named.files
    )


def named_sets(files: ProjectFiles, folder: str) -> list[FileSet]:
    """Every set of two or more compose files named in ``folder``'s scripts, Makefiles, Markdown and ``.env``
    (asked through ``files.per_folder``: once a folder)."""
    found: list[FileSet] = []
    env = files.source(os.path.join(folder, ".env"))
    if env is not None:
        found += _env_sets(folder, env.text)
    for name, source, command, _ in files.per_folder(_compose_commands, folder):
        words = [w.text for w in command.words]
        named = list(_file_options(words, [w.dynamic for w in command.words]))
        if len(named) > 1 and None not in named:
            line = source.position(command.words[0].start)[0]
            found.append(FileSet(_resolved(folder, [f for f in named if f is not None]), f"{name}:{line}"))
    return found


class ServiceRun(NamedTuple):
    """What a script, a Makefile or the docs run in a service by the compose CLI: ``docker compose run [options]
    SERVICE COMMAND...`` (a new container of the service, with that command instead of its own), ``docker compose
    exec SERVICE COMMAND...`` (in the running one), or, in a document, the commands typed into a shell opened so
    (``docker compose exec trainer bash``, then ``python train.py``: ``parsers.typed.sessions_after``); how and where
    it is said (``docker compose run, README.md:40``)."""

    said: str
    commands: tuple[tuple[str, ...], ...]


#: ``docker compose run`` options that take a value (https://docs.docker.com/reference/cli/docker/compose/run/)
_RUN_VALUED = frozenset(
    {"-e", "--env", "--env-from-file", "-l", "--label", "--name", "-p", "--publish", "--pull", "-u", "--user", "-v",
     "--volume", "-w", "--workdir", "--cap-add", "--cap-drop", "--entrypoint"}
)  # fmt: skip
#: ``docker compose exec`` options that take a value (https://docs.docker.com/reference/cli/docker/compose/exec/)
_EXEC_VALUED = frozenset({"-e", "--env", "--index", "-u", "--user", "-w", "--workdir"})
#: the runs read for one service (the first, nearest folder first)
MAX_RUNS = 4


def service_runs(files: ProjectFiles, folder: str, service: str, compose_file: str) -> list[ServiceRun]:
    """What the scripts, Makefiles and Markdown of a compose file's folder and the ``FOLDERS_UP`` above it run in
    ``service`` (``docker compose run kohya python train.py ...``, ``docker compose exec trainer bash`` and the
    session after it), where the line reads this file: named by ``-f`` (a path from the script's folder), or, with
    no ``-f``, the file is a default one (``compose.yaml``...) of the script's own folder, which compose reads there;
    and a run sets no entrypoint of its own (audit80c: a training command a README runs in a GPU service; the
    review: a run of another folder's or another file's service of the same name is not this one's)."""
    from shmlint.formats.compose import COMPOSE_DEFAULT_FILES, COMPOSE_OVERRIDE_FILES

    this = os.path.abspath(compose_file)
    default = os.path.basename(this) in COMPOSE_DEFAULT_FILES + COMPOSE_OVERRIDE_FILES
    found: list[ServiceRun] = []
    for each in _folders_up(folder):
        for name, source, command, cwd in files.per_folder(_compose_commands, each):
            words = [w.text for w in command.words]
            given = _given(words)
            if given is None or given[0] != service or _shell_only(words[given[1] :]):
                continue
            if _reads(command, cwd, this, default) and len(found) < MAX_RUNS:
                line = source.position(command.words[0].start)[0]
                said = f"docker compose {words[_subcommand_at(words)]}, {name}:{line}"
                found.append(ServiceRun(said, (tuple(words[given[1] :]),)))
        for name, source, command, typed in files.per_folder(_compose_shells, each):
            given = _given([w.text for w in command.words])
            if given is None or given[0] != service or not _reads(command, each, this, default):
                continue
            if len(found) < MAX_RUNS:
                first, last = source.position(typed.start)[0], source.position(typed.end)[0]
                commands = tuple(tuple(w.text for w in c.words) for c in typed.commands)
                found.append(ServiceRun(typed.said(first, last, name), commands))
    return found


def _reads(command: SimpleCommand, folder: str, this: str, default: bool) -> bool:
    """Whether a compose line typed in ``folder`` reads the compose file at ``this``: one its ``-f`` names, or with
    none, a default file (``default``) of that folder."""
    words = [w.text for w in command.words]
    named = list(_file_options(words, [w.dynamic for w in command.words]))
    if named:
        return this in {os.path.abspath(path) for path in _resolved(folder, [f for f in named if f])}
    return default and os.path.abspath(folder) == os.path.dirname(this)


def _given(words: list[str]) -> tuple[str, int] | None:
    """The service a ``compose run``/``compose exec`` among ``words`` runs a command in, and where that command
    starts (``len(words)`` when it gives none); None for another subcommand, a service held in a variable, or a run
    that sets its own entrypoint."""
    index = _subcommand_at(words)
    if index >= len(words) or words[index] not in ("run", "exec"):
        return None
    valued = _RUN_VALUED if words[index] == "run" else _EXEC_VALUED
    index += 1
    while index < len(words) and words[index].startswith("-"):
        option = words[index].split("=", 1)[0]
        if option == "--entrypoint":
            return None
        index += 2 if words[index] in valued else 1
    if index >= len(words) or "$" in words[index]:
        return None
    return words[index], index + 1


def _shell_only(command: list[str]) -> bool:
    """No command, or an interactive shell (``bash``, ``sh -l``; not ``bash -c``): a person types what runs."""
    from shmlint.parsers.typed import interactive_shell

    return not command or interactive_shell(command)


def _compose_shells(files: ProjectFiles, folder: str) -> list[tuple[str, SourceText, SimpleCommand, Typed]]:
    """The shells the Markdown of ``folder`` opens in compose services (``docker compose exec trainer bash``), each
    with the session typed there: the documents among ``_compose_commands``' files that open one, read as
    documents once a folder (``files.per_folder``)."""
    from shmlint.parsers.embedded.markdown import markdown_shell_blocks
    from shmlint.parsers.typed import sessions_after

    documents = {
        name: source
        for name, source, command, _ in files.per_folder(_compose_commands, folder)
        if name.endswith(".md") and _opens_a_shell(command)
    }
    found = []
    for name, source in documents.items():
        masked, blocks = markdown_shell_blocks(source.text)
        found += [(name, source, c, typed) for c, typed in sessions_after(masked, blocks, _opens_a_shell)]
    return found


def _opens_a_shell(command: SimpleCommand) -> bool:
    words = [w.text for w in command.words]
    given = _given(words)
    return given is not None and given[1] < len(words) and _shell_only(words[given[1] :])


def env_file_named(files: ProjectFiles, folder: str) -> bool:
    """Whether a script, Makefile or document runs compose with ``--env-file`` or ``--project-directory`` on a
    project of ``folder``: one of the folder itself, or one of the ``FOLDERS_UP`` above whose ``-f`` names a file of
    the folder (the review: a root Makefile's ``docker compose -f deploy/compose.yml --env-file deploy/prod.env``).
    Then the folder's ``.env`` may not be what compose reads (asked through ``files.per_folder``)."""
    here = os.path.abspath(folder)
    for each in _folders_up(folder):
        for _, _, command, _ in files.per_folder(_compose_commands, each):
            words = [w.text for w in command.words]
            if not any(_elsewhere(words, index, each, here) for index in _global_options(words)):
                continue
            named = [name for name in _file_options(words, [w.dynamic for w in command.words]) if name]
            if each == folder or any(os.path.dirname(os.path.abspath(p)) == here for p in _resolved(each, named)):
                return True
    return False


def _elsewhere(words: list[str], index: int, run_in: str, folder: str) -> bool:
    """Whether the global option at ``index`` makes compose read another ``.env`` than ``folder``'s: an
    ``--env-file`` or ``--project-directory`` that names anything but that file or that folder (the review: one
    naming the folder's own ``.env`` changes nothing)."""
    option, equals, value = words[index].partition("=")
    if option not in _ENV_OPTIONS:
        return False
    if not equals:
        value = words[index + 1] if index + 1 < len(words) else ""
    named = os.path.abspath(os.path.join(run_in, value)) if value and "$" not in value else ""
    own = os.path.join(folder, ".env") if option == "--env-file" else folder
    return os.path.normpath(named) != os.path.normpath(own)


def _compose_commands(files: ProjectFiles, folder: str) -> list[tuple[str, SourceText, SimpleCommand, str]]:
    """The compose invocations of ``folder``'s scripts, Makefiles and Markdown, with the file that writes each (its
    lines for the report) and the folder it runs in (``_moved``), parsed once a folder (``files.per_folder``) for
    every question asked of them."""
    from shmlint.parsers.shell import commands

    found = []
    for name in _candidates(files, folder):
        read = files.source(os.path.join(folder, name))
        if read is None or len(read.text) > MAX_BYTES or not _COMPOSE_WORDS.search(read.text):
            continue
        source = SourceText(name, read.text)  # the lines of commands, from one line table
        shell, in_blocks = _shell_text(name, read.text)
        cwd = folder
        for c in commands(shell, in_blocks=in_blocks):
            cwd = _moved(c, cwd, folder)
            if _after_compose([w.text for w in c.words]) is not None:
                found.append((name, source, c, cwd))
    return found


def _moved(command: SimpleCommand, cwd: str, folder: str) -> str:
    """Where the next commands run after ``command``: a ``cd`` to a folder written out, below the file's folder,
    moves there (audit87b: ``cd docker`` then ``docker-compose run train ...``); one to anywhere else (a variable,
    ``-``, above the tree) back to the file's folder, as every command was read before."""
    words = command.words
    if command.depth or not words or words[0].text != "cd":
        return cwd
    target = words[1] if len(words) == 2 else None
    if target is None or target.dynamic or target.text.startswith(("-", "/", "~")):
        return folder
    moved = os.path.normpath(os.path.join(cwd, target.text))
    return moved if moved == folder or moved.startswith(folder.rstrip(os.sep) + os.sep) else folder


def _shell_text(name: str, text: str) -> tuple[str, bool]:
    """The shell a file runs, at its own offsets, and whether it is a document's code blocks: a Makefile's recipes
    without their ``@ - +`` prefixes and the compose commands its variables hold, a Markdown file's shell blocks and the compose commands its sentences write as
    inline code (prose around them is not shell: one apostrophe in it hid the runs after it), a script as it is."""
    if name in _MAKEFILES or name.endswith(".mk"):
        from shmlint.parsers.embedded.makefile import mask_makefile

        masked = list(mask_makefile(text))
        for value in _MAKE_COMPOSE.finditer(text):  # ``COMPOSE = docker compose -f a.yml -f gpu.yml``: what its
            masked[value.start(1) : value.end(1)] = value[1]  # recipes run as ``$(COMPOSE) up``, read as written
        return "".join(masked), False
    if name.endswith(".md"):
        from shmlint.parsers.embedded.markdown import mask_markdown

        masked = list(mask_markdown(text))
        for span in _INLINE_COMPOSE.finditer(text):  # ``Run `docker compose -f a.yml -f b.yml up` on a GPU``: a
            masked[span.start(1) : span.end(1) + 1] = f"{span[1]};"  # sentence's inline code, each span a command
        return "".join(masked), True
    return text, False


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


def _file_options(words: list[str], dynamic: list[bool]) -> Iterator[str | None]:
    """The ``-f``/``--file`` values of a compose invocation among ``words`` (None for one only known at run time)."""
    for index in _global_options(words):
        word = words[index]
        if word in ("-f", "--file") and index + 1 < len(words):
            yield None if dynamic[index + 1] else words[index + 1]
        elif word.startswith("--file="):
            yield None if dynamic[index] else word.removeprefix("--file=")


def _global_options(words: list[str]) -> Iterator[int]:
    """Where a compose invocation's own options are among ``words``, up to its subcommand (after it, ``-f`` means
    something else: ``logs -f`` follows)."""
    start = _after_compose(words)
    index = len(words) if start is None else start
    while index < len(words) and words[index].startswith("-"):
        yield index
        index += _option_width(words[index])


def _subcommand_at(words: list[str]) -> int:
    """Where a compose invocation's subcommand is among ``words``: after its own options (``len(words)`` when it
    has none)."""
    start = _after_compose(words)
    last = max(_global_options(words), default=None)  # the options' places rise
    if last is None:
        return len(words) if start is None else start
    return last + _option_width(words[last])


def _option_width(word: str) -> int:
    """The words one of compose's own options takes: itself, and its value where it takes one."""
    return 2 if word in _VALUED or word in ("-f", "--file") else 1


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
