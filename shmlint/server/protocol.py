"""The Language Server: LSP messages in, shmlint's analysis (``shmlint.server.analysis``) out, through pygls.

Checks run in one worker thread so the event loop keeps answering while a large file is checked, and one at a
time (the engine's caches are not shared between threads). Edits are debounced: a check starts when the buffer
has been still for ``debounce`` seconds, and a result is published only for the version it was computed from. No
exception ends the session: it is logged to the editor and the document gets an SHM000 diagnostic saying so.
"""

from __future__ import annotations

import asyncio
import os
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from shmlint import __version__
from shmlint.config import YAML_NAMES
from shmlint.model import Edit, Finding
from shmlint.results import FileResult
from shmlint.server.analysis import Analyzer, Checked, explain
from shmlint.server.positions import LineIndex
from shmlint.settings import INPUT_ERROR
from shmlint.severity import Severity
from shmlint.source import SourceText

SOURCE = "shmlint"
FIX_ALL = types.CodeActionKind.SourceFixAll + ".shmlint"
CONFIG_NAMES = (*YAML_NAMES, "pyproject.toml")
_SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}
T = TypeVar("T")


class View:
    """A checked buffer with the positions of its version, kept until the next check of the same document."""

    def __init__(self, uri: str, version: int | None, checked: Checked, encoding: str) -> None:
        self.uri = uri
        self.version = version
        self.checked = checked
        self.lines = LineIndex(checked.source.text, encoding)

    def range(self, start: int, end: int) -> types.Range:
        text = self.lines.text
        end = min(max(end, start), len(text))
        while end > start and text[end - 1] in "\r\n":  # a whole mapping ends at the next line: stop at its own
            end -= 1
        return types.Range(self._position(start), self._position(end))

    def _position(self, offset: int) -> types.Position:
        line, character = self.lines.position(offset)
        return types.Position(line=line, character=character)

    def finding_range(self, finding: Finding) -> types.Range:
        if finding.span.path != self.checked.source.path:  # found in another file (a compose file it extends)
            return self.range(0, 0)
        return self.range(finding.span.start, finding.span.end)

    def diagnostic(self, finding: Finding) -> types.Diagnostic:
        from shmlint.report.common import rule_url
        from shmlint.visible import visible

        url = rule_url(finding.code)
        elsewhere = finding.span.path != self.checked.source.path
        prefix = f"{finding.span.path}:{finding.span.line}: " if elsewhere else ""
        return types.Diagnostic(
            range=self.finding_range(finding),
            message=visible(prefix + finding.message),
            severity=types.DiagnosticSeverity.Hint if finding.undecided else _SEVERITIES[finding.severity],
            code=finding.code,
            code_description=types.CodeDescription(href=url) if url else None,
            source=SOURCE,
        )

    def diagnostics(self) -> list[types.Diagnostic]:
        if self.checked.problem is not None:  # a broken configuration: nothing was checked
            return [problem_diagnostic(self.checked.problem)]
        return [self.diagnostic(finding) for finding in self.checked.result.findings]

    def text_edits(self, edits: list[Edit]) -> list[types.TextEdit]:
        return [
            types.TextEdit(range=types.Range(self._position(e.start), self._position(e.end)), new_text=e.new_text)
            for e in edits
        ]


def problem_diagnostic(message: str) -> types.Diagnostic:
    """What the editor shows when a document could not be checked: at its first character, an error."""
    start = types.Position(line=0, character=0)
    return types.Diagnostic(
        range=types.Range(start, start),
        message=message,
        severity=types.DiagnosticSeverity.Error,
        code=INPUT_ERROR,
        source=SOURCE,
    )


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    """Whether a code action kind was asked for (``source`` asks for ``source.fixAll.shmlint`` too)."""
    return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)


def document_path(uri: str) -> Path:
    """The file a document is, for the configuration lookup and the format; an unsaved buffer is named as if in
    the current folder."""
    path = to_fs_path(uri)
    return Path(path) if path else Path(os.getcwd()) / uri.rsplit("/", 1)[-1].rsplit(":", 1)[-1]


