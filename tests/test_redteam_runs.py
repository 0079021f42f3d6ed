"""Issue 27 (red team, round 3), items 10, 11, 12, 18, 20, 21 and 22: the language server with escaped URIs and
broken headers, an escaped ``[tool.shmlint]`` key, hostile baseline files, fixes of compose override files, and
``fix --write`` against an editor's save, extended attributes and a signal. Each test rebuilds the red team's
input."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import hypothesis
import pytest
import pytest_lsp
from hypothesis import strategies as st
from lsprotocol import types
from pytest_lsp import client_capabilities

from shmlint.baseline import MAX_BASELINE_BYTES
from shmlint.config import find_config
from shmlint.server.framing import MAX_HEADER_LINE, FramedInput
from tests.support import SHMLINT_ENV, run_shmlint
from tests.test_server_e2e import SERVER, Client, apply, diagnostics, edits_of

ROOT = Path(__file__).resolve().parent.parent
ENV = SHMLINT_ENV
SCRIPT = "#!/bin/sh\ndocker run --gpus all pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime torchrun train.py\n"


shmlint = run_shmlint


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


# -- item 10: documents whose URI has a %-escape --------------------------------------------------------------------


@pytest_lsp.fixture(config=SERVER)
async def lsp(lsp_client: Client, tmp_path: Path):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=tmp_path.as_uri())
    )
    yield
    await lsp_client.shutdown_session()


def _open(client: Client, uri: str, text: str, language: str = "shellscript") -> None:
    item = types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


async def _published(client: Client, uri: str, after: int) -> list[types.Diagnostic]:
    """The diagnostics of the first publication for ``uri`` after the first ``after`` publications."""

    async def wait() -> list[types.Diagnostic]:
        while True:
            for params in client.published[after:]:
                if params.uri == uri:
                    return list(params.diagnostics)
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(wait(), timeout=30)


@pytest.mark.asyncio
@pytest.mark.parametrize("where", ["my folder/train.sh", "caf\u00e9/train.sh", "windows"])
async def test_a_document_with_an_escaped_uri_is_checked_fixed_and_explained(
    lsp: Client, tmp_path: Path, where: str
) -> None:
    client = lsp
    if where == "windows":
        uri = "file:///c%3A/Users/me/My%20Project/train.sh"  # as VS Code sends a Windows path
    else:
        (tmp_path / where).parent.mkdir()
        uri = (tmp_path / where).as_uri()
    assert "%" in uri
    _open(client, uri, SCRIPT)
    [diagnostic] = await diagnostics(client, uri, 1)  # published under the URI the client sent
    assert diagnostic.code == "SHM001"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic], only=[types.CodeActionKind.QuickFix]),
        )
    )
    assert actions is not None
    [action] = actions
    assert isinstance(action, types.CodeAction)
    assert "--shm-size=8g" in apply(SCRIPT, edits_of(action, uri))
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=diagnostic.range.start)
    )
    assert hover is not None
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri)))
    assert await _published(client, uri, len(client.published)) == []  # closed: its diagnostics withdrawn


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["plain", "my folder"])
async def test_a_saved_configuration_rechecks_documents_under_their_own_uris(
    lsp: Client, tmp_path: Path, name: str
) -> None:
    client = lsp
    folder = tmp_path / name
    folder.mkdir()
    uri = (folder / "train.sh").as_uri()
    _open(client, uri, SCRIPT)
    assert [d.code for d in await diagnostics(client, uri, 1)] == ["SHM001"]
    (folder / ".shmlint.yaml").write_text("ignore: [SHM001]\n")
    seen = len(client.published)
    saved = types.TextDocumentIdentifier(uri=(folder / ".shmlint.yaml").as_uri())
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=saved))
    assert await _published(client, uri, seen) == []


# -- item 11: a bad LSP header ends the server with a message, not a deaf session ----------------------------------


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
        env=ENV,
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


# -- item 18: the baseline file is bounded ----------------------------------------------------------------------


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return path.name


def _sparse(path: Path) -> str:
    with path.open("wb") as handle:
        handle.truncate(MAX_BASELINE_BYTES + 1)  # no disk used: the size alone refuses it
    return path.name


def _deep(path: Path) -> str:
    path.write_text('{"schema_version": 2, "entries": ' + "[" * 200_000 + "]" * 200_000 + "}")
    return path.name


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (_fifo, "not a regular file"),
        (lambda _: "/dev/zero", "not a regular file"),
        (_sparse, f"above the limit of {MAX_BASELINE_BYTES:,} (for a baseline)"),
        (_deep, "nested too deeply"),
    ],
    ids=["fifo", "dev-zero", "too-large", "deep"],
)
def test_a_hostile_baseline_is_a_clear_error_at_once(tmp_path: Path, make: Callable[[Path], str], why: str) -> None:
    (tmp_path / "train.sh").write_text(SCRIPT)
    baseline = make(tmp_path / "baseline.json")
    run = shmlint("check", "train.sh", "--baseline", baseline, cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert "baseline" in run.stderr and why in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_a_baseline_still_accepts_what_it_recorded(tmp_path: Path) -> None:
    (tmp_path / "train.sh").write_text(SCRIPT)
    assert shmlint("check", "train.sh", "--write-baseline", "bl.json", cwd=tmp_path).returncode == 0
    assert shmlint("check", "train.sh", "--baseline", "bl.json", cwd=tmp_path).returncode == 0


# -- item 21: an editor's save by rename, landing just before the rename of fix --write ---------------------------


def _editor_save(path: Path, text: bytes) -> None:
    """What editors do: the new text in a temp file beside the file, renamed over it."""
    temp = path.with_name(f".{path.name}.editor-swp")
    temp.write_bytes(text)
    os.replace(temp, path)


def _save_just_before_the_rename(monkeypatch: pytest.MonkeyPatch, path: Path, text: bytes) -> None:
    from shmlint.fix import write as write_module

    real = write_module._replace_if_same

    def save_then_rename(temp: str, target: Path, before: os.stat_result) -> None:
        if Path(target) == path.resolve():
            _editor_save(path, text)
        real(temp, target, before)

    monkeypatch.setattr(write_module, "_replace_if_same", save_then_rename)


def test_an_editor_save_just_before_the_rename_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from shmlint.fix.write import FileChanged, write_atomic

    path = tmp_path / "train.sh"
    path.write_text(SCRIPT)
    saved = SCRIPT.encode() + b"# saved by the editor\n"
    _save_just_before_the_rename(monkeypatch, path, saved)
    with pytest.raises(FileChanged):
        write_atomic(path, b"fixed\n", SCRIPT.encode())
    assert path.read_bytes() == saved
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.sh"]  # no temp file left


def test_fix_write_reports_the_save_and_keeps_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, invoke) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "train.sh"
    path.write_text(SCRIPT)
    saved = SCRIPT.encode() + b"# saved by the editor\n"
    _save_just_before_the_rename(monkeypatch, path, saved)
    result = invoke("fix", "--write", str(path))
    assert result.exit_code == 2, result.output
    assert "file changed since it was read" in result.stderr
    assert path.read_bytes() == saved


# -- item 22: extended attributes kept; no temp copy left by SIGTERM/SIGINT, stale ones of ours removed ------------


def _user_xattrs_or_skip(path: Path) -> None:
    try:
        os.setxattr(path, "user.shmlint-test", b"kept")
    except OSError as exc:
        pytest.skip(f"the file system of {path.parent} does not take user extended attributes: {exc}")


def test_fix_write_keeps_extended_attributes_and_mode(tmp_path: Path, invoke) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "train.sh"
    path.write_text(SCRIPT)
    os.chmod(path, 0o751)
    _user_xattrs_or_skip(path)
    os.setxattr(path, "user.mime_type", b"text/x-shellscript")
    result = invoke("fix", "--write", str(path))
    assert result.exit_code == 0, result.output
    assert "--shm-size" in path.read_text()  # rewritten, through a new file
    assert os.getxattr(path, "user.shmlint-test") == b"kept"
    assert os.getxattr(path, "user.mime_type") == b"text/x-shellscript"
    assert oct(os.stat(path).st_mode & 0o7777) == oct(0o751)


#: ``fix --write`` whose temp file, once written, takes long to finish: the moment a signal is sent
SLOW_WRITE = r"""
import pathlib, sys, time
import shmlint.fix.write as write
real, marker = write._finish_temp, pathlib.Path(sys.argv[1])
def slow(*args):
    marker.write_text("written")  # the temp file is there now
    time.sleep(60)
    real(*args)
