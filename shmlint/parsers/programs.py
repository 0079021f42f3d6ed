"""Names of programs that several readers of command lines know: the shells, Python, the container engine CLIs, and
the words in front of a command that only change how it runs (``program``).

It imports nothing of shmlint's, so any reader can share it without loading another's code.
"""

from __future__ import annotations

from collections.abc import Sequence

from shmlint.lazy_regex import LazyRegex

#: POSIX-style shells: a ``run:`` step, a ``bash -c`` string or an interactive ``docker run -it IMAGE sh`` hands
#: them shell text (``ash``: BusyBox's, Alpine's ``sh``)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash"})
#: the container engines whose run/create lines are read (``parsers/container_command.py``; typed sessions end at
#: one: its CLI is the host's)
ENGINES = frozenset({"docker", "podman", "podman-remote", "nvidia-docker"})
#: every engine CLI that builds or starts containers with docker's words: the engines above and nerdctl, whose
#: run lines are not read
ENGINE_CLIS = ENGINES | {"nerdctl"}


def program_name(path: str) -> str:
    """The program a command word names: its last path part, without Windows' ``.exe`` (``docker.exe``, which WSL
    and PowerShell scripts run, is docker)."""
    name = path.rsplit("/", 1)[-1]
    return name[:-4] if name[-4:].lower() == ".exe" else name


#: a shell's long options that take a value (its ``-o``/``-O`` take one too, also in a group: ``-euo pipefail``)
_SHELL_VALUE_OPTIONS = frozenset({"--rcfile", "--init-file"})


def shell_operand(arguments: Sequence[str]) -> tuple[bool, int] | None:
    """What a shell's ``arguments`` give it to run: whether it is the string of a ``-c`` (alone or in a group:
    ``-lc``, ``-ec``, ``-cx``) rather than a script file, and where it is among them: the first word after the
    shell's own options (``-l``, ``--login``, ``-o pipefail``, ``-euo pipefail``, ``--`` or ``-``). None when only
    options are given (an interactive shell), or ``-s`` reads the commands from stdin."""
    inline = stdin = False
    index = 0
    while index < len(arguments):
        word = arguments[index]
        if word in ("--", "-"):
            index += 1
            break
        if word in _SHELL_VALUE_OPTIONS:
            index += 2
        elif len(word) > 1 and word[0] in "-+" and word[1] != "-":  # a group: ``-lc``, ``-euo pipefail``
            inline = inline or (word[0] == "-" and "c" in word)
            stdin = stdin or (word[0] == "-" and "s" in word)  # commands from stdin, the words after its arguments
            index += 1 + word.count("o") + word.count("O")  # each ``o``/``O`` takes the next word
        elif word.startswith("--"):
            index += 1
        else:
            break
    return (inline, index) if index < len(arguments) and (inline or not stdin) else None


#: programs that only print or test text: ``echo "Creating DeepSpeed hostfile"`` runs no DeepSpeed
TEXT_ONLY = frozenset({"echo", "printf", "cat", "logger", ":", "true", "false", "test", "[", "[[", "read"})
#: programs that move, read or test files and text, or set the shell's own state, and start no other program (not
#: ``find``, whose ``-exec`` does, nor ``trap``, whose string is a command): a
#: script's plumbing, which is no command to record (audit79a: a setup script's ``awk``, ``sort`` and ``cp`` filled
#: the commands kept before the training command of a script started later)
PLUMBING = TEXT_ONLY | {
    *("cd", "pushd", "popd", "set", "unset", "export", "local", "declare", "typeset", "readonly", "shift"),
    *("return", "exit", "continue", "break", "wait", "mkdir", "rm", "rmdir", "cp", "mv", "ln", "touch"),
    *("chmod", "chown", "sort", "uniq", "awk", "sed", "grep", "tr", "cut", "head", "tail", "wc", "tee"),
    *("basename", "dirname", "realpath", "readlink", "date", "sleep", "sha256sum", "md5sum", "ls", "stat", "du"),
    *("df", "id", "whoami", "hostname", "nproc", "uname", "which", "case", "for", "select", "umask", "ulimit"),
    *("source", ".", "cmp", "diff"),
}
#: what a container's shell string does before its program, starting nothing of its own: text, moving about,
#: its own environment (``source`` of an activation or an env file: ``need._sets_up``), a pause, a connectivity check
SETUP_ONLY = TEXT_ONLY | {
    "cd",
    "pushd",
    "popd",
    "export",
    "set",
    "unset",
    "source",
    ".",
    "sleep",
    "mkdir",
    "ls",
    "curl",
    "wget",
}

