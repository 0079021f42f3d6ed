"""Follow one container into the repository: the image it is built from, the command it starts, the scripts and
Python files that command runs, and the config files named on the way; the facts found, each with file and line.

Bounded by the reader's budget (files, bytes) and by depth: shell wrappers and local imports are followed
``max_depth`` levels below the command. Nothing is imported or executed.
"""

from __future__ import annotations

import os
import posixpath
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from shmlint.model import STARTED_AT, CodeFact, Launch, MountedConfig, ProjectFacts
from shmlint.parsers.programs import PLUMBING, program
from shmlint.project.binds import MAX_MOUNTS, bound_folders, covers, mounted_folders
from shmlint.project.image_build import built_image, image_build, may_build
from shmlint.project.index import MAX_PARTS, VIRTUAL_PREFIX, Reader
from shmlint.project.launchers import UNKNOWN, Target, known, shown, target
from shmlint.visible import clipped, visible

if TYPE_CHECKING:
    from shmlint.parsers.python_imports import FromImport
    from shmlint.project.configs import Setting
    from shmlint.project.pycode import PyFacts
    from shmlint.project.pyhelpers import LoaderHelper
    from shmlint.project.pyoption_flow import Kept
    from shmlint.project.pyoptions import Option
    from shmlint.project.pyvalues import Value
    from shmlint.project.shellvars import Line

#: commands recorded per workload: the first ones decide, the rest would only lengthen a message
MAX_COMMANDS = 64
#: libraries that start no worker processes of their own (``torch.distributed`` and ``torch.multiprocessing`` are
#: read as busy by ``pycode``)
PLAIN_LIBRARIES = frozenset(
    {"torch", "torchvision", "torchaudio", "numpy", "PIL", "tqdm", "yaml", "pandas", "scipy", "einops", "safetensors"}
)
#: ``sh -c`` strings read per workload (each may hold another)
MAX_INLINE = 16
#: where a command of a ``-c`` string is written, in messages: the manifest's own command, not a file of the tree
INLINE_WHERE = "-c string:"
#: how facts name Python's ``-c`` code (``python -c:12 DataLoader(num_workers=4)``: the code's own line)
CODE_WHERE = "python -c"
#: config files a program's code names (argparse defaults, literal paths, Hydra) read per program
MAX_DEFAULT_CONFIGS = 4
#: programs started by the code followed per workload (each is read as a program of its own), and the files they
#: may read together (with the bytes of the workload's own budget)
MAX_STARTED = 8
#: commands kept as facts from the programs the container's code starts: a training script a web UI starts is
#: often a long one whose training command comes last (audit79a: line 340 of a script of menus and checks)
MAX_STARTED_COMMANDS = 4 * MAX_COMMANDS
STARTED_FILES = 32
#: names of missing programs said in a note (the first ones: more would only lengthen the message)
MAX_MISSING = 2
#: where a command-line tool keeps its subcommands' modules, below its top package (``allennlp/commands/train.py``)
_SUBCOMMAND_FOLDERS = ("commands", "cli", "subcommands")
#: a Streamlit app's pages read (``_Walk.pages``)
MAX_PAGES = 16
#: loader helpers kept per program (``pyhelpers``), for the modules that import them
MAX_HELPERS = 32
#: files one wildcard COPY source is followed to (``_Walk.copy_matches``)
MAX_MATCHES = 64
#: config file names kept from the programs followed (the first are read, up to ``MAX_DEFAULT_CONFIGS``)
MAX_CONFIG_NAMES = 16


#: what makes a folder a Python project that ``pip install`` installs (its ``src/`` packages then import)
_PROJECT_FILES = ("setup.py", "setup.cfg", "pyproject.toml")
#: the folders of the PATH images set (Debian's and the official images' default)
_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")


