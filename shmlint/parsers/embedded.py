"""Code embedded in other files: shell as masks (the file's text with everything that is not shell blanked), and
where the YAML code blocks of documentation (Markdown, MDX, Quarto, reStructuredText) are.

A mask has the file's length and keeps its line breaks, so every offset the shell tokenizer reports is an offset
into the file itself: findings and fixes need no translation. Blanking is the only change, except that
documentation placeholders (``<path to data>``) become quotes of the same length, so that they read as one word
rather than as redirections that would swallow the options after them, and placeholders for more options
(``...``, ``[OPTIONS]``) become blanks.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.yamlnodes import MappingNode, Mappings, Node, ScalarNode, SequenceNode, scalar
from shmlint.source import SourceText

_SHELL_LANGUAGES = frozenset({"", "bash", "sh", "shell", "zsh", "console", "shell-session", "shellsession"})
_CONSOLE_LANGUAGES = frozenset({"console", "shell-session", "shellsession"})
_YAML_LANGUAGES = frozenset({"yaml", "yml"})
_FENCE = LazyRegex(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_LANGUAGE = LazyRegex(r"[\w+-]*")
#: a MyST directive fence's info string: ``{name}`` and its argument (``{code-block} bash``, ``{tab} PyTorch``)
_MYST_DIRECTIVE = LazyRegex(r"^\{(?P<name>[\w:-]{1,60})\}[ \t]*(?P<argument>.*)$")
#: MyST directives whose body is code in the language their argument names (MyST-Parser's code directives)
_MYST_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "code-cell"})
#: Quarto's executable cells (``{python}``, ``{r}``): code in that language, never Markdown
_QUARTO_ENGINES = frozenset({"python", "r", "julia", "ojs", "sql", "mermaid", "dot"})
#: what a shell prompt may show before its ``$``/``#``: ``host1$``, ``user@box:~/src$``, ``root@c278c88dd552:/x#``
_PROMPT_HOST = r"(?:[\w.-]+(?:@[\w.-]+)?(?::[\w.~/-]*)?)?"
_DOLLAR_PROMPT = LazyRegex(rf"^[ \t]*{_PROMPT_HOST}\$(?: |$)")
_ANY_PROMPT = LazyRegex(rf"^[ \t]*{_PROMPT_HOST}[$#](?: |$)")
_CONTINUED_PROMPT = LazyRegex(r"^[ \t]*>(?: |$)")
#: a ``name:`` prompt written against a container engine command (``compute-session:docker run ...``, a Slurm
#: guide's style): no program is named ``x:docker``, so read this way it cannot hide a real command
_NAMED_PROMPT = LazyRegex(
    r"^[ \t]*[\w.-]{1,64}(?:@[\w.-]{1,64})?:(?=(?:sudo[ \t]+)?(?:nvidia-docker|docker|podman)[ \t])"
)
_LIST_ITEM = LazyRegex(r"^([ \t]*(?:[-*+]|\d{1,9}[.)]))([ \t]+)\S")
_PLACEHOLDER = LazyRegex(r"(?<![<\w])<([\w{/.~…](?:[^<>\n'\"]*?[^<>\n'\"\s])?)>(?!>)")
#: ``[OPTIONS]``, ``[docker options]``, ``[...]`` as a word of their own (not ``[[``, ``${a[i]}`` or ``[ -f x ]``)
_BRACKETED = LazyRegex(r"(?<![\w\[\]$}])\[([\w.…][\w .…-]{0,80})\](?![\w\[\]])")
_ELLIPSIS = LazyRegex(r"(?<!\S)(?:\.{3}|…)(?!\S)")
#: a placeholder that stands for more options rather than for one value
_MORE_OPTIONS = LazyRegex(r"\.\.\.|…|\b(?:options?|flags?|args?|arguments?|params?|parameters?)\b", re.IGNORECASE)
_HUGO_SHORTCODE = LazyRegex(r"\{\{([<%])([^\n\"]*?)([>%])\}\}")

_RULE = LazyRegex(r"^[^\s#:=][^:=]*?::?(?!=)")
_CONDITIONAL = LazyRegex(r"^[ \t]*(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DEFINE = LazyRegex(r"^[ \t]*(?:override[ \t]+|export[ \t]+)?define\b")
_ENDEF = LazyRegex(r"^[ \t]*endef\b")
_RECIPE_PREFIX = LazyRegex(r"[@+\-\s]*")

_GITLAB_SCRIPT_KEYS = ("before_script", "script", "after_script")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(offset, line without its line break) for every line."""
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1


