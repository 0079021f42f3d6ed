"""``shmlint server`` driven end to end by a real LSP client (pytest-lsp) over stdio: diagnostics with the right
ranges, quick fixes and fix-all applied as the editor would apply them, hover, and survival of hostile buffers."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from tests.support import ROOT


class Client(LanguageClient):
    """pytest-lsp's client that also remembers which version each document's diagnostics were published for, and
    every publication (to count checks)."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.versions: dict[str, int | None] = {}
        self.published: list[types.PublishDiagnosticsParams] = []
        self.encoding = "utf-16"  # the position encoding the session agreed on


def _record(client: Client, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.versions[params.uri] = params.version
    client.published.append(params)


def make_client() -> Client:
    client = Client()
    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: _record})
    return client


SERVER = ClientServerConfig(
    server_command=[sys.executable, "-m", "shmlint", "server", "--debounce", "50"],
    server_env={**os.environ, "PYTHONPATH": str(ROOT)},
    client_factory=make_client,
)
#: an astral character (two UTF-16 units) and an accented one before the span on its line
SCRIPT = '#!/bin/sh\necho "🚀 café" && docker run --gpus all pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime torchrun --nproc_per_node=2 train.py\n'
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: trainer
spec:
  containers:
    - name: main
      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
      command: ["torchrun", "--nproc_per_node=2", "train.py"]
      resources:
        limits:
          nvidia.com/gpu: 1
    - name: second
      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
      command: ["torchrun", "eval.py"]
      resources:
        limits:
          nvidia.com/gpu: 1
"""


async def initialize(lsp_client: Client, root: Path, editor: str = "visual-studio-code") -> types.InitializeResult:
    """The session as ``editor`` opens it with ``root`` as its workspace."""
    return await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities(editor), root_uri=root.as_uri())
    )


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: Client):
    await initialize(lsp_client, ROOT)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def client_in_tmp(lsp_client: Client, tmp_path: Path):
    """A session whose workspace is the test's own folder (configuration files are looked up below it)."""
    await initialize(lsp_client, tmp_path)
    yield
    await lsp_client.shutdown_session()


#: LSP position encodings and the codec and code unit size that count them
CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}


def text_offset(text: str, position: types.Position, encoding: str = "utf-16") -> int:
    """An independent reading of an LSP position: split lines, count code units by encoding the line."""
    codec, size = CODECS[encoding]
    lines = text.splitlines(keepends=True)
    before = "".join(lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    return len(before) + len(line.encode(codec)[: size * position.character].decode(codec))


def apply(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    spans = [
        (text_offset(text, e.range.start, encoding), text_offset(text, e.range.end, encoding), e.new_text)
        for e in edits
    ]
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest_lsp.fixture(config=SERVER, params=["neovim", "emacs", "visual-studio-code"])
async def any_client(lsp_client: Client, request: pytest.FixtureRequest):
    """Clients that offer UTF-8 first (Neovim), UTF-32 first (Emacs), nothing (VS Code: UTF-16)."""
    result = await initialize(lsp_client, ROOT, request.param)
    lsp_client.encoding = str(result.capabilities.position_encoding or "utf-16")
    yield
    await lsp_client.shutdown_session()


def edits_of(action: types.CodeAction, uri: str) -> list[types.TextEdit]:
    assert action.edit is not None
    changes = action.edit.document_changes or []
    edits = [e for change in changes if change.text_document.uri == uri for e in change.edits]
    return edits + list((action.edit.changes or {}).get(uri, []))


async def diagnostics(client: Client, uri: str, version: int) -> list[types.Diagnostic]:
    """The diagnostics published for this version of the document (waits for them)."""

    async def published() -> list[types.Diagnostic]:
        while True:
            if uri in client.diagnostics and client.versions.get(uri) == version:
                return list(client.diagnostics[uri])
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    return await asyncio.wait_for(published(), timeout=30)


def open_uri(client: Client, uri: str, text: str, language: str = "shellscript") -> None:
    item = types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))


