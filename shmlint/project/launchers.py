"""What program a command line hands control to, read from its words: a Python file or module (directly or through
``torchrun``, ``python -m torch.distributed.run``, ``accelerate launch``, ``deepspeed``), the application module an
ASGI/WSGI server or a Celery worker imports (``uvicorn main:app``, ``celery -A proj worker``), the file an app
runner runs (``streamlit run app.py``), a shell script, or a ``bash -c`` string. Words only: whether a file exists
is the index's question."""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.programs import PYTHON_VALUE_OPTIONS, is_code_option, program, shell_operand
from shmlint.signals import TORCHRUN_MODULES, TORCHRUN_PROGRAMS

#: marks a word whose value the text does not give (``shellvars``), in front of its text: never a real argument
UNKNOWN = "\x00"
#: launcher modules run with ``python -m`` that start a script (``torch.distributed.run`` and friends)
_LAUNCHER_MODULES = TORCHRUN_MODULES | {"accelerate.commands.launch", "deepspeed.launcher.runner"}
_LAUNCHER_PROGRAMS = TORCHRUN_PROGRAMS | {"deepspeed"}
#: test runners whose test file is read as the program (``pytest tests/test_x.py``, ``python -m pytest ...``)
TEST_RUNNERS = frozenset({"pytest", "py.test"})


class AppServer(NamedTuple):
    """A server that imports the application its first argument names (``uvicorn main:app``, ``gunicorn
    'app:create()'``): its options that take no value (every other option takes one, so ``--bind unix:api.sock`` is
    a value, never the application), those that change its working directory, and those that put folders on
    ``sys.path`` in front of it (comma-separated)."""

    flags: frozenset[str]
    folders: frozenset[str] = frozenset()
    paths: frozenset[str] = frozenset()


#: the servers, from their command-line references (uvicorn.org/settings, docs.gunicorn.org/en/stable/settings,
#: hypercorn.readthedocs.io, github.com/emmett-framework/granian, github.com/django/daphne); ``--no-...`` options
#: take no value in any of them
_APP_SERVERS = {
    "uvicorn": AppServer(
        frozenset({"--reload", "--factory", "--proxy-headers", "--use-colors", "--access-log", "--server-header",
                   "--date-header"}),
        frozenset(),
        frozenset({"--app-dir"}),
    ),
    "gunicorn": AppServer(
        frozenset({"--reload", "--preload", "-D", "--daemon", "-R", "--enable-stdio-inheritance", "--capture-output",
                   "--check-config", "--print-config", "--spew", "--reuse-port", "--strip-header-spaces",
                   "--suppress-ragged-eofs", "--do-handshake-on-connect", "--initgroups", "--log-syslog",
                   "--disable-redirect-access-to-syslog", "--proxy-protocol", "--permit-obsolete-folding",
                   "--permit-unconventional-http-method", "--permit-unconventional-http-version",
                   "--casefold-http-method", "--tolerate-dangerous-framing", "--enable-backlog-metric"}),
        frozenset({"--chdir"}),
        frozenset({"--pythonpath"}),
    ),
    "hypercorn": AppServer(frozenset({"--debug", "--reload", "-D", "--daemon"})),
    "granian": AppServer(frozenset({"--reload", "--factory", "--ws", "--log", "--access-log", "--opt",
                                    "--respawn-failed-workers", "--http1-keep-alive", "--http1-pipeline-flush",
                                    "--http2-adaptive-window", "--ssl-client-verify", "--metrics",
                                    "--reload-ignore-worker-failure"}),
                         frozenset({"--working-dir"})),
    "daphne": AppServer(frozenset({"--proxy-headers", "--no-server-name"})),
}  # fmt: skip
#: a dotted module name (an application's, before any ``:attribute``)
_MODULE_PATTERN = r"[A-Za-z_][A-Za-z0-9_]{0,63}(?:\.[A-Za-z_][A-Za-z0-9_]{0,63}){0,15}"
_MODULE = LazyRegex(_MODULE_PATTERN)
#: an application reference: a dotted module, then a colon and an attribute or a factory call, or nothing
_APP_REFERENCE = LazyRegex(rf"({_MODULE_PATTERN})(?::[A-Za-z_][\w.]{{0,127}}(?:\(.{{0,256}}\))?)?")
#: tools that run a Python file as an application, with the subcommand that does (``streamlit run app.py``,
#: ``fastapi run main.py``; ``gradio app.py`` takes the file directly)
_APP_RUNNERS = {
    "streamlit": frozenset({"run"}),
    "fastapi": frozenset({"run", "dev"}),
    "chainlit": frozenset({"run"}),
    "panel": frozenset({"serve"}),
    "solara": frozenset({"run"}),
    "gradio": frozenset({""}),
}
#: tools that run the project's Python code, the same by name or as ``python -m`` (``_tool``)
_TOOLS = frozenset({*TEST_RUNNERS, *_APP_SERVERS, "celery", *_APP_RUNNERS})
#: what ends a script's own arguments on a shell command line
SEPARATORS = frozenset({"&&", "||", ";", "|"})


