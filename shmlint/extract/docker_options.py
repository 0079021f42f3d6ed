"""Docker options written in another format (a dev container's ``runArgs``, a CI job's container ``options``, a
Jenkins agent's ``args``) judged exactly as on a ``docker run`` line.

The options are split by the container CLI grammar (``shmlint.parsers.container_command``) and judged by the
command-line extractor, so ``--gpus all``, ``--shm-size``, ``--ipc=host`` or ``--device`` mean the same wherever
they are written; only who the workload is and where a fix goes are the format's own.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from shmlint.extract.commandline import CommandTarget, command_workload
from shmlint.model import Evidence, Workload, WorkloadId
from shmlint.parsers.container_command import ContainerCommand, parse_options
from shmlint.parsers.container_options import Flag
from shmlint.parsers.shell import Word
from shmlint.signals import Signals
from shmlint.source import SourceText, Span

if TYPE_CHECKING:
    from shmlint.model import FixTarget
    from shmlint.parsers.typed import Typed


def options_workload(
    source: SourceText,
    signals: Signals,
    *,
    id: WorkloadId,
    span: Span,
    words: Sequence[Word],
    image: Word | None = None,
    extra: Iterable[Flag] = (),
    gpu: Iterable[Evidence] = (),
    target: FixTarget = None,
    typed: Typed | None = None,
) -> Workload:
    """The workload a list of docker options describes. ``image`` is a Word with its offsets (dynamic when an
    expression decides it); ``extra`` adds options written elsewhere in the format (a dev container's
    ``containerEnv`` as ``--env``), ``gpu`` evidence the format gives itself (``hostRequirements.gpu``). A
    ``target`` says where a fix writes; a command target gets the size slots of the options. ``typed``: the
    commands run in the container after it starts (a CI job's steps), which are what it runs."""
    flags, unknown = parse_options(words, source.text)
    anchor = Word("docker", span.start, span.start)
    command = ContainerCommand(
        first=anchor,
        engine=anchor,
        subcommand="run",
        run_word=anchor,
        flags=(*flags, *extra),
        unknown=unknown,
        image=image,
        arguments=(),
        may_set_shm=unknown,  # any expansion among options may stand for a --shm-size of its own
    )
    judged = command_workload(command, source, signals, occurrence=0, typed=typed)
    if isinstance(target, CommandTarget) and isinstance(judged.target, CommandTarget):
        # the options' own reading of where sizes are, and of an expansion that may hold a size of its own (a new
        # one written after ``${{ matrix.opts }}`` would lower its ``--shm-size``)
        target = target._replace(size_slots=judged.target.size_slots, overridable=judged.target.overridable)
    image_text = image.text if image else None
    return judged._replace(id=id, span=span, gpu=(*gpu, *judged.gpu), target=target, image=image_text)


class WordIndex:
    """The shell words of a masked file, found by the range of the string or scalar they came from."""

    __slots__ = ("starts", "words")

    def __init__(self, words: Iterable[Word]) -> None:
        self.words = sorted(words, key=lambda word: word.start)
        self.starts = [word.start for word in self.words]

    def within(self, start: int, end: int) -> list[Word]:
        return self.words[bisect.bisect_left(self.starts, start) : bisect.bisect_left(self.starts, end)]


def env_flag(key: Word, value: Word) -> Flag:
    """An environment variable set outside the options (``"NAME": "value"``), read as ``--env NAME=value``."""
    return Flag("--env", key, value, f"{key.text}={value.text}", key.start, value.end)
