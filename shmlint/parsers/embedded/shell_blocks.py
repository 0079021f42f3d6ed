"""The shell code blocks of documentation (Markdown and reStructuredText alike), as a reader of the document sees
them: the languages read as shell, the prompts of a transcript (kept apart from its output), and the placeholders
a document writes for values and for more options."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.mask import Mask, indentation
from shmlint.parsers.shell import BLOCK_END, first_unclosed

#: code block languages read as shell ("": untagged); console blocks are transcripts, prompts before commands.
#: "docker": highlighters read it as a Dockerfile, yet READMEs fence their ``docker run`` commands with it; such a
#: block is read when its first line runs a container engine (``_starts_an_engine``), a Dockerfile's is not
SHELL_LANGUAGES = frozenset({"", "bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession", "docker"})
#: a container engine run as a line's command (after ``sudo``)
ENGINE = r"(?:sudo[ \t]+)?(?:docker|podman|nvidia-docker)(?:[ \t]|$)"
#: a ``docker`` fence's first line when it holds commands: an engine, after a prompt or ``sudo``
_ENGINE_FIRST = LazyRegex(rf"[ \t]*(?:[$>][ \t]+)?{ENGINE}")
_CONSOLE_LANGUAGES = frozenset({"console", "shell-session", "shellsession"})
#: a line that runs a container engine, written without a prompt
ENGINE_LINE = LazyRegex(rf"[ \t]*{ENGINE}")
#: code block languages read as a YAML file of their own
YAML_LANGUAGES = frozenset({"yaml", "yml"})
#: code block languages that may hold a Dockerfile ("": untagged; "docker": either commands or a Dockerfile)
_DOCKERFILE_LANGUAGES = frozenset({"dockerfile", "containerfile", "docker", ""})
#: a Dockerfile's first instruction (upper case: Python's ``from x import y`` is not one), and the ``ARG`` lines
#: a Dockerfile may write before it
_FROM_FIRST = LazyRegex(r"[ \t]*FROM[ \t]+\S")
_ARG_LINE = LazyRegex(r"[ \t]*ARG[ \t]+\S")
#: what a shell prompt may show before its ``$``/``#``: ``host1$``, ``user@box:~/src$``, ``root@c278c88dd552:/x#``,
#: and a host a guide elides (``root@[...]:/challenge#``, the PhysioNet Challenge's example README)
_PROMPT_HOST = r"(?:[\w.-]+(?:@(?:[\w.-]+|\[(?:\.\.\.|…)\]))?(?::[\w.~/-]*)?)?"
#: a user's ``$`` prompt may follow an active environment's name (``(main) $``, conda's and venv's), and ``$>`` is
#: a guide's spelling of it; root's ``#`` is not read after one (``(1) # a note`` is a transcript's output)
_DOLLAR = rf"(?:\([\w.-]{{1,64}}\)[ \t]?)?{_PROMPT_HOST}\$>?"
_DOLLAR_PROMPT = LazyRegex(rf"^[ \t]*{_DOLLAR}(?: |$)")
_ANY_PROMPT = LazyRegex(rf"^[ \t]*(?:{_DOLLAR}|{_PROMPT_HOST}#)(?: |$)")
_CONTINUED_PROMPT = LazyRegex(r"^[ \t]*>(?: |$)")
#: a ``name:`` prompt written against a container engine command (``compute-session:docker run ...``, a Slurm
#: guide's style): no program is named ``x:docker``, so read this way it cannot hide a real command
_NAMED_PROMPT = LazyRegex(
    r"^[ \t]*[\w.-]{1,64}(?:@[\w.-]{1,64})?:(?=(?:sudo[ \t]+)?(?:nvidia-docker|docker|podman)[ \t])"
)
_PLACEHOLDER = LazyRegex(r"(?<![<\w])<([\w{/.~…](?:[^<>\n'\"]*?[^<>\n'\"\s])?)>(?!>)")
#: ``[OPTIONS]``, ``[docker options]``, ``[...]`` as a word of their own (not ``[[``, ``${a[i]}`` or ``[ -f x ]``)
_BRACKETED = LazyRegex(r"(?<![\w\[\]$}])\[([\w.…][\w .…-]{0,80})\](?![\w\[\]])")
_ELLIPSIS = LazyRegex(r"(?<!\S)(?:\.{3}|…)(?!\S)")
#: a here-document a command opens (``cat <<'EOF' | kubectl apply -f -``), and its delimiter
_OPENS_DOCUMENT = LazyRegex(r"<<-?[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]{0,40})\1", 0, ("<<",))
#: a size option just before a placeholder: the placeholder is its value
_SIZED_BEFORE = LazyRegex(r"--(?:shm-size|memory|tmpfs)[= \t]$|(?<![\w-])-m[ \t]$")
#: a placeholder that stands for more options rather than for one value
_MORE_OPTIONS = LazyRegex(r"\.\.\.|…|\b(?:options?|flags?|args?|arguments?|params?|parameters?)\b", re.IGNORECASE)
_HUGO_SHORTCODE = LazyRegex(r"\{\{([<%])([^\n\"]*?)([>%])\}\}")


class CodeLine(NamedTuple):
    """One line of a documentation shell block as it is read: its shell text from ``start`` (after the prompt) to
    ``end``, and the prompt it was written with ("" for none): ``$``, ``host1$``, ``root@c278c88dd552:/x#``."""

    start: int
    end: int
    prompt: str


