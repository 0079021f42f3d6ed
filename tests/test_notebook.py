"""Jupyter notebooks: the shell their cells run and their Markdown cells' shell blocks, found where the file writes
them, and fixed by edits that leave the notebook JSON."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.engine import Engine
from shmlint.file_formats import FileKind, kind_for_name
from shmlint.fix.apply import fix_source
from shmlint.parsers.embedded.json_shell import as_shell
from shmlint.parsers.embedded.notebook import notebook_shell
from shmlint.parsers.shell import commands, first_unclosed
from shmlint.results import FileResult
from shmlint.source import SourceText

SERVER = "docker run --gpus all vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2"


def notebook(*cells: tuple[str, list[str]], indent: int | None = 1) -> str:
    """A notebook as nbformat writes it (``indent=None``: all on one line, each cell's source one string)."""
    written = [
        {"cell_type": kind, "metadata": {}, "source": lines if indent else "".join(lines)}
        | ({"outputs": [], "execution_count": None} if kind == "code" else {})
        for kind, lines in cells
    ]
    return json.dumps({"cells": written, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=indent) + "\n"


def check(engine: Engine, text: str) -> FileResult:
    return engine.check_source(SourceText("run.ipynb", text), FileKind.NOTEBOOK, "run.ipynb")


def errors(engine: Engine, text: str) -> list[tuple[int, int]]:
    return [(f.span.line, f.span.column) for f in check(engine, text).findings if f.severity.label == "error"]


def where(text: str, needle: str, *, last: bool = False) -> tuple[int, int]:
    """1-based line and column of ``needle`` (its first or last) in the file as written."""
    offset = text.rindex(needle) if last else text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def test_a_notebook_is_read_by_its_name() -> None:
    assert kind_for_name("Serve.ipynb") is FileKind.NOTEBOOK


@pytest.mark.parametrize(
    "line",
    [
        f"!{SERVER}\n",
        f"!!{SERVER}\n",
        f"  ! {SERVER}\n",
        f"out = !{SERVER}\n",
        f"a, b = !{SERVER}\n",
        f"%sx {SERVER}\n",
        f"%system {SERVER}\n",
    ],
)
def test_a_code_cells_shell_escape_is_read_where_it_is(engine: Engine, line: str) -> None:
    text = notebook(("code", ["import os\n", line, "print('done')"]))
    assert errors(engine, text) == [where(text, "docker run")]


@pytest.mark.parametrize(
    "lines",
    [
        [f"print('{SERVER}')\n"],  # Python, not the shell
        [f"# !{SERVER}\n"],  # a comment
        ["%%writefile run.sh\n", f"{SERVER}\n"],  # a file written, not run
        ["%%script python\n", f"print('{SERVER}')\n"],
        [f"x = a != !{SERVER}\n"],  # not an assignment from the shell
    ],
)
def test_what_the_shell_never_runs_is_not_read(engine: Engine, lines: list[str]) -> None:
    assert not check(engine, notebook(("code", lines))).workloads


@pytest.mark.parametrize("magic", ["%%bash", "%%sh", "%%script bash", "%%script /bin/bash --out log", "%%shell"])
def test_a_shell_cell_is_read_whole(engine: Engine, magic: str) -> None:
    text = notebook(("code", [f"{magic}\n", "set -e\n", f"{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


def test_a_python_cell_magic_keeps_its_shell_escapes(engine: Engine) -> None:
    text = notebook(("code", ["%%capture out\n", f"!{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


def test_a_continued_shell_escape_goes_on_to_its_next_line(engine: Engine) -> None:
    """IPython joins a ``!`` line that ends with a backslash with the next: the evidence is on that line."""
    text = notebook(
        ("code", ["!docker run --gpus all -d \\\n", "    vllm/vllm-openai:v0.6.0 --tensor-parallel-size 2\n"])
    )
    (found,) = check(engine, text).findings
    assert (found.span.line, found.span.column, found.severity.label) == (*where(text, "docker run"), "error")
    assert "--tensor-parallel-size 2" in found.message


def test_an_escaped_backslash_inside_a_line_is_no_continuation(engine: Engine) -> None:
    """Decoded, ``echo a\\\\`` ends with two backslashes: an escaped one, so the next line is Python again."""
    text = notebook(("code", ["!echo a\\\\\n", f"print('{SERVER}')\n"]))
    assert not check(engine, text).workloads


def test_a_markdown_cells_shell_block_is_read_as_a_documents(engine: Engine) -> None:
    text = notebook(
        ("markdown", ["# Serve\n", "\n", "```bash\n", "docker run --gpus all \\\n", "  ubuntu:22.04 \\\n"]),
        ("markdown", ["  vllm serve m --tensor-parallel-size 2\n"]),  # another cell: not the block's
        ("markdown", ["```bash\n", f"{SERVER}\n", "```\n"]),
    )
    found = {(f.span.line, f.span.column): f.severity.label for f in check(engine, text).findings}
    assert found[where(text, "docker run", last=True)] == "error"
    assert found.get(where(text, "docker run")) != "error"  # the next cell does not continue it


def test_a_quote_one_cell_leaves_open_does_not_swallow_the_next(engine: Engine) -> None:
    text = notebook(("code", ["!echo 'it\n"]), ("code", [f"!{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


def test_outputs_and_metadata_are_not_read(engine: Engine) -> None:
    cell = {
        "cell_type": "code",
        "metadata": {"tags": [f"!{SERVER}"]},
        "outputs": [{"output_type": "stream", "name": "stdout", "text": [f"!{SERVER}\n"]}],
        "source": ["print(1)\n"],
    }
    text = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    assert not check(engine, text).workloads


def test_a_notebook_written_on_one_line_is_located_in_it(engine: Engine) -> None:
    text = notebook(("code", ["x = 1\n", f"!{SERVER}\n", "y = 2\n"]), indent=None)
    assert text.count("\n") == 1
    assert errors(engine, text) == [where(text, "docker run")]


def test_an_nbformat_3_notebook_is_read(engine: Engine) -> None:
    cell = {"cell_type": "code", "input": [f"!{SERVER}\n"], "language": "python", "outputs": []}
    text = json.dumps({"worksheets": [{"cells": [cell]}], "metadata": {}, "nbformat": 3}, indent=1)
    assert errors(engine, text) == [where(text, "docker run")]


def test_a_python_placeholder_is_a_value_to_come(engine: Engine) -> None:
    """``{SIZE}`` is a Python value IPython puts in: no literal size to judge, no image named ``{IMAGE}``."""
    text = notebook(("code", ["!docker run --gpus all --shm-size={SIZE} {IMAGE} --tensor-parallel-size 2\n"]))
    assert "--shm-size=$SIZE} $IMAGE}" in notebook_shell(text).text
    assert not [f for f in check(engine, text).findings if f.code in ("SHM000", "SHM001")]


def test_an_escaped_quote_is_the_shells_quote(engine: Engine) -> None:
    """``-e TOKEN="<your token>"`` is one word: its blanks do not make ``your`` the image."""
    line = '!docker run --gpus all -e TOKEN="<your hf token>" -p 80:80 vllm/vllm-openai:v0.6.0 --port 80\n'
    text = notebook(("code", [line]))
    (workload,) = check(engine, text).workloads
    assert workload.image == "vllm/vllm-openai:v0.6.0"
    found = {f.code: f for f in check(engine, text).findings}
    assert (found["SHM001"].span.line, found["SHM001"].span.column) == where(text, "docker run")


def test_a_notebook_that_is_not_json_is_reported_where_it_breaks(engine: Engine) -> None:
    text = notebook(("code", [f"!{SERVER}\n"]))
    broken = text.replace('"metadata": {}', '"metadata": {', 1)
    (found,) = check(engine, broken).findings
    assert found.code == "SHM000"
    assert "invalid notebook JSON" in found.message
    assert found.span.line > 1


def test_a_notebook_that_names_no_engine_is_not_parsed(engine: Engine) -> None:
    assert not check(engine, '{"cells": [ broken, "gpu" ').findings


def test_the_fix_is_an_edit_inside_the_json_string(engine: Engine) -> None:
    text = notebook(("markdown", ["Serve it:\n"]), ("code", ["import os\n", f"!{SERVER}\n"]))
    source = SourceText("run.ipynb", text)
    fixed = fix_source(engine, source, FileKind.NOTEBOOK, "run.ipynb")
    assert not fixed.problems
    before, after = json.loads(text)["cells"], json.loads(fixed.text)["cells"]
    assert after[0] == before[0]
    assert after[1]["source"] == ["import os\n", f"!{SERVER.replace('run ', 'run --shm-size=8g ', 1)}\n"]


_LINE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=30)


@settings(max_examples=150, deadline=None)
@given(
    before=st.lists(_LINE, max_size=4),
    after=st.lists(_LINE, max_size=4),
    shell=st.booleans(),
    indent=st.sampled_from([1, None]),
)
def test_a_fix_changes_only_the_line_it_fixes(
    engine: Engine, before: list[str], after: list[str], shell: bool, indent: int | None
) -> None:
    """Whatever the cells around it hold (quotes, backslashes, escapes, other scripts), a fixed notebook is JSON
    and every cell but the one line fixed decodes as it did."""
    magic = ["%%bash\n"] if shell else []
    lines = [*magic, *(f"{line}\n" for line in before), f"{'' if shell else '!'}{SERVER}\n", *after]
    text = notebook(("code", lines), ("markdown", [f"{line}\n" for line in after]), indent=indent)
    fixed = fix_source(engine, SourceText("run.ipynb", text), FileKind.NOTEBOOK, "run.ipynb")
    cells = json.loads(fixed.text)["cells"]
    assert cells[1] == json.loads(text)["cells"][1]
    server = len(magic) + len(before)
    fixed_line = f"{lines[server][: -len(SERVER) - 1]}{SERVER.replace('run ', 'run --shm-size=8g ', 1)}\n"
    expected = "".join([*lines[:server], fixed_line, *lines[server + 1 :]])
    written = cells[0]["source"]
    assert "".join(written) in ("".join(lines), expected)


def _words(text: str) -> list[list[str]]:
    """Each command's words; an expansion's (whose text is kept as written) with its blanks and ``$"`` strings
    read as the shell reads them."""
    return [
        [" ".join(word.text.replace('$"', '"').split()) if word.dynamic else word.text for word in command.words]
        for command in commands(text)
    ]


_SHELLISH = st.text(st.sampled_from([*"ab $'\"\\\t=-/{}()", "\u00e9", "\u2603", "\x01"]), max_size=40)


@settings(max_examples=400, deadline=None)
@given(line=_SHELLISH)
def test_a_line_is_decoded_in_place_as_the_shell_reads_it(line: str) -> None:
    """Whatever a line holds (quotes, backslashes, escapes JSON writes longer), decoded in place it is as long as
    written, and the shell reads the same words from it as from the line itself; a quote left open at its end is
    carried to the next line."""
    written = json.dumps(line, ensure_ascii=len(line) % 2 == 0)[1:-1]
    shell = as_shell(written)
    assert len(shell.text) == len(written)
    assert "\v" not in shell.text
    read = line.replace("\x01", " ")
    if not shell.continued and first_unclosed(read) is None:  # what is left open takes the blanks made up at the end
        assert _words(shell.text) == _words(read)


@pytest.mark.parametrize(
    "cells",
    [
        [("code", ["!echo hi\n", f"!{SERVER}\n"])],  # one string for the cell: its lines end at its \n escapes
        [("code", ["!echo hi"]), ("code", [f"!{SERVER}"])],  # two cells on one line
        [("markdown", ["```bash\n", "echo hi\n", f"{SERVER}\n", "```\n"])],
    ],
)
def test_a_notebook_on_one_line_keeps_its_lines_and_cells_apart(
    engine: Engine, cells: list[tuple[str, list[str]]]
) -> None:
    text = notebook(*cells, indent=None)
    assert errors(engine, text) == [where(text, "docker run")]


def test_megabytes_of_output_do_not_stop_the_reading(engine: Engine) -> None:
    """A plot's data in an output is hundreds of thousands of JSON values: skipped, not counted against the cells."""
    plot = {"output_type": "display_data", "metadata": {}, "data": {"application/json": list(range(300_000))}}
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": [f"!{SERVER}\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [plot], "source": ["plot()\n"]},
    ]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    assert errors(engine, text) == [where(text, "docker run")]


def test_raw_and_heading_cells_never_run(engine: Engine) -> None:
    text = notebook(("raw", [f"!{SERVER}\n"]), ("heading", [f"!{SERVER}\n"]))
    assert not check(engine, text).workloads


def test_a_quote_one_shell_statement_leaves_open_does_not_pair_with_the_next(engine: Engine) -> None:
    text = notebook(("code", ["!echo 'a\n", f"!{SERVER}\n", "!echo 'b\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


@pytest.mark.parametrize(
    "magics",
    [
        ["%%capture out\n", "%%bash\n"],
        ["%%!\n"],
        ["%%script --bg bash\n"],
        ["%%time\n", "%%sh\n"],
        ["%%time\n"] * 3 + ["%%bash\n"],
    ],
)
def test_a_shell_cell_after_other_cell_magics_is_read(engine: Engine, magics: list[str]) -> None:
    text = notebook(("code", [*magics, f"{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


def test_a_shell_escape_inside_a_python_string_is_not_run(engine: Engine) -> None:
    text = notebook(("code", ['usage = """\n', f"!{SERVER}\n", '"""\n', "print(usage)\n"]))
    assert not check(engine, text).workloads


@pytest.mark.parametrize(
    "size", ["\\u0036\\u0034m", '\\"64\\"m', "64\\u006d"]
)  # 64m, written with JSON escapes inside the word
def test_no_fix_is_written_where_escapes_move_the_characters(engine: Engine, size: str) -> None:
    """Decoded, such a size is not where the file writes it: an edit there would land beside it."""
    text = notebook(("code", [f"!docker run --gpus all --shm-size=XX {SERVER[11:]}\n"])).replace("XX", size)
    found = check(engine, text).findings
    assert [f.code for f in found] == ["SHM005"]  # read: 64 MiB is too small
    fixed = fix_source(engine, SourceText("run.ipynb", text), FileKind.NOTEBOOK, "run.ipynb")
    assert fixed.text == text


def test_a_notebook_with_comments_is_not_json(engine: Engine) -> None:
    """The reader and the fixer's guard agree: Jupyter refuses trailing commas and comments, so does shmlint."""
    text = notebook(("code", [f"!{SERVER}\n"])).replace('"metadata": {}', '"metadata": {}, // c', 1)
    (found,) = check(engine, text).findings
    assert found.code == "SHM000"


def test_a_here_document_a_cell_leaves_open_ends_with_the_cell(engine: Engine) -> None:
    text = notebook(("code", ["%%bash\n", "cat <<EOF\n", "text\n"]), ("code", [f"!{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


@pytest.mark.parametrize("size", ["'{size}'", "'$SIZE'", "{size}", '"{size}"'])
def test_a_python_value_in_a_shell_escape_is_a_value_to_come_whatever_its_quotes(engine: Engine, size: str) -> None:
    """IPython expands ``{size}`` and ``$SIZE`` before the shell sees them, single quotes or not: no size to judge."""
    text = notebook(("code", [f"!docker run --gpus all --shm-size={size} {SERVER[11:]}\n"]))
    assert not [f for f in check(engine, text).findings if f.code in ("SHM001", "SHM005", "SHM011")]


def test_a_windows_line_break_in_a_cell_is_one_line_break(engine: Engine) -> None:
    """``\\r\\n`` inside the strings: the continued line still goes on, and its size is read."""
    text = notebook(("code", ["!docker run --gpus all \\\r\n", f"  --shm-size=64m {SERVER[23:]}\r\n"]))
    assert [f.code for f in check(engine, text).findings] == ["SHM005"]


@pytest.mark.parametrize(
    ("first", "last", "read"),
    [(["!echo hi\n"], [f"!{SERVER}\n"], True), ([f"!{SERVER}\n"], ["!echo hi\n"], False)],
)
def test_a_key_written_twice_is_read_as_json_reads_it(
    engine: Engine, first: list[str], last: list[str], read: bool
) -> None:
    """The last ``source`` (and the last ``cells``) is what Jupyter shows and runs."""
    cell = json.dumps({"cell_type": "code", "source": first, "outputs": [], "metadata": {}})
    cell = cell[:-1] + ', "source": ' + json.dumps(last) + "}"
    text = '{"cells": [], "cells": [' + cell + '], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'
    assert bool(check(engine, text).workloads) is read


@pytest.mark.parametrize("python", ["x = \"'''\"\n", "# a '''\n", "s = 'a\\'b'''\n"])
def test_a_python_line_that_opens_no_string_keeps_the_next_shell_escape(engine: Engine, python: str) -> None:
    text = notebook(("code", [python, f"!{SERVER}\n"]))
    assert errors(engine, text) == [where(text, "docker run")]


def test_a_quoted_size_in_a_notebook_is_fixed_where_it_is_written(engine: Engine) -> None:
    """``--shm-size=\\"64m\\"``: the size's own characters are where the file writes them (only the closing quote's
    escape moves what follows), so the size is rewritten in place."""
    text = notebook(("code", ['!docker run --gpus all --shm-size="64m" ' + SERVER[23:] + "\n"]))
    fixed = fix_source(engine, SourceText("run.ipynb", text), FileKind.NOTEBOOK, "run.ipynb")
    assert json.loads(fixed.text)["cells"][0]["source"] == [
        '!docker run --gpus all --shm-size="8g" ' + SERVER[23:] + "\n"
    ]


def test_a_fix_is_refused_only_where_a_moved_range_meets_it(engine: Engine) -> None:
    """Many lines with escapes around a plain one: the plain one is fixed, one whose size moved is not."""
    escaped = [f"!echo \u00e9{i} \u00e9\n" for i in range(50)]
    text = notebook(("code", [*escaped, f"!{SERVER}\n", "!docker run --gpus all --shm-size=\u00e964m img\n"]))
    fixed = fix_source(engine, SourceText("run.ipynb", text), FileKind.NOTEBOOK, "run.ipynb")
    source = json.loads(fixed.text)["cells"][0]["source"]
    assert source[50] == f"!{SERVER.replace('run ', 'run --shm-size=8g ', 1)}\n"
    assert source[51] == "!docker run --gpus all --shm-size=\u00e964m img\n"
