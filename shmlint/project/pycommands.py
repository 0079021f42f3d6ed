"""Launcher command lines a Python program writes in its own code: ``accelerate launch ... train.py`` in an
f-string, ``["torchrun", "--nproc_per_node", str(n), "train.py"]``, ``"deepspeed " + script``. A web UI or a
wrapper that starts training at run time says what it starts only there.

Read only in the files a container is followed into (``follow``: its program and the local modules that imports),
never across the repository: over whole trees, strings that begin with a launcher word are mostly package pins,
messages and option names, and only the program the container runs says what that container starts. A string
counts when it begins with a launcher (``torchrun``, ``deepspeed``, ``accelerate launch``, ``python -m
torch.distributed.run``...) followed by the program it launches (a ``.py`` file or a module), and is not a
docstring, a help text, a message printed or logged, or an exception's text. What the code fills in at run time
(``{workers}``, ``str(n)``) is marked unknown and never read as a value.

A program the code starts with Python (``[sys.executable, os.path.join("rvc", "train", "train.py"), ...]``,
``'"%s" train.py' % python_cmd``) counts too, only when it is given to a call that runs commands (``subprocess``,
``os``, ``asyncio``): a web UI's training runs in the script it starts, and ``follow`` reads that script as the
container's code. So does a program started by name (``["svc", "train", "-t"]``), kept apart: nothing reads it, and
it is evidence only where the tier data knows that program by its own name (``need``), so ``pip install
deepspeed`` or ``ssh host vllm serve`` says nothing. A name stands for what ``pyscopes`` says it holds where it is
used: a string, an ``os.path.join`` of strings, ``sys.executable``.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.programs import is_python, program
from shmlint.project.launchers import SEPARATORS, TEST_RUNNERS, UNKNOWN, known, shown, target
from shmlint.project.pyscopes import Scope
from shmlint.project.pysyntax import called, dotted
from shmlint.signals import LAUNCHER_PROGRAMS

#: command strings taken from one file: a program that writes more is not a launcher wrapper
MAX_COMMANDS = 16
#: longer strings are not read as command lines (a whole script template or a document is not one command)
MAX_CHARS = 8192
#: terms of a string sum (``"torchrun " + a + " " + b``) read; a longer sum is not read
MAX_TERMS = 64
#: the nodes a command is written as: a string, an f-string, a list or tuple of words, a sum or a % of strings
_COMMAND_NODES = (ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.BinOp)
#: a printf-style conversion: ``%s``, ``%(name)s``, ``%-5d``; ``%%`` is a percent sign
_PRINTF = LazyRegex(r"%%|%(?:\([^)]{0,64}\))?[-#0 +]{0,5}[0-9*]{0,4}(?:\.[0-9*]{0,4})?[diouxXeEfFgGcrsa]")
#: the modules whose functions run a command, and those functions
_RUN_MODULES = frozenset({"subprocess", "os", "asyncio"})
_RUN_CALLS = frozenset(
    {"run", "call", "check_call", "check_output", "Popen", "system", "popen", "getoutput", "getstatusoutput"}
    | {"create_subprocess_exec", "create_subprocess_shell", "execv", "execvp", "execvpe", "spawnv", "spawnvp"}
)
#: options that make a run only print
_HELP = frozenset({"-h", "--help", "--version"})
#: calls whose string arguments are text for people, not commands (print, logging, UI notices, exceptions)
_MESSAGE_CALLS = frozenset(
    {"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log", "echo", "secho"}
)
#: keyword arguments that hold text for people (argparse, click, UI widgets)
_TEXT_KEYWORDS = frozenset({"help", "description", "epilog", "usage", "info", "label", "placeholder", "msg"})


class Command(NamedTuple):
    """A launcher command line written in the code: its line, its text as messages show it, and its words (what
    the code fills in marked ``UNKNOWN``), for ``follow`` to run it."""

    line: int
    text: str
    words: tuple[str, ...] = ()


class Started(NamedTuple):
    """What a file's code starts: launcher command lines and programs of the repository (``launches``: followed as
    programs of their own), and programs by name that nothing here can read (``by_name``: ``["svc", "train"]``,
    only matched against the tier data's command patterns)."""

    launches: tuple[Command, ...] = ()
    by_name: tuple[Command, ...] = ()


def commands(nodes: list[ast.AST], found: list[Scope]) -> Started:
    """The launcher command lines, the scripts and the programs by name a file's nodes start (``nodes``:
    ``ast.walk`` of the module; ``found``: its scopes), in ``ast.walk`` order within each scope, the module's
    first; each kind at most ``MAX_COMMANDS``, so a file that runs many tools cannot crowd out its training
    script."""
    skipped = _skipped(nodes)
    runners = _runners(nodes)
    run: set[int] = set()
    for scope in found:  # a function may run a command its module assigns
        run |= _run_arguments(scope, runners)
    launches: list[Command] = []
    by_name: list[Command] = []
    joined = {
        id(words) for scope in found for node in scope.nodes if isinstance(node, ast.Call) for words in _joined(node)
    }
    for scope in found:
        for node in scope.nodes:
            if (id(node) in skipped and id(node) not in joined) or not isinstance(node, _COMMAND_NODES):
                continue
            words = _words(node, scope)
            shell = id(node) in joined or not isinstance(node, (ast.List, ast.Tuple))
            if words and id(node) in joined:
                words = [part for word in words for part in (word.split() if known(word) else [word])]
            if words and shell:
                words = _python_first(words)
            if not words or not known(words[0]):
                continue
            launched = target(words)
            if launched is not None and launched.launcher:
                parts = [(True, words)]
            elif id(node) in run:
                parts = list(_run_parts(words, shell=shell))
            else:
                continue
            for read, part in parts:
                kept = launches if read else by_name
                if len(kept) < MAX_COMMANDS:
                    kept.append(Command(node.lineno, " ".join(map(shown, part)), tuple(part)))
    return Started(tuple(launches), tuple(by_name))


def _run_parts(words: list[str], *, shell: bool) -> Iterator[tuple[bool, list[str]]]:
    """Each command of a run call's command line, from its program on (past ``sudo``, ``env A=1``,
    ``NAME=value``): a shell string's split at ``&&``, ``;``, ``|`` outside quotes, an argument list whole (no
    shell reads its words). True for one this follows or the data's launcher patterns judge (a Python file, a
    script, a server, a launcher: ``torchrun --nproc_per_node 4 $SCRIPT``), False for a program by name with
    arguments or Python running a module (``-m vllm.entrypoints.openai.api_server``: its package is installed, not
    the repository's). After a ``cd``, what runs is kept for the data's patterns only: its files are not where this
    would look for them. Python without a file or module (``-c``), pytest, a run that only prints and one word alone
    (an exec call's single argument as often as a command) are neither."""
    moved = False
    for part in _shell_parts(words) if shell else [words]:
        command = program(part)
        if not command or _HELP.intersection(command):
            continue
        if command[0] == "cd":
            moved = True
            continue
        started = target(command)
        if command[0].rpartition("/")[2] in TEST_RUNNERS or TEST_RUNNERS.intersection(command[1:4]):
            continue  # a test run: its files are tests
        if is_python(command[0]):
            if started is not None and (started.launcher or started.kind == "python"):
                yield not moved, command
            elif started is not None and started.kind == "module":  # an installed package's module: the data's
                yield False, command  # patterns judge it (``-m vllm.entrypoints.openai.api_server``)
        elif started is not None or command[0].rpartition("/")[2] in LAUNCHER_PROGRAMS:
            yield not moved, command
        elif len(command) > 1:
            yield False, command


def _shell_parts(words: list[str]) -> Iterator[list[str]]:
    """A shell string's commands: its words split at the separators that stand outside quotes (``git commit -m
    "a && b"`` is one command)."""
    part: list[str] = []
    quote = ""
    for word in words:
        if not quote and word in SEPARATORS:
            yield part
            part = []
            continue
        part.append(word)
        for char in word:
            if char == quote:
                quote = ""
            elif not quote and char in "\"'":
                quote = char
    yield part


def _script(words: list[str]) -> bool:
    """A Python file an interpreter runs to do its work (``python rvc/train/train.py ...``): not a module
    (``python -m pytest``: a test run), not a run that only prints help or a version."""
    return len(words) > 1 and is_python(words[0]) and _python_file(words[1]) and not _HELP.intersection(words)


def _python_file(word: str) -> bool:
    return known(word) and word.endswith(".py")


def _python_first(words: list[str]) -> list[str]:
    """A shell string's words without the quotes around them, and a program the code fills in before a ``.py``
    file taken as Python (``'"%s" train.py' % python_cmd``: only Python runs a ``.py`` file by name)."""
    words = [word[1:-1] if len(word) > 1 and word[0] == word[-1] and word[0] in "\"'" else word for word in words]
    if len(words) > 1 and not known(words[0]) and words[0].strip(UNKNOWN) == "" and _python_file(words[1]):
        return ["python", *words[1:]]
    return words


def _runners(nodes: list[ast.AST]) -> tuple[frozenset[str], frozenset[str]]:
    """The names the modules that run commands go by (``import subprocess as sp``) and the functions imported from
    them by name (``from subprocess import run``)."""
    modules: set[str] = set()
    functions: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            modules.update(a.asname or a.name for a in node.names if a.name in _RUN_MODULES)
        if isinstance(node, ast.ImportFrom) and node.module in _RUN_MODULES:
            functions.update(a.asname or a.name for a in node.names if a.name in _RUN_CALLS)
    return frozenset(modules), frozenset(functions)


def _runs(call: ast.Call, runners: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether the call runs a command: ``subprocess.run``, ``sp.Popen``, ``os.system``, an imported ``Popen``;
    not a method that happens to be called ``run`` (a Docker SDK's ``containers.run`` starts another container;
    Fabric's ``conn.run`` runs on another host)."""
    modules, functions = runners
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in functions
    return (
        isinstance(func, ast.Attribute)
        and func.attr in _RUN_CALLS
        and isinstance(func.value, ast.Name)
        and func.value.id in modules
    )


def _run_arguments(scope: Scope, runners: tuple[frozenset[str], frozenset[str]]) -> set[int]:
    """The nodes a call of the scope that runs a command is given, directly or through a name (what it may hold on
    that line: one value per branch), ``shlex.split(cmd)`` unwrapped: a string that only looks like a command (a
    how-to shown in a UI) runs nothing."""
    given: set[int] = set()
    names: set[tuple[str, int]] = set()
    for node in scope.nodes:
        if not isinstance(node, ast.Call) or not _runs(node, runners):
            continue
        for argument in [*node.args, *(k.value for k in node.keywords if k.arg in ("args", "cmd", "command"))]:
            if isinstance(argument, ast.Call) and called(argument.func) == "split" and len(argument.args) == 1:
                argument = argument.args[0]
            if isinstance(argument, ast.Name):
                names.add((argument.id, node.lineno))
            given.add(id(argument))
            given.update(id(words) for words in _joined(argument))
    for name, line in names:  # each name and line once: a file of many runs of one name costs no more
        for value in scope.values(name, before=line + 1):
            given.add(id(value))
            given.update(id(words) for words in _joined(value))
    return given


def _joined(node: ast.expr) -> Iterator[ast.List | ast.Tuple]:
    """The list a command string is joined from (``" ".join([python, "train.py -e", name])``, also through
    ``str(i) for i in [...]``): its items are the string's words, each maybe several, as a shell reads them."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "join"
        and isinstance(node.func.value, ast.Constant)
        and node.func.value.value == " "
        and len(node.args) == 1
        and not node.keywords
    ):
        return
    items = node.args[0]
    if isinstance(items, (ast.GeneratorExp, ast.ListComp)) and len(items.generators) == 1:
        items = items.generators[0].iter  # ``str(i) for i in [...]``: the words as written, each made a string
    if isinstance(items, (ast.List, ast.Tuple)):
        yield items


#: calls whose one argument is the path they give: ``str(BIN)``, ``Path("/opt/app/train.sh")``
_PATH_CALLS = frozenset({"str", "os.fspath", "Path", "pathlib.Path", "PurePosixPath", "pathlib.PurePosixPath"})
#: names followed to their values in one path (``BIN = Path(...)``, then ``str(BIN)``)
MAX_PATH_NAMES = 4


def _path(node: ast.expr, scope: Scope | None = None, names: int = 0) -> str | None:
    """The path a node holds: a string, ``sys.executable``, an ``os.path.join`` of strings, ``str()`` or
    ``Path()`` of one, and, given the ``scope`` it is used in, a name assigned one once (audit79a: a web UI's
    ``subprocess.Popen([str(TRAINPILOT_BIN)])``, ``TRAINPILOT_BIN = Path("/opt/.../trainpilot.sh")``)."""
    if isinstance(node, ast.Attribute) and node.attr == "executable" and dotted(node.value) == "sys":
        return "python"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) <= MAX_CHARS:
        return node.value
    if isinstance(node, ast.Name) and scope is not None and names < MAX_PATH_NAMES:
        value = scope.value(node.id)
        return _path(value, scope, names + 1) if value is not None else None
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    function = dotted(node.func)
    if function in ("os.path.join", "path.join"):
        parts = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        return posixpath.join(*parts) if len(parts) == len(node.args) and 0 < len(parts) <= MAX_TERMS else None
    if function in _PATH_CALLS and len(node.args) == 1:
        return _path(node.args[0], scope, names)
    return None


def _skipped(nodes: list[ast.AST]) -> set[int]:
    """Nodes not read on their own: parts of a larger string (read with it) and text for people."""
    skipped: set[int] = set()
    for node in nodes:
        parts: list[ast.AST] = []
        if isinstance(node, ast.Expr):
            parts = [node.value]  # a docstring or a string that does nothing
        elif isinstance(node, ast.JoinedStr):
            parts = list(node.values)
        elif isinstance(node, (ast.List, ast.Tuple)):
            parts = list(node.elts)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            parts = [node.left, node.right]
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            parts = [node.left]  # a printf template: read with what fills it in
        elif isinstance(node, ast.Raise) and node.exc is not None:
            parts = [node.exc, *ast.walk(node.exc)]
        elif isinstance(node, ast.Call):
            if called(node.func) in _MESSAGE_CALLS:
                parts = list(node.args)
            parts += [k.value for k in node.keywords if k.arg in _TEXT_KEYWORDS]
        skipped.update(id(part) for part in parts)
    return skipped


def _words(node: ast.AST, scope: Scope) -> list[str] | None:
    """The words of a command string or list; None for anything else."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts or len(node.elts) > 512:
            return None
        return [_word(element, scope, first=index == 0) for index, element in enumerate(node.elts)]
    text = _text(node)
    if text is None or len(text) > MAX_CHARS:
        return None
    return [word for word in text.split() if word != "\\"]


def _word(node: ast.expr, scope: Scope, first: bool) -> str:
    """One word of a command list: a string, an f-string with its holes marked, ``sys.executable`` in first place
    (the Python running the program), a name the file assigns a path once, else unknown."""
    if first and isinstance(node, ast.Attribute) and node.attr == "executable":
        return "python"
    if isinstance(node, ast.Name) and (path := _path(node, scope)):
        return path
    text = _text(node) if not isinstance(node, ast.Call) else _path(node, scope)
    return text if text is not None else UNKNOWN


def _filled(conversion: re.Match[str]) -> str:
    """``%%`` is a percent sign; any other conversion is what the code fills in."""
    return "%" if conversion.group() == "%%" else UNKNOWN


def _text(node: ast.AST, depth: int = 0) -> str | None:
    """A string's text, with what the code fills in marked unknown; None when the node is not a string (or a sum
    of strings deeper than ``MAX_TERMS``)."""
    if depth > MAX_TERMS:
        return None
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else UNKNOWN for v in node.values
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = _text(node.left, depth + 1)
        if left is None:
            return None
        right = _text(node.right, depth + 1)
        return left + (right if right is not None else UNKNOWN)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant):
        template = node.left.value  # printf-style: what ``%s`` and ``%(name)d`` fill in is not known here
        return _PRINTF.sub(_filled, template) if isinstance(template, str) else None
    return None