class ShellBlock(NamedTuple):
    """The lines read of one shell code block; the section it is in (the headings and content tabs' starts and
    ends before it, counted), whether its fence names a shell language (an untagged block may be a folder tree or a
    program's output), the headings alone before it, and the content tab it is in ("" for none: its marker as
    written, ``"Docker"`` or ``value="docker"``)."""

    lines: tuple[CodeLine, ...]
    section: int
    tagged: bool = False
    part: int = 0
    tab: str = ""


#: the shell code blocks of a document, in order
ShellBlocks = tuple[ShellBlock, ...]


def mask_shell_blocks(
    text: str,
    blocks: Iterable[tuple[list[tuple[int, str]], str]],
    heading: LazyRegex[str],
    tab: LazyRegex[str] | None = None,
) -> tuple[str, ShellBlocks]:
    """The text with everything but the shell code blocks blanked (console blocks lose their prompts), and the
    lines kept of each block, each with where it is (``ShellBlock``). ``tab``: where a content tab starts (groups
    ``indent`` and ``name`` or ``attributes``) or ends (``end``); an indented tab holds what is indented under it."""
    mask = Mask(text)
    kept: list[ShellBlock] = []
    section = part = after = 0  # marks and headings counted so far; where the text after the last block starts
    current, under = "", -1  # the content tab the text is in, and its marker's indent (-1: an MDX tab's end tag)
    for block, language in blocks:
        if not block:
            continue
        start, end = extent(block)
        for line in _CONTENT_LINE.finditer(text, after, start) if start > after else ():
            at = line.start()
            mark = tab.match(text, at) if tab is not None else None
            if heading.match(text, at):
                section, part, current, under = section + 1, part + 1, "", -1
            elif mark is not None:
                section += 1
                named = mark["name"] or mark["attributes"] or ""
                current = "" if mark["end"] else " ".join(named.split()) or "tab"
                under = len(mark["indent"].expandtabs(4)) if mark["name"] else -1
            elif current and under >= 0 and indentation(line.group()) <= under:
                current, under = "", -1  # text at the tab's own indent (an admonition after it): out of it
        after = max(after, end)
        if current and under >= 0 and indentation(block[0][1]) <= under:
            current, under = "", -1
        if language in SHELL_LANGUAGES and (language != "docker" or _starts_an_engine(block)):
            lines = _keep_block(mask, block, language in _CONSOLE_LANGUAGES)
            if lines:
                close_constructs(mask, lines[0].start, lines[-1].end)
                mark_end(mask, end)
                if end - 1 < len(text) and text[end - 1] != "\n":  # inline code: its command ends with the span
                    mask.put(end - 1, ";")
                kept.append(ShellBlock(lines, section, language != "", part, current))
    return mask.result(), tuple(kept)


#: a line with text, from its start
_CONTENT_LINE = LazyRegex(r"^[ \t]*\S", re.MULTILINE)
#: how many constructs a block may leave open before it is not read at all (each costs a read of the block)
_MAX_UNCLOSED = 4
#: the characters that open a construct which can stay open (quotes, ``$(``, ``${``, backticks, a here-document
#: whose line goes on past the block, a subshell or an array)
_OPENERS = frozenset("'\"`$<(")


