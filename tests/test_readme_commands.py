"""The documentation cannot drift from the tool: every ``shmlint`` command in a command block of the README and
docs/ runs as written (on the bundled examples), and every ``console`` block's output is what the command prints.

``console`` blocks hold ``$ command`` lines, each followed by its output (standard output and error as a terminal
shows them, without colour). They run in a scratch folder holding a copy of ``fixtures/examples`` (``fix --write``
must not touch the checkout). ``SHMLINT_UPDATE_DOCS=1 pytest tests/test_readme_commands.py`` rewrites the outputs
in place after a deliberate change of wording; review the diff.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import FIXTURES, ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
UPDATE = os.environ.get("SHMLINT_UPDATE_DOCS") == "1"
CONSOLE = re.compile(r"```console\n(.*?)```", re.DOTALL)
COMMANDS = re.compile(r"```(?:sh|bash|shell)\n(.*?)```", re.DOTALL)
#: placeholders of the command lists, and what stands for them here
PLACEHOLDERS = {"[PATH...]": "", "k8s/": "fixtures/examples"}
#: commands that would run long or forever: only their options are checked (``--help`` after them)
OPTIONS_ONLY = ("server", "validate")


def scratch(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES / "examples", tmp_path / "fixtures" / "examples")
    return tmp_path


def run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    words = shlex.split(command)
    assert words[0] == "shmlint", command
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *words[1:]],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=300,
        check=False,
    )


def console_sessions(text: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of every console block."""
    sessions = []
    for block in CONSOLE.findall(text):
        for part in re.split(r"^\$ ", block, flags=re.MULTILINE)[1:]:
            command, _, output = part.partition("\n")
            sessions.append((command, output))
    return sessions


def listed_commands(text: str) -> list[str]:
    """``shmlint`` lines of command blocks, without comments and redirections, placeholders filled in."""
    found = []
    for block in COMMANDS.findall(text):
        for line in block.splitlines():
            if not line.startswith("shmlint "):
                continue
            command = line.split(" #", 1)[0].split(" > ", 1)[0].strip()
            for placeholder, value in PLACEHOLDERS.items():
                command = command.replace(placeholder, value)
            found.append(" ".join(command.split()))
    return found


def normalised(output: str) -> str:
    return "\n".join(line.rstrip() for line in output.splitlines()).strip("\n")


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_console_blocks_show_what_the_commands_print(document: Path, tmp_path: Path) -> None:
    text = document.read_text(encoding="utf-8")
    sessions = console_sessions(text)
    if document.name == "README.md":
        assert any("--show-source" in command for command, _ in sessions)  # the sample the README explains
    work = scratch(tmp_path)
    stale = []
    for command, expected in sessions:
        printed = run(command, work).stdout
        if normalised(printed) != normalised(expected):
            stale.append((command, expected, printed))
    if UPDATE and stale:
        for _, expected, printed in stale:
            text = text.replace(expected, normalised(printed) + "\n", 1)
        document.write_text(text, encoding="utf-8")
        pytest.fail(f"{document.name}: {len(stale)} output(s) rewritten; review the diff")
    assert not stale, "\n\n".join(f"$ {c}\n--- documented\n{e}\n--- printed\n{p}" for c, e, p in stale)


def _listed() -> list[object]:
    return [
        pytest.param(command, id=f"{document.name}: {command}")
        for document in DOCUMENTS
        for command in listed_commands(document.read_text(encoding="utf-8"))
    ]


@pytest.mark.parametrize("command", _listed())
def test_every_listed_command_runs(command: str, tmp_path: Path) -> None:
    work = scratch(tmp_path)
    if command.split()[1] in OPTIONS_ONLY:
        command += " --help"
    done = run(command, work)
    assert done.returncode in (0, 1), f"$ {command}\n{done.stdout[-2000:]}"
    assert "Usage:" not in done.stdout or command.endswith("--help"), f"$ {command}\n{done.stdout[-2000:]}"


def test_the_readme_lists_its_commands() -> None:
    commands = listed_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {command.split()[1] for command in commands} >= {"check", "fix", "rules", "explain", "server", "policy"}
