"""The repository's training programs in a container that only holds its accelerators (a shell, ``sleep
infinity``, a notebook server, a dev container) while people run work in it: what they run there is the code the
container holds (a bind mount of the repository, what its image copies from it).

Two kinds of evidence, kept apart (``Held``). What decides the need: the Python and launcher commands of the held
folder's own Makefile, the repository's word on what people run there (``make train``), and a training program in
the container's working directory (its ``working_dir``/``-w``, else its image's ``WORKDIR``: a shell opened there is
where ``python train.py`` is typed; audit83c and audit85a, both crashes), and for a Jupyter server the notebooks
it serves (``--notebook-dir``, else where it starts; at most ``MAX_NOTEBOOKS``, two folders down): their code cells
run in its kernels and their ``!`` lines in its shell (audit87c: a course image's ``!horovodrun -np 2``).

Training programs found elsewhere only by their names (a ``.py`` or ``.sh`` file named for training, ``train.py``,
``train_net.py``, ``run_finetune.sh``, or a ``main.py``, at most two folders below a held folder, outside tests and
documentation, and not a test, a library module (``train_utils.py``) or a batch job's script: ``#SBATCH`` runs on
the cluster's nodes) are what people may run there, which nothing says they do: the audits found such findings
wrong nine times in ten (audit70d, audit85d, audit86c), so they are said in the undecided finding, not a failing
one. Each program is read as ``python train.py`` would run it, with the same budget as a command's walk. The
programs of a folder are looked for once a run (``ProjectFiles.per_folder``).

A terminal run with no command of an image built FROM a shell's base is such a container too (``images_shell``);
its list of bases lives here, loaded only for a container that holds the repository (sixteen names interned at
every start made one flagged file's check 0.75 M instructions dearer).
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from shmlint.lazy_regex import LazyRegex
from shmlint.model import CodeFact, Need, ProjectFacts, Tier, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.need import decide, holds_only
from shmlint.parsers.programs import SHELLS, is_python, program, program_name
from shmlint.project.follow import command_run, notebook_run, program_run
from shmlint.project.index import ProjectFiles, Reader
from shmlint.signals import LAUNCHER_PROGRAMS, split_image

if TYPE_CHECKING:
    from shmlint.need import Knowledge

#: held folders looked in, and training programs read in all (more would only lengthen the walk)
MAX_FOLDERS = 4
MAX_PROGRAMS = 4
#: Python and launcher commands of one held folder's Makefile followed
MAX_RECIPES = 8
_MAKEFILES = ("Makefile", "makefile", "GNUmakefile")
#: launchers whose processes run where they are typed (``srun``'s run on the nodes of a cluster's job)
_LOCAL_LAUNCHERS = LAUNCHER_PROGRAMS - {"srun"}
#: folders below a held one looked in (``tools/train.py``, ``scripts/train/train.py``)
MAX_BELOW = 2
#: notebooks read in the folder a Jupyter server serves, and in the folders below it (the shallowest first)
MAX_NOTEBOOKS = 4
#: how a command starts a Jupyter server, and the options that name the folder it serves
_JUPYTER_PROGRAMS = frozenset({"jupyter-lab", "jupyter-notebook", "jupyter-server"})
_JUPYTER_SUBCOMMANDS = frozenset({"lab", "notebook", "server"})
_JUPYTER_MODULES = frozenset({"jupyterlab", "notebook", "jupyter_server"})
_SERVED = ("--notebook-dir", "--ServerApp.root_dir", "--NotebookApp.notebook_dir")
#: characters of a holder's command read for its Jupyter server's folder (a real one is a line)
MAX_COMMAND = 4096
#: folders listed below one held folder, at most (a wide tree is not walked for a training program)
MAX_LISTED = 64
#: a file named for training, as people run it: ``train.py``, ``train_net.py``, ``run_finetune.sh``; not a test
#: (``test_train.py``, ``train_test.py``) nor a module others import (``train_utils.py``, ``training_args.py``)
_TRAINING = LazyRegex(
    r"main\.py|(?!test[_-])(?:[a-z0-9]{1,20}[_-])?(?:train|training|finetune|fine_tune|pretrain)"
    r"(?:[_-](?!(?:test|tests|utils?|args|arguments|config|configs|dataset|data|lib|helpers?|common)\.)"
    r"[a-z0-9_-]{1,40})?\.(?:py|sh)"
)
#: names a folder whose listing was cut short is asked for one by one (the listing's order is the system's)
_LIKELY = ("train.py", "main.py", "finetune.py", "pretrain.py", "train.sh", "finetune.sh")
#: folders whose files nobody runs as the container's work
_ASIDE = frozenset({"test", "tests", "testing", "docs", "doc", "node_modules", "site-packages", "venv", "__pycache__"})
#: a batch scheduler's job script: its commands run on the nodes it allocates
_BATCH_JOB = LazyRegex(r"^#(?:SBATCH|PBS|BSUB)\b|^#\$ ", re.MULTILINE, ("#",))
Facts = tuple[CodeFact, ...]
#: how the evidence says where the program is held
HELD_IN = "a training program in the repository's folder the container holds at "


class Held(NamedTuple):
    """What the held folders show, by how sure it is that it runs there: ``run`` and ``run_commands``, the code that
    uses /dev/shm and the commands of what their Makefiles run, of the training programs in the container's
    working directory (a shell opened there is where ``python train.py`` is typed) and of the notebooks its Jupyter
    server serves (their code and ``!`` commands run in its kernels); ``named`` and
    ``named_commands``, those of the training programs found elsewhere by their names. Each fact is said with the
    folder's container path."""

    run: Facts
    run_commands: Facts
    named: Facts
    named_commands: Facts