class Target(NamedTuple):
    """The program a command line runs: ``kind`` is ``python`` (a file), ``module`` (``-m pkg.mod``), ``imported``
    (the module a server imports, as a path without ``.py``: ``uvicorn main:app`` is ``main``), ``shell`` (a script
    file), ``inline`` (a ``-c`` shell string), ``code`` (Python's ``-c`` code) or ``supervisor`` (supervisord, whose
    programs are the container's: ``name`` is the configuration its ``-c`` names, "" for its default places);
    ``name`` is the path, module or string; ``arguments`` what the program itself receives."""

    kind: str
    name: str
    arguments: tuple[str, ...]
    launcher: str = ""  # torchrun, accelerate launch, deepspeed, python -m torch.distributed.run
    search: tuple[str, ...] = ()  # where an imported module is looked for first (``--pythonpath lib``: ``lib/app``)
    app: str = ""  # the app runner that runs the file (``streamlit``: its ``pages/`` are the app's too)


def known(word: str) -> bool:
    return UNKNOWN not in word


def shown(word: str) -> str:
    """A word as a recorded command holds it: one whose value is not known as it is written (``$NPROC``), or ``?``
    where code computes a part (``--num_processes=?``), so that an option keeps its name and a value matches no
    number."""
    if word.startswith(UNKNOWN) and len(word) > 1:
        return word.replace(UNKNOWN, "")
    return word.replace(UNKNOWN, "?")


def target(argv: Sequence[str]) -> Target | None:
    """The program ``argv`` runs, or None when it is none of those this reads."""
    words = program(argv)
    if not words:
        return None
    from shmlint.parsers.programs import SHELLS, is_python  # off the one-file start-up, where no command is followed

    name = words[0].rsplit("/", 1)[-1]
    if name in SHELLS:
        return _shell(words[1:])
    if is_python(name):
        return _python(words[1:])
    if name in _LAUNCHER_PROGRAMS:
        return _launched(words[1:], name)
    if name == "accelerate" and words[1:2] == ["launch"]:
        return _launched(words[2:], "accelerate launch")
    if name in _TOOLS:
        return _tool(name, words[1:])
    if name == "supervisord":
        config = supervisord_config(words[1:])
        return Target("supervisor", config, ()) if config is not None else None
    if words[0].endswith(".py"):
        return Target("python", words[0], tuple(words[1:]))
    if words[0].endswith(".sh") or words[0].startswith("./"):
        return Target("shell", words[0], tuple(words[1:]))
    return None


#: supervisord's short options that take a value (its ``-h``): letters after one in a word are that value
_SUPERVISORD_VALUED = frozenset("cuymdlzejiqa")


def supervisord_config(words: Sequence[str]) -> str | None:
    """The configuration ``supervisord``'s words name (``-c FILE``, ``-nc FILE``, ``-cFILE``,
    ``--configuration=FILE``), "" for none (its default places), None when its value is missing."""
    for index, word in enumerate(words):
        if word == "--configuration":
            return words[index + 1] if index + 1 < len(words) else None
        if word.startswith("--configuration="):
            return word.partition("=")[2]
        if not word.startswith("-") or word.startswith("--"):
            continue
        for at, letter in enumerate(word[1:], 1):  # getopt: flags, then one that takes the rest or the next word
            if letter in _SUPERVISORD_VALUED:
                value = word[at + 1 :] or (words[index + 1] if index + 1 < len(words) else None)
                if letter == "c":
                    return value
                break
    return ""


def _tool(name: str, words: list[str]) -> Target | None:
    """What a tool in ``_TOOLS`` runs of the project's code, started by its name or as ``python -m name``: a test
    runner's test file, a server's or Celery's application module, an app runner's file."""
    if name in TEST_RUNNERS:
        return _test_file(words)
    if name in _APP_SERVERS:
        return _application(words, _APP_SERVERS[name])
    if name == "celery":
        return _celery_application(words)
    found = _app_file(words, _APP_RUNNERS[name])
    return found._replace(app=name) if found is not None else None


def _shell(words: list[str]) -> Target | None:
    operand = shell_operand(words)
    if operand is None:
        return None
    inline, index = operand
    return Target("inline" if inline else "shell", words[index], tuple(words[index + 1 :]))