def close_constructs(mask: Mask, start: int, end: int) -> None:
    """A block is read as its reader sees it: on its own. What it leaves open (a stray apostrophe in
    ``n_samples=50'000``, a ``$(`` never closed) would go on into the document's later blocks; each such opener
    is blanked instead, and a block that leaves more than ``_MAX_UNCLOSED`` open is blanked whole."""
    if _OPENERS.isdisjoint(mask.kept(start, end)):
        return
    for _ in range(_MAX_UNCLOSED + 1):
        unclosed = first_unclosed(mask.kept(start, end), in_blocks=True)
        if unclosed is None:
            return
        at, length = unclosed
        mask.put(start + at, " " * length)
    mask.put(start, "".join(c if c == "\n" else " " for c in mask.kept(start, end)))


def mark_end(mask: Mask, end: int) -> None:
    """Write ``BLOCK_END`` at the start of the first line after a block that has any text (a closing fence, the
    next paragraph), so a here-document the block leaves open ends there."""
    text = mask.text
    while end < len(text) and text[end] == "\n":
        end += 1
    if end < len(text):
        mask.put(end, BLOCK_END)


def _starts_an_engine(block: list[tuple[int, str]]) -> bool:
    """Whether a ``docker`` fence holds commands: its first line (comments aside) runs a container engine. A
    Dockerfile there is not shell: an apostrophe in its ``MAINTAINER Jane O'Neil`` would open a quote that ends in
    some later block."""
    first = next((text for _, text in block if text.strip() and not text.lstrip().startswith("#")), "")
    return _ENGINE_FIRST.match(first) is not None


def holds_dockerfile(block: list[tuple[int, str]], language: str) -> bool:
    """Whether a document's code block is a whole Dockerfile (a guide that writes the Dockerfile its ``docker
    build`` builds): tagged as one, untagged or ``docker``, its first instruction after comments and ``ARG`` lines
    is ``FROM``. A fragment the guide adds to one (``ENV PORT=8000``) is not a Dockerfile of its own."""
    if language not in _DOCKERFILE_LANGUAGES:
        return False
    for _, line in block:
        if not line.strip() or line.lstrip().startswith("#") or _ARG_LINE.match(line):
            continue
        return _FROM_FIRST.match(line) is not None
    return False


def extent(block: list[tuple[int, str]]) -> tuple[int, int]:
    """From the first line's start to the end of the last line, its line break included."""
    last_offset, last_line = block[-1]
    return block[0][0], last_offset + len(last_line) + 1


def _keep_block(mask: Mask, block: list[tuple[int, str]], console: bool) -> tuple[CodeLine, ...]:
    """Copy a code block into the mask; in transcripts only prompted commands (prompt blanked) and continuations.
    Returns the lines kept, each with its prompt."""
    if console and not any(_shows_prompt(line) for _, line in block):
        return _keep_engine_lines(mask, block)
    # a block not tagged as a transcript that shows a ``$`` prompt is one from its first prompt on (``$`` or a
    # host's ``#``): the lines before it are no command's output (audit69d: a guide's ``bash`` block of commands,
    # then ``$ ls /imn`` and what it prints)
    first = 0 if console else next((i for i, (_, line) in enumerate(block) if _shows_host_prompt(line)), 0)
    console = console or any(_DOLLAR_PROMPT.match(line) for _, line in block)
    prompt = _ANY_PROMPT if console else _DOLLAR_PROMPT
    continued = False
    document = ""  # the delimiter of a here-document a kept command opened: its lines are that command's input
    kept: list[CodeLine] = []
    for index, (offset, line) in enumerate(block):
        if document:  # ``$ cat <<EOF | kubectl apply -f -`` then the manifest (audit74c: read as output)
            _keep_line(mask, offset, offset + len(line))
            kept.append(CodeLine(offset, offset + len(line), ""))
            document = "" if line.strip() == document else document
            continue
        start = offset
        before = index < first  # read as a plain block's lines: a ``#`` there is a comment, not root's prompt
        marker = (_DOLLAR_PROMPT if before else prompt).match(line)
        marker = marker or (_CONTINUED_PROMPT.match(line) if continued else _NAMED_PROMPT.match(line))
        if marker:
            start = offset + marker.end()
        elif console and not continued and not before:
            continue  # output
        end = offset + len(line)
        _keep_line(mask, start, end)
        shown = "" if marker is None or continued else line[: marker.end()].strip()
        kept.append(CodeLine(start, end, shown))
        continued = continues(line[start - offset :])
        opened = _OPENS_DOCUMENT.search(line, start - offset) if console else None
        document = opened.group(2) if opened else ""
    return tuple(kept)