def with_held(workload: Workload, knowledge: Knowledge, reader: Reader, need: Need) -> tuple[Need, ProjectFacts | None]:
    """The need of a container that holds accelerators and the repository, with what the folders it holds say
    people run in it (``Held.run``); training programs found there only by their names leave it as it was, said in
    a note: what may run there, not what the repository says runs there."""
    facts = workload.project
    if facts is None or not (holds_only(workload, knowledge) or images_shell(workload, facts)):
        return need, facts
    launch = workload.launch
    started = facts.started.text if facts.started is not None else ""
    forwarded = launch is not None and launch.forwarded
    served = served_folder((not forwarded and workload.command) or started, facts.working_dir)
    held = held_training(facts.held, workload.accelerator_count, reader, facts.working_dir, served)
    richer = facts._replace(needs=(*facts.needs, *held.run), commands=(*facts.commands, *held.run_commands))
    found = decide(workload._replace(project=richer), knowledge) if held.run or held.run_commands else None
    if found is not None and found.tier is Tier.NEEDS:
        return found, richer
    named = facts._replace(needs=(*facts.needs, *held.named), commands=(*facts.commands, *held.named_commands))
    found = decide(workload._replace(project=named), knowledge) if held.named or held.named_commands else None
    if found is None or found.tier is not Tier.NEEDS:
        return need, facts
    note = f"it holds {found.because}, found by its name: nothing in the repository says it runs there"
    return need, facts._replace(notes=(*facts.notes, note))


def held_training(
    held: Sequence[tuple[str, str]], devices: int | None, reader: Reader, workdir: str = "", served: str = ""
) -> Held:
    """What the training programs in the held folders (container path, repository folder), their Makefiles'
    commands and the notebooks a Jupyter server serves show; ``workdir``: the container's working directory;
    ``served``: the folder its Jupyter server serves (``served_folder``), "" for none."""
    files = reader.index.tree(reader.index.max_bytes)
    folders = list(dict.fromkeys(held))[:MAX_FOLDERS]
    programs: dict[str, tuple[str, str, str]] = {}  # by real path: a folder held at two points is read once
    for point, folder in folders:
        for path in files.per_folder(_programs, folder):
            programs.setdefault(os.path.join(folder, path), (folder, path, point))
    run: tuple[list[CodeFact], list[CodeFact]] = ([], [])
    named: tuple[list[CodeFact], list[CodeFact]] = ([], [])
    for folder, path, point in list(programs.values())[:MAX_PROGRAMS]:
        walked = files.per_folder(_walked, folder)  # a program held by many containers is read once a run
        if (path, devices) not in walked:
            batch = path.endswith(".sh") and _batch_job(reader, os.path.join(folder, path))
            walked[path, devices] = ((), ()) if batch else program_run(folder, path, devices, reader)
        found, commands = walked[path, devices]
        here = bool(workdir) and posixpath.dirname(posixpath.join(point, path)) == posixpath.normpath(workdir)
        needs, kept = run if here else named
        if found:  # said once a program: where the code is held
            said = f", in its working directory {posixpath.normpath(workdir)}" if here else ""
            needs += [found[0]._replace(text=f"{found[0].text} ({HELD_IN}{point}{said})"), *found[1:]]
        kept += commands
    needs, kept = run
    for point, folder in folders:
        walked = files.per_folder(_walked, folder)
        for name, line, argv in files.per_folder(_recipes, folder):
            if (argv, devices) not in walked:
                walked[argv, devices] = command_run(folder, argv, devices, reader)
            found, commands = walked[argv, devices]
            where = f"{reader.display(os.path.join(folder, name))}:{line}"
            kept.append(CodeFact(where, " ".join(argv)))
            if found:
                needs += [found[0]._replace(text=f"{found[0].text} ({HELD_IN}{point}, run by {where})"), *found[1:]]
            kept += commands
    if served:
        notebooks, started = _served_notebooks(folders, served, devices, reader)
        needs += notebooks
        kept += started
    return Held(*(tuple(dict.fromkeys(facts)) for facts in (*run, *named)))