class ShmlintServer(LanguageServer):
    """pygls's server with shmlint's state: the analyzer, the worker thread, pending checks and the last view of
    each open document (no global server object: ``build_server`` makes one)."""

    def __init__(self, analyzer: Analyzer, debounce: float) -> None:
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.analyzer = analyzer
        self.debounce = debounce
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="shmlint-check")
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.views: dict[str, View] = {}

    @property
    def encoding(self) -> str:
        """The position encoding agreed with the client (``utf-16`` unless it offered another that pygls chose)."""
        chosen = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return str(getattr(chosen, "value", chosen))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    async def in_worker(self, what: str, function: Callable[..., T], *args: Any) -> T | None:
        """``function(*args)`` in the worker thread; an exception is logged with its traceback and gives None."""
        try:
            return await asyncio.get_running_loop().run_in_executor(self.worker, function, *args)
        except Exception as exc:  # noqa: BLE001 - a bug or a hostile buffer must not end the editor's session
            self.log(
                f"shmlint: {what} failed: {type(exc).__name__}: {exc}\n{traceback.format_exc()}",
                types.MessageType.Error,
            )
            return None

    def schedule(self, uri: str, delay: float) -> None:
        """Check the document after ``delay`` seconds of quiet; an earlier wait for it is cancelled."""
        if (task := self.pending.pop(uri, None)) is not None:
            task.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._refresh(uri, delay))

    async def _refresh(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        view = await self.view(uri)
        if view is None or (document := self.document(uri)) is None or document.version != view.version:
            return  # closed, or changed meanwhile: its own check will publish
        try:
            found = view.diagnostics()
        except Exception as exc:  # noqa: BLE001 - a finding the editor cannot be shown must not end the session
            self.log(f"shmlint: {type(exc).__name__}: {exc}\n{traceback.format_exc()}", types.MessageType.Error)
            found = [problem_diagnostic(f"shmlint could not show its findings (an internal error: {exc})")]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=view.version, diagnostics=found)
        )

    def document(self, uri: str) -> TextDocument | None:
        """The open document the client calls ``uri``; None when it is not open. Found only through pygls's own
        lookup: pygls files documents under the unescaped URI, so the raw one (``%20`` for a space, a non-ASCII
        name, a Windows drive's ``c%3A``) is never a key of ``text_documents``."""
        document = self.workspace.get_text_document(uri)  # not open: a new, unstored one (nothing read)
        return document if any(document is known for known in self.workspace.text_documents.values()) else None

    def recheck_all(self) -> None:
        """Check every open document again, under the URI the client opened it with (diagnostics are published
        under it), forgetting the checks made with the configuration that was saved since."""
        self.views.clear()
        for document in list(self.workspace.text_documents.values()):
            self.schedule(document.uri, 0)

    async def view(self, uri: str) -> View | None:
        """The document's current version checked (reused when already checked); None when it is not open."""
        if (document := self.document(uri)) is None:
            return None
        version, text = document.version, document.source
        view = self.views.get(uri)
        if view is not None and view.version == version and view.checked.source.text == text:
            return view
        path = document_path(uri)
        checked = await self.in_worker(f"checking {path}", self.analyzer.check, path, text, document.language_id)
        if checked is None:
            why = "shmlint could not check this file (an internal error: see the shmlint output for details)"
            checked = Checked(SourceText(str(path), text), path, None, FileResult(str(path)), problem=why)
        view = View(uri, version, checked, self.encoding)
        if self.document(uri) is not None:
            self.views[uri] = view
        return view

    def forget(self, uri: str) -> None:
        if (task := self.pending.pop(uri, None)) is not None:
            task.cancel()
        self.views.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def workspace_edit(self, view: View, edits: list[Edit]) -> types.WorkspaceEdit:
        text_edits: list[types.TextEdit] = view.text_edits(edits)
        capabilities = self.client_capabilities.workspace
        versioned = bool(capabilities and capabilities.workspace_edit and capabilities.workspace_edit.document_changes)
        if versioned:
            document = types.OptionalVersionedTextDocumentIdentifier(uri=view.uri, version=view.version)
            return types.WorkspaceEdit(
                document_changes=[types.TextDocumentEdit(text_document=document, edits=list(text_edits))]
            )
        return types.WorkspaceEdit(changes={view.uri: text_edits})

    def code_actions(self, view: View, params: types.CodeActionParams) -> list[types.CodeAction]:
        """Runs in the worker: a quick fix for each fixable finding in the range, and the file's fix-all."""
        only = params.context.only
        actions = []
        if _wanted(types.CodeActionKind.QuickFix, only):
            for finding in view.checked.result.findings:
                if finding.fix is None or not _overlaps(view.finding_range(finding), params.range):
                    continue
                edits = self.analyzer.quick_fix(view.checked, finding)
                if not edits:
                    continue
                safe = finding.fix.applicability.value == "safe"
                actions.append(
                    types.CodeAction(
                        title=f"{finding.fix.title} ({finding.code}{'' if safe else ', unsafe'})",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[view.diagnostic(finding)],
                        is_preferred=safe,
                        edit=self.workspace_edit(view, edits),
                    )
                )
        if _wanted(FIX_ALL, only) and (edit := self.analyzer.fix_all(view.checked)) is not None:
            actions.append(
                types.CodeAction(
                    title="shmlint: fix all safely fixable findings",
                    kind=FIX_ALL,
                    edit=self.workspace_edit(view, [edit]),
                )
            )
        return actions


def build_server(analyzer: Analyzer, debounce: float = 0.3) -> ShmlintServer:
    """The server with its features registered (a function, not import-time decorators: no global server)."""
    server = ShmlintServer(analyzer, debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ShmlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ShmlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ShmlintServer, params: types.DidSaveTextDocumentParams) -> None:
        if document_path(params.text_document.uri).name in CONFIG_NAMES:  # a configuration changed: all again
            ls.recheck_all()
        else:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ShmlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    async def code_action(ls: ShmlintServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        view = await ls.view(params.text_document.uri)
        if view is None:
            return None
        return await ls.in_worker("computing fixes", ls.code_actions, view, params)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: ShmlintServer, params: types.HoverParams) -> types.Hover | None:
        view = await ls.view(params.text_document.uri)
        if view is None:
            return None
        point = types.Range(params.position, params.position)
        for finding in view.checked.result.findings:
            where = view.finding_range(finding)
            if _overlaps(where, point):
                text = await ls.in_worker("explaining a rule", explain, finding)
                if text is not None:
                    return types.Hover(types.MarkupContent(kind=types.MarkupKind.Markdown, value=text), range=where)
        return None

    return server