def _python(words: list[str]) -> Target | None:
    index = 0
    while index < len(words):
        word = words[index]
        if word == "-m" and index + 1 < len(words):
            module, rest = words[index + 1], tuple(words[index + 2 :])
            if module in _LAUNCHER_MODULES:
                return _launched(list(rest), f"python -m {module}")
            if module in _TOOLS:
                return _tool(module, list(rest))
            return Target("module", module, rest)
        if is_code_option(word):  # Python code on the command line, read as the program's file would be
            return Target("code", words[index + 1], tuple(words[index + 2 :])) if index + 1 < len(words) else None
        if not word.startswith("-"):
            return Target("python", word, tuple(words[index + 1 :]))
        index += 2 if word in PYTHON_VALUE_OPTIONS else 1
    return None


def _test_file(words: list[str]) -> Target | None:
    """pytest's first test file (``tests/test_x.py``, ``tests/test_x.py::test_y``): the test code it runs is read
    as a program's (the launcher commands its tests start, the loaders they make). A folder or a ``-k`` selection
    names no file, and is not read."""
    for word in words:
        if word in SEPARATORS:
            return None
        path = word.split("::", 1)[0]
        if path.endswith(".py") and not word.startswith("-"):
            return Target("python", path, ())
    return None


def _application(words: list[str], server: AppServer) -> Target | None:
    """The module the server's application reference names (``main:app``, ``pkg.api:create()``, gunicorn's
    ``pkg.wsgi``), as a path below the working directory an option names (``--chdir /srv``), looked for first in
    the folders it puts on ``sys.path`` (``--app-dir backend``, ``--pythonpath a,b``), before or after the reference
    (``uvicorn app:app --app-dir /opt/portal``: audit79a); None when the first word that is no option or value is
    no reference, or a folder is not known as written. A short option with its value attached (``-w4``,
    ``-b:8000``) takes no next word."""
    folder = ""
    search: list[str] = []
    module = ""
    index = 0
    while index < len(words):
        word = words[index]
        if word in SEPARATORS:
            break
        if not word.startswith("-") or word == "-":
            found = _APP_REFERENCE.fullmatch(word) if not module else None
            if found is None:
                return None if not module else _imported(module, folder, search)
            module = found.group(1).replace(".", "/")
            index += 1
            continue
        name, equals, value = word.partition("=")
        if name in server.folders or name in server.paths:
            value = value if equals else (words[index + 1] if index + 1 < len(words) else "")
            if not value or not known(value) or "$" in value:
                return None
            if name in server.folders:
                folder = value
            else:
                search += [path for path in value.split(",") if path]
        attached = not word.startswith("--") and len(word) > 2
        if not equals and not attached and name not in server.flags and not name.startswith("--no-"):
            index += 1  # its value
        index += 1
    return _imported(module, folder, search) if module else None


def _imported(module: str, folder: str, search: list[str]) -> Target:
    return Target(
        "imported",
        posixpath.normpath(posixpath.join(folder, module)),
        (),
        search=tuple(posixpath.normpath(posixpath.join(folder, path, module)) for path in search),
    )


def _celery_application(words: list[str]) -> Target | None:
    """The module a Celery worker imports its application from (``celery -A proj.tasks worker``, ``--app=proj``,
    ``-A proj.app:celery``): the tasks its workers run are defined there or in what it imports."""
    for index, word in enumerate(words):
        if word in SEPARATORS:
            return None
        value = None
        if word in ("-A", "--app") and index + 1 < len(words):
            value = words[index + 1]
        elif word.startswith("--app="):
            value = word.partition("=")[2]
        elif word.startswith("-A") and len(word) > 2:
            value = word[2:].lstrip("=")
        if value is not None:
            module = value.partition(":")[0]
            return Target("imported", module.replace(".", "/"), ()) if _MODULE.fullmatch(module) else None
    return None


def _app_file(words: list[str], subcommands: frozenset[str]) -> Target | None:
    """The Python file an app runner's subcommand runs (``streamlit run app.py -- --x 1``): the first ``.py``
    word after the subcommand ("" : the file comes first, and a subcommand of the tool's own runs none)."""
    if "" in subcommands:
        return Target("python", words[0], tuple(words[1:])) if words and words[0].endswith(".py") else None
    if not words or words[0] not in subcommands:
        return None
    words = words[1:]
    for index, word in enumerate(words):
        if word in SEPARATORS:
            return None
        if word.endswith(".py") and not word.startswith("-"):
            rest = words[index + 1 :]
            return Target("python", word, tuple(rest[1:] if rest[:1] == ["--"] else rest))
    return None


def _launched(words: list[str], launcher: str) -> Target | None:
    """A launcher's script: the first word naming a ``.py`` file, or the module after ``-m`` (``--module``); the
    launcher's own options in between are skipped whatever values they take."""
    for index, word in enumerate(words):
        if word in SEPARATORS:
            return None
        if word in ("-m", "--module") and index + 1 < len(words):
            return Target("module", words[index + 1], tuple(words[index + 2 :]), launcher)
        if word.endswith(".py") and not word.startswith("-"):
            return Target("python", word, tuple(words[index + 1 :]), launcher)
    return None