class _Walk:
    """The state of one workload's walk: what was found so far and which files were read."""

    def __init__(
        self,
        reader: Reader,
        bases: list[str],
        devices: int | None,
        workdir: str = "",
        configs: tuple[MountedConfig, ...] = (),
    ) -> None:
        self.reader = reader
        self.bases = bases
        self.devices = devices
        self.workdir = workdir
        self.config_mounts = configs  # the ConfigMaps the container mounts
        self.commands: list[CodeFact] = []
        self.by_name: list[CodeFact] = []  # programs the code starts by name (``pycommands.Started``)
        self.needs: list[CodeFact] = []
        self.zero: list[CodeFact] = []
        self.doubt = False  # something read could use workers that were not seen (unknown values, busy imports)
        self.followed: list[str] = []
        self.inline = 0  # ``sh -c`` strings read, so nested ones cannot recurse without end
        self.mounts: list[tuple[str, str]] = []  # bind mounts: (container path, repository folder)
        self.missing: list[str] = []  # scripts and programs a command names that are not in the checked files
        self.kept: list[Kept] = []  # options the programs keep to themselves (``keep_options``)
        #: the repository's files the image copies one by one (``COPY docker/start.sh /start.sh``), by the
        #: container path they are at
        self.copied: dict[str, str] = {}
        #: programs the code starts (a web UI's training script), followed once the container's own is read
        self.started: list[tuple[CodeFact, tuple[str, ...], Mapping[str, str]]] = []
        self.scripts: dict[str, tuple[str, str]] | None = None  # ``installed``: read once a walk needs them
        self.cwd = ""  # where the shell's ``cd`` went (``moved``): relative names are looked for there first
        self.repositories: frozenset[str] | None = None  # ``clone_names``, read once a walk needs them
        #: commands kept as facts: ``MAX_COMMANDS`` of the container's own, as many more of what its code starts
        self.most_commands = MAX_COMMANDS
        self.processes: list[CodeFact] = []  # ``mp.Process`` calls read (``settle_processes``)
        self.spawn_method = False
        self.program({})

    def served(self, argv: Sequence[str]) -> None:
        """A ``tritonserver`` command's model repositories in the checked tree (``shmlint.project.triton``)."""
        if argv and argv[0].endswith("tritonserver"):
            from shmlint.project import triton  # loaded for a Triton server's command only

            triton.follow(self, argv)

    def locate(self, name: str) -> str | None:
        """The file a name in a command stands for: what a ConfigMap the container mounts puts at that path (a
        path a mount covers is never the repository's, even when the ConfigMap is not known), else the
        repository's file (``Reader.locate``)."""
        if self.config_mounts:
            from shmlint.project.configmaps import container_path, hides

            path = container_path(name, self.workdir)
            if path is not None and VIRTUAL_PREFIX + path in self.reader.virtual:
                return VIRTUAL_PREFIX + path
            if path is not None and any(hides(mount, path) for mount in self.config_mounts):
                return None
        if self.copied:
            from shmlint.project.configmaps import container_path

            # a bare name is looked up on the PATH too (``CMD ["start.sh"]`` after ``COPY start.sh /usr/local/bin/``)
            places = (name, *(posixpath.join(folder, name) for folder in _PATH)) if "/" not in name else (name,)
            copied = next(
                (p for place in places if (p := self.copied.get(container_path(place, self.workdir or "/") or ""))),
                None,
            )
            if copied is not None:
                return copied
        return self.reader.locate(self.bases, name)

    def located_here(self, name: str) -> str | None:
        """The file a relative name stands for where the shell's ``cd`` went: a container path (``cd /build/demo &&
        bash train.sh``: ``/build/demo/train.sh``, found by its tails as any container path is, else where the name
        alone leads), or a folder of the repository (the repository itself where the folder is its clone's name);
        after a ``cd`` into a folder the repository does not have (another project a guide clones), nothing."""
        if not self.cwd or name.startswith("/"):
            return self.locate(name)
        if self.cwd.startswith("/"):
            return self.locate(posixpath.join(self.cwd, name)) or self.locate(name)
        first, _, rest = self.cwd.partition("/")
        if self.reader.locate(self.bases, self.cwd, folder=True) is None:
            if first not in self.clone_names():
                return None
            return self.locate(posixpath.join(rest, name) if rest else name)
        return self.locate(posixpath.join(self.cwd, name))

    def clone_names(self) -> frozenset[str]:
        """The names the roots' clones know their repositories by (``git clone .../NAME; cd NAME``)."""
        if self.repositories is None:
            from shmlint.project.own_image import root_name  # for a ``cd`` into a folder the tree lacks

            index = self.reader.index
            self.repositories = frozenset(root_name(index, root) for root in index.roots)
        return self.repositories

    def copy(self, point: str, source: str, context: str, mounted: Sequence[str]) -> None:
        """What one COPY of the image puts at ``point``, in the Dockerfile's order (``source``: its one source in
        the build folder ``context``, "" when it is not one of it). A file of the repository is kept at its
        destination and in it (``COPY start.sh /usr/local/bin/``: the reading keeps no trailing slash, so both),
        where no mount (``mounted``: the container paths mounted) hides it, and replaces what was there; a folder
        replaces the files kept below it with its own of the same name; a copy from elsewhere (another stage, a
        URL, an archive) leaves nothing known below it, and a wildcard (``scripts/*.sh``) copies the files of the
        folder it names that it matches into ``point``. Folders are also mounts (``walk.mounts``)."""
        point = posixpath.normpath(point)
        if any(c in source for c in "*?["):
            self.copy_matches(point, source, context, mounted)
            return
        folder = self.reader.folder(os.path.join(context, source)) if source else None
        if folder is not None:
            self.mounts.append((point, folder))
        covered = [place for place in self.copied if covers(point, place)]
        if folder is not None or not source:
            for place in covered:
                below = place[len(point) :].lstrip("/")
                replaced = self.reader.inside(os.path.join(folder, below)) if folder is not None and below else None
                if replaced is not None:
                    self.copied[place] = replaced
                elif folder is None:
                    del self.copied[place]
            return
        path = self.reader.inside(os.path.join(context, source))
        for place in (point, posixpath.join(point, posixpath.basename(source))):
            if path is not None and not any(covers(mount, place) for mount in mounted):
                self.copied[place] = path
            else:
                self.copied.pop(place, None)

    def copy_matches(self, point: str, source: str, context: str, mounted: Sequence[str]) -> None:
        """``COPY scripts/*.sh /opt/app/``: each file of the build context's folder that the last part matches, in
        ``point`` (the first ``MAX_MATCHES``, sorted); a wildcard in a folder's part is a copy from elsewhere."""
        import fnmatch

        parent, pattern = posixpath.split(source)
        folder = self.reader.folder(os.path.join(context, parent)) if not any(c in parent for c in "*?[") else None
        if folder is None:
            self.copy(point, "", context, mounted)
            return
        listed = self.reader.index.tree(self.reader.index.max_bytes).files_in(folder)
        for name in sorted(name for name in listed if fnmatch.fnmatchcase(name, pattern))[:MAX_MATCHES]:
            self.copy(posixpath.join(point, name), posixpath.join(parent, name), context, mounted)

    def not_found(self, name: str, path: str | None) -> None:
        """Keep a name a command runs that is not in the checked files, for the note that says so."""
        if path is None and known(name) and name not in self.missing and len(self.missing) < MAX_MISSING:
            self.missing.append(name)

    def read(self, path: str) -> str | None:
        """A file's text, named among the files read (the pod's own ``-c`` code is not a file of the repository)."""
        text = self.reader.text(path)
        if text is not None and (shown := self.reader.display(path)) != CODE_WHERE:
            self.followed.append(shown)
        return text

    def installed(self, words: Sequence[str]) -> Target | None:
        """The module of the subcommand a console script the repository installs runs (``odtk train ...``:
        ``odtk/train.py``, beside the script's ``odtk.main``), as ``python -m`` runs it; the packaging file that
        installs the script is named among the files read. A script is a command-line tool whose entry module
        imports every subcommand: only the module named for the subcommand run is read (``commands/``, ``cli/``
        and ``subcommands/`` of its package too), and a tool run with no subcommand (its usage) is not read."""
        if len(words) < 2 or "/" in words[0] or not known(words[0]) or not known(words[1]):
            return None
        if self.scripts is None:
            from shmlint.project.console_scripts import PACKAGING_FILES, console_scripts  # for an unknown program

            self.scripts = {}
            for name in PACKAGING_FILES:
                path = self.reader.locate(self.bases, name)
                text = self.reader.text(path) if path is not None else None
                for script, module in console_scripts(name, text or "").items():
                    self.scripts.setdefault(script, (module, self.reader.display(path or name)))
        module, where = self.scripts.get(words[0], ("", ""))
        subcommand = words[1].replace("-", "_")
        if not module or not subcommand.isidentifier():
            return None
        package, top = module.rpartition(".")[0] or module, module.partition(".")[0]
        places = [f"{package}.{subcommand}", *(f"{top}.{folder}.{subcommand}" for folder in _SUBCOMMAND_FOLDERS)]
        chosen = next((place for place in dict.fromkeys(places) if self.locate(place.replace(".", "/") + ".py")), None)
        if chosen is None:
            return None
        self.followed.append(where)
        return Target("module", chosen, tuple(words[2:]))

    def command(self, argv: Sequence[str], env: Mapping[str, tuple[str, ...]], depth: int) -> None:
        """Follow one command line: a script, a Python program (a console script the repository installs too), a
        ``-c`` string, a Triton server's models."""
        found = target(argv) or self.installed(program(argv))
        if found is None:
            self.served(program(argv))
            return
        if found.kind == "inline":
            from shmlint.project.shellvars import script_commands  # the shell tokenizer loads for shell text only

            self.inline += 1
            if self.inline > MAX_INLINE:
                self.doubt = True
                return
            cwd = self.cwd  # a ``-c`` string runs in a shell of its own: its ``cd`` stays there
            for line in script_commands(found.name, env, found.arguments):
                self.run(INLINE_WHERE, line, depth)
            self.cwd = cwd
        elif found.kind == "shell":
            self.shell(found, env, depth)
        elif found.kind == "code":
            self.code(found, env, depth)
        elif found.kind == "supervisor":
            self.supervised(found.name, env, depth)
        else:
            if found.launcher in ("accelerate launch", "python -m accelerate.commands.launch"):
                from shmlint.project import configs  # loaded when a command names a program, like pycode

                configs.follow_accelerate(self, program(argv), found.name)
            self.python(found, depth, env)

    def code(self, found: Target, env: Mapping[str, tuple[str, ...]], depth: int) -> None:
        """Python's ``-c`` code, read as a program's file (its loaders, the processes it starts), named in facts as
        ``python -c`` with the code's own lines; its imports are looked for beside the first folder the walk looks
        for code in (the repository, a build context), then the others."""
        self.inline += 1
        if self.inline > MAX_INLINE or not known(found.name):
            self.doubt = True
            return
        path = os.path.join(self.bases[0] if self.bases else "", f"{VIRTUAL_PREFIX}{CODE_WHERE} {self.inline}")
        self.reader.virtual = {**self.reader.virtual, path: (CODE_WHERE, found.name)}
        self.program({name: " ".join(values) for name, values in env.items()})
        self.module(path, found.arguments, {}, depth, run=True)

    def shell(self, found: Target, env: Mapping[str, tuple[str, ...]], depth: int) -> None:
        path = self.located_here(found.name) if known(found.name) else None
        text = self.read(path) if path is not None and depth < self.reader.index.max_depth else None
        if path is None or text is None:
            self.doubt = True
            self.not_found(found.name, path)
            return
        where = self.reader.display(path)
        from shmlint.project.shellvars import script_commands

        cwd = self.cwd  # the script's ``cd`` stays in its own shell
        for line in script_commands(text, env, found.arguments):
            self.run(f"{where}:{line.line}", line, depth + 1)
        self.cwd = cwd

    def supervised(self, config: str, env: Mapping[str, tuple[str, ...]], depth: int) -> None:
        """The programs supervisord starts (``shmlint.project.supervisor``): those of the configuration ``-c``
        names, else of the first of its default places the container holds, and of the files its ``[include]``
        names that the container holds; with no configuration of the repository's, the files copied where the
        distribution's package includes them. Only what the image copies or the container mounts counts (a
        ``supervisord.conf`` elsewhere in the repository is no configuration of the image's: the review). Each
        program runs as a command of the container."""
        from shmlint.project import supervisor
        from shmlint.project.shellvars import Line

        names = (config,) if config else supervisor.DEFAULT_CONFIGS
        places = [name if name.startswith("/") else posixpath.join(self.workdir or "/", name) for name in names]
        found = next(((place, path) for place in places if known(place) and (path := self.held(place))), None)
        text = self.read(found[1]) if found is not None and depth < self.reader.index.max_depth else None
        plain = {name: " ".join(values) for name, values in env.items()}
        files: list[tuple[str, str, str]] = []  # (path, container folder, text) of each configuration file read
        patterns = [supervisor.PACKAGE_INCLUDES]
        if found is not None and text is not None:
            files.append((found[1], posixpath.dirname(found[0]), text))
            patterns = supervisor.includes(text, posixpath.dirname(found[0]))
        for place, path in self.included(patterns)[: supervisor.MAX_PROGRAMS]:
            if (included := self.read(path)) is not None:
                files.append((path, posixpath.dirname(place), included))
        if not files:
            self.doubt = True
            self.not_found(config or supervisor.DEFAULT_CONFIGS[-1], None)
            return
        for path, here, content in files:
            started, unread = supervisor.programs(content, here, plain)
            self.doubt = self.doubt or unread
            where = self.reader.display(path)
            for supervised in started:
                self.run(f"{where}:{supervised.line}", Line(supervised.line, supervised.argv, env), depth + 1)

    def held(self, place: str) -> str | None:
        """The repository's file the container holds at an absolute path: one the image copies, or one in a folder
        the image copies or the container mounts there (the last copy first), never one its tails alone find."""
        place = posixpath.normpath(place)
        if place in self.copied:
            return self.copied[place]
        folder = next((f for f in self.reader.through_binds(self.mounts[::-1], posixpath.dirname(place)) if f), None)
        return self.reader.inside(os.path.join(folder, posixpath.basename(place))) if folder is not None else None

    def included(self, patterns: Sequence[str]) -> list[tuple[str, str]]:
        """(container path, repository file) of what the container holds where the patterns (container paths whose
        last part may have wildcards) match: files the image copies one by one, and files of folders it copies or
        mounts at or above the pattern's folder (sorted, as supervisord reads them)."""
        import fnmatch

        found: list[tuple[str, str]] = []
        for pattern in patterns:
            folder, base = posixpath.split(posixpath.normpath(pattern))
            found += [
                (place, path)
                for place, path in sorted(self.copied.items())
                if posixpath.dirname(place) == folder and fnmatch.fnmatchcase(posixpath.basename(place), base)
            ]
            for source in filter(None, self.reader.through_binds(self.mounts[::-1], folder)):
                listed = self.reader.index.tree(self.reader.index.max_bytes).files_in(source)
                found += [
                    (posixpath.join(folder, n), os.path.join(source, n))
                    for n in sorted(listed)
                    if fnmatch.fnmatchcase(n, base)
                ]
        return list(dict.fromkeys(found))

    def run(self, where: str, line: Line, depth: int) -> None:
        """One command of a script or a ``-c`` string, as it runs (its variables expanded from the environment the
        container and the script give it): a fact for the data's command patterns, then followed."""
        words = program(line.argv)
        if words and words[0] == "cd":
            self.cwd = moved(self.cwd, words[1:])
        if words and words[0] in PLUMBING:
            return
        if len(self.commands) < self.most_commands:
            self.commands.append(CodeFact(where, " ".join(map(shown, line.argv))))
        self.command(line.argv, line.env, depth)

    def python(self, found: Target, depth: int, env: Mapping[str, tuple[str, ...]]) -> None:
        """The program's file, the config files its command line names, and the local modules it imports."""
        settings = self.configs(found.arguments)
        name = found.name.replace(".", "/") if found.kind == "module" else found.name
        if found.kind == "python":
            candidates = [name]
        elif found.kind == "module":  # ``-m pkg`` runs its ``__main__``
            candidates = [f"{name}.py", f"{name}/__main__.py", f"src/{name}.py", f"src/{name}/__main__.py"]
        else:  # a server imports the module, from the folders it puts on sys.path first (Celery's ``-A
            # pkg.tasks.app`` may name an attribute of ``pkg.tasks``)
            parent = [f"{name.rpartition('/')[0]}.py"] if "/" in name.strip("/") else []
            first = [f"{path}{end}" for path in found.search for end in (".py", "/__init__.py")]
            candidates = [
                *first,
                f"{name}.py",
                f"{name}/__init__.py",
                f"src/{name}.py",
                f"src/{name}/__init__.py",
                *parent,
            ]
        locate = self.located_here if found.kind == "python" else self.locate  # a file is where ``cd`` went
        path, candidate = next(((p, c) for c in candidates if known(c) and (p := locate(c))), (None, ""))
        if path is None:
            self.doubt = True
            self.not_found(candidates[0], path)
            return
        module = candidate.removeprefix("src/")
        top = path[: -len(module) - 1] if path.replace(os.sep, "/").endswith("/" + module) else ""
        # the folder on ``sys.path`` that holds the package (``src/`` of a src layout): this program's imports
        # start there, not the next program's
        added = found.kind == "module" and bool(top) and top not in self.bases
        if added:
            self.bases.insert(0, top)
        # what one program's modules define is that program's, not the next one's; its environment is what
        # whoever runs it passes on
        self.program({name: " ".join(values) for name, values in env.items()})
        self.module(path, found.arguments, settings, depth, run=True)
        self.keep_options(found)
        if found.app == "streamlit":
            self.pages(path, depth)
        if added:
            self.bases.remove(top)

    def pages(self, path: str, depth: int) -> None:
        """A Streamlit app's other pages: the scripts of the ``pages/`` folder beside its main script, which
        Streamlit runs as pages of the same app (https://docs.streamlit.io/develop/concepts/multipage-apps/
        pages-directory), each read as the app's code (audit78b: a voice-cloning UI's Train page starts its
        training script, whose loaders have four workers). The first ``MAX_PAGES``, by name."""
        folder = os.path.join(os.path.dirname(path), "pages")
        listed = self.reader.index.tree(self.reader.index.max_bytes).files_in(folder)
        for name in sorted(name for name in listed if name.endswith(".py"))[:MAX_PAGES]:
            page = self.reader.inside(os.path.join(folder, name))
            if page is not None:
                self.module(page, (), {}, depth, run=True)

    def keep_options(self, found: Target) -> None:
        """The options the command line gives a count that the program declares and keeps to code that makes no
        loader (``pyoption_flow``), with the files read for it: all of them, or none is kept."""
        if not self.options or not any(word.startswith("-") for word in found.arguments):
            return
        from shmlint.project.pyoption_flow import kept_options  # loaded for a program given options of its own

        files = [(path, text) for path in self.modules if (text := self.reader.text(path)) is not None]
        if len(files) == len(self.modules):
            self.kept += kept_options(files, found.arguments, self.options, found.name)

    def program(self, env: Mapping[str, str]) -> None:
        """Start a program's own environment (for ``os.environ`` in its code), options and config files."""
        self.env = env
        self.options: dict[str, Option] = {}  # argparse options of its modules, for the files that import them
        self.config_defaults: list[str] = []  # config files its code names (argparse defaults, literal paths)
        self.config_files: list[str] = []  # config files found beside the code that names them (Hydra)
        self.defaults_read: list[str] = []
        self.defaults: dict[str, Setting] = {}  # their settings
        self.modules: list[str] = []  # the program's modules read
        #: of those, the names each was read for (``only``; None: all of it), to read it again for more
        self.module_names: dict[str, frozenset[str] | None] = {}
        self.helpers: dict[tuple[str, str], LoaderHelper] = {}  # (module path, name): loader helpers of its modules
        #: module path -> the names its statements assign, with the numbers its importers read (None: not known)
        self.constants: dict[str, dict[str, Value | None]] = {}

    def configs(self, arguments: Sequence[str]) -> dict[str, Setting]:
        """Settings of the config files named on a command line; one that uses /dev/shm is a fact by itself."""
        from shmlint.project import configs  # loaded when a command names a program, like pycode below

        return self.read_configs([p for n in configs.named_configs(arguments) if (p := self.located_here(n))])

    def read_configs(self, paths: Sequence[str]) -> dict[str, Setting]:
        """Settings of config files found in the repository; one that uses /dev/shm is a fact by itself."""
        from shmlint.project import configs

        every: list[Setting] = []
        for path in paths:
            text = self.read(path)
            if text is None:
                continue
            for setting in configs.settings(text):
                every.append(setting)
                if setting.uses_shm:
                    where = f"{self.reader.display(path)}:{setting.line}"
                    self.needs.append(CodeFact(where, f"{setting.key}: {setting.value}"))
        found: dict[str, Setting] = {}
        for setting in configs.unambiguous(every):  # a project's own key given two values by two files says none
            found.setdefault(setting.key, setting)
        return found

    def module(
        self,
        path: str,
        arguments: Sequence[str],
        settings: Mapping[str, Setting],
        depth: int,
        *,
        run: bool = False,
        only: frozenset[str] | None = None,
    ) -> None:
        """One Python file and, below it, the local modules it imports; a file whose loaders were not known, or that
        imports loader helpers, is read again with what those modules define (argparse options, the config files
        they name by default, the helpers). ``run``: the program itself, not a module it imports; ``only``: the
        names its importer takes from it, when it takes it by name only (``pycode.read``)."""
        from shmlint.project import pycode, pyhelpers

        if path not in self.modules:
            self.modules.append(path)
        self.module_names[path] = only
        text = self.read(path)
        if text is not None and path.endswith(".ipynb"):  # a notebook a Jupyter server serves: its kernel's Python
            text = _notebook_python(text)
        facts = (
            pycode.read(text, arguments, settings, self.devices, None, self.env, run_as_main=run, only=only)
            if text is not None
            else None
        )
        if text is None or facts is None:
            self.doubt = True
            return
        where = self.reader.display(path)
        for exported in facts.options:
            self.options.setdefault(exported[0], pycode.imported_option(where, exported))
        for helper in facts.helpers[: max(0, MAX_HELPERS - len(self.helpers))]:
            self.helpers[(path, helper.name)] = pyhelpers.imported_helper(where, helper)
        self.constants[path] = {
            name: value and value._replace(how=f", {name} = {value.number} at {where}:{line}")
            for name, value, line in facts.constants
        }
        self.config_defaults = list(dict.fromkeys([*self.config_defaults, *facts.config_defaults]))[:MAX_CONFIG_NAMES]
        if facts.config_numbers:  # a config object's defaults its module sets: what ``cfg.X.num_workers`` reads
            from shmlint.project.configs import Setting

            for key, number, line in facts.config_numbers:
                self.defaults.setdefault(key, Setting(key, number, line))
        folder = os.path.dirname(path)
        beside = (self.reader.inside(os.path.join(folder, name)) for name in facts.beside_configs[:MAX_CONFIG_NAMES])
        self.config_files = list(dict.fromkeys([*self.config_files, *filter(None, beside)]))[:MAX_CONFIG_NAMES]
        needs_at, zero_at = len(self.needs), len(self.zero)
        if depth < self.reader.index.max_depth:
            self.imports(path, facts, arguments, settings, depth)
        else:
            self.doubt = True  # imports below are not read: they could make loaders of their own
        helpers = self.imported_helpers(path, facts.from_imports) if self.helpers else {}
        values = self.imported_values(path, facts)  # read whatever else the file holds: GPU counts use them too
        unknown = facts.unknown_loaders or facts.unknown_values
        if unknown or helpers or values:
            own = {exported[0] for exported in facts.options}
            imported = {dest: option for dest, option in self.options.items() if dest not in own}
            defaults = self.default_settings() if unknown else {}
            if imported or defaults or helpers or values:
                facts = (
                    pycode.read(
                        text,
                        arguments,
                        {**defaults, **settings},
                        self.devices,
                        imported,
                        self.env,
                        helpers,
                        run_as_main=run,
                        only=only,
                        imported_values=values,
                    )
                    or facts
                )
        # a module read again for more of its names (``imports``) says again what the first read said: once is enough
        self.needs[needs_at:needs_at] = _new(self.needs, (CodeFact(f"{where}:{f.line}", f.text) for f in facts.needs))
        self.zero[zero_at:zero_at] = _new(
            self.zero, (CodeFact(f"{where}:{f.line}", f.text) for f in facts.zero_loaders)
        )
        launches = _new(self.commands, (CodeFact(f"{where}:{c.line}", c.text) for c in facts.launches))
        self.commands += launches[: MAX_COMMANDS - len(self.commands)]
        by_name = _new(self.by_name, (CodeFact(f"{where}:{c.line}", c.text) for c in facts.by_name))
        self.by_name += by_name[: MAX_COMMANDS - len(self.by_name)]
        self.started += [
            (fact, c.words, self.env)
            for c in facts.launches
            if (fact := CodeFact(f"{where}:{c.line}", c.text)) in launches
        ]
        # a command it starts is followed (``follow_started``): doubt there if it cannot be read
        self.doubt = self.doubt or facts.busy or facts.unknown_loaders > 0
        self.processes += _new(self.processes, (CodeFact(f"{where}:{f.line}", f.text) for f in facts.processes))
        self.spawn_method = self.spawn_method or facts.spawn_method

    def settle_processes(self) -> None:
        """``mp.Process`` calls use /dev/shm where a file the walk read sets a start method that pickles their
        arguments; under Linux's fork they may not, and stay a doubt (``pycode._process``)."""
        if self.processes and self.spawn_method:
            self.needs += _new(self.needs, self.processes)
        self.doubt = self.doubt or bool(self.processes)

    def follow_started(self) -> None:
        """The programs the container's code starts, each once and read as a program of its own (its imports as
        deep as the container's, however deep the file that starts it) with the environment it inherits; what
        they show is said with where they are started (``rvc/train/train.py:371 DataLoader(num_workers=4), started
        at core.py:531``). They share one budget of their own, so a web UI's many modules cannot leave its
        training script unread, and the workload's work stays within twice its bound. Programs those start are
        not followed: their commands only count for the data's patterns."""
        first: dict[tuple[str, ...], tuple[CodeFact, tuple[str, ...], Mapping[str, str]]] = {}
        for entry in self.started:
            first.setdefault(entry[1], entry)  # a program started at several places: followed once, at its first
        unique = list(first.values())
        started, self.started = unique[:MAX_STARTED], unique[MAX_STARTED:]
        container = self.reader
        self.reader = Reader(container.index._replace(max_files=STARTED_FILES), container.texts, container.virtual)
        self.most_commands = len(self.commands) + MAX_STARTED_COMMANDS  # a budget of their own, as for files
        for fact, words, env in started:
            needs_at = len(self.needs)
            self.command(words, {name: (value,) for name, value in env.items()}, 0)
            self.needs[needs_at:] = [
                need._replace(text=f"{need.text}{STARTED_AT}{fact.where}") for need in self.needs[needs_at:]
            ]
        self.doubt = self.doubt or self.reader.exhausted or bool(self.started)  # unread: could make loaders
        self.reader = container

    def default_settings(self) -> dict[str, Setting]:
        """Settings of the config files the program's code names (each read once a program)."""
        named = [path for name in self.config_defaults if (path := self.locate(name))]
        files = list(dict.fromkeys([*self.config_files, *named]))[:MAX_DEFAULT_CONFIGS]
        unread = [path for path in files if path not in self.defaults_read]
        self.defaults_read += unread
        for key, setting in self.read_configs(unread).items():
            self.defaults.setdefault(key, setting)
        return self.defaults

    def imports(
        self, path: str, facts: PyFacts, arguments: Sequence[str], settings: Mapping[str, Setting], depth: int
    ) -> None:
        """The local modules a file imports; one it takes only names from (``from m import a, b``, at its top level)
        is read for what those names reach (``only``), and again when a later import takes names that read left
        out, or all of it (review: a second importer's names were never read)."""
        folder = os.path.dirname(path)
        whole = {self.local_module(folder, module) for module in facts.whole_imports}
        named: dict[str, set[str]] = {}
        for source, name, _, _ in facts.from_imports:
            if (found := self.local_module(folder, source)) is not None:
                named.setdefault(found, set()).add(name)
        for imported in facts.imports:
            local = self.local_module(folder, imported)
            parent = imported.rpartition(".")[0]
            module = self.local_module(folder, parent) if local is None and parent.strip(".") else None
            if module is not None and not module.endswith("__init__.py"):
                continue  # ``from helpers import make``: a name the module file ``helpers.py`` defines, read there
            if local is None:
                self.doubt = self.doubt or not _plain(imported)
            elif local != path:
                only = frozenset(named[local]) if local in named and local not in whole else None
                if local in self.modules:
                    before = self.module_names.get(local)
                    if before is None or (only is not None and only <= before):
                        continue  # read before for all this import takes
                    only = None if only is None else only | before
                self.module(local, arguments, settings, depth + 1, only=only)

    def imported_helpers(self, path: str, from_imports: Sequence[FromImport]) -> dict[str, LoaderHelper]:
        """The loader helpers a module imports by name (``from data.loaders import build as make``), by the name
        it binds: each of the module the statement names, read before, bound from the statement's line on."""
        folder = os.path.dirname(path)
        found = {}
        for module, name, alias, line in from_imports:
            helper = self.helpers.get((self.local_module(folder, module) or "", name))
            if helper is not None:
                found[alias] = helper._replace(defined=line)
        return found

    def imported_values(self, path: str, facts: PyFacts) -> dict[str, Value]:
        """The numbers a file imports from the repository's modules read before it (``pyvalues.Context.imported``):
        those its ``from m import`` statements bind last (``python_imports.imported_bindings``; unknown where the
        module is not read or binds the name to a value not known, kept only for a name the file assigns itself,
        which the import hides), and each of ``import m``'s as ``m.N``."""
        from shmlint.parsers.python_imports import imported_bindings
        from shmlint.project.pyvalues import UNKNOWN as UNKNOWN_VALUE

        folder = os.path.dirname(path)
        assigned = dict(facts.assigned)

        def numbers(module: str) -> Mapping[str, Value | None] | None:
            local = self.local_module(folder, module)
            return self.constants.get(local) if local is not None else None

        bound = imported_bindings(facts.from_imports, numbers, assigned, UNKNOWN_VALUE)
        found = {name: value for name, value in bound.items() if value is not UNKNOWN_VALUE or name in assigned}
        for module in facts.whole_imports:
            constants = self.constants.get(self.local_module(folder, module) or "") or {}
            found.update((f"{module}.{name}", value) for name, value in constants.items() if value is not None)
        return found

    def local_module(self, folder: str, dotted: str) -> str | None:
        """A module of the repository (next to the importing file or below a base, or in the ``src/`` of a base
        that is a Python project: a src layout its ``pip install -e .`` puts on the path), or None for anything
        else."""
        relative = dotted.startswith(".")
        name = dotted.lstrip(".").replace(".", "/")
        if not name:
            return None
        for candidate in (f"{name}.py", f"{name}/__init__.py"):
            for base in [folder] if relative else [folder, *self.bases]:
                found = self.reader.inside(os.path.join(base, candidate))
                if found is not None:
                    return found
        for candidate in (f"src/{name}.py", f"src/{name}/__init__.py"):
            for base in [] if relative else self.bases:  # a project's files asked only where the module is
                found = self.reader.inside(os.path.join(base, candidate))
                if found is not None and any(self.reader.inside(os.path.join(base, f)) for f in _PROJECT_FILES):
                    return found
        return None


