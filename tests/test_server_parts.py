"""The language server's parts without a client: positions in UTF-16 (and the other encodings), the smallest
fix-all edit, the command line's configuration lookup for a buffer, an internal error that must not end the
session, and the rule that nothing of the server loads on the ``check`` path."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import hypothesis
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from shmlint.model import Edit
from shmlint.server.analysis import Analyzer, minimal_edit
from shmlint.server.framing import MAX_HEADER_LINE, FramedInput
from shmlint.server.positions import UTF8, UTF16, UTF32, LineIndex, code_units
from tests.support import FIXTURES, ROOT, SHMLINT_ENV
from tests.test_startup import loaded_by

#: ASCII, Latin-1, BMP (CJK), astral (emoji, two UTF-16 units) characters and every LSP line break
TEXT = st.lists(st.sampled_from(["a", " ", "é", "中", "🚀", "𝒳", "\n", "\r\n", "\r", "\t"]), max_size=40).map("".join)


def lsp_lines(text: str) -> list[str]:
    """Lines as LSP splits them, by an independent route (``str.splitlines`` also splits at \\v, \\f, \\x1c...)."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


@given(TEXT, st.data())
def test_positions_are_lsp_lines_and_utf16_units(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    assume(text[offset - 1 : offset + 1] != "\r\n")  # no position lies between \r and \n; spans never end there
    line, character = LineIndex(text).position(offset)
    before = text[:offset]
    assert line == len(lsp_lines(before)) - 1
    assert character == len(lsp_lines(before)[-1].encode("utf-16-le")) // 2


@given(TEXT, st.data())
def test_an_offset_goes_to_a_position_and_back(text: str, data: st.DataObject) -> None:
    offset = data.draw(st.integers(0, len(text)))
    assume(text[offset - 1 : offset + 1] != "\r\n")
    for encoding in (UTF8, UTF16, UTF32):
        index = LineIndex(text, encoding)
        assert index.offset(*index.position(offset)) == offset


def test_code_units_per_encoding() -> None:
    assert [code_units("a🚀é", e) for e in (UTF8, UTF16, UTF32)] == [1 + 4 + 2, 1 + 2 + 1, 3]
    index = LineIndex("x\r\né🚀z\n")
    assert index.position(6) == (1, 4)  # after é (1) and 🚀 (2) and z (1)
    assert index.offset(1, 99) == 6  # past the end of a line: its end, before its line break
    assert index.offset(9, 0) == len(index.text)


@given(TEXT, TEXT)
def test_the_fix_all_edit_turns_before_into_after(before: str, after: str) -> None:
    edit = minimal_edit(before, after)
    if before == after:
        assert edit is None
        return
    assert edit is not None
    assert before[: edit.start] + edit.new_text + before[edit.end :] == after
    for cut in (edit.start, edit.end):  # never between \r and \n
        assert before[cut - 1 : cut + 1] != "\r\n" or cut == 0


def test_the_fix_all_edit_is_small() -> None:
    before = "a\nb\nc\n"
    edit = minimal_edit(before, "a\nb\n  x: 1\nc\n")
    assert edit is not None
    assert edit.end - edit.start == 0 and len(edit.new_text) == len("  x: 1\n")


def test_fix_all_inserts_where_the_fix_does() -> None:
    """Not ``shm-size=8g --`` inside ``--gpus``, which gives the same text but not the same edit for the editor."""
    path = Path("train.sh")
    text = "docker run --gpus all pytorch/pytorch torchrun train.py\n"
    analyzer = Analyzer()
    checked = analyzer.check(path, text)
    assert analyzer.fix_all(checked) == Edit(len("docker run"), len("docker run"), " --shm-size=8g")
    [finding] = checked.result.findings
    assert analyzer.quick_fix(checked, finding) == [Edit(len("docker run"), len("docker run"), " --shm-size=8g")]


def test_a_buffer_follows_the_configuration_the_command_line_would_use(tmp_path: Path) -> None:
    script = tmp_path / "project" / "train.sh"
    script.parent.mkdir()
    text = "docker run --gpus all pytorch/pytorch torchrun train.py\n"
    analyzer = Analyzer()
    assert [f.code for f in analyzer.check(script, text).result.findings] == ["SHM001"]
    config = tmp_path / ".shmlint.yaml"
    config.write_text("ignore: [missing-shm]\n")
    assert analyzer.check(script, text).result.findings == ()  # a new configuration is read again
    config.write_text("ignore: [no-such-rule]\n")
    broken = analyzer.check(script, text)
    assert broken.problem is not None and "no-such-rule" in broken.problem


def test_the_buffer_not_the_file_on_disk_is_checked(tmp_path: Path) -> None:
    script = tmp_path / "train.sh"
    script.write_text("echo nothing to see\n")
    checked = Analyzer().check(script, "docker run --gpus all pytorch/pytorch python train.py\n")
    assert [f.code for f in checked.result.findings] == ["SHM001"]


def test_a_file_shmlint_does_not_read_gets_no_diagnostics(tmp_path: Path) -> None:
    checked = Analyzer().check(tmp_path / "notes.txt", "docker run --gpus all pytorch/pytorch python x.py\n")
    assert checked.kind is None and checked.result.findings == ()
    as_yaml = Analyzer().check(tmp_path / "untitled-1", "kind: Pod\nspec: [\n", language="yaml")
    assert [f.code for f in as_yaml.result.findings] == ["SHM000"]


SABOTAGE = """\
import shmlint.engine

def _fail(*args, **kwargs):
    raise RuntimeError("injected failure")

shmlint.engine.Engine.check_source = _fail
"""


def test_an_internal_error_is_a_logged_message_and_an_shm000_diagnostic(tmp_path: Path) -> None:
    """Over stdio, with the engine sabotaged through ``sitecustomize``: the session answers on."""
    from lsprotocol import types
    from pytest_lsp import client_capabilities

    from tests.test_server_e2e import SCRIPT, diagnostics, make_client, open_document

    (tmp_path / "sitecustomize.py").write_text(SABOTAGE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}

    async def session() -> None:
        client = make_client()
        await client.start_io(sys.executable, "-m", "shmlint", "server", env=env)
        try:
            await client.initialize_session(
                types.InitializeParams(capabilities=client_capabilities("neovim"), root_uri=tmp_path.as_uri())
            )
            uri = open_document(client, tmp_path / "train.sh", SCRIPT, "sh")
            [problem] = await diagnostics(client, uri, 1)
            assert problem.code == "SHM000" and "internal error" in problem.message
            assert any("injected failure" in m.message for m in client.log_messages)
            assert any(m.type == types.MessageType.Error for m in client.log_messages)
            hover = await client.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0))
            )
            assert hover is None  # still answering
            await client.shutdown_session()
        finally:
            await client.stop()

    asyncio.run(asyncio.wait_for(session(), timeout=60))