def served_folder(command: str, workdir: str) -> str:
    """The folder a Jupyter server a command starts serves, as a container path: its ``--notebook-dir`` (or
    ``--ServerApp.root_dir``), else where it starts (``workdir``); "" where the command starts none or the folder is
    not known. A ``sh -c`` string's words are read as its own."""
    try:
        words = shlex.split(command[:MAX_COMMAND])
    except ValueError:
        return ""
    if len(words) >= 3 and program_name(words[0]) in SHELLS and words[1] == "-c":  # quoted, or joined as a CMD's
        return served_folder(" ".join(map(shlex.quote, words[2:])) if len(words) > 3 else words[2], workdir)
    at = next((index for index in range(len(words)) if _starts_jupyter(words, index)), None)
    if at is None:
        return ""
    folder = workdir
    for index in range(at + 1, len(words)):
        option, equals, value = words[index].partition("=")
        if option in _SERVED:
            folder = value if equals else (words[index + 1] if index + 1 < len(words) else "")
    if not folder or "$" in folder:
        return ""
    return posixpath.normpath(posixpath.join(workdir or "/", folder))


def _starts_jupyter(words: Sequence[str], index: int) -> bool:
    name, following = program_name(words[index]), words[index + 1 : index + 3]
    if name in _JUPYTER_PROGRAMS:
        return True
    if name == "jupyter":
        return following[:1] != [] and following[0] in _JUPYTER_SUBCOMMANDS
    return is_python(name) and len(following) == 2 and following[0] == "-m" and following[1] in _JUPYTER_MODULES


def _served_notebooks(
    folders: Sequence[tuple[str, str]], served: str, devices: int | None, reader: Reader
) -> tuple[list[CodeFact], list[CodeFact]]:
    """What the notebooks a Jupyter server serves show (``MAX_NOTEBOOKS``, at most ``MAX_BELOW`` folders below the
    folder it serves): each notebook read as its kernel runs it, its Python and its shell (``!`` commands that start
    Python or a launcher, followed as a Makefile's are), said with where the server serves it."""
    files = reader.index.tree(reader.index.max_bytes)
    needs: list[CodeFact] = []
    commands: list[CodeFact] = []
    read = 0
    for point, folder in folders:
        if served != point and not served.startswith(point.rstrip("/") + "/"):
            continue
        home = os.path.normpath(os.path.join(folder, posixpath.relpath(served, point)))
        for path in files.per_folder(_notebooks, home)[: MAX_NOTEBOOKS - read]:
            read += 1
            walked = files.per_folder(_walked, home)
            if (path, devices) not in walked:
                walked[path, devices] = _notebook_run(home, path, devices, reader)
            found, run = walked[path, devices]
            if found:
                needs += [found[0]._replace(text=f"{found[0].text} (a notebook its Jupyter server serves at {served})")]
                needs += found[1:]
            commands += run
    return needs, commands


def _notebook_run(folder: str, path: str, devices: int | None, reader: Reader) -> tuple[Facts, Facts]:
    """What one notebook shows when its kernel runs it in its own folder: its Python (``follow`` reads a notebook's
    kernel code), and the commands its ``!`` lines run that start Python or a launcher, each followed."""
    from shmlint.parsers.embedded.notebook import notebook_shell
    from shmlint.parsers.jsonc import JsoncError
    from shmlint.parsers.shell import commands, top_level

    home = os.path.dirname(path)
    where = os.path.join(folder, home) if home else folder
    needs, run = notebook_run(folder, path, devices, reader)
    text = reader.text(os.path.join(folder, path))
    try:
        shell = notebook_shell(text).text if text is not None else ""
    except JsoncError:
        shell = ""
    found = [needs, run]
    started = 0
    for command in top_level(commands(shell)):
        argv = program([word.text for word in command.words])
        if not argv or not (is_python(argv[0]) or program_name(argv[0]) in _LOCAL_LAUNCHERS):
            continue
        line = (text or "").count("\n", 0, command.words[0].start) + 1  # the shell keeps the file's offsets
        more = command_run(where, argv, devices, reader)
        found[0] += more[0]
        found[1] += (CodeFact(f"{reader.display(os.path.join(folder, path))}:{line}", " ".join(argv)), *more[1])
        started += 1
        if started == MAX_RECIPES:
            break
    return tuple(found[0]), tuple(found[1])


def _notebooks(files: ProjectFiles, folder: str) -> tuple[str, ...]:
    """The notebooks at most ``MAX_BELOW`` folders below ``folder``, the shallowest first (paths relative to it)."""
    return _below(files, folder, lambda name: name.endswith(".ipynb"))


