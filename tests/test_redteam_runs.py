"""Issue 27 (red team, round 3), items 10, 11, 12, 18, 20, 21 and 22: the language server with escaped URIs and
broken headers, an escaped ``[tool.shmlint]`` key, hostile baseline files, fixes of compose override files, and
``fix --write`` against an editor's save, extended attributes and a signal. Each test rebuilds the red team's
input."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import hypothesis
from hypothesis import strategies as st

from shmlint.config import find_config

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
SCRIPT = "#!/bin/sh\ndocker run --gpus all pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime torchrun train.py\n"


def shmlint(*args: str, cwd: Path, timeout: float = 120, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=ENV,
        timeout=timeout,
        check=False,
        **kwargs,  # type: ignore[call-overload]
    )


# -- item 12: [tool."shml\u0069nt"] is [tool.shmlint] ----------------------------------------------------------------


def test_an_escaped_tool_table_is_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "train.sh").write_text(SCRIPT)
    assert shmlint("check", ".", cwd=tmp_path).returncode == 1  # the finding the configuration turns off
    (tmp_path / "pyproject.toml").write_text('[tool."shml\\u0069nt"]\nignore = ["SHM001"]\n')
    result = shmlint("check", ".", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (0, "")
    assert find_config(tmp_path) == tmp_path / "pyproject.toml"


def _spelled(word: str, draw: st.DrawFn) -> str:
    """``word`` as a TOML key: bare, literal-quoted, or basic-quoted with some letters as ``\\u``/``\\U`` escapes."""
    style = draw(st.sampled_from(["bare", "literal", "basic"]))
    if style == "bare":
        return word
    if style == "literal":
        return f"'{word}'"
    escaped = draw(st.lists(st.sampled_from(["", "u", "U"]), min_size=len(word), max_size=len(word)))
    letters = (
        c if e == "" else f"\\u{ord(c):04x}" if e == "u" else f"\\U{ord(c):08X}"
        for c, e in zip(word, escaped, strict=True)
    )
    return f'"{"".join(letters)}"'


@st.composite
def tool_tables(draw: st.DrawFn) -> str:
    tool, ours, dot = _spelled("tool", draw), _spelled("shmlint", draw), draw(st.sampled_from([".", " . "]))
    value = 'ignore = ["SHM001"]'
    forms = [
        f"[{tool}{dot}{ours}]\n{value}\n",
        f"[{tool}]\n{ours}{dot}{value}\n",
        f"[{tool}]\n{ours} = {{ {value} }}\n",
        f"{tool}{dot}{ours}{dot}{value}\n",
        f"{tool} = {{ {ours} = {{ {value} }} }}\n",
    ]
    return draw(st.sampled_from(forms)) + '\n[project]\nname = "x"\n'


@hypothesis.given(tool_tables())
def test_every_spelling_of_the_tool_table_is_found(text: str) -> None:
    import tomllib

    assert "shmlint" in tomllib.loads(text)["tool"]  # the generator's premise: valid TOML, our table
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "pyproject.toml").write_text(text)
        assert find_config(folder) == Path(folder) / "pyproject.toml"


def test_a_project_that_only_names_shmlint_is_not_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["shmlint"]\n')
    assert find_config(tmp_path) is None