class _Mask:
    """A blank copy of a text into which chosen ranges are copied back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.chars = ["\n" if c == "\n" else " " for c in text]

    def keep(self, start: int, end: int) -> None:
        self.chars[start:end] = self.text[start:end]

    def put(self, start: int, replacement: str) -> None:
        self.chars[start : start + len(replacement)] = replacement

    def result(self) -> str:
        return "".join(self.chars)


# -- Markdown ----------------------------------------------------------------------------------------------------


class CodeLine(NamedTuple):
    """One line of a documentation shell block as it is read: its shell text from ``start`` (after the prompt) to
    ``end``, and the prompt it was written with ("" for none): ``$``, ``host1$``, ``root@c278c88dd552:/x#``."""

    start: int
    end: int
    prompt: str


class ShellBlock(NamedTuple):
    """The lines read of one shell code block, and the section it is in (the headings before it, counted)."""

    lines: tuple[CodeLine, ...]
    section: int


#: the shell code blocks of a document, in order
ShellBlocks = tuple[ShellBlock, ...]
#: a heading line outside code: Markdown's ATX (``## Setup``) or setext underline (``===``, ``---``)
_MARKDOWN_HEADING = LazyRegex(r"^(?:[ ]{0,3}#{1,6}(?:[ \t]|$)|[ ]{0,3}(?:={3,}|-{3,})[ \t]*$)", re.MULTILINE)
#: a reStructuredText section's underline or overline (``~~~~``, ``====``)
_RST_HEADING = LazyRegex(r"^([=\-~^\"'`#*+_:.<>])\1{2,}[ \t]*$", re.MULTILINE)


def mask_markdown(text: str) -> str:
    """Shell code blocks of a Markdown file: fences tagged bash/sh/shell/zsh/console or untagged, and indented code."""
    return _mask_shell_blocks(text, markdown_code_blocks(text), _MARKDOWN_HEADING)[0]


def markdown_shell_blocks(text: str) -> tuple[str, ShellBlocks]:
    """``mask_markdown`` and the lines it keeps of each block: what a reader of the document sees as one block."""
    return _mask_shell_blocks(text, markdown_code_blocks(text), _MARKDOWN_HEADING)


def _mask_shell_blocks(
    text: str, blocks: Iterable[tuple[list[tuple[int, str]], str]], heading: LazyRegex[str]
) -> tuple[str, ShellBlocks]:
    """The text with everything but the shell code blocks blanked (console blocks lose their prompts), and the
    lines kept of each block."""
    mask = _Mask(text)
    kept: list[ShellBlock] = []
    section, after = 0, 0  # the headings counted so far, and where the text after the last block starts
    for block, language in blocks:
        if not block:
            continue
        start, end = _extent(block)
        section += sum(1 for _ in heading.finditer(text, after, start)) if start > after else 0
        after = max(after, end)
        if language in _SHELL_LANGUAGES:
            lines = _keep_block(mask, block, language in _CONSOLE_LANGUAGES)
            if lines:
                kept.append(ShellBlock(lines, section))
    return mask.result(), tuple(kept)


def markdown_yaml_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every fenced YAML code block (Markdown, MDX, Quarto)."""
    return [_extent(block) for block, language in markdown_code_blocks(text) if language in _YAML_LANGUAGES and block]


def _extent(block: list[tuple[int, str]]) -> tuple[int, int]:
    """From the first line's start to the end of the last line, its line break included."""
    last_offset, last_line = block[-1]
    return block[0][0], last_offset + len(last_line) + 1


