"""Container runs a Python program starts through a process or a shell (``shmlint.formats.python.shell_runs``):
read as the command lines they are, at the file's own offsets; a fix only inside a string (audit83a, audit83d:
such launches gave no finding at all)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shmlint.formats.python.shell_runs import MAX_RUNS
from shmlint.model import Finding
from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import run_shmlint

TP2 = "--tensor-parallel-size 2"


def _shm001(root: Path, code: str) -> list[Finding]:
    (root / "launch.py").write_text(code)
    report = check_paths(Settings(undecided="show"), [root / "launch.py"], jobs=1)
    return [f for f in report.findings if f.code == "SHM001"]


@pytest.mark.parametrize(
    ("code", "position", "fixable"),
    [
        # an argument list over two lines, an expression among its items
        (
            'import subprocess\nimage = "vllm/vllm-openai:v0.6.3"\nsubprocess.run(["docker", "run", "--gpus", "all",'
            ' image,\n    "--model", "m", "--tensor-parallel-size", "2"], check=True)\n',
            (3, 18),
            False,
        ),
        (f'import os\nos.system("docker run --gpus all vllm/vllm-openai:v0.6.3 {TP2}")\n', (2, 12), True),
        (f'import subprocess\nsubprocess.Popen(f"docker run --gpus all {{image}} {TP2}", shell=True)\n', (2, 20), True),
        # a name the module assigns once, and a string split into its words
        (
            f'import subprocess\ncmd = ["docker", "run", "--gpus", "all", "img", "{TP2}"]\nsubprocess.run(cmd)\n',
            (2, 9),
            False,
        ),
        (f'import subprocess\nsubprocess.call("docker run --gpus all img {TP2}".split())\n', (2, 18), True),
        (
            f'import subprocess\nsubprocess.run("sudo docker run --gpus all " + "img {TP2}", shell=True)\n',
            (2, 17),
            True,
        ),
    ],
)
def test_a_run_the_code_starts_is_checked_where_it_is_written(
    tmp_path: Path, code: str, position: tuple[int, int], fixable: bool
) -> None:
    ast.parse(code)
    (finding,) = _shm001(tmp_path, code)
    assert (finding.severity.label, (finding.span.line, finding.span.column)) == ("error", position)
    assert (finding.fix is not None) is fixable


@pytest.mark.parametrize(
    "code",
    [
        'import subprocess\nsubprocess.run(["echo", "docker run --gpus all img --tensor-parallel-size 2"])\n',
        'import os\nos.system("docker run --gpus all --shm-size=8g img --tensor-parallel-size 2")\n',
        # not read: an escape, an item over two lines, literals the shell would join into one word
        'import os\nos.system("docker run --gpus all img --tensor-parallel-size \\x32")\n',
        'import subprocess\nsubprocess.run(["docker", "run", "--gpus", f"""all\n""", "img", "-tp", "2"])\n',
        'import os\nos.system("docker run --gpus all img --tensor-parallel-size" + "2")\n',
        'import subprocess\ncmd = ["docker", "run", "--gpus", "all", "img", "-tp", "2"]\ncmd = []\nsubprocess.run(cmd)\n',
        'print("docker run --gpus all img --tensor-parallel-size 2")\n',  # a message, not a run
    ],
)
def test_what_is_not_a_run_or_not_written_plainly_gives_nothing(tmp_path: Path, code: str) -> None:
    assert [f.severity.label for f in _shm001(tmp_path, code)] in ([], ["info"])
    assert not [f for f in _shm001(tmp_path, code) if f.severity.label == "error"]


def test_a_strings_run_is_fixed_inside_the_string_and_checks_clean(tmp_path: Path) -> None:
    code = f'import os\n\nos.system("docker run --gpus all img {TP2}")\n'
    (tmp_path / "launch.py").write_text(code)
    assert run_shmlint("fix", "--write", "launch.py", cwd=tmp_path).returncode == 0
    fixed = (tmp_path / "launch.py").read_text()
    assert fixed == code.replace("docker run ", "docker run --shm-size=8g ")
    ast.parse(fixed)
    assert run_shmlint("check", "launch.py", cwd=tmp_path).returncode == 0


def test_runs_read_in_one_file_are_bounded(tmp_path: Path) -> None:
    runs = "".join(f'os.system("docker run --gpus all img{i} {TP2}")\n' for i in range(MAX_RUNS + 10))
    assert len(_shm001(tmp_path, "import os\n" + runs)) == MAX_RUNS
