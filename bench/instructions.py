"""Instructions a command executes, counted by valgrind's callgrind: a start-up measure the machine's load cannot move.

Wall time on a shared machine moves by a third from one hour to the next; the instruction count of the same command
is the same number every run, provided two things are held still:

- string hashing (``PYTHONHASHSEED=0``): with random hashes, dictionaries probe differently each run;
- the current folder, which ``python -c`` puts first on ``sys.path``, so that every import lists it: run in a
  folder of a few hundred files, ``import click, yaml`` counted anywhere from 262 to 274 million instructions. The
  commands run in an empty folder.

The command must start a real interpreter binary (a virtual environment's ``bin/python`` is a link to one): a
version manager's shim is a shell script, and valgrind would count the shell, not Python.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

_COLLECTED = re.compile(r"Collected : (\d+)")


def available() -> bool:
    return shutil.which("valgrind") is not None


def is_binary(program: str) -> bool:
    """Not a script: a ``#!`` file (a pyenv or asdf shim) would have valgrind count its shell."""
    with open(program, "rb") as file:
        return file.read(2) != b"#!"


def count(command: list[str], empty_folder: Path, timeout: float = 900) -> int:
    """Instructions ``command`` executes (its own process; it must not need its children's work counted)."""
    if not is_binary(command[0]):
        raise ValueError(f"{command[0]} is a script, not an interpreter binary: valgrind would count its shell")
    env = dict(os.environ, PYTHONHASHSEED="0")
    result = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        cwd=empty_folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    found = _COLLECTED.search(result.stderr)
    if found is None:
        raise RuntimeError(f"valgrind gave no count for {command[:3]}: {result.stderr[-500:]}")
    return int(found.group(1))
