"""Output safety: what a checked file says cannot forge output.

Names and values reach the terminal, CI logs and editors escaped (control characters, terminal escapes, bidi
marks), never as GitHub workflow commands or Markdown, and quoted as short excerpts; file names that are not UTF-8
print in every format; an output that cannot be written is a clean error.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest
from hypothesis import strategies as st

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.hostile import (
    POD,
    POD_TEMPLATE,
    RUN,
    SECRET,
    TORCHRUN_POD,
    aliased_pod,
    assert_clean_error,
    assert_no_crash,
    check_in_process,
    config_error,
)
from tests.support import SHMLINT_ENV, run_shmlint, run_shmlint_bytes

FORMATS = ["text", "json", "sarif", "github", "gitlab", "junit"]


@pytest.mark.parametrize("output_format", FORMATS)
def test_undecodable_file_names_and_text_in_every_format(tmp_path: Path, output_format: str) -> None:
    """Found: a file name that is not UTF-8 crashes ``--format sarif`` (urllib.parse.quote in report/sarif.py), and
    ``--output`` crashes on any undecodable byte in a finding (Path.write_text(encoding='utf-8') in cli.check)."""
    (tmp_path / "good.yaml").write_text(POD)
    (tmp_path / os.fsdecode(b"caf\xe9.yaml")).write_text(POD)
    (tmp_path / "new\nline.yaml").write_text(POD)
    (tmp_path / "latin1.sh").write_bytes(RUN.encode().replace(b"pytorch:2.3.0", b"pytorch:caf\xe9"))
    result = run_shmlint_bytes("check", "--format", output_format, ".", cwd=tmp_path)
    assert_no_crash(result)
    assert result.returncode == 1
    written = run_shmlint_bytes("check", "--format", output_format, "--output", "report.out", ".", cwd=tmp_path)
    assert_no_crash(written)
    assert written.returncode == 1
    assert (tmp_path / "report.out").stat().st_size > 0
    if output_format in ("json", "sarif", "gitlab"):
        json.loads((tmp_path / "report.out").read_bytes())


@pytest.mark.parametrize(
    ("output", "reason"),
    [
        ("/dev/full", "No space left on device"),
        ("missing/report.json", "No such file or directory"),
        ("pod.yaml/report.json", "Not a directory"),
    ],
)
def test_output_errors_are_clean(tmp_path: Path, output: str, reason: str) -> None:
    (tmp_path / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    run = run_shmlint_bytes("check", "--output", output, "pod.yaml", cwd=tmp_path)
    assert_clean_error(run, f"{output}: cannot write the report: {reason}")


def test_closed_or_full_standard_output_is_a_clean_error(tmp_path: Path) -> None:
    (tmp_path / "pod.yaml").write_text(POD_TEMPLATE.format(name="p"), encoding="utf-8")
    closed = subprocess.run(
        f"{sys.executable} -m shmlint check pod.yaml >&-",
        shell=True,
        cwd=tmp_path,
        env=SHMLINT_ENV,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=60,
        check=False,
    )
    assert_clean_error(closed, "standard output is closed")
    with open("/dev/full", "wb") as full:
        run = subprocess.run(
            [sys.executable, "-m", "shmlint", "check", "pod.yaml"],
            cwd=tmp_path,
            env=SHMLINT_ENV,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    assert_clean_error(run, "standard output: cannot print the report: No space left on device")


HOSTILE_NAME = "c\x1b]0;TITLE\x07\x1b[2J\x9b31m\u202e"


@pytest.mark.parametrize("output_format", ["text", "github"])
def test_control_characters_never_reach_the_terminal(tmp_path: Path, output_format: str) -> None:
    pod = POD_TEMPLATE.format(name="p").replace(
        "- name: train", f'- name: "{HOSTILE_NAME.encode("unicode_escape").decode()}"'
    )
    (tmp_path / "pod\x1b[31m.yaml").write_text(pod, encoding="utf-8")
    run = run_shmlint_bytes("check", "--format", output_format, ".", cwd=tmp_path)
    out = run.stdout.decode("utf-8", "replace")
    assert run.returncode == 1 and "SHM001" in out
    assert not any(ch in out for ch in "\x1b\x07\x9b\u202e"), out
    assert "\\x1b]0;TITLE\\x07" in out and "pod\\x1b[31m.yaml" in out


def test_a_finding_quotes_an_excerpt_of_a_long_value() -> None:
    from shmlint.rules.rule import MAX_DETAIL, MAX_MESSAGE, MAX_QUOTED_WORD, excerpted

    findings = check_in_process("pod.yaml", aliased_pod(3, 20_000), FileKind.YAML)
    assert len(findings) == 3 and all(len(f) < MAX_MESSAGE + 10 for f in findings)
    text = SourceText("pod.yaml", aliased_pod(3, 20_000))
    engine = Engine(Settings(undecided="show"))
    details = [f.detail for f in engine.check_source(text, FileKind.YAML, "pod.yaml").findings]
    assert len(details) == 3 and all(len(d) <= MAX_DETAIL for d in details)  # the long explanation quotes it
    assert "NVIDIA_VISIBLE_DEVICES=0,0,0" in details[0] and "0,0,0...,0,0," in details[0] and "0,0,1)" in details[0]
    assert all(len(word) <= MAX_QUOTED_WORD for word in excerpted("a " + "b" * 5000 + " c").split())
    long = excerpted(" ".join(["word"] * 1000) + " the remedy")
    assert len(long) <= MAX_MESSAGE and long.endswith("the remedy")


@pytest.mark.parametrize(
    ("text", "leak"),
    [
        (SECRET, "OPENSSH"),  # the whole file one scalar: said by its kind only
        ("select: ['" + "s" * 300 + "']\n", "s" * 50),
        ("severity: {'" + "r" * 300 + "': error}\n", "r" * 50),
        ("min-shm-size: '" + "z" * 300 + "'\n", "z" * 50),
        ("torch-images: ['(" + "q" * 300 + "']\n", "q" * 50),
        ("exclude: ['" + "*a" * 300 + "']\n", "*a" * 25),
        ("fail-on: '" + "f" * 300 + "'\n", "f" * 50),
        ("render: 12\nmax-file-size: " + "[" + "1, " * 400 + "1]\n", "1, " * 20),
        ("'" + "u" * 300 + "': 1\n", "u" * 50),
    ],
    ids=["whole-file", "select", "severity-key", "size", "regex", "pattern", "enum", "list", "unknown-key"],
)
def test_problem_messages_quote_only_a_short_excerpt(tmp_path: Path, text: str, leak: str) -> None:
    (tmp_path / ".shmlint.yaml").write_text(text, encoding="utf-8")
    message = config_error(tmp_path)
    assert leak not in message
    assert all(len(line) < 700 for line in message.splitlines())


def test_problem_messages_escape_control_characters(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text('select: ["\\e]0;pwned\\a\\n::error::x"]\n', encoding="utf-8")
    message = config_error(tmp_path)
    assert "\x1b" not in message and "\x07" not in message and "\n::error" not in message
    assert "\\x1b]0;pwned" in message


@hypothesis.given(st.text(max_size=400))
def test_quoted_is_short_escaped_and_keeps_both_ends(value: str) -> None:
    from shmlint.visible import _UNSAFE, QUOTED_HEAD, QUOTED_TAIL, quoted, visible

    shown = quoted(value)
    assert shown.startswith("'") and shown.endswith("'") and _UNSAFE.search(shown) is None
    if len(value) <= QUOTED_HEAD + QUOTED_TAIL + 3:
        assert shown == f"'{visible(value)}'"
    else:
        assert shown.startswith(f"'{visible(value[:QUOTED_HEAD])}...")
        assert shown.endswith(f"{visible(value[-QUOTED_TAIL:])}'")


FORGED = ("x\n::add-mask::secret\n::error::forged\n::stop-commands::stop\ny", "::error file=a::forged", "::warning::w")


def forged_tree(tmp_path: Path) -> Path:
    """Folders whose names forge workflow commands, each with a flagged pod (and an unreadable-looking note)."""
    repo = tmp_path / "repo"
    for name in FORGED:
        (repo / name).mkdir(parents=True)
        (repo / name / "pod.yaml").write_text(TORCHRUN_POD, encoding="utf-8")
        (repo / name / "broken.yaml").write_text("apiVersion: v1\nkind: Pod\nspec: [\n", encoding="utf-8")
    return repo


def workflow_commands(text: str) -> list[str]:
    """The lines the runner would take as workflow commands (it trims leading blanks)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::")]