#: the Python interpreter's own options that take a value (``python -W ignore x.py``): the word after one is that
#: value, not the program
PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "--check-hash-based-pycs"})


#: Python's ``-c``, alone or after flags without a value in one word (``-uc``, ``-Bc``): the next word is code
_CODE_OPTION = LazyRegex(r"-[bBdEiIOqsSuv]{0,8}c")


def is_code_option(word: str) -> bool:
    """Whether an interpreter option gives Python code to run (``-c``, ``-uc``): the next word is that code."""
    return word.startswith("-") and _CODE_OPTION.fullmatch(word) is not None


def is_python(word: str) -> bool:
    """Whether a command's first word names a Python interpreter: ``python``, ``python3``, ``/usr/bin/python3.11``."""
    version = word.rsplit("/", 1)[-1].removeprefix("python")
    if version == word.rsplit("/", 1)[-1]:
        return False
    major, dot, minor = version.partition(".")
    return major in ("", "2", "3") if not dot else major in ("2", "3") and minor.isdecimal() and len(minor) <= 2


#: words in front of the real command that only change how it runs
_PREFIXES = frozenset({"exec", "nohup", "time", "sudo", "nice", "stdbuf", "setsid", "--"})
#: init processes an image starts its command under (``ENTRYPOINT ["/usr/bin/tini", "-s", "--"]``), by any path,
#: with their options that take a value (tini's ``-p SIGNAL``, ``-e CODE``; dumb-init's ``-r s:r``)
_INITS = {"tini": frozenset({"-p", "-e"}), "dumb-init": frozenset({"-r", "--rewrite"})}
#: tools that run a command in a project's environment (``uv run python x.py``), with their options that take a
#: value; the command after them is what runs
_ENVIRONMENT_RUNNERS = {
    "uv": frozenset({"--with", "--with-editable", "--with-requirements", "--python", "-p", "--project", "--directory",
                     "--extra", "--no-extra", "--group", "--no-group", "--only-group", "--env-file", "--index",
                     "--index-url", "--extra-index-url", "--default-index", "-f", "--find-links", "--package",
                     "--python-platform", "-P", "--upgrade-package", "-C", "--config-setting", "--config-file",
                     "--cache-dir", "--color", "--index-strategy", "--keyring-provider", "--resolution",
                     "--prerelease", "--link-mode", "--exclude-newer", "--refresh-package", "--no-binary-package",
                     "--no-build-package", "--reinstall-package"}),
    "poetry": frozenset({"-C", "--directory", "-P", "--project"}),
    "pipenv": frozenset(),
    "pdm": frozenset({"-p", "--project", "--venv"}),
    "pixi": frozenset({"-e", "--environment", "--manifest-path"}),
    "conda": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    "mamba": frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    "micromamba": frozenset({"-n", "--name", "-p", "--prefix", "--cwd", "-r", "--root-prefix"}),
}  # fmt: skip


def program(argv: Sequence[str]) -> list[str]:
    """The words from the program on: past ``exec``, ``sudo``, ``env -u X A=1``, ``NAME=value``, an init process
    (``/usr/bin/tini -s --``) and an environment runner (``uv run``, ``poetry run``, ``conda run -n env``) in
    front."""
    words = list(argv)
    while words:
        name = words[0].rsplit("/", 1)[-1]
        runner = _ENVIRONMENT_RUNNERS.get(name) if words[1:2] == ["run"] else None
        if runner is not None:
            words = _after_options(words[2:], runner)
        elif name in _INITS:
            words = _after_options(words[1:], _INITS[name])
        elif words[0] in _PREFIXES or words[0] == "env" or ("=" in words[0] and not words[0].startswith("-")):
            words = _after_env(words) if words[0] == "env" else words[1:]
        else:
            break
    return words


def _after_options(words: list[str], valued: frozenset[str]) -> list[str]:
    """The words after an environment runner's own options (``--with x``, ``-n env``, ``--no-sync``) and ``--``."""
    index = 0
    while index < len(words) and words[index].startswith("-"):
        if words[index] == "--":
            return words[index + 1 :]
        if words[index] in ("-m", "--module"):  # ``uv run -m pkg.mod``: the module, run by the environment's python
            return ["python", "-m", *words[index + 1 :]]
        index += 2 if words[index] in valued else 1
    return words[index:]


def _after_env(words: list[str]) -> list[str]:
    rest = words[1:]
    while rest and (rest[0].startswith("-") or "=" in rest[0]):
        rest = rest[1:]
    return rest