def _new(known: Sequence[CodeFact], found: Iterable[CodeFact]) -> list[CodeFact]:
    """The facts of ``found`` not among ``known`` (a module read again says its first read's facts again)."""
    seen = set(known)
    return [fact for fact in found if fact not in seen]


def _plain(module: str) -> bool:
    """A module outside the repository that starts no loaders or processes of its own: the standard library and a
    few numeric and imaging libraries. Anything else could make loaders the walk cannot see, so code importing it
    is never called free."""
    from shmlint.project.pycode import BUSY_PACKAGES

    top = module.split(".")[0]
    return bool(top) and (top in sys.stdlib_module_names or top in PLAIN_LIBRARIES) and top not in BUSY_PACKAGES


def _notebook_python(text: str) -> str | None:
    from shmlint.parsers.embedded.notebook import notebook_python  # loaded for a notebook only
    from shmlint.parsers.jsonc import JsoncError

    try:
        return notebook_python(text)
    except JsoncError:
        return None


def moved(cwd: str, arguments: Sequence[str]) -> str:
    """Where ``cd`` goes from ``cwd``: a path written out (absolute, or relative to ``cwd``); ``cd`` alone, ``cd -``,
    ``~`` or a path with an unknown part leave the names as they were (looked for from the walk's folders)."""
    target = arguments[0] if len(arguments) == 1 else ""
    if not target or not known(target) or "$" in target or target == "-" or target.startswith("~"):
        return cwd
    return posixpath.normpath(target if target.startswith("/") or not cwd else posixpath.join(cwd, target))


