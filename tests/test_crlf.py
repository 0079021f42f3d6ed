"""Files with CRLF line endings (Windows, ``core.autocrlf``) are checked and fixed like their LF twins, on every file
format: the same findings at the same lines and columns, and the fix writes the LF twin's fix with CRLF kept."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from shmlint.cli import cli
from tests.hostile import POD_TEMPLATE
from tests.support import FIXTURES, run_shmlint_bytes

#: GitHub Actions and GitLab CI: ``docker run`` lines inside ``run:``/``script:`` blocks, literal and folded
GITHUB_WORKFLOW = """on: push
jobs:
  train:
    runs-on: [self-hosted, gpu]
    steps:
      - uses: actions/checkout@v4
      - name: Train
        run: |
          docker run --gpus all \\
            pytorch/pytorch:2.3.0 python train.py
      - run: docker run --gpus all pytorch/pytorch:2.3.0 torchrun --nproc_per_node=2 eval.py
"""
GITLAB_CI = """train:
  image: docker:24
  script:
    - docker run --gpus all pytorch/pytorch:2.3.0 python train.py
    - >
      docker run --gpus all
      pytorch/pytorch:2.3.0 torchrun --nproc_per_node=2 eval.py
"""
RST_GUIDE = """Training
========

.. code-block:: bash

   docker run --gpus all pytorch/pytorch:2.3.0 torchrun --nproc_per_node=8 train.py
"""
#: one flagged LF file of every format, by the name its format is recognised by
SAMPLES = {
    "kubernetes": ("pod.yaml", (FIXTURES / "k8s" / "SHM001-two-containers-and-list.yaml").read_text()),
    "compose": ("compose.yaml", (FIXTURES / "compose" / "SHM001-deploy-gpu.compose.yaml").read_text()),
    "shell": ("train.sh", (FIXTURES / "shell" / "SHM001-missing-shm.sh").read_text()),
    "makefile": ("Makefile", (FIXTURES / "make" / "SHM001-train.mk").read_text()),
    "markdown": ("README.md", (FIXTURES / "markdown" / "SHM001-readme.md").read_text()),
    # its directives end at a line's end, which a CR stood before (audit72b: a CRLF guide's findings were lost)
    "restructuredtext": ("guide.rst", RST_GUIDE),
    "justfile": ("justfile", (FIXTURES / "just" / "SHM001-train.just").read_text()),
    "github-actions": (".github/workflows/train.yml", GITHUB_WORKFLOW),
    "gitlab-ci": (".gitlab-ci.yml", GITLAB_CI),
}


def findings(root: Path, name: str) -> list[tuple]:
    result = CliRunner().invoke(cli, ["check", "--format", "json", str(root / name)])
    assert result.exit_code == 1, result.output
    document = json.loads(result.output)
    return [
        (f["code"], f["line"], f["column"], f["end_line"], f["end_column"], f["message"]) for f in document["findings"]
    ]


def fixed(root: Path, name: str) -> bytes:
    result = CliRunner().invoke(cli, ["fix", "--write", str(root / name)])
    assert result.exit_code == 0, result.output
    return (root / name).read_bytes()


@pytest.mark.parametrize("kind", sorted(SAMPLES))
def test_crlf_files_are_checked_and_fixed_like_their_lf_twins(tmp_path: Path, kind: str) -> None:
    name, text = SAMPLES[kind]
    assert "\r" not in text
    lf, crlf = tmp_path / "lf", tmp_path / "crlf"
    for root, data in ((lf, text.encode()), (crlf, text.replace("\n", "\r\n").encode())):
        (root / name).parent.mkdir(parents=True)
        (root / name).write_bytes(data)
    lf_findings = findings(lf, name)
    assert lf_findings, f"the {kind} sample has no finding"
    assert findings(crlf, name) == lf_findings
    lf_fixed = fixed(lf, name)
    assert lf_fixed != text.encode(), f"the {kind} sample has no fix"
    crlf_fixed = fixed(crlf, name)
    assert crlf_fixed == lf_fixed.replace(b"\n", b"\r\n")
    assert crlf_fixed.count(b"\r\n") == crlf_fixed.count(b"\n")


def test_a_lone_cr_file_keeps_its_line_breaks_and_indentation(tmp_path: Path) -> None:
    """Found: mixed line endings and odd indentation after a fix of a file with old Mac line breaks."""
    path = tmp_path / "pod.yaml"
    path.write_bytes(POD_TEMPLATE.format(name="p").replace("\n", "\r").encode())
    run = run_shmlint_bytes("fix", "--write", "pod.yaml", cwd=tmp_path)
    assert run.returncode == 0, run.stderr.decode()
    data = path.read_bytes()
    assert b"\n" not in data and b"\r    volumeMounts:\r    - name: dshm\r" in data
    assert run_shmlint_bytes("check", "pod.yaml", cwd=tmp_path).returncode == 0
