"""``docker``/``podman`` run lines in shell scripts (PowerShell and cmd scripts too), Makefile and justfile recipes,
Markdown/reStructuredText code blocks (whose YAML blocks are read as the YAML formats' own files) and Jupyter
notebooks' shell; also the judge of docker options that other formats hold in their own syntax
(``extract.command_workload``)."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, Sniff
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.model import Workload
    from shmlint.source import SourceText

#: a container engine's name (as the command reader knows them): a notebook without one holds no container command
_ENGINE = LazyRegex(r"docker|podman", re.IGNORECASE)
_SHEBANG = LazyRegex(r"\A#!\s*(/usr/bin/env\s+(-S\s+)?)?(\S*/)?(ba|z|k|da)?sh\b", re.ASCII)
#: a file whose first command opens a here-document (``cat <<'EOF' | kubectl apply -f -``): a shell snippet that
#: holds a manifest, not YAML, whatever its name lacks (audit72c: SHM000 on an extension-less one); past comments,
#: not a shebang (another interpreter's here-document: Perl's ``print <<EOF;``)
_HERE_DOCUMENT_FIRST = LazyRegex(
    r"\A(?:[ \t]*(?:#(?!!)[^\n]{0,200})?\r?\n){0,20}[^\n#:]{0,200}<<-?[ \t]*(['\"]?)[A-Za-z_]\w{0,40}\1[ \t]*(?:[|>;&][^\n]{0,200})?\r?$",
    re.ASCII | re.MULTILINE,
)


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """The file's code read as shell with every other character masked, so offsets are the file's own; the
    manifests its here-documents hold (``shmlint.parsers.embedded.here_documents``) as YAML where they are."""
    if not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.commandline import ShellText
    from shmlint.extract.dispatch import commands, yaml_blocks
    from shmlint.parsers.embedded.makefile import braced_references, make_assignments, mask_makefile
    from shmlint.parsers.embedded.markdown import markdown_shell_blocks, markdown_yaml_blocks
    from shmlint.parsers.embedded.rst import rst_shell_blocks, rst_yaml_blocks

    if kind is FileKind.SHELL:
        from shmlint.formats.commandline.arguments import with_forwarded

        workloads = commands(source, ShellText(source.text), run.signals)  # first: it bounds the work on the shell
        workloads = with_forwarded(workloads, source.text)
        documents, notices = _here_documents(source, None, path, run)
        return workloads + documents, notices
    if kind is FileKind.MAKEFILE:  # ``$(OPTS)`` is make's variable, read as the shell's ``${OPTS}``
        recipes = braced_references(mask_makefile(source.text))
        return commands(source, ShellText(recipes, variables=make_assignments(source.text)), run.signals), []
    if kind is FileKind.JUSTFILE:  # ``{{ OPTS }}`` is just's variable, read as the shell's ``${OPTS}``
        from shmlint.parsers.embedded.justfile import just_assignments, mask_justfile

        shell = ShellText(mask_justfile(source.text), variables=just_assignments(source.text))
        return commands(source, shell, run.signals), []
    if kind in (FileKind.POWERSHELL, FileKind.BATCH):
        return _windows_script(source, kind, run)
    if kind is FileKind.NOTEBOOK:
        return _notebook(source, run), []
    markdown = kind is FileKind.MARKDOWN
    masked, shell_blocks = (markdown_shell_blocks if markdown else rst_shell_blocks)(source.text)
    workloads = commands(source, ShellText(masked, shell_blocks), run.signals)
    blocks = (markdown_yaml_blocks if markdown else rst_yaml_blocks)(source.text)
    more, notices = yaml_blocks(source, blocks, path, run)
    documents, document_notices = _here_documents(source, masked, path, run)
    return workloads + more + documents, notices + document_notices


def _windows_script(source: SourceText, kind: FileKind, run: Extraction) -> Found:
    """A PowerShell or cmd script read as the POSIX shell it maps to; a block comment or here-string never closed
    is said (the rest of the file is not read, as PowerShell reads none of it as commands)."""
    from shmlint.extract.commandline import ShellText
    from shmlint.extract.dispatch import commands
    from shmlint.model import Notice
    from shmlint.parsers.embedded.windows_scripts import script_as_shell

    mapped = script_as_shell(kind, source.text)
    notices = [
        Notice(source.path, f"line {source.position(at)[0]}: {what} is never closed: the rest of the file is not read")
        for at, what in mapped.unclosed
    ]
    return commands(source, ShellText(mapped.text), run.signals), notices


def _notebook(source: SourceText, run: Extraction) -> list[Workload]:
    """A notebook's shell (``shmlint.parsers.embedded.notebook``); one that names no container engine is not
    parsed at all (a notebook is mostly Python and outputs, often megabytes of them)."""
    from shmlint.extract.commandline import ShellText
    from shmlint.extract.dispatch import UnparsableInput, commands
    from shmlint.parsers.embedded.notebook import notebook_shell
    from shmlint.parsers.jsonc import JsoncError

    if _ENGINE.search(source.text) is None:
        return []
    try:
        shell = notebook_shell(source.text)
    except JsoncError as exc:
        line, column = source.position(exc.offset)
        raise UnparsableInput(f"invalid notebook JSON: {exc.message}", line, column, exc.offset) from None
    workloads = commands(source, ShellText(shell.text, shell.blocks), run.signals)
    return [_unfixed_where_shifted(workload, shell.shifted) for workload in workloads]


def _unfixed_where_shifted(workload: Workload, shifted: tuple[tuple[int, int], ...]) -> Workload:
    """No fix is written where the notebook spells a word with JSON escapes (``--ipc=\\u0068ost``): read decoded,
    its characters are not where the file has them, and an edit there would land beside them. What an edit
    touches: a size, a slot or the insertion point, and the whole option only where ``--ipc=none`` is rewritten."""
    from shmlint.extract.commandline import CommandTarget
    from shmlint.model import ShmKind

    target = workload.target
    if not shifted or not isinstance(target, CommandTarget):
        return workload
    spans = [(declared.size.span.start, declared.size.span.end) for declared in workload.shm if declared.size]
    spans += [(declared.span.start, declared.span.end) for declared in workload.shm if declared.kind is ShmKind.NONE]
    spans += [(at, at + 1) for at in (target.insert_at, *(slot.offset for slot in target.size_slots))]
    ordered = sorted(shifted)
    ends = [end for _, end in ordered]
    for start, end in spans:  # the ranges do not overlap: the first that ends after ``start`` is the only candidate
        index = bisect.bisect_right(ends, start)
        if index < len(ordered) and ordered[index][0] < end:
            return workload._replace(target=None)
    return workload


def _notebook_syntax(source: SourceText, strict: bool) -> str | None:
    """Why a notebook is not JSON (the fixer's guard: an edit inside a string must leave it JSON), as the reader
    finds it: its walk of the cells is all that can refuse a file."""
    from shmlint.parsers.embedded.notebook_cells import read_cells
    from shmlint.parsers.jsonc import syntax_error

    return syntax_error(source, read_cells)


def _here_documents(source: SourceText, blocks: str | None, path: Path, run: Extraction) -> Found:
    """The manifests of the file's here-documents (``blocks``: a document's shell blocks, masked with its offsets),
    each judged as its own file would be; one the shell expands as a template whose ``${VAR}`` are values to come."""
    from shmlint.extract.dispatch import HERE_DOCUMENT, yaml_blocks
    from shmlint.model import Notice
    from shmlint.parsers.embedded.here_documents import manifests

    here = manifests(source.text, blocks)
    templates = frozenset(start for start, _, expands in here.blocks if expands)
    workloads, notices = yaml_blocks(
        source.with_text(here.text),
        [(start, end) for start, end, _ in here.blocks],
        path,
        run,
        HERE_DOCUMENT,
        here.escapes,
        templates,
    )
    notices += [
        Notice(
            source.path,
            f"line {source.position(offset)[0]}: {HERE_DOCUMENT} not checked: its lines lose "
            "their leading tabs (<<-), so the manifest is not what the file shows",
        )
        for offset in here.skipped
    ]
    return workloads, notices


FORMAT = Format(
    name="commandline",
    label="command line",
    workload_format=WorkloadFormat.COMMAND,
    remedy="add --shm-size (e.g. --shm-size=8g)",
    fix_in_short="add --shm-size",
    writer="shmlint.formats.commandline.edit",
    fixtures=("shell", "windows", "markdown", "make", "just", "docs/commands", "units/systemd", "notebook"),
    files=(
        # Slurm batch scripts are shell scripts named for the scheduler (audit82a: a ``.slurm`` launcher not read)
        FileNames(FileKind.SHELL, rank=40, endings=(".sh", ".bash", ".zsh", ".slurm", ".sbatch")),
        FileNames(FileKind.POWERSHELL, rank=42, endings=(".ps1", ".psm1", ".psd1")),
        FileNames(FileKind.BATCH, rank=44, endings=(".bat", ".cmd")),
        FileNames(FileKind.MAKEFILE, rank=50, names=("Makefile", "makefile", "GNUmakefile"), endings=(".mk",)),
        FileNames(
            FileKind.JUSTFILE, rank=52, names=("justfile", "Justfile", "JUSTFILE", ".justfile"), endings=(".just",)
        ),
        FileNames(FileKind.MARKDOWN, rank=60, endings=(".md", ".markdown", ".mdx", ".qmd")),
        FileNames(FileKind.RST, rank=70, endings=(".rst",)),
        FileNames(FileKind.NOTEBOOK, rank=75, endings=(".ipynb",), syntax_error=_notebook_syntax),
    ),
    sniffs=(
        Sniff(FileKind.SHELL, rank=10, pattern=_SHEBANG),
        Sniff(FileKind.SHELL, rank=15, pattern=_HERE_DOCUMENT_FIRST),
    ),
    read=_read,
)
