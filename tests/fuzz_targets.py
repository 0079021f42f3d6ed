"""Byte-level fuzz targets for the container command-line grammar and the kustomization graph walker (both read
hostile text from any checked file).

Each target takes arbitrary bytes, runs one component on them and asserts its invariants; any exception is a
finding. ``tests/test_fuzz_targets.py`` runs them under hypothesis in the suite; with atheris installed they are
coverage-guided entry points too::

    python -m tests.fuzz_targets container-command [libFuzzer options] [corpus folder]
    python -m tests.fuzz_targets kustomization-graph -runs=100000
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from shmlint.parsers.container_command import container_commands
from shmlint.render.graph import MAX_KUSTOMIZATIONS, walk

#: separates the kustomization files of one input (k0 is the start): ``resources: [../k1]`` links them
FILE_SEPARATOR = b"\n---k---\n"
#: generous: the grammar and the walker are linear, an input of a few KiB takes milliseconds
SECONDS_PER_INPUT = 5.0


def container_command(data: bytes) -> None:
    """The grammar never raises, every span lies inside the text in order (engine, run word, options, image,
    arguments), each flag's value offsets point at its text, and it stays linear."""
    text = data.decode("utf-8", "surrogateescape")
    started = time.monotonic()
    for command in container_commands(text):
        words = [command.engine, command.run_word, *(f.flag for f in command.flags)]
        words += [*command.unknown, *([command.image] if command.image else []), *command.arguments]
        for word in words:
            assert 0 <= word.start <= word.end <= len(text), (word, len(text))
        assert command.first.start <= command.engine.start < command.run_word.start
        for flag in command.flags:
            assert command.run_word.end <= flag.flag.start and flag.end <= len(text)
            if flag.value is not None and flag.exact:
                assert text[flag.value_start : flag.value_end] == flag.value_text, flag
            if command.image is not None:
                assert flag.end <= command.image.start, (flag, command.image)
        if command.image is not None:
            assert all(command.image.end <= word.start for word in command.arguments)
        assert command.name.endswith(("run", "create"))
    assert time.monotonic() - started < SECONDS_PER_INPUT


def kustomization_graph(data: bytes) -> None:
    """Bytes become up to eight kustomizations k0..k7 in a fresh folder: the walker never raises, names the start
    first and each kustomization once, stays within its bounds, says why when it blocks, and names only files."""
    with tempfile.TemporaryDirectory(prefix="shmlint-fuzz-") as folder:
        root = Path(folder)
        for index, chunk in enumerate(data.split(FILE_SEPARATOR)[:8]):
            (root / f"k{index}").mkdir()
            (root / f"k{index}" / "kustomization.yaml").write_bytes(chunk)
        started = time.monotonic()
        graph = walk(root / "k0", 1 << 20)
        assert time.monotonic() - started < SECONDS_PER_INPUT
        assert graph.folders and graph.folders[0] == root / "k0"
        assert len({p.resolve() for p in graph.folders}) == len(graph.folders) <= MAX_KUSTOMIZATIONS
        assert graph.blocker is None or graph.blocker.strip(), graph
        assert all(path.is_file() for path in graph.files)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "container-command": container_command,
    "kustomization-graph": kustomization_graph,
}


def main(argv: list[str]) -> None:
    """``python -m tests.fuzz_targets TARGET [libFuzzer options]``: coverage-guided, needs atheris."""
    if len(argv) < 2 or argv[1] not in TARGETS:
        raise SystemExit(f"usage: python -m tests.fuzz_targets {{{','.join(TARGETS)}}} [libFuzzer options]")
    import atheris

    target = TARGETS[argv[1]]
    atheris.instrument_all()
    atheris.Setup([argv[0], *argv[2:]], target)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