def markdown_code_blocks(text: str) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """Fenced and indented code blocks, each as its lines and its language in lower case ("" when untagged or
    indented; Quarto's ``{bash}`` and Pandoc's ``{.yaml}`` read as ``bash`` and ``yaml``; MyST's
    ``{code-block} bash`` as ``bash``). A MyST directive fence that holds Markdown (````` ````{tab} PyTorch `````,
    ``{note}``, ``{dropdown}``...) is read for the fenced code blocks inside it, as Sphinx renders them."""
    return _code_blocks(_lines(text), nested=False)


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
    holds_markdown = directive is not None and name not in _SHELL_LANGUAGES | _YAML_LANGUAGES | _QUARTO_ENGINES
    return name, holds_markdown


def _code_blocks(lines: Iterable[tuple[int, str]], *, nested: bool) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """``markdown_code_blocks`` over (offset, line) pairs; inside a directive (``nested``) only fenced blocks count,
    since a directive's options and indented prose are not code."""
    fence: tuple[str, int] | None = None  # (fence character, length) of the open fence
    name = ""
    holds_markdown = False
    block: list[tuple[int, str]] = []
    list_column = 0  # content column of the list item we are in; indented code needs 4 more
    after_blank = True
    for offset, line in lines:
        stripped = line.strip()
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
        indent = _indentation(line)
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
        elif stripped and indent < list_column and after_blank:
            list_column = 0
        after_blank = not stripped
    if block and not (nested and fence is None) and not (fence is not None and holds_markdown):
        yield block, name if fence is not None else ""


def _indentation(line: str) -> int:
    column = 0
    for c in line:
        if c == " ":
            column += 1
        elif c == "\t":
            column += 4 - column % 4
        else:
            break
    return column


def _keep_block(mask: _Mask, block: list[tuple[int, str]], console: bool) -> tuple[CodeLine, ...]:
    """Copy a code block into the mask; in transcripts only prompted commands (prompt blanked) and continuations.
    Returns the lines kept, each with its prompt."""
    console = console or any(_DOLLAR_PROMPT.match(line) for _, line in block)
    prompt = _ANY_PROMPT if console else _DOLLAR_PROMPT
    continued = False
    kept: list[CodeLine] = []
    for offset, line in block:
        start = offset
        marker = prompt.match(line) or (_CONTINUED_PROMPT.match(line) if continued else _NAMED_PROMPT.match(line))
        if marker:
            start = offset + marker.end()
        elif console and not continued:
            continue  # output
        end = offset + len(line)
        mask.keep(start, end)
        _unbracket(mask, start, end)
        shown = "" if marker is None or continued else line[: marker.end()].strip()
        kept.append(CodeLine(start, end, shown))
        body = line[start - offset :].rstrip()
        continued = body.endswith("\\") and not body.endswith("\\\\")
    return tuple(kept)


def _unbracket(mask: _Mask, start: int, end: int) -> None:
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
    for match in itertools.chain(_BRACKETED.finditer(line), _ELLIPSIS.finditer(line)):
        if _MORE_OPTIONS.search(match.group()):
            mask.put(start + match.start(), " " * len(match.group()))
    for match in _HUGO_SHORTCODE.finditer(line):
        mask.put(start + match.start(1), '"')
        mask.put(start + match.start(3), '"')


# -- Makefile ----------------------------------------------------------------------------------------------------


def mask_makefile(text: str) -> str:
    """Recipe lines (tab-indented after a rule) and their continuations, without the ``@ - +`` prefixes."""
    mask = _Mask(text)
    in_rule = continuing = in_define = False
    for offset, line in _lines(text):
        if continuing:
            mask.keep(offset, offset + len(line))
        elif in_define:
            in_define = not _ENDEF.match(line)
            continue
        elif line.startswith("\t") and in_rule:
            prefix = _RECIPE_PREFIX.match(line, 1)
            mask.keep(offset + (prefix.end() if prefix else 1), offset + len(line))
        elif _DEFINE.match(line):
            in_define, in_rule = True, False
            continue
        elif not line.strip() or line.lstrip().startswith("#") or _CONDITIONAL.match(line):
            continue
        elif _RULE.match(line) and not line.startswith("\t"):
            in_rule = True
            inline = _inline_recipe(line)
            if inline is None:
                continue
            mask.keep(offset + inline, offset + len(line))
        else:
            in_rule = False
            continue
        body = line.rstrip()
        continuing = body.endswith("\\") and (len(body) - len(body.rstrip("\\"))) % 2 == 1
    return mask.result()