def open_document(client: Client, path: Path, text: str, language: str) -> str:
    open_uri(client, path.as_uri(), text, language)
    return path.as_uri()


async def code_actions(
    client: Client,
    uri: str,
    at: types.Range,
    diagnostics: list[types.Diagnostic],
    only: list[types.CodeActionKind | str] | None = None,
) -> list[types.CodeAction]:
    """The code actions the server offers for ``diagnostics`` at ``at`` (all commands are code actions here)."""
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=at,
            context=types.CodeActionContext(diagnostics=diagnostics, only=only),
        )
    )
    assert actions is not None
    assert all(isinstance(action, types.CodeAction) for action in actions)
    return [action for action in actions if isinstance(action, types.CodeAction)]


def replace_text(client: Client, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


@pytest.mark.asyncio
async def test_a_diagnostic_its_quick_fix_and_then_none(client: Client, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "train.sh", SCRIPT, "shellscript")
    [diagnostic] = await diagnostics(client, uri, 1)
    assert (diagnostic.code, diagnostic.source) == ("SHM001", "shmlint")
    assert diagnostic.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)
    # `docker` starts at character 17 of line 1, i.e. UTF-16 unit 18: 🚀 is two units, é one
    assert diagnostic.range == types.Range(types.Position(1, 18), types.Position(1, 24))
    assert SCRIPT.splitlines()[1][17:23] == "docker"

    [action] = await code_actions(client, uri, diagnostic.range, [diagnostic], [types.CodeActionKind.QuickFix])
    assert action.kind == types.CodeActionKind.QuickFix
    assert list(action.diagnostics or ()) == [diagnostic]  # bound to the diagnostic it fixes
    assert action.is_preferred
    fixed = apply(SCRIPT, edits_of(action, uri))
    assert "docker run --shm-size=8g --gpus all" in fixed
    assert fixed.replace(" --shm-size=8g", "") == SCRIPT  # nothing else changed

    replace_text(client, uri, 2, fixed)
    assert await diagnostics(client, uri, 2) == []


@pytest.mark.asyncio
async def test_fix_all_in_file_is_a_source_action(client: Client, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "pod.yaml", POD, "yaml")
    found = await diagnostics(client, uri, 1)
    assert [d.code for d in found] == ["SHM001", "SHM001"]
    assert [d.range.start.line for d in found] == [6, 12]  # each container's own mapping
    start = types.Range(types.Position(0, 0), types.Position(0, 0))
    [action] = await code_actions(client, uri, start, [], [types.CodeActionKind.SourceFixAll])
    assert action.kind == "source.fixAll.shmlint"
    fixed = apply(POD, edits_of(action, uri))
    assert fixed.count("mountPath: /dev/shm") == 2
    assert fixed.count("medium: Memory") == 1  # one volume for the pod, mounted by both
    replace_text(client, uri, 2, fixed)
    assert await diagnostics(client, uri, 2) == []


@pytest.mark.asyncio
async def test_hover_explains_the_rule(client: Client, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "train.sh", SCRIPT, "shellscript")
    [diagnostic] = await diagnostics(client, uri, 1)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(1, 20))
    )
    assert hover is not None
    assert isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**SHM001 missing-shm**")
    assert "How to fix:" in hover.contents.value
    assert hover.range == diagnostic.range
    nothing = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(0, 0))
    )
    assert nothing is None