def gather(launch: Launch, devices: int | None, reader: Reader, image: str | None = None) -> ProjectFacts:
    """What the repository shows about the container ``launch`` describes (``devices``: its counted GPUs;
    ``image``: the image it names, looked up among the images the repository builds)."""
    images: tuple[CodeFact, ...] = ()
    started: CodeFact | None = None
    build, notes = image_build(launch, image, reader)
    if build is not None:  # the build names the image: its Dockerfile, not one that happens to sit beside
        launch = launch._replace(build_context=build.context, dockerfile=build.dockerfile, dockerfile_beside=False)
    elif notes:
        launch = launch._replace(dockerfile_beside=False)
    entrypoint, arguments, workdir = launch.entrypoint, launch.arguments, launch.working_dir
    built = built_image(launch, reader, build)
    if built is not None and launch.dockerfile_beside and not may_build(image, built[1]):
        built = None
    guessed = built is not None and launch.dockerfile_beside  # no build names the image: the one beside is a guess
    if built is not None:  # the manifest's command replaces the ENTRYPOINT (and drops the CMD), its args the CMD
        where, facts = built
        images = tuple(CodeFact(f"{where}:{line}", f"FROM {image}") for image, line in facts.bases)
        lines = []
        if not launch.entrypoint and facts.entrypoint is not None:
            entrypoint, line = facts.entrypoint
            lines.append(line)
        if not launch.entrypoint and (not launch.arguments or launch.forwarded) and facts.cmd is not None:
            arguments, line = facts.cmd
            lines.append(line)
        workdir = workdir or facts.workdir
        if lines:
            started = CodeFact(f"{where}:{min(lines)}", " ".join((*entrypoint, *arguments)))
    context = launch.context
    if launch.configs:
        reader.virtual = _mounted_configs(launch, reader)
    bases = list(dict.fromkeys([context, launch.base_dir, *reader.index.roots]))
    walk = _Walk(reader, bases, devices, workdir, launch.configs)
    if workdir.startswith("/"):
        walk.bases.insert(0, workdir)  # only its tails can match (``Reader.locate``): /app/train.py -> train.py
    walk.mounts = bound_folders(launch, reader)
    bound = mounted_folders(walk.mounts, workdir, reader)
    walk.bases[:0] = bound
    if built is not None:  # what the image copies from its build context is there too, below the mounts
        mounted = [point for point, _ in launch.mounts[:MAX_MOUNTS]]
        binds = len(walk.mounts)
        for point, source in built[1].copies:
            walk.copy(point, source, context, mounted)
        # a folder copied to where the container works (``WORKDIR /app``, ``COPY app .``): its names are found
        # there, after what a mount puts there (audit79b: ``python serve_app.py`` was "not in the checked files")
        here = [m for m in reader.through_binds(walk.mounts[binds:][::-1], workdir) if m and m not in walk.bases]
        walk.bases[len(bound) : len(bound)] = here[:1]
    argv = (*entrypoint, *arguments)
    if argv:
        unknown = {name: (f"{UNKNOWN}${name}",) for name in launch.unknown_env}
        image_env = {name: (value,) for name, value in built[1].env} if built is not None else {}  # the image's
        # ENV, which the container's own environment overrides
        walk.command(argv, image_env | unknown | {name: (value,) for name, value in launch.env}, 0)
        walk.follow_started()
        walk.settle_processes()
    certain = walk.zero and not walk.needs and not walk.doubt and not reader.exhausted and bool(argv)
    if not walk.needs:
        notes += _missing_notes(walk.missing, reader)
    followed = tuple(dict.fromkeys(walk.followed))  # a module two programs import is read for each
    return ProjectFacts(
        tuple(walk.commands),
        images,
        tuple(dict.fromkeys(walk.needs)),
        tuple(dict.fromkeys(walk.zero)) if certain else (),
        (built[0], *followed) if built is not None and built[0] != "dockerfile_inline" else followed,
        started,
        build.where if build is not None and built is not None else "",
        notes,
        tuple(walk.by_name),
        guessed,
        tuple(walk.mounts),
        tuple(dict.fromkeys(walk.kept)),
        workdir,
    )


