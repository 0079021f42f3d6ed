"""Instructions a command executes, counted by valgrind's callgrind: a start-up measure the machine's load cannot move.

Wall time on a shared machine moves by a third from one hour to the next; the instruction count of the same command
is the same number every run, provided two things are held still:

- string hashing (``PYTHONHASHSEED``): with random hashes, dictionaries probe differently each run. A fixed seed
  makes one code's count repeat, but which seed suits a code is a lottery of its own: the same flagged-file check
  counted 395 to 399 million instructions over seeds 0 to 2, and a change of a few lines moved it by a million at
  seed 0 in either direction. So each command is counted under ``SEEDS`` and the median is kept;
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
import statistics
import subprocess
from pathlib import Path

_COLLECTED = re.compile(r"Collected : (\d+)")


def available() -> bool:
    return shutil.which("valgrind") is not None


def is_binary(program: str) -> bool:
    """Not a script: a ``#!`` file (a pyenv or asdf shim) would have valgrind count its shell."""
    with open(program, "rb") as file:
        return file.read(2) != b"#!"


#: the string-hashing seeds a command is counted under (the median is its count)
SEEDS = ("0", "1", "2")


def count(command: list[str], empty_folder: Path, timeout: float = 900) -> int:
    """Instructions ``command`` executes (its own process; it must not need its children's work counted): the median
    over ``SEEDS``."""
    if not is_binary(command[0]):
        raise ValueError(f"{command[0]} is a script, not an interpreter binary: valgrind would count its shell")
    return statistics.median_low(_count(command, empty_folder, seed, timeout) for seed in SEEDS)


def _count(command: list[str], empty_folder: Path, seed: str, timeout: float) -> int:
    env = dict(os.environ, PYTHONHASHSEED=seed)
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
