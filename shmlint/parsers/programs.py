"""Names of programs that several readers of command lines know: the shells, Python, and the container engine CLIs.

A data module with no imports, so any reader can share it without loading another's code.
"""

#: POSIX-style shells: a ``run:`` step, a ``bash -c`` string or an interactive ``docker run -it IMAGE sh`` hands
#: them shell text (``ash``: BusyBox's, Alpine's ``sh``)
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "ash"})
#: the container engines whose run/create lines are read (``parsers/container_command.py``; typed sessions end at
#: one: its CLI is the host's)
ENGINES = frozenset({"docker", "podman", "podman-remote", "nvidia-docker"})
#: every engine CLI that builds or starts containers with docker's words: the engines above and nerdctl, whose
#: run lines are not read
ENGINE_CLIS = ENGINES | {"nerdctl"}


def is_python(word: str) -> bool:
    """Whether a command's first word names a Python interpreter: ``python``, ``python3``, ``/usr/bin/python3.11``."""
    version = word.rsplit("/", 1)[-1].removeprefix("python")
    if version == word.rsplit("/", 1)[-1]:
        return False
    major, dot, minor = version.partition(".")
    return major in ("", "2", "3") if not dot else major in ("2", "3") and minor.isdecimal() and len(minor) <= 2