def program_run(
    folder: str, path: str, devices: int | None, reader: Reader
) -> tuple[tuple[CodeFact, ...], tuple[CodeFact, ...]]:
    """What one of the repository's programs shows when it is run on its own from its folder, without arguments
    (``python train.py``, ``sh train.sh``): the code that uses /dev/shm, and the commands it runs, within the
    reader's budget. The names it gives are looked for from its own folder, then from the held one (audit83c:
    ``scripts/train.py`` reads ``read_config("../cfg/train.yaml")``)."""
    home, name = os.path.split(path)
    argv = ("python" if path.endswith(".py") else "sh", name)
    return command_run(folder, argv, devices, reader, home=os.path.join(folder, home) if home else folder)


def notebook_run(
    folder: str, path: str, devices: int | None, reader: Reader
) -> tuple[tuple[CodeFact, ...], tuple[CodeFact, ...]]:
    """What a notebook's kernel runs (``path``, below ``folder``), read as a program run from the notebook's own
    folder: its code cells' Python (``_notebook_python``) and the local modules it imports."""
    home = os.path.join(folder, os.path.dirname(path))
    walk = _Walk(reader, list(dict.fromkeys([home, folder])), devices)
    walk.module(os.path.join(folder, path), (), {}, 0, run=True)
    walk.follow_started()
    walk.settle_processes()
    return tuple(dict.fromkeys(walk.needs)), tuple(walk.commands)