def _recipes(files: ProjectFiles, folder: str) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """The first ``MAX_RECIPES`` commands of the held folder's own Makefile that start Python or a launcher that
    runs its processes here (``make train-ddp`` typed in a dev container runs ``python training/run_experiment.py
    --num_workers=20``, audit69a; not ``srun``, whose job runs on a cluster's nodes), each with the file and line:
    what people run in the container, by the repository's own word. Read once a run (``ProjectFiles.per_folder``)."""
    from shmlint.parsers.embedded.makefile import mask_makefile
    from shmlint.parsers.shell import commands, top_level

    for name in _MAKEFILES:
        source = files.source(os.path.join(folder, name))
        if source is None:
            continue
        found: list[tuple[str, int, tuple[str, ...]]] = []
        for command in top_level(commands(mask_makefile(source.text))):
            argv = program([word.text for word in command.words])
            if argv and (is_python(argv[0]) or argv[0].rpartition("/")[2] in _LOCAL_LAUNCHERS):
                found.append((name, source.position(command.words[0].start)[0], tuple(argv)))
                if len(found) == MAX_RECIPES:
                    break
        return tuple(found)
    return ()


def _walked(_: ProjectFiles, folder: str) -> dict[tuple[str | tuple[str, ...], int | None], tuple[Facts, Facts]]:
    """What each program of ``folder`` (by its path) and each command of its Makefile (by its words) showed, with
    the GPUs it was read for: filled as they are read (``held_training``), one for the run."""
    return {}


def _batch_job(reader: Reader, path: str) -> bool:
    text = reader.text(path)
    return text is not None and _BATCH_JOB.search(text, 0) is not None


def _programs(files: ProjectFiles, folder: str) -> tuple[str, ...]:
    """Training programs at most ``MAX_BELOW`` folders below ``folder``, the shallowest first (paths relative to
    it, in sorted order), within ``MAX_LISTED`` folders listed."""
    return _below(files, folder, lambda name: _TRAINING.fullmatch(name.lower()) is not None, _LIKELY)


def _below(
    files: ProjectFiles, folder: str, wanted: Callable[[str], bool], likely: Sequence[str] = ()
) -> tuple[str, ...]:
    """The files ``wanted`` picks at most ``MAX_BELOW`` folders below ``folder``, the shallowest first (paths
    relative to it, in sorted order), within ``MAX_LISTED`` folders listed; in a folder of more entries than are
    listed, the ``likely`` names are asked for one by one."""
    found: list[str] = []
    level = [""]
    listed = 0
    for _ in range(MAX_BELOW + 1):
        below: list[str] = []
        for relative in level:
            if listed >= MAX_LISTED:
                return tuple(found)
            listed += 1
            where = os.path.join(folder, relative) if relative else folder
            names = [name for name in files.files_in(where) if wanted(name)]
            if not files.complete(where):
                names += [name for name in likely if name not in names and files.has_file(os.path.join(where, name))]
            found += [os.path.join(relative, name) if relative else name for name in sorted(set(names))]
            below += [
                os.path.join(relative, name) if relative else name
                for name in sorted(files.folders_in(where))
                if not name.startswith(".") and name.lower() not in _ASIDE
            ][: MAX_LISTED - listed - len(below)]
        level = below
    return tuple(found)


#: base images whose own start is a shell or Python's prompt (an OS, CUDA, Python, conda or a PyTorch build): an image
#: built FROM one that starts nothing of its own is where people type; any other base may start its server
_SHELL_BASES = frozenset(
    {
        *("ubuntu", "debian", "centos", "rockylinux", "almalinux", "fedora", "alpine", "amazonlinux"),
        *("nvidia/cuda", "nvcr.io/nvidia/cuda", "nvcr.io/nvidia/pytorch", "pytorch/pytorch", "rocm/pytorch"),
        *("python", "continuumio/miniconda3", "continuumio/anaconda3", "condaforge/miniforge3"),
    }
)


def images_shell(workload: Workload, facts: ProjectFacts) -> bool:
    """No command and a terminal, in an image the repository builds whose Dockerfile starts nothing of its own (no
    CMD or ENTRYPOINT) from a base whose start is a shell (``_SHELL_BASES``): where people type the repository's
    commands (audit77a: ``docker run -i -t unit:test`` of a training repository's image FROM ``nvidia/cuda``, its
    code mounted by its author's path). A base that may start a server (vLLM's, a notebook's) is not one."""
    launch = workload.launch
    if launch is None or not launch.terminal or workload.command or facts.started is not None or not facts.images:
        return False
    name = split_image(facts.images[-1].text.removeprefix("FROM "))[0].lower()  # the running stage's base
    return name.removeprefix("docker.io/").removeprefix("library/") in _SHELL_BASES