def _inline_recipe(line: str) -> int | None:
    """Where the recipe of ``target: deps ; recipe`` starts, if the rule line has one."""
    rule = _RULE.match(line)
    semicolon = line.find(";", rule.end()) if rule else -1
    return None if semicolon == -1 else semicolon + 1


# -- CI YAML -----------------------------------------------------------------------------------------------------


def is_ci_yaml(documents: list[Node]) -> bool:
    """Whether the documents are a GitHub Actions workflow or composite action, or a GitLab CI pipeline."""
    mappings = Mappings()
    return any(
        found
        for document in documents
        for found, _ in (_github_runs(document, mappings), _gitlab_scripts(document, mappings))
    )


def mask_ci_yaml(source: SourceText, documents: list[Node]) -> str | None:
    """The shell of GitHub Actions steps and GitLab CI scripts; None when the documents are neither."""
    mappings = Mappings()
    scripts: list[ScalarNode] = []
    is_ci = False
    for document in documents:
        for found, nodes in (_github_runs(document, mappings), _gitlab_scripts(document, mappings)):
            is_ci = is_ci or found
            scripts.extend(nodes)
    if not is_ci:
        return None
    mask = _Mask(source.text)
    seen: set[int] = set()
    for node in scripts:
        if node.start_mark.index not in seen:  # an alias repeats a node; its text is in the file once
            seen.add(node.start_mark.index)
            _keep_scalar(mask, node)
    return mask.result()


def mask_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Only these spans of the text: docker options held in another language's strings (a Jenkinsfile's
    ``args``) read as shell words with the file's offsets."""
    mask = _Mask(text)
    for start, end in spans:
        mask.keep(start, end)
    return mask.result()


def mask_scalars(source: SourceText, nodes: Iterable[ScalarNode]) -> str:
    """Only these scalars' text, folded as YAML folds it: docker options held in a YAML string (a GitHub Actions
    job container's ``options``) read as shell words with the file's offsets."""
    mask = _Mask(source.text)
    for node in nodes:
        _keep_scalar(mask, node)
    return mask.result()


def _github_runs(document: Node, mappings: Mappings) -> tuple[bool, list[ScalarNode]]:
    """``jobs.*.steps[].run`` of a workflow and ``runs.steps[].run`` of a composite action."""
    step_lists: list[Node | None] = []
    jobs = mappings.get(document, "jobs")
    workflow = isinstance(jobs, MappingNode) and any(
        isinstance(job, MappingNode) and any(key in mappings.items(job) for key in ("steps", "runs-on", "uses"))
        for _, job in jobs.value
    )
    if workflow:
        step_lists.extend(mappings.get(job, "steps") for _, job in jobs.value)  # type: ignore[union-attr]
    composite = mappings.path(document, "runs", "steps")
    if isinstance(composite, SequenceNode):
        step_lists.append(composite)
    runs = []
    for steps in step_lists:
        for step in steps.value if isinstance(steps, SequenceNode) else ():
            shell = (scalar(mappings.get(step, "shell")) or "bash").split()
            run = mappings.get(step, "run")
            if isinstance(run, ScalarNode) and shell and shell[0].rsplit("/", 1)[-1] in _SHELLS:
                runs.append(run)
    return bool(step_lists), runs


def _gitlab_scripts(document: Node, mappings: Mappings) -> tuple[bool, list[ScalarNode]]:
    """``script``, ``before_script`` and ``after_script`` of every top-level job (and ``default``)."""
    found = False
    scripts: list[ScalarNode] = []
    for name, (_, job) in mappings.items(document).items():
        for key in _GITLAB_SCRIPT_KEYS:
            value = mappings.get(job, key)
            if value is not None and name not in ("variables", "workflow", "include"):
                found = True
                scripts.extend(_scalars(value))
    return found, scripts