def test_junit_forges_no_workflow_command(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    run = run_shmlint("check", "--format", "junit", ".", cwd=forged_tree(tmp_path))
    assert run.returncode == 1 and workflow_commands(run.stdout) == [], run.stdout
    cases = ET.fromstring(run.stdout).findall("testsuite/testcase")
    assert any("::add-mask::secret\\x0a::error::forged" in (case.get("classname") or "") for case in cases)


@pytest.mark.slow
def test_the_action_prints_every_other_format_with_commands_stopped(tmp_path: Path) -> None:
    from tests.test_github_action import run_step

    forged_tree(tmp_path)
    for report in ("junit", "text", "json", "gitlab"):
        done, outputs, _ = run_step(tmp_path, format=report)
        commands = workflow_commands(done.stdout)
        assert outputs["exit-code"] == "1" and commands[0].startswith("::stop-commands::shmlint-"), report
        assert commands[-1] == "::" + commands[0].removeprefix("::stop-commands::") + "::", report
        assert done.stdout.index(commands[0]) < done.stdout.index("pod.yaml") < done.stdout.rindex(commands[-1])


#: a file name that retitles the terminal, clears it, and forges a diff header on a line of its own
HOSTILE = "p\x1b]0;T\x07\x1b[2J\n+++ evil\u202e"


def assert_no_controls(text: str) -> None:
    assert not any(c in text for c in "\x1b\x07\u202e"), text
    assert "\n+++ evil" not in text and "\\x1b]0;T\\x07" in text


def test_fix_diff_headers_and_fixed_lines_are_escaped(tmp_path: Path) -> None:
    name = HOSTILE + ".yaml"
    (tmp_path / name).write_text(TORCHRUN_POD, encoding="utf-8")
    shown = run_shmlint("fix", "--", name, cwd=tmp_path)
    assert shown.returncode == 1 and shown.stdout.count("\n+++ ") == 1
    assert_no_controls(shown.stdout)
    written = run_shmlint("fix", "--write", "--", name, cwd=tmp_path)
    assert written.returncode == 0 and "fixed 1 finding(s)" in written.stdout
    assert_no_controls(written.stdout)


def test_fix_not_fixed_lines_are_escaped(tmp_path: Path) -> None:
    (tmp_path / ".shmlint.yaml").write_text("max-file-size: 16\n", encoding="utf-8")
    (tmp_path / (HOSTILE + ".yaml")).write_text(TORCHRUN_POD, encoding="utf-8")
    run = run_shmlint("fix", ".", cwd=tmp_path)
    assert "not fixed" in run.stderr
    assert_no_controls(run.stderr)


@pytest.mark.parametrize("quiet", [False, True])
def test_unrendered_notes_are_escaped(tmp_path: Path, quiet: bool) -> None:
    chart = tmp_path / HOSTILE
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n", encoding="utf-8")
    (chart / "templates" / "pod.yaml").write_text(TORCHRUN_POD.replace("name: p", "name: {{ .Release.Name }}"))
    environment = {**SHMLINT_ENV, "PATH": str(Path(sys.executable).parent)}  # no helm
    run = subprocess.run(
        [sys.executable, "-m", "shmlint", "check", *(["--quiet"] if quiet else []), "--", str(chart)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    shown = run.stderr if quiet else run.stdout
    assert "Helm chart not rendered" in shown
    assert_no_controls(shown)


def test_the_validate_table_escapes_names_and_keeps_one_row_each() -> None:
    from shmlint.model import DataLoaderHint
    from shmlint.validate.harness import Case, Row, render

    case = Case(HOSTILE + "|x.yaml", "Pod/p|q", None, False, ("SHM001",), DataLoaderHint(2, 8, 1024), True, "?")
    table = render([Row(case, "namespace", None, 0.0)])
    assert len(table.splitlines()) == 3 and "\\|x.yaml" in table and "Pod/p\\|q" in table
    assert_no_controls(table)


MARKUP = "[a](https://evil.test) <img> **b**"  # a name is quoted in part: the start is checked


def test_hover_shows_yaml_values_as_text_not_markdown() -> None:
    import re

    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.server.analysis import explain
    from shmlint.settings import Settings
    from shmlint.source import SourceText

    pod = TORCHRUN_POD.replace("name: train", f"name: '{MARKUP}'")
    result = Engine(Settings()).check_source(SourceText("pod.yaml", pod), FileKind.YAML, "pod.yaml")
    finding = next(f for f in result.findings if "evil.test" in f.message)
    hover = explain(finding)
    body = hover.split("\n\n")[1]  # the finding's own message: the rest is the catalog's Markdown
    assert "\\[a\\](https://evil.test)" in body and "&lt;img&gt;" in body
    assert re.search(r"(?<!\\)[\[\]*`<>]", body) is None, body


def test_markdown_escapes_what_makes_syntax_inline_and_at_the_start() -> None:
    from shmlint.visible import markdown

    text = markdown("~ | _a_ \\ <b> & `c` *e* [l](u)\n\x1b")
    assert "\n" not in text and "\x1b" not in text and "&lt;b&gt; &amp;" in text
    assert all(f"\\{char}" in text for char in "~|_`*[]")
    starts = {"# h": "\\# h", "- x": "\\- x", "+ x": "\\+ x", "12. y": "12\\. y", "3) z": "3\\) z", "===": "\\==="}
    assert {start: markdown(start) for start in starts} == starts
    assert markdown("a.b-c #d 1. e") == "a.b-c #d 1. e"  # plain text stays as it reads