def _shows_host_prompt(line: str) -> bool:
    """Whether a line starts at a ``$`` prompt or a host's ``#`` one (``root@box:/x#``; a bare ``#`` is a comment)."""
    marker = _DOLLAR_PROMPT.match(line) or _ANY_PROMPT.match(line)
    return marker is not None and line[: marker.end()].strip() != "#"


def _shows_prompt(line: str) -> bool:
    """Whether a transcript's line shows a prompt: ``$``, ``host#`` or a ``name:`` one, or a bare ``#`` before a
    container engine (``# docker run ...``, a root prompt); a bare ``# start the worker`` is a comment."""
    marker = _ANY_PROMPT.match(line)
    if marker is not None:
        return line[: marker.end()].strip() != "#" or ENGINE_LINE.match(line, marker.end()) is not None
    return _NAMED_PROMPT.match(line) is not None


def _keep_engine_lines(mask: Mask, block: list[tuple[int, str]]) -> tuple[CodeLine, ...]:
    """A block tagged as a transcript that shows no prompt at all (Sphinx documents tag their commands ``console``
    for its highlighting): its container engine lines and their continuations are commands; every other line may
    be output (a ``Don't`` there would open a quote that runs on into the document's later blocks), and is not
    read."""
    continued = False
    kept: list[CodeLine] = []
    for offset, line in block:
        if not continued and ENGINE_LINE.match(line) is None:
            continue
        end = offset + len(line)
        _keep_line(mask, offset, end)
        kept.append(CodeLine(offset, end, ""))
        continued = continues(line)
    return tuple(kept)


def continues(line: str) -> bool:
    """Whether a shell line goes on on the next one: it ends with a backslash that is not itself escaped."""
    body = line.rstrip()
    return body.endswith("\\") and not body.endswith("\\\\")


def _keep_line(mask: Mask, start: int, end: int) -> None:
    """Copy a line of shell into the mask, its placeholders read as a reader reads them (``_unbracket``) and any
    vertical tab blanked: the only ``BLOCK_END`` in the mask are the marks after blocks."""
    mask.keep(start, end)
    at = mask.text.find(BLOCK_END, start, end)
    while at != -1:
        mask.put(at, " ")
        at = mask.text.find(BLOCK_END, at + 1, end)
    _unbracket(mask, start, end)


def _unbracket(mask: Mask, start: int, end: int) -> None:
    """Documentation placeholders never change how the flags around them are read: one that stands for a value
    becomes a quoted word (``<path to data>`` -> ``"path to data"``, not a redirection that swallows what
    follows); one that stands for more options (``...``, ``[OPTIONS]``, ``<other flags>``) is blanked, so it is
    not taken for the image, after which every flag would belong to the container's command."""
    line = mask.text[start:end]
    for match in _PLACEHOLDER.finditer(line):
        if _MORE_OPTIONS.search(match.group(1)):
            mask.put(start + match.start(), " " * len(match.group()))
            continue
        mask.put(start + match.start(), '"')
        mask.put(start + match.end() - 1, '"')
        if _SIZED_BEFORE.search(line, 0, match.start()):  # a size to come (``--shm-size <size>``), read as one the
            mask.put(start + match.start() + 1, "$")  # shell fills in: not a size docker refuses (audit74c)
    for match in itertools.chain(_BRACKETED.finditer(line), _ELLIPSIS.finditer(line)):
        if _MORE_OPTIONS.search(match.group()):
            mask.put(start + match.start(), " " * len(match.group()))
    for match in _HUGO_SHORTCODE.finditer(line):
        mask.put(start + match.start(1), '"')
        mask.put(start + match.start(3), '"')