def _scalars(node: Node) -> Iterable[ScalarNode]:
    """The scalars of a script: one string, or a list of them (nested lists from anchors are flattened)."""
    stack = [node]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ScalarNode):
            yield current
        elif isinstance(current, SequenceNode):
            stack.extend(reversed(current.value))


def _keep_scalar(mask: _Mask, node: ScalarNode) -> None:
    """Copy a scalar's raw text into the mask, folding the line breaks that YAML itself folds into spaces."""
    start, end = node.start_mark.index, node.end_mark.index
    text = mask.text
    if node.style in ("|", ">"):
        newline = text.find("\n", start, end)
        if newline == -1:
            return
        start = newline + 1
    elif node.style in ("'", '"'):
        start, end = start + 1, max(start + 1, end - 1)
    mask.keep(start, end)
    if node.style == "|":
        return
    body = text[start:end]
    base = min((_indentation(line) for line in body.split("\n") if line.strip()), default=0)
    position = start
    lines = body.split("\n")
    for current, following in itertools.pairwise(lines):
        position += len(current)
        folds = current.strip() and following.strip()
        if folds and (node.style != ">" or _indentation(current) == base == _indentation(following)):
            mask.put(position, " ")
        position += 1


# -- reStructuredText --------------------------------------------------------------------------------------------

_RST_DIRECTIVE = LazyRegex(r"^[ \t]*\.\.[ \t]+(?:code-block|code|sourcecode)::[ \t]*(?P<language>[\w+-]*)[ \t]*$")
_RST_OPTION = LazyRegex(r"^[ \t]+:[\w-]+:")
_RST_EXPLICIT = LazyRegex(r"^[ \t]*\.\.(?:[ \t]|$)")


def mask_rst(text: str) -> str:
    """Shell code blocks of a reStructuredText file: ``code-block``/``code``/``sourcecode`` directives tagged
    bash/sh/shell/zsh/console or untagged, and ``::`` literal blocks (untagged, like an untagged Markdown fence)."""
    return _mask_shell_blocks(text, rst_code_blocks(text), _RST_HEADING)[0]


def rst_shell_blocks(text: str) -> tuple[str, ShellBlocks]:
    """``mask_rst`` and the lines it keeps of each block."""
    return _mask_shell_blocks(text, rst_code_blocks(text), _RST_HEADING)


def rst_yaml_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the body of every ``code-block:: yaml`` (or ``yml``) directive."""
    return [_extent(block) for block, language in rst_code_blocks(text) if language in _YAML_LANGUAGES]


def rst_code_blocks(text: str) -> Iterator[tuple[list[tuple[int, str]], str]]:
    """Bodies of code directives (language in lower case) and of ``::`` literal blocks (language ""): the lines
    indented deeper than the directive or paragraph, after the directive's options, blank lines trimmed. Lines
    inside other directives (a code block in a ``.. note::``) are read on; a code body is skipped as a whole."""
    lines = list(_lines(text))
    index = 0
    while index < len(lines):
        line = lines[index][1]
        index += 1
        directive = _RST_DIRECTIVE.match(line)
        literal = directive is None and line.rstrip().endswith("::") and not _RST_EXPLICIT.match(line)
        if not (directive or (literal and index < len(lines) and not lines[index][1].strip())):
            continue
        indent = _indentation(line)
        while directive and index < len(lines) and _RST_OPTION.match(lines[index][1]):
            index += 1
        body: list[tuple[int, str]] = []
        while index < len(lines) and (not lines[index][1].strip() or _indentation(lines[index][1]) > indent):
            body.append(lines[index])
            index += 1
        while body and not body[-1][1].strip():
            body.pop()
        while body and not body[0][1].strip():
            body.pop(0)
        if body:
            yield body, directive["language"].lower() if directive else ""
