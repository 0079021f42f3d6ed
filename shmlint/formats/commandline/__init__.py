"""``docker``/``podman`` run lines in shell scripts, Makefile recipes and Markdown/reStructuredText code blocks
(whose YAML blocks are read as the YAML formats' own files); also the judge of docker options that other formats
hold in their own syntax (``extract.command_workload``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from shmlint.format_descriptor import FileKind, FileNames, Format, Sniff
from shmlint.lazy_regex import LazyRegex
from shmlint.model import WorkloadFormat

if TYPE_CHECKING:
    from shmlint.extract.dispatch import Extraction
    from shmlint.format_descriptor import Found, Path
    from shmlint.source import SourceText

_SHEBANG = LazyRegex(r"\A#!\s*(/usr/bin/env\s+(-S\s+)?)?(\S*/)?(ba|z|k|da)?sh\b", re.ASCII)


def _read(source: SourceText, kind: FileKind, path: Path, run: Extraction) -> Found:
    """The file's code read as shell with every other character masked, so offsets are the file's own."""
    if not run.prefilter.passes(source.text):
        return [], []
    from shmlint.extract.dispatch import HERE_DOCUMENT, commands, yaml_blocks
    from shmlint.parsers.embedded.makefile import mask_makefile
    from shmlint.parsers.embedded.markdown import markdown_shell_blocks, markdown_yaml_blocks
    from shmlint.parsers.embedded.rst import rst_shell_blocks, rst_yaml_blocks

    if kind is FileKind.SHELL:
        documents, notices = yaml_blocks(source, here_document_manifests(source.text), path, run, HERE_DOCUMENT)
        return commands(source, source.text, run.signals) + documents, notices
    if kind is FileKind.MAKEFILE:
        return commands(source, mask_makefile(source.text), run.signals), []
    markdown = kind is FileKind.MARKDOWN
    masked, shell_blocks = (markdown_shell_blocks if markdown else rst_shell_blocks)(source.text)
    workloads = commands(source, masked, run.signals, shell_blocks)
    blocks = (markdown_yaml_blocks if markdown else rst_yaml_blocks)(source.text)
    more, notices = yaml_blocks(source, blocks, path, run)
    documents, document_notices = yaml_blocks(source, here_document_manifests(masked), path, run, HERE_DOCUMENT)
    return workloads + more + documents, notices + document_notices


def here_document_manifests(shell: str) -> list[tuple[int, int]]:
    """The here-documents of shell code that hold a manifest (``kubectl apply -f - <<EOF``, ``cat > job.yaml
    <<EOF``): read as YAML where they are. One whose lines lose their leading tabs (``<<-``) and has any is not
    what the file shows, so it is left alone."""
    if "<<" not in shell:
        return []
    from shmlint.extract.dispatch import looks_like_manifest
    from shmlint.parsers.shell import here_documents

    return [
        (body.start, body.end)
        for body in here_documents(shell)
        if looks_like_manifest(text := shell[body.start : body.end])
        and not (body.strips_tabs and "\n\t" in "\n" + text)
    ]


FORMAT = Format(
    name="commandline",
    label="command line",
    workload_format=WorkloadFormat.COMMAND,
    remedy="add --shm-size (e.g. --shm-size=8g)",
    fix_in_short="add --shm-size",
    writer="shmlint.formats.commandline.edit",
    fixtures=("shell", "markdown", "make", "docs/commands", "units/systemd"),
    files=(
        FileNames(FileKind.SHELL, rank=40, endings=(".sh", ".bash", ".zsh")),
        FileNames(FileKind.MAKEFILE, rank=50, names=("Makefile", "makefile", "GNUmakefile"), endings=(".mk",)),
        FileNames(FileKind.MARKDOWN, rank=60, endings=(".md", ".markdown", ".mdx", ".qmd")),
        FileNames(FileKind.RST, rank=70, endings=(".rst",)),
    ),
    sniffs=(Sniff(FileKind.SHELL, rank=10, pattern=_SHEBANG),),
    read=_read,
)