write._finish_temp = slow
from shmlint.cli import main
sys.argv = ["shmlint", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_mid_write_leaves_no_temp_copy(tmp_path: Path, signum: int) -> None:
    folder, marker = tmp_path / "repo", tmp_path / "marker"
    folder.mkdir()
    (folder / "train.sh").write_text(SCRIPT)
    child = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITE, str(marker), "fix", "--write", str(folder)],
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), child.communicate()
        assert [p.name for p in folder.glob("*.shmlint-tmp")]  # mid-write: the temp copy exists
        child.send_signal(signum)
        code = child.wait(timeout=30)
    finally:
        child.kill()
        _, err = child.communicate()
    assert (code, err.decode().strip()) == (2, "Aborted.")  # as Ctrl-C always ended a run
    assert sorted(p.name for p in folder.iterdir()) == ["train.sh"]  # no hidden copy left
    assert (folder / "train.sh").read_text() == SCRIPT  # and the file untouched


def test_only_our_own_stale_temp_files_are_removed(tmp_path: Path, invoke) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "train.sh").write_text(SCRIPT)
    (tmp_path / "notes.txt").write_text("x")
    stale = tmp_path / ".train.sh.k3j_9x0a.shmlint-tmp"  # a killed run's, an hour old
    fresh = tmp_path / ".notes.txt.ab12cd34.shmlint-tmp"  # a run writing right now
    foreign = [tmp_path / ".train.sh.shmlint-tmp", tmp_path / ".gone.yaml.ab12cd34.shmlint-tmp"]
    for path in (stale, fresh, *foreign):
        path.write_text("copy")
    hour_ago = time.time() - 3600
    for path in (stale, *foreign):
        os.utime(path, (hour_ago, hour_ago))
    in_a_minute = time.time() + 60
    os.utime(fresh, (in_a_minute, in_a_minute))
    result = invoke("fix", "--write", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert not stale.exists()
    assert fresh.exists() and all(path.exists() for path in foreign)


# -- item 20: a compose override's value is never "fixed" in the base file ----------------------------------------

BASE = "services:\n  trainer:\n    image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime\n{shm}"
OVERRIDE = """\
services:
  trainer:
    command: torchrun train.py
{shm}    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              count: all
              capabilities: [gpu]
"""


def _compose_pair(folder: Path, base_shm: str, override_shm: str) -> dict[str, str]:
    files = {"compose.yaml": BASE.format(shm=base_shm), "compose.override.yaml": OVERRIDE.format(shm=override_shm)}
    for name, text in files.items():
        (folder / name).write_text(text)
    return files


def test_a_too_small_override_is_fixed_in_the_override(tmp_path: Path) -> None:
    """The red team's input: the finding is in compose.override.yaml, whose shm_size wins over compose.yaml's; the
    fix used to rewrite compose.yaml's (no change to what runs) and say "Fixed 1"."""
    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: 64m\n")
    fixed = shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 0 and "compose.override.yaml: fixed 1 finding(s)" in fixed.stdout, fixed.stderr
    assert (tmp_path / "compose.yaml").read_text() == files["compose.yaml"]
    assert 'shm_size: "8gb"' in (tmp_path / "compose.override.yaml").read_text()
    assert shmlint("check", ".", cwd=tmp_path).returncode == 0  # the finding is gone: the fix held


def test_a_fix_a_reset_would_undo_is_not_offered_written_nor_counted(tmp_path: Path) -> None:
    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: !reset null\n")
    checked = shmlint("check", ".", cwd=tmp_path)
    assert checked.returncode == 1 and "SHM001" in checked.stdout
    assert "fixable" not in checked.stdout  # not offered: an edit of either file would not be what runs
    fixed = shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr  # the finding stays, at fail-on: the run fails and says so
    assert "(0 fixed in 0 file(s), 1 remaining)" in fixed.stdout + fixed.stderr
    assert {name: (tmp_path / name).read_text() for name in files} == files  # nothing rewritten


def test_a_fix_the_override_does_not_undo_is_written_where_it_holds(tmp_path: Path) -> None:
    _compose_pair(tmp_path, "", "")  # the override defines the service, but no shm_size: the base's wins
    fixed = shmlint("fix", "--write", ".", cwd=tmp_path)
    assert fixed.returncode == 0 and "(1 fixed in 1 file(s), 0 remaining)" in fixed.stdout, fixed.stderr
    assert "shm_size" in (tmp_path / "compose.yaml").read_text()
    assert shmlint("check", ".", cwd=tmp_path).returncode == 0  # and it holds


def test_the_editor_quick_fix_edits_the_override_where_the_value_wins(tmp_path: Path) -> None:
    from shmlint.fix.apply import splice
    from shmlint.server.analysis import Analyzer

    files = _compose_pair(tmp_path, "    shm_size: 8g\n", "    shm_size: 64m\n")
    analyzer = Analyzer()
    base = analyzer.check(tmp_path / "compose.yaml", files["compose.yaml"], "dockercompose")
    assert base.result.findings == () and analyzer.fix_all(base) is None  # nothing to do in compose.yaml
    path = tmp_path / "compose.override.yaml"
    override = analyzer.check(path, files["compose.override.yaml"], "dockercompose")
    [finding] = override.result.findings
    assert finding.code == "SHM005"
    fixed = splice(files["compose.override.yaml"], analyzer.quick_fix(override, finding))
    assert fixed == files["compose.override.yaml"].replace("64m", '"8gb"')


def test_an_edit_that_fixes_nothing_is_neither_kept_nor_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from shmlint.discover import FileKind
    from shmlint.engine import Engine
    from shmlint.fix import apply
    from shmlint.model import Edit
    from shmlint.settings import Settings
    from shmlint.source import SourceText

    text = SCRIPT
    monkeypatch.setattr(apply, "edits_for", lambda finding, source: [Edit(0, 0, "# touched\n")])
    result = apply.fix_source(Engine(Settings()), SourceText("train.sh", text), FileKind.SHELL, "train.sh")
    assert result.applied == () and not result.changed
    assert any("did not hold" in problem for problem in result.problems)
