"""Jenkins pipelines: the containers their docker agents start.

Declarative ``agent { docker { image '...'; args '...' } }`` and ``agent { dockerfile { args '...' } }`` (also the
short ``docker 'image'``), and scripted ``docker.image('...').inside('...')`` / ``.withRun('...')``. The ``args``
string is docker options, split and judged as on a ``docker run`` line; an interpolated string (``"${X}"``) is
read with its expressions opaque. A fix appends ``--shm-size`` to ``args``, or adds an ``args`` line to a
declarative agent that has none.
"""

from __future__ import annotations

from collections.abc import Iterator

from shmlint.extract.commandline import CommandTarget
from shmlint.extract.docker_options import WordIndex, options_workload
from shmlint.model import Workload, WorkloadFormat, WorkloadId
from shmlint.named_tuple import NamedTuple
from shmlint.parsers.embedded.mask import mask_spans
from shmlint.parsers.groovy import Token, tokens
from shmlint.parsers.shell import Word, commands
from shmlint.signals import Signals
from shmlint.source import SourceText

_AGENTS = frozenset({"docker", "dockerfile"})
_SCRIPTED = frozenset({"inside", "withRun"})


class _Agent(NamedTuple):
    """One docker agent: what holds it (``docker agent``), its keyword token, image and args strings, and where a
    new ``args`` line would go in a declarative block."""

    holder: str
    keyword: Token
    image: Token | None
    args: Token | None
    new_args: CommandTarget | None
    label: str = ""  # who it is when no image names it: the dockerfile agent's file


def extract_jenkinsfile(source: SourceText, signals: Signals) -> list[Workload]:
    found = tokens(source.text)
    agents = [*_declarative(source, found), *_scripted(found)]
    spans = [(agent.args.start, agent.args.end) for agent in agents if agent.args is not None]
    masked = mask_spans(source.text, spans)
    words = WordIndex(word for command in commands(masked) for word in command.words) if spans else WordIndex(())
    return [_workload(source, signals, masked, words, agent, index) for index, agent in enumerate(agents)]


def _workload(
    source: SourceText, signals: Signals, masked: str, words: WordIndex, agent: _Agent, index: int
) -> Workload:
    own: list[Word] = []
    target = agent.new_args
    if agent.args is not None:
        args = agent.args
        own = words.within(args.start, args.end)
        target = CommandTarget(args.start + len(masked[args.start : args.end].rstrip()))
    image = agent.image
    image_word = Word(image.text, image.start, image.end, dynamic=image.interpolated) if image else None
    return options_workload(
        source,
        signals,
        id=WorkloadId(
            WorkloadFormat.CI_JOB,
            "pipeline",
            image.text if image else agent.label,
            container_kind=agent.holder,
            occurrence=index,
        ),
        span=source.span(agent.keyword.start, agent.keyword.end),
        words=own,
        image=image_word,
        target=target,
    )


def _declarative(source: SourceText, found: list[Token]) -> Iterator[_Agent]:
    """``docker { ... }`` and ``dockerfile { ... }`` blocks, and the short ``docker 'image'``."""
    blocks = _blocks(found)
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in _AGENTS or index + 1 >= len(found):
            continue
        following = found[index + 1]
        if token.text == "docker" and following.kind == "string" and _text(found, index - 1) == "{":
            yield _Agent("docker agent", token, following, None, None)
        elif index + 1 in blocks:
            settings, closing = blocks[index + 1]
            image = settings.get("image") if token.text == "docker" else None
            built = settings.get("filename") or settings.get("dir")  # names a dockerfile agent for people
            yield _Agent(
                f"{token.text} agent",
                token,
                image,
                settings.get("args"),
                _new_args(source, found, index + 1, closing),
                built.text if built else "Dockerfile",
            )


def _blocks(found: list[Token]) -> dict[int, tuple[dict[str, Token], int]]:
    """For each ``{``: the ``name 'string'`` settings directly inside its block, and its closing brace (the last
    token when it is never closed). One pass with a stack, whatever the nesting."""
    blocks: dict[int, tuple[dict[str, Token], int]] = {}
    open_blocks: list[tuple[int, dict[str, Token]]] = []
    for index, token in enumerate(found):
        if token.kind == "punct" and token.text == "{":
            open_blocks.append((index, {}))
        elif token.kind == "punct" and token.text == "}" and open_blocks:
            opening, settings = open_blocks.pop()
            blocks[opening] = (settings, index)
        elif token.kind == "string" and open_blocks and found[index - 1].kind == "name":
            open_blocks[-1][1].setdefault(found[index - 1].text, token)
    for opening, settings in open_blocks:
        blocks[opening] = (settings, len(found) - 1)
    return blocks


def _new_args(source: SourceText, found: list[Token], opening: int, closing: int) -> CommandTarget | None:
    """A new ``args`` line after the block's last setting, indented like its first one (or ``; args`` when the
    block is written on one line)."""
    if closing <= opening + 1 or found[closing].text != "}":
        return None
    first, last = found[opening + 1], found[closing - 1]
    text = source.text
    end = last.end
    if last.kind == "string":  # after the closing quotes
        end += 3 if text[end : end + 3] in ('"""', "'''") else 1
    line_start = text.rfind("\n", 0, first.start) + 1
    indent = text[line_start : first.start]
    if indent.strip():
        return CommandTarget(end, before="; args '", after="'")
    return CommandTarget(end, before=f"{source.newline}{indent}args '", after="'")


def _scripted(found: list[Token]) -> Iterator[_Agent]:
    """``docker.image('x').inside('args')``, ``.withRun('args')``: the image when the receiver names it."""
    for index, token in enumerate(found):
        if token.kind != "name" or token.text not in _SCRIPTED or _text(found, index - 1) != ".":
            continue
        if _text(found, index + 1) != "(":
            continue
        args = found[index + 2] if index + 2 < len(found) and found[index + 2].kind == "string" else None
        image = None
        if _text(found, index - 2) == ")" and _text(found, index - 4) == "(" and _text(found, index - 5) == "image":
            candidate = found[index - 3]
            image = candidate if candidate.kind == "string" else None
        yield _Agent(f"docker.{token.text}", token, image, args, None)


def _text(found: list[Token], index: int) -> str | None:
    return found[index].text if 0 <= index < len(found) and found[index].kind != "string" else None
