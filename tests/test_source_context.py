"""``check --show-source`` (configuration ``show-source``): each finding with its lines, a ``^`` marker under its
span in display columns (tabs, wide and combining characters, escaped controls) and its fix's diff; colour only
when asked for; the concise format stays the default."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.report import text as reporter
from shmlint.report.context import layout, snippet
from shmlint.results import Report
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import FIXTURES
from tests.test_startup import loaded_by

SCRIPT = '#!/bin/sh\necho "中文" &&\tdocker run --gpus all pytorch/pytorch torchrun x.py\n'


def marker_under(lines: list[str], source_line: str) -> tuple[int, int]:
    """(display column, width) of the ``^`` run in the marker line under ``source_line`` of a snippet."""
    index = next(i for i, line in enumerate(lines) if line.endswith(source_line))
    marker = lines[index + 1]
    prefix = lines[index][: len(lines[index]) - len(source_line)]
    start = marker.index("^")
    return start - len(prefix), len(marker) - start


def width(shown: str) -> int:
    """Display width by an independent route: East Asian wide/full characters are two columns."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in shown)


def test_the_marker_stands_under_the_span_after_a_tab_and_wide_characters() -> None:
    source = SourceText("run.sh", SCRIPT)
    start = SCRIPT.index("docker")
    lines = snippet(source, source.span(start, start + len("docker")))
    shown = 'echo "中文" &&  docker run --gpus all pytorch/pytorch torchrun x.py'  # the tab to column 16
    assert f"2 | {shown}" in lines
    column, run = marker_under(lines, shown)
    assert (column, run) == (width('echo "中文" &&  '), len("docker"))


@given(
    st.lists(st.sampled_from(["a", "\t", "中", "🚀", "e\u0301", "\x1b", " ", "é"]), min_size=1, max_size=20),
    st.data(),
)
def test_the_marker_covers_exactly_the_span_on_any_line(parts: list[str], data: st.DataObject) -> None:
    line = "".join(parts)
    start = data.draw(st.integers(0, len(line) - 1))
    end = data.draw(st.integers(start + 1, len(line)))
    source = SourceText("x.sh", line + "\n")
    shown = layout(line)[0]
    lines = snippet(source, source.span(start, end))
    column, run = marker_under(lines, shown)
    assert column == width(shown[: len(layout(line[:start])[0])])
    assert run == max(width(layout(line[:end])[0]) - column, 1)


def test_control_characters_are_escaped_in_the_context() -> None:
    text = 'docker run --gpus all --name "\x1b]0;pwned\x07" pytorch/pytorch python x.py\n'
    source = SourceText("x.sh", text)
    lines = snippet(source, source.span(0, 6))
    assert "\x1b" not in "".join(lines) and "\\x1b]0;pwned\\x07" in lines[1]


def test_a_whole_mapping_is_marked_on_its_own_lines_only() -> None:
    text = "a:\n  b: 1\n  c: 2\nd: 3\n"
    source = SourceText("x.yaml", text)
    lines = snippet(source, source.span(text.index("b"), text.index("d")))  # ends at column 1 of "d: 3"
    assert [line for line in lines if "|" in line and line.split("|", 1)[0].strip()] == ["2 |   b: 1", "3 |   c: 2"]


def check(shmlint_process, *args: str, cwd: Path) -> str:
    done = shmlint_process("check", *args, cwd=cwd)
    assert done.returncode == 1, done.stderr
    return done.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "run.sh").write_text(SCRIPT, encoding="utf-8")
    return tmp_path


def test_show_source_prints_lines_marker_and_the_fix_diff(shmlint_process, project: Path) -> None:
    output = check(shmlint_process, "--show-source", "run.sh", cwd=project)
    assert '2 | echo "中文" &&  docker run --gpus all' in output
    assert "  |                 ^^^^^^\n" in output
    assert "    fix (safe): give /dev/shm 8 GiB (the default fix-size)\n" in output
    assert "    = docker run (line 2) runs software that uses /dev/shm" in output  # the detail, wrapped
    assert '    +echo "中文" &&  docker run --shm-size=8g --gpus all' in output  # the tab laid out as above
    assert "\x1b[" not in output  # not a terminal: no colour
    assert "--- a/" not in output  # the finding names the file