@pytest.mark.asyncio
async def test_hostile_buffers_get_a_diagnostic_and_the_session_lives_on(client: Client, tmp_path: Path) -> None:
    binary = open_document(client, tmp_path / "blob.yaml", "kind: Pod\n\0\x01\x02", "yaml")
    [problem] = await diagnostics(client, binary, 1)
    assert problem.code == "SHM000"
    assert "binary" in problem.message
    broken = open_document(client, tmp_path / "broken.yaml", "kind: Pod\nspec: [unclosed\n  - {: :\n", "yaml")
    [problem] = await diagnostics(client, broken, 1)
    assert problem.code == "SHM000"
    assert problem.range.start.line >= 1  # where the YAML breaks, not the top of the file
    # the same session still checks a good buffer
    good = open_document(client, tmp_path / "train.sh", SCRIPT, "shellscript")
    assert [d.code for d in await diagnostics(client, good, 1)] == ["SHM001"]


@pytest.mark.asyncio
async def test_quick_typing_is_checked_once_for_its_last_version(client: Client, tmp_path: Path) -> None:
    uri = open_document(client, tmp_path / "train.sh", "#!/bin/sh\n", "shellscript")
    assert await diagnostics(client, uri, 1) == []
    typed = ""
    for version, character in enumerate(SCRIPT.splitlines(keepends=True)[1], start=2):  # one change per keystroke
        typed += character
        replace_text(client, uri, version, "#!/bin/sh\n" + typed)
    last = 1 + len(SCRIPT.splitlines(keepends=True)[1])
    assert [d.code for d in await diagnostics(client, uri, last)] == ["SHM001"]
    checks = [p for p in client.published if p.uri == uri]
    assert len(checks) < last / 4, [p.version for p in checks]  # debounced: far fewer checks than keystrokes


@pytest.mark.asyncio
async def test_ranges_and_edits_follow_the_negotiated_position_encoding(any_client: Client, tmp_path: Path) -> None:
    client = any_client
    uri = open_document(client, tmp_path / "train.sh", SCRIPT, "shellscript")
    [diagnostic] = await diagnostics(client, uri, 1)
    start = text_offset(SCRIPT, diagnostic.range.start, client.encoding)
    end = text_offset(SCRIPT, diagnostic.range.end, client.encoding)
    assert SCRIPT[start:end] == "docker"
    before = {"utf-8": 21, "utf-16": 18, "utf-32": 17}[client.encoding]  # units before `docker` on its line
    assert diagnostic.range.start == types.Position(1, before)
    actions = await code_actions(client, uri, diagnostic.range, [diagnostic])
    [quick] = [a for a in actions if a.kind == types.CodeActionKind.QuickFix]
    fixed = apply(SCRIPT, edits_of(quick, uri), client.encoding)
    assert fixed == SCRIPT.replace("docker run ", "docker run --shm-size=8g ")
    replace_text(client, uri, 2, fixed)
    assert await diagnostics(client, uri, 2) == []


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
    client_in_tmp: Client, tmp_path: Path, where: str
) -> None:
    client = client_in_tmp
    if where == "windows":
        uri = "file:///c%3A/Users/me/My%20Project/train.sh"  # as VS Code sends a Windows path
    else:
        (tmp_path / where).parent.mkdir()
        uri = (tmp_path / where).as_uri()
    assert "%" in uri
    open_uri(client, uri, SCRIPT)
    [diagnostic] = await diagnostics(client, uri, 1)  # published under the URI the client sent
    assert diagnostic.code == "SHM001"
    [action] = await code_actions(client, uri, diagnostic.range, [diagnostic], [types.CodeActionKind.QuickFix])
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
    client_in_tmp: Client, tmp_path: Path, name: str
) -> None:
    client = client_in_tmp
    folder = tmp_path / name
    folder.mkdir()
    uri = (folder / "train.sh").as_uri()
    open_uri(client, uri, SCRIPT)
    assert [d.code for d in await diagnostics(client, uri, 1)] == ["SHM001"]
    (folder / ".shmlint.yaml").write_text("ignore: [SHM001]\n")
    seen = len(client.published)
    saved = types.TextDocumentIdentifier(uri=(folder / ".shmlint.yaml").as_uri())
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=saved))
    assert await _published(client, uri, seen) == []
