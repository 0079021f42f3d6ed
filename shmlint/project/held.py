"""The repository's training programs in a container that only holds its accelerators (a shell, ``sleep
infinity``, a notebook server, a dev container) while people run work in it: what they run there is the code the
container holds (a bind mount of the repository, what its image copies from it).

Two kinds of evidence, kept apart (``Held``). What decides the need: the Python and launcher commands of the held
folder's own Makefile, the repository's word on what people run there (``make train``), and a training program in
the container's working directory (its ``working_dir``/``-w``, else its image's ``WORKDIR``: a shell opened there is
where ``python train.py`` is typed; audit83c and audit85a, both crashes). Training programs found elsewhere only by
their names (a ``.py`` or ``.sh`` file named for training, ``train.py``, ``train_net.py``, ``run_finetune.sh``, or a
``main.py``, at most two folders below a held folder, outside tests and documentation, and not a test, a library
module (``train_utils.py``) or a batch job's script: ``#SBATCH`` runs on the cluster's nodes) are what people may
run there, which nothing says they do: the audits found such findings wrong nine times in ten (audit70d, audit85d,
audit86c), so they are said in the undecided finding, not a failing one. Each program is read as ``python
train.py`` would run it, with the same budget as a command's walk. The programs of a folder are looked
for once a run (``ProjectFiles.per_folder``). A terminal run with no command of an image built FROM a shell's
base is such a container too (``images_shell``); its list of bases lives here, loaded only for a container that
holds the repository (sixteen names interned at every start made one flagged file's check 0.75 M instructions
dearer).
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.model import CodeFact, ProjectFacts, Workload
from shmlint.named_tuple import NamedTuple
from shmlint.project.follow import command_run, program_run
from shmlint.project.index import ProjectFiles, Reader
from shmlint.signals import LAUNCHER_PROGRAMS, split_image

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
    uses /dev/shm and the commands of what their Makefiles run and of the training programs in the container's
    working directory (a shell opened there is where ``python train.py`` is typed); ``named`` and
    ``named_commands``, those of the training programs found elsewhere by their names. Each fact is said with the
    folder's container path."""

    run: Facts
    run_commands: Facts
    named: Facts
    named_commands: Facts


def held_training(held: Sequence[tuple[str, str]], devices: int | None, reader: Reader, workdir: str = "") -> Held:
    """What the training programs in the held folders (container path, repository folder) and their Makefiles'
    commands show; ``workdir``: the container's working directory."""
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
    return Held(*(tuple(dict.fromkeys(facts)) for facts in (*run, *named)))


def _recipes(files: ProjectFiles, folder: str) -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """The first ``MAX_RECIPES`` commands of the held folder's own Makefile that start Python or a launcher that
    runs its processes here (``make train-ddp`` typed in a dev container runs ``python training/run_experiment.py
    --num_workers=20``, audit69a; not ``srun``, whose job runs on a cluster's nodes), each with the file and line:
    what people run in the container, by the repository's own word. Read once a run (``ProjectFiles.per_folder``)."""
    from shmlint.parsers.embedded.makefile import mask_makefile
    from shmlint.parsers.programs import is_python, program
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
            names = [name for name in files.files_in(where) if _TRAINING.fullmatch(name.lower())]
            if not files.complete(where):  # a folder of more entries than are listed: the likely names, asked
                names += [name for name in _LIKELY if name not in names and files.has_file(os.path.join(where, name))]
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
