"""The code blocks of a Markdown document (also MDX and Quarto): fenced, indented, and those inside MyST
directives."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.parsers.embedded.mask import indentation, offset_lines
from shmlint.parsers.embedded.shell_blocks import (
    ENGINE,
    ENGINE_LINE,
    SHELL_LANGUAGES,
    YAML_LANGUAGES,
    ShellBlocks,
    continues,
    extent,
    holds_dockerfile,
    mask_shell_blocks,
)

_FENCE = LazyRegex(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LANGUAGE = LazyRegex(r"[\w+-]*")
#: a MyST directive fence's info string: ``{name}`` and its argument (``{code-block} bash``, ``{tab} PyTorch``)
_MYST_DIRECTIVE = LazyRegex(r"^\{(?P<name>[\w:-]{1,60})\}[ \t]*(?P<argument>.*)$")
#: MyST directives whose body is code in the language their argument names (MyST-Parser's code directives)
_MYST_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
#: Quarto's executable cells (``{python}``, ``{r}``): code in that language, never Markdown
_QUARTO_ENGINES = frozenset({"python", "r", "julia", "ojs", "sql", "mermaid", "dot"})
#: a paragraph line that is a container run command, options first (a README that writes its command as a plain
#: line, not a code block): read as a block of its own, with the lines its trailing backslashes continue
_PROSE_COMMAND = LazyRegex(rf"^[ \t]*{ENGINE}[ \t]*(?:container[ \t]+)?(?:run|create)[ \t]+-")
#: a container run command written as inline code in a sentence (``1. Start it: `docker run --gpus all -it img
#: bash`, then follow the tutorial``, audit77a): the span's text, one to three backticks around it on one line
#: (audit87b: ``3- Run the image: ```docker run -it -d --gpus all anomalib``` ``, a code span of three)
_INLINE_COMMAND = LazyRegex(
    rf"(?<!`)(?P<ticks>`{{1,3}})(?!`) ?(?P<command>{ENGINE}[ \t]*(?:container[ \t]+)?(?:run|create)[ \t]+-[^`\n]{{0,4000}}?)"
    r"(?<!\\) ?(?P=ticks)(?!`)"
)
#: a line that is one inline code span and nothing else (a list item's marker and a short label aside, ``- run:``): a
#: line of code written with backticks, read as a block of its own, not a sentence that mentions a command
#: (audit84c: a README's steps `` `nvidia-docker run -it --rm sn8/baseline:1.0 bash` `` then `` `python
#: baseline/train.py ...` ``, each a line; audit85b: ``- build: `docker build -t ner-train .` ``)
_CODE_LINE = LazyRegex(
    r"[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(?:(?P<label>[A-Za-z*_][\w *_./()-]{0,40}):[ \t]+)?"
    r"(?P<ticks>`{1,2})(?!`) ?(?P<code>[^`\n]{1,4000}?)(?<!\\) ?(?P=ticks)[ \t\r]*"
)
#: a label that names a step to take (``Run:``, ``Build the image:``, ``Step 2:``, ``To serve it:``): only such a
#: label leaves its line a line of code (the review: ``Broken:``, ``Previously:``, ``Original command:`` are prose)
_STEP_LABEL = LazyRegex(
    r"[*_ \t]*(?:step[ \t]*\d{1,3}[ \t]*[.)-]?[ \t]*|(?:to[ \t]+)?(?:run|build|serve|start|launch|train|training"
    r"|fine-?tune|usage|command|commands|inference|infer|evaluate|evaluation|eval|test|deploy|then|next|finally"
    r"|first|or)\b)[\w *_./()-]{0,30}",
    re.IGNORECASE,
)
#: words of a step's label that say the line is not what to run (``Run (crashes):``, ``Build the old way:``)
_NOT_TO_RUN = LazyRegex(
    r"\b(?:not|never|avoid|wrong|bad|old|before|instead|deprecated|incorrect|broken|problem|issue|bug|previous(?:ly)?"
    r"|without|small|crash\w*|fail\w*|error\w*|symptoms?|unsupported)\b",
    re.IGNORECASE,
)
#: where an HTML comment opens or closes on a line: what it holds is not shown
_COMMENT_MARK = LazyRegex(r"<!--|-->")
#: inline commands read of one line (a sentence names a few; a hostile line of thousands costs no more)
MAX_INLINE = 8
#: a paragraph line written as a command typed at a prompt: an optional prompt, ``sudo`` and assignments, then a
#: path (``./run.sh``) or a program people run in a terminal session (``python train.py --img 640``, ``conda
#: activate env``; ``source``, ``bash`` and ``sh`` with a script, ``export`` with an assignment, where a prose
#: word is spelt the same). Not installers and fetchers (``pip install deepspeed`` names software that does not
#: run there), no comma before a blank, and no word of prose anywhere on the line (``_PROSE_WORD``)
_TYPED_LINE = LazyRegex(
    r"^(?![^\n]{0,4000},[ \t])[ \t]*(?:\$[ \t]+)?(?:sudo[ \t]+)?(?:[A-Za-z_]\w{0,63}=[^ \t]*[ \t]+){0,8}"
    r"(?:\.{0,2}/[^ \t]"
    r"|(?:python(?:[23](?:\.\d{1,2})?)?|conda|mamba|torchrun|accelerate|deepspeed|vllm|jupyter|tensorboard"
    r"|mkdir|cp|mv|unzip|tar|chmod|nohup|ls|pwd|exit|nvidia-smi|cd)(?:[ \t\r]|$)"
    r"|(?:source|\.|bash|sh)[ \t]+[^ \t]*[./]"
    r"|export[ \t]+[A-Za-z_]\w{0,63}=)"
)
#: a word that commands do not take alone and sentences do (``python is 3.10 inside and vllm serve works``)
_PROSE_WORD = LazyRegex(
    r"(?:^|[ \t])(?:a|an|the|is|are|was|be|and|or|then|so|if|of|to|in|on|for|with|inside|into|that|this|it|its"
    r"|you|we|need|needs|works|should|can|will|use|using|after|before|when|where|which|also|there|here|now"
    r"|first|next|see|note)(?=[ \t\r]|$)",
    re.IGNORECASE,
)
#: an ATX heading (``## Train``): it ends a paragraph, and an indented code block may start right after it
_ATX_HEADING = LazyRegex(r"^[ ]{0,3}#{1,6}(?:[ \t\r]|$)")
#: lines of a paragraph read as commands typed after its run line (a notes file's terminal session)
_MAX_TYPED_LINES = 64
#: how a sentence ends (``docker run --gpus all needs the toolkit.``), never a command
_SENTENCE_END = LazyRegex(r"[\w)\]`'\"][.,;:?!][ \t\r]*$")
#: a block quote's marker, with the one blank after it that belongs to it
_QUOTE = LazyRegex(r"^[ ]{0,3}> ?")
_LIST_ITEM = LazyRegex(r"^([ \t]*(?:[-*+]|\d{1,9}[.)]))([ \t]+)\S")
#: a MkDocs content tab (``=== "Docker"``) or admonition (``!!! note``, ``??? tip``, ``???+ warning``): what it holds
#: is indented four more, prose and fences alike, and is no indented code block (audit51b: Fast-LLM's guide, whose
#: tabbed prose was read as shell)
_INDENTED_CONTAINER = LazyRegex(r"^[ \t]*(?:===|!!!|\?\?\?\+?)[ \t]+\S")
#: a heading line outside code: Markdown's ATX (``## Setup``) or setext underline (``===``, ``---``)
_MARKDOWN_HEADING = LazyRegex(r"^(?:[ ]{0,3}#{1,6}(?:[ \t\r]|$)|[ ]{0,3}(?:={3,}|-{3,})[ \t\r]*$)", re.MULTILINE)
#: where a content tab starts or ends: MkDocs' ``=== "Prebuilt Docker"`` (what it holds is indented under it), MDX's
#: ``<TabItem value="docker">`` ... ``</TabItem>``: another tab is another way to do the same steps (audit51b:
#: Fast-LLM's Docker tab, then its "Custom Installation" tab's venv commands read as typed in the container)
_CONTENT_TAB = LazyRegex(
    r"^(?P<indent>[ \t]*)(?:===[ \t]+(?P<name>[\"'][^\n]{0,200})|<TabItem\b(?P<attributes>[^>\n]{0,500})|(?P<end></TabItem>))",
    re.MULTILINE,
)


def mask_markdown(text: str) -> str:
    """Shell code blocks of a Markdown file: fences tagged bash/sh/shell/zsh/console or untagged, and indented code."""
    return mask_shell_blocks(text, markdown_code_blocks(text), _MARKDOWN_HEADING, _CONTENT_TAB)[0]


def markdown_shell_blocks(text: str) -> tuple[str, ShellBlocks]:
    """``mask_markdown`` and the lines it keeps of each block: what a reader of the document sees as one block."""
    return mask_shell_blocks(text, markdown_code_blocks(text), _MARKDOWN_HEADING, _CONTENT_TAB)


def markdown_yaml_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every fenced YAML code block (Markdown, MDX, Quarto)."""
    return [extent(block) for block, language in markdown_code_blocks(text) if language in YAML_LANGUAGES and block]