def command_run(
    folder: str, argv: Sequence[str], devices: int | None, reader: Reader, *, home: str = ""
) -> tuple[tuple[CodeFact, ...], tuple[CodeFact, ...]]:
    """What a command typed in one of the repository's folders (``home``: in a folder below it) shows (``python
    training/run.py --workers 8``): the code that uses /dev/shm, and the commands it runs, within the reader's
    budget."""
    walk = _Walk(reader, list(dict.fromkeys([home or folder, folder])), devices)
    walk.command(argv, {}, 0)
    walk.follow_started()
    walk.settle_processes()
    return tuple(dict.fromkeys(walk.needs)), tuple(walk.commands)


def _mounted_configs(launch: Launch, reader: Reader) -> dict[str, tuple[str, str]]:
    """The files the ConfigMaps the container mounts put in it, as the reader's virtual files: by their container
    path (behind ``VIRTUAL_PREFIX``), the file that writes them and their text."""
    from shmlint.project.configmaps import mounted_files  # loaded for a container that mounts a ConfigMap

    files = reader.index.tree(reader.index.max_bytes)
    mounted = mounted_files(launch.configs, launch.manifest, files, reader.index.max_bytes)
    return {f"{VIRTUAL_PREFIX}{path}": (reader.display(where), text) for path, (where, text) in mounted.items()}


def _missing_notes(names: Sequence[str], reader: Reader) -> tuple[str, ...]:
    """What the report says of programs a command runs that are not in the checked files: in a git submodule that
    is not checked out (its folder empty or absent: ``git submodule update --init`` brings it), or simply not there."""
    if not names:
        return ()
    from shmlint.git_index import submodule_paths

    files = reader.index.tree(reader.index.max_bytes)
    modules = [
        (root, module)
        for root in reader.index.roots
        if (text := files.source(os.path.join(root, ".gitmodules"))) is not None
        for module in submodule_paths(text.text)
    ]
    notes = []
    for name in names:
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")][-MAX_PARTS:]
        tails = {"/".join(parts[i:]) for i in range(len(parts))} if name.startswith("/") else {"/".join(parts)}
        module = next(
            (
                module
                for root, module in modules
                if any(tail.startswith(module + "/") for tail in tails)
                and not files.files_in(os.path.join(root, module))
                and not files.folders_in(os.path.join(root, module))
            ),
            None,
        )
        said = f"in git submodule {module}, which is not checked out" if module else "not in the checked files"
        notes.append(f"{clipped(visible(name), 80)} is {said}")
    return tuple(notes)
