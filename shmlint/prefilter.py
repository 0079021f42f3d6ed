"""The text prefilter: a file without any GPU/torch/shm word cannot hold a workload finding, so it is parsed for
syntax only. It runs on every file, so it is a few substring searches on the lower-cased text.

The words come from the signal data itself (``shmlint.signals``, built-in and configured alike): every signal is
a literal, a glob or a regular expression, and each of them has parts that any text it matches must contain.
Each signal adds its longest such part unless a word already found is inside one. A signal with no literal part
at all (a configured ``.*``) turns the prefilter off rather than hide what it would find.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from shmlint.lazy_regex import LazyRegex
from shmlint.signals import Signals

#: what makes a finding without being signal data: /dev/shm settings (``shm_size``, ``--shm-size``, a ``dshm``
#: volume), IPC modes (``hostIPC``, ``--ipc``), compose ``build``/``extends`` (they bring in another file's signals),
#: GPU requests each format spells itself (compose ``capabilities: [gpu]``, ``--gpus``, swarm ``generic_resources``
#: kinds; the ``nvidia-docker`` command) and shmlint's own comments and annotations
FORMAT_WORDS = ("shm", "ipc", "build", "extends", "gpu", "nvidia", "shmlint")

#: one of these runs must be in a text the signal matches (one run per alternative of the pattern)
Requirement = tuple[str, ...]
#: a regular expression that is a plain word (``vllm``, ``text-generation-inference``)
_PLAIN = LazyRegex(r"[A-Za-z0-9_/-]+")
#: what splits a glob (or a literal) into the runs a match contains: wildcards, character sets and blanks
_GLOB_SPECIALS = LazyRegex(r"[*?\s]|\[[^\]]*\]?")

#: where configured signals are looked for: image and command keys (Kubernetes, compose, Argo ``source``),
#: resource and device names, and container command lines (``docker``/``podman`` or an engine variable)
CONFIGURED_CARRIERS = (
    "image",
    "command",
    "args",
    "entrypoint",
    "source",
    "resources",
    "device",
    "docker",
    "podman",
    "container_",
)


#: words that begin alike are looked for by their first characters first (``/dev/``, ``text-generation-``)
STEM_CHARS = 4


class Prefilter:
    """Whether a text may hold a workload finding; ``enabled=False`` lets every text through (for tests)."""

    def __init__(self, signals: Signals, *, enabled: bool = True) -> None:
        words = prefilter_words(signals) if enabled else None
        self.words = words
        self.stems = stems(words) if words is not None else None

    def passes(self, text: str) -> bool:
        """Whether the text holds one of the words; most texts hold none, so each search is over the whole text
        and fewer searches are the saving (``stems``)."""
        groups = self.stems
        if groups is None:
            return True
        lowered = text.lower()
        for stem, members in groups:
            if stem in lowered and (not members or any(word in lowered for word in members)):
                return True
        return False


def stems(words: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The words as (stem, members) searches that find a text holding any of them: a word that contains another
    word is left out (the other finds it), words that share their first ``STEM_CHARS`` characters are one search
    for those characters and then one for each of them, every other word is a search on its own (no members)."""
    kept = [word for word in words if not any(other != word and other in word for other in words)]
    groups: dict[str, list[str]] = {}
    for word in kept:
        groups.setdefault(word[:STEM_CHARS], []).append(word)
    return tuple((members[0], ()) if len(members) == 1 else (stem, tuple(members)) for stem, members in groups.items())


def prefilter_words(signals: Signals) -> tuple[str, ...] | None:
    """The words, lower case: the format words, then one for each signal no earlier word covers (signals that
    would add a short word first, so that it covers the longer ones). None when some signal has no literal part,
    so that no text can be ruled out. The built-in signals' words are worked out when the data is built
    (``shmlint.data.signal_words``): parsing every pattern on each start cost more than checking a file."""
    if signals == Signals():
        from shmlint.data.signal_words import PREFILTER_WORDS

        return PREFILTER_WORDS
    return words_for(signals)


def words_for(signals: Signals) -> tuple[str, ...] | None:
    """``prefilter_words`` worked out from the signals' patterns."""
    signals_requirements = [_requirements(pattern, is_regex) for pattern, is_regex in signal_patterns(signals)]
    if not all(signals_requirements):
        return None
    words = list(FORMAT_WORDS)
    for requirements in sorted(signals_requirements, key=lambda found: len(max(_best(found), key=len))):
        if not any(_covered(requirement, words) for requirement in requirements):
            words.extend(run for run in _best(requirements) if not any(word in run for word in words))
    return tuple(words)


def signal_patterns(signals: Signals) -> Iterator[tuple[str, bool]]:
    """Every signal as (pattern, is a regular expression): globs translated, literals as they are. Utility
    commands are left out: they only ever take a signal away."""
    for glob in (*signals.gpu_resources, *signals.gpu_devices):
        yield glob, False
    for literal in (*signals.gpu_runtimes, *signals.gpu_envs, *signals.torch_model_formats):
        yield literal, False
    for pattern in (*signals.torch_images, *signals.torch_commands):
        yield pattern, True


def _best(requirements: list[Requirement]) -> Requirement:
    """The requirement to add words for: the fewest alternatives, then the longest runs (the rarest words)."""
    return max(requirements, key=lambda runs: (-len(runs), min(map(len, runs))))


def _covered(requirement: Requirement, words: Iterable[str]) -> bool:
    """Every alternative contains one of the words, so a text holding the signal holds a word."""
    return all(any(word in run for word in words) for run in requirement)


def _requirements(pattern: str, is_regex: bool) -> list[Requirement]:
    """What every match of ``pattern`` contains (``shmlint.required_words``), each requirement a tuple of
    alternatives. Globs and plain words are split by hand: the regular-expression parser is the slow part and only
    needed for real patterns."""
    if not is_regex or _PLAIN.fullmatch(pattern):
        return [(run.lower(),) for run in _GLOB_SPECIALS.split(pattern) if run]
    from shmlint.required_words import requirements

    return [tuple(sorted(words)) for words in requirements(pattern)]