def test_concise_stays_the_default_and_the_configuration_can_switch(shmlint_process, project: Path) -> None:
    concise = check(shmlint_process, "run.sh", cwd=project)
    assert concise.count("\n") == 2 and "^" not in concise  # one line per finding and the summary
    (project / ".shmlint.yaml").write_text("show-source: true\n")
    assert "^^^^^^" in check(shmlint_process, "run.sh", cwd=project)
    assert check(shmlint_process, "--no-show-source", "run.sh", cwd=project) == concise


def test_standard_input_shows_its_source_too(shmlint_process, project: Path) -> None:
    done = shmlint_process("check", "--show-source", "-", "--stdin-filename", "run.sh", input=SCRIPT, cwd=project)
    assert done.returncode == 1 and "^^^^^^" in done.stdout and "+echo" in done.stdout


def test_other_formats_are_unchanged(shmlint_process, project: Path) -> None:
    plain = shmlint_process("check", "--format", "json", "run.sh", cwd=project).stdout
    assert shmlint_process("check", "--format", "json", "--show-source", "run.sh", cwd=project).stdout == plain


def test_show_source_must_be_a_boolean_in_the_configuration(shmlint_process, project: Path) -> None:
    (project / ".shmlint.yaml").write_text("show-source: yes please\n")
    done = shmlint_process("check", "run.sh", cwd=project)
    assert done.returncode == 2 and "show-source" in done.stderr and "1:14" in done.stderr


def test_colour_styles_the_marker_and_the_diff_only_when_asked() -> None:
    from shmlint.engine import Engine
    from shmlint.fix.preview import fix_diff

    source = SourceText("run.sh", SCRIPT)
    result = Engine(Settings(undecided="show")).check_source(source, FileKind.SHELL, Path("run.sh"))
    report = Report((result,))
    [finding] = report.findings
    diffs = {finding: fix_diff(finding, source)}
    plain = reporter.format_report(report, sources={"run.sh": source}, diffs=diffs)
    coloured = reporter.format_report(report, colour=True, sources={"run.sh": source}, diffs=diffs)
    assert "\x1b[" not in plain
    assert "\x1b[32m" in coloured and "\x1b[31m" in coloured  # green additions, red marker and removals
    assert click.unstyle(coloured) == plain


def test_a_clean_file_with_show_source_loads_nothing_more(shmlint_process, tmp_path: Path) -> None:
    clean = tmp_path / "configmap.yaml"
    clean.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n")
    done = shmlint_process("check", "--show-source", str(clean), env={"PYTHONPROFILEIMPORTTIME": "1"})
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert done.returncode == 0
    assert not modules & {"shmlint.report.context", "shmlint.fix", "shmlint.edits", "shmlint.rules"}


def test_the_concise_check_does_not_load_the_context(shmlint_process) -> None:
    code, modules = loaded_by(shmlint_process, FIXTURES / "examples" / "trainer-deployment.yaml")
    assert code == 1 and "shmlint.rules" in modules
    assert not modules & {"shmlint.report.context", "shmlint.fix.preview", "shmlint.fix.diff"}


K8S_POD = """apiVersion: v1
kind: Pod
metadata:
  name: train
spec:
  containers:
    - image: pytorch/pytorch
      name: main
      command: [torchrun, train.py]
      resources: {limits: {nvidia.com/gpu: 1}}
    - name: side
      image: pytorch/pytorch
      command: [torchrun, train.py]
      resources: {limits: {nvidia.com/gpu: 1}}
      volumeMounts: [{name: dshm, mountPath: /dev/shm}]
  volumes:
    - name: dshm
      emptyDir:
        medium: Memory
"""


def test_kubernetes_findings_point_at_one_line_not_the_whole_block() -> None:
    """A container-wide finding marks the container's ``name:`` (wherever it is among the keys), a finding
    about a volume the key that decides it (``medium: Memory`` without a size), so an editor underlines one line."""
    from shmlint.engine import Engine
    from shmlint.settings import Settings
    from shmlint.source import SourceText

    result = Engine(Settings()).check_source(SourceText("pod.yaml", K8S_POD), FileKind.YAML, "pod.yaml")
    spans = {f.code: f.span for f in result.findings}
    assert set(spans) == {"SHM002", "SHM003"}, [f.message for f in result.findings]  # "main" leaves it unmounted
    missing, unbounded = spans["SHM002"], spans["SHM003"]
    assert K8S_POD[missing.start : missing.end] == "name: main" and missing.line == missing.end_line == 8
    assert K8S_POD[unbounded.start : unbounded.end] == "medium: Memory" and unbounded.line == unbounded.end_line