def test_check_loads_nothing_of_the_server(shmlint_process) -> None:
    code, modules = loaded_by(shmlint_process, FIXTURES / "examples" / "trainer-deployment.yaml")
    assert code == 1 and "shmlint.rules" in modules  # the observation sees a full check
    server = sorted(m for m in modules if m.split(".")[0] in {"pygls", "lsprotocol", "cattrs"} or "server" in m)
    assert not server, server


def test_server_without_pygls_is_a_clear_message(shmlint_process, tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['pygls'] = None\n")
    done = shmlint_process("server", env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 2
    assert "pip install 'shmlint[lsp]'" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("option", ["--help", "server --help"])
def test_help_lists_the_server_without_loading_pygls(shmlint_process, option: str) -> None:
    done = shmlint_process(*option.split(), env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert done.returncode == 0 and "server" in done.stdout
    assert not any(line.rsplit("|", 1)[-1].strip().startswith("pygls") for line in done.stderr.splitlines())


@pytest.mark.parametrize("name", ["k8s-argparse-workers", "compose-wrapper", "shell-docker-run", "k8s-no-workers"])
def test_the_editor_gets_the_same_project_evidence_as_check(name: str) -> None:
    """Same answer everywhere: a container whose need is decided by the code it runs (``fixtures/project``) gets
    the same findings, with the same evidence, in the editor as from ``check``."""
    from shmlint.runner import check_paths
    from shmlint.settings import Settings
    from tests.support import FIXTURES

    folder = FIXTURES / "project" / name
    report = check_paths(Settings(undecided="show"), [folder])
    analyzer = Analyzer()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != "expected"):
        checked = analyzer.check(path, path.read_text(encoding="utf-8"))
        expected = [f for f in report.findings if f.span.path == str(path)]
        assert [(f.code, f.span, f.message) for f in checked.result.findings] == [
            (f.code, f.span, f.message) for f in expected
        ], path.name
    assert report.findings or name == "k8s-no-workers"  # the fixture says something to compare


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n%s" % (
        len(body),
        body,
    )


INITIALIZE = _frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})


@pytest.mark.parametrize(
    "bad",
    [
        b"Content-Length: x\r\n\r\n{}",
        b"garbage\r\n\r\n",
        b"content-length: 2\r\n\r\n{}",  # pygls reads only the exact spelling
        b"Content-Length: 0\r\n\r\n",
        b"Content-Length:  2\r\n\r\n{}",
        b"Content-Length: 2\n\n{}",  # no CR
        b"\r\n{}",  # a blank line with no length
        b"Content-Length: " + b"9" * 40 + b"\r\n\r\n",
        b"\0" * (MAX_HEADER_LINE * 4),  # no line break at all
    ],
    ids=["length-x", "garbage", "lower-case", "length-0", "two-spaces", "no-cr", "blank", "huge", "no-line-break"],
)
@pytest.mark.parametrize("after_a_good_message", [False, True])
def test_a_bad_header_is_reported_and_the_server_exits(tmp_path: Path, bad: bytes, after_a_good_message: bool) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "shmlint", "server"],
        cwd=tmp_path,
        env=SHMLINT_ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert server.stdin is not None
    try:
        server.stdin.write((INITIALIZE if after_a_good_message else b"") + bad)
        server.stdin.flush()  # and kept open, as an editor keeps it: the old server waited here for ever
        code = server.wait(timeout=60)
    finally:
        server.kill()
        out, err = server.communicate()
    assert code == 2
    assert "not the Language Server Protocol" in err.decode() and "header line" in err.decode()
    assert "Traceback" not in err.decode()
    assert (b'"id": 1' in out or b'"id":1' in out) == after_a_good_message  # the good message was answered


@hypothesis.given(st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=5))
def test_well_framed_messages_pass_through_unchanged(bodies: list[bytes]) -> None:
    """What pygls reads through ``FramedInput``: every header line and body as sent, then the end of input."""
    stream = b"".join(b"Content-Length: %d\r\nContent-Type: x\r\n\r\n%s" % (len(body), body) for body in bodies)
    framed = FramedInput(io.BytesIO(stream))  # type: ignore[arg-type]
    for body in bodies:
        assert framed.readline() == b"Content-Length: %d\r\n" % len(body)
        assert framed.readline() == b"Content-Type: x\r\n"
        assert framed.readline() == b"\r\n"
        assert framed.read(len(body)) == body
    assert framed.readline() == b""
    assert framed.problem is None