def markdown_dockerfile_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every code block that is a Dockerfile (``holds_dockerfile``)."""
    return [extent(block) for block, language in markdown_code_blocks(text) if holds_dockerfile(block, language)]


def markdown_code_blocks(text: str) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """Fenced and indented code blocks, each as its lines and its language in lower case ("" when untagged or
    indented; Quarto's ``{bash}`` and Pandoc's ``{.yaml}`` read as ``bash`` and ``yaml``; MyST's
    ``{code-block} bash`` as ``bash``). A MyST directive fence that holds Markdown (````` ````{tab} PyTorch `````,
    ``{note}``, ``{dropdown}``...) is read for the fenced code blocks inside it, as Sphinx renders them."""
    return code_blocks_of_lines(offset_lines(text))


def code_blocks_of_lines(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """``markdown_code_blocks`` over (offset, line) pairs that need not follow each other in the file (a
    notebook's Markdown cell, each line inside its own JSON string)."""
    return _code_blocks(lines, nested=False)


def _fence_language(info: str) -> tuple[str, bool]:
    """The language a fence's info string names, and whether the fence is a MyST directive holding Markdown: a
    ``{name}`` that is neither a code directive (``{code-block} bash``: the argument is the language) nor a
    language this module reads."""
    text = info.strip().lower()
    directive = _MYST_DIRECTIVE.match(text)
    if directive and directive["name"] in _MYST_CODE_DIRECTIVES:
        language = _LANGUAGE.match(directive["argument"])
        return (language.group() if language else ""), False
    language = _LANGUAGE.match(text.lstrip("{."))
    name = language.group() if language else ""
    holds_markdown = directive is not None and name not in SHELL_LANGUAGES | YAML_LANGUAGES | _QUARTO_ENGINES
    return name, holds_markdown


def _code_blocks(lines: Iterable[tuple[int, str]], *, nested: bool) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """``markdown_code_blocks`` over (offset, line) pairs; inside a directive (``nested``) only fenced blocks count,
    since a directive's options and indented prose are not code. What an HTML comment holds is not shown, so not
    read."""
    fence: tuple[str, int] | None = None  # (fence character, length) of the open fence
    name = ""
    holds_markdown = False
    block: list[tuple[int, str]] = []
    list_column = 0  # content column of the list item we are in; indented code needs 4 more
    container_column = 0  # content column of the MkDocs tab or admonition we are in: a list in it ends there
    after_blank = True
    in_comment = False
    every = list(lines)
    resume = 0  # the index after a paragraph's command, read with it
    for index, (offset, line) in enumerate(every):
        stripped = line.strip()
        if index < resume:
            continue
        if fence is not None:
            closing = _FENCE.match(line)
            if (
                closing
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= fence[1]
                and not closing["info"].strip()
            ):
                if holds_markdown:
                    yield from _code_blocks(block, nested=True)
                else:
                    yield block, name
                fence, block = None, []
            else:
                block.append((offset, line))
            continue
        if in_comment or line.rfind("<!--") > line.rfind("-->"):  # a comment that goes on past its line
            if block and not in_comment and not nested:  # an indented block ends where the comment starts
                yield block, ""
                block = []
            in_comment = "-->" not in line if in_comment else True
            continue
        opening = _FENCE.match(line)
        if opening and not (opening["fence"][0] == "`" and "`" in opening["info"]):
            if block and not nested:
                yield block, ""
            name, holds_markdown = _fence_language(opening["info"])
            fence, block = (opening["fence"][0], len(opening["fence"])), []
            after_blank = False
            continue
        if nested:
            continue
        quoted = _QUOTE.match(line)
        if quoted:  # a block quote (a GitHub alert, ``> [!NOTE]``): the fenced shell blocks it holds, without ``>``
            if block:
                yield block, ""
                block = []
            end = index + 1
            while end < len(every) and _QUOTE.match(every[end][1]):
                end += 1
            resume = end
            inside = [_unquoted(offset, text) for offset, text in every[index:end]]
            for quoted_block, language in _code_blocks(inside, nested=True):  # YAML and Dockerfiles are read from
                # the file's own text, whose quoted lines start with ``>``: only shell is read there
                if language not in YAML_LANGUAGES and not holds_dockerfile(quoted_block, language):
                    yield quoted_block, language
            after_blank = False
            continue
        indent = indentation(line)
        if block and (not stripped or indent >= list_column + 4):
            block.append((offset, line))  # an indented code block goes on through blank lines
            continue
        if block:
            yield block, ""
            block = []
        if stripped and indent >= list_column + 4 and after_blank:
            block.append((offset, line))
            continue
        item = _LIST_ITEM.match(line)
        if item:
            list_column = len((item.group(1) + item.group(2)).expandtabs(4))
        elif _INDENTED_CONTAINER.match(line):
            list_column = container_column = indent + 4
        elif stripped and indent < list_column and after_blank:
            container_column = container_column if indent >= container_column else 0
            list_column = container_column
        after_blank = not stripped or _ATX_HEADING.match(line) is not None  # a heading is no paragraph: indented
        # code may follow it directly (CommonMark; audit60b: ``# Build`` then ``    docker build -t img .``)
        alone = _alone_line_of_code(
            every[index - 1][1] if index else None, line, every[index + 1][1] if index + 1 < len(every) else None
        )
        if alone is not None:
            code = alone["code"]
            if not (_INLINE_COMMAND.search(line) and not any(_inline_commands(line))):  # a run with options and no
                # image (`` `docker run --gpus all` ``) runs nothing (audit80b)
                yield [(offset + alone.start("code"), code)], "sh" if _typed_command(code) else ""
        elif not _PROSE_COMMAND.match(line):
            yield from (([(offset + span.start("command"), span["command"])], "") for span in _inline_commands(line))
        else:
            resume = _prose_command_end(every, index)
            command = every[index:resume]
            if _SENTENCE_END.search(command[-1][1]):
                continue
            if _ends_a_paragraph(every[resume : resume + 1]):
                yield command, ""
            elif (typed := _typed_lines_end(every, resume)) is not None:
                yield every[index:typed], ""  # a notes file's session: the run line and what is typed after it
                resume = typed
    if block and not (nested and fence is None) and not (fence is not None and holds_markdown):
        yield block, name if fence is not None else ""


def _typed_command(code: str) -> bool:
    """Whether a line of code is a command typed at a prompt (``_TYPED_LINE``, no word of prose, no sentence's end):
    read as a block fenced as shell, one that may hold a guide's later steps (``python baseline/train.py ...`` under
    a later heading), where a path or a value alone may not."""
    return bool(_TYPED_LINE.match(code)) and not _PROSE_WORD.search(code) and not _SENTENCE_END.search(code)


def _line_of_code(line: str) -> re.Match[str] | None:
    """``_CODE_LINE``'s match of a line, with no label or one that names a step to take (``_STEP_LABEL``) and
    does not say not to run it (``_NOT_TO_RUN``)."""
    found = _CODE_LINE.fullmatch(line)
    label = found["label"] if found is not None else None
    if found is None or (label and (not _STEP_LABEL.fullmatch(label) or _NOT_TO_RUN.search(label))):
        return None
    return found


def _alone_line_of_code(previous: str | None, line: str, following: str | None) -> re.Match[str] | None:
    """``_line_of_code``'s match of a line that stands alone between its neighbours (``_stands_alone``); None for
    a span that a sentence wraps onto a line of its own: a mention (the review)."""
    found = _line_of_code(line)
    return found if found is not None and _stands_alone(previous, line, following) else None


def _stands_alone(previous: str | None, line: str, following: str | None) -> bool:
    """Whether a line of one inline code span is a line of its own as the document shows it, not part of a sentence
    that wraps around it: after the start, a blank line, a heading, a fence, another such line, a hard line break
    (two blanks or a backslash at the end) or a colon, or as a list item's first line; and before the end, a blank
    line, a heading, a fence, a list item or another such line, or with a hard line break of its own."""
    alone_before = (
        previous is None
        or _LIST_ITEM.match(line) is not None
        or not previous.strip()
        or _breaks(previous)
        or previous.rstrip().endswith(":")
    )
    alone_after = (
        following is None
        or not following.strip()
        or _breaks(following)
        or _LIST_ITEM.match(following) is not None
        or line.rstrip("\r\n").endswith(("  ", "\\"))
    )
    return alone_before and alone_after


def _breaks(line: str) -> bool:
    """A line that a paragraph cannot go on through: a heading, a fence, a line of code, a hard line break's end."""
    return (
        _ATX_HEADING.match(line) is not None
        or _FENCE.match(line) is not None
        or _line_of_code(line) is not None
        or line.rstrip("\r\n").endswith(("  ", "\\"))
    )


def code_line(text: str, start: int) -> bool:
    """Whether the line of ``text`` that starts at ``start`` is one inline code span, a line of its own
    (``_CODE_LINE``, ``_stands_alone``): a line of code, not a sentence."""
    end = text.find("\n", start)
    line = text[start : end if end >= 0 else len(text)]
    previous = text[text.rfind("\n", 0, start - 1) + 1 : start - 1] if start else None
    following = None
    if end >= 0:
        after = text.find("\n", end + 1)
        following = text[end + 1 : after if after >= 0 else len(text)]
    return _alone_line_of_code(previous, line, following) is not None


def _inline_commands(line: str) -> Iterator[re.Match[str]]:
    """The container run commands a prose line writes as inline code (``_INLINE_COMMAND``) that name an image, not
    in an HTML comment: a sentence about the options alone (``**Symptom**: `docker run --runtime=nvidia` fails``,
    audit80b) runs nothing. A span that ends in a backslash is not one (its line would go on into the next)."""
    if "`" not in line:
        return
    from shmlint.parsers.container_command import parse_container_command  # for a line with such a span only
    from shmlint.parsers.shell import commands

    hidden = _commented(line) if "<!--" in line else []
    for span in itertools.islice(_INLINE_COMMAND.finditer(line), MAX_INLINE):
        if hidden and any(start <= span.start() < end for start, end in hidden):
            continue
        text = span["command"]
        parsed = [parse_container_command(command.words, text) for command in commands(text)]
        if any(run is not None and run.image is not None for run in parsed):
            yield span


def _commented(line: str) -> list[tuple[int, int]]:
    """The (start, end) of each HTML comment on a line, in one pass over its marks (one left open runs to the end;
    the first ``MAX_INLINE`` comments, the line's rest counted as one)."""
    found: list[tuple[int, int]] = []
    opened = -1
    for mark in _COMMENT_MARK.finditer(line):
        if mark.group() == "<!--" and opened < 0:
            opened = mark.start()
        elif mark.group() == "-->" and opened >= 0:
            found.append((opened, mark.end()))
            opened = -1
            if len(found) >= MAX_INLINE:
                return [*found, (mark.end(), len(line))]
    return [*found, (opened, len(line))] if opened >= 0 else found


def _unquoted(offset: int, line: str) -> tuple[int, str]:
    """A line of a block quote without its marker, with the offset where what remains starts."""
    marker = _QUOTE.match(line)
    width = marker.end() if marker else 0
    return offset + width, line[width:]


def _prose_command_end(lines: list[tuple[int, str]], start: int) -> int:
    """The index after a paragraph's command line and the lines its backslashes continue (not past a blank line
    or a fence)."""
    end = start + 1
    while (
        end < len(lines) and continues(lines[end - 1][1]) and lines[end][1].strip() and not _FENCE.match(lines[end][1])
    ):
        end += 1
    return end


def _typed_lines_end(lines: list[tuple[int, str]], start: int) -> int | None:
    """The index after the lines that follow a paragraph's command line to the paragraph's end (a blank line, a
    fence, an ATX heading, another run line) when every one is a command typed at a prompt (``_TYPED_LINE``, with
    the lines its backslashes continue; no sentence's end): the paragraph is a terminal session written out
    (``sudo docker run -it ... bash`` then ``python train.py``). None when any line is prose (a setext heading's
    underline, another engine command too), or past ``_MAX_TYPED_LINES``."""
    end = start
    while end < len(lines):
        line = lines[end][1]
        if not line.strip() or _FENCE.match(line) or _ATX_HEADING.match(line) or _PROSE_COMMAND.match(line):
            break
        if end - start >= _MAX_TYPED_LINES or _SENTENCE_END.search(line) or not _TYPED_LINE.match(line):
            return None
        if _PROSE_WORD.search(line):
            return None
        end += 1
        while continues(line) and end < len(lines) and lines[end][1].strip() and end - start < _MAX_TYPED_LINES:
            line = lines[end][1]
            end += 1
    return end


def _ends_a_paragraph(following: list[tuple[int, str]]) -> bool:
    """Whether a command line is a paragraph's last: the file ends, or a blank line, a fence or another command
    follows. Otherwise it is the first line of a sentence that goes on (``docker run -it IMAGE and run`` / ``the
    trainer inside it.``), or a setext heading's text."""
    if not following:
        return True
    line = following[0][1]
    return not line.strip() or _FENCE.match(line) is not None or ENGINE_LINE.match(line) is not None
