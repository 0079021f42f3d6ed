"""The fuzz targets of ``tests/fuzz_targets.py`` under hypothesis, in every run of the suite: arbitrary bytes and
token soups built from the grammar's own words (options, placeholders, quotes, substitutions, line continuations)
and from kustomization keys, remote spellings, anchors and links between files. Fixed examples (``derandomize``)
unless ``SHMLINT_FUZZ_RANDOM=1``; ``SHMLINT_FUZZ_SCALE`` multiplies the counts. With atheris installed the same
targets run coverage-guided for a moment."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz_targets import FILE_SEPARATOR, container_command, kustomization_graph, main
from tests.support import ROOT

SCALE = float(os.environ.get("SHMLINT_FUZZ_SCALE", "1"))


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=int(examples * SCALE),
        deadline=None,
        derandomize=not os.environ.get("SHMLINT_FUZZ_RANDOM"),
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


COMMAND_WORDS = [
    "docker", "podman", "nvidia-docker", "sudo", "-E", "env", "X=1", "run", "create", "container", "--rm", "-it",
    "--shm-size", "--shm-size=", "1g", "-v", "--volume", "--mount", "type=tmpfs,destination=/dev/shm", "--ipc=host",
    "--ipc", "--gpus", "all", "-e", "--env", "A=1", "--runtime=habana", "--", "-", "img", "pytorch/pytorch:2.3",
    "python", "train.py", "<path>", "</on/your/host>:/data", "<your-image>", "[OPTIONS]", "...", "'", '"', "\\\n",
    "$(", ")", "`", "${SHM}", "$ARGS", "<<EOF", "EOF", ";", "&&", "||", "|", "&", "#", "\n", " ", "\t", "=", ":",
]  # fmt: skip
GRAPH_WORDS = [
    "resources:", "bases:", "components:", "generators:", "patches:", "helmCharts:", "labels:", "literals:", "\n",
    "  - ", "- ", "../k1", "../k2", "../k0", "../k7", ".", "k1", "http://127.0.0.1/x", "HTTP://X", '"\\x68ttp://x"',
    "!!binary aHR0cDovL3g=", "git@github.com:o/r", "github.com/o/r", "?ref=v1", "a=b", "&a ", "*a", "<<: *a", "[",
    "]", "{", "}", ": ", "'", '"', "#", "\t", "\\", FILE_SEPARATOR.decode(),
]  # fmt: skip


def _soup(words: list[str]) -> st.SearchStrategy[bytes]:
    return st.lists(st.sampled_from(words), max_size=60).map(lambda parts: " ".join(parts).encode())


@_fuzz(400)
@given(st.one_of(st.binary(max_size=600), _soup(COMMAND_WORDS)))
def test_the_container_command_grammar_holds_its_invariants_on_any_input(data: bytes) -> None:
    container_command(data)


@_fuzz(150)
@given(st.one_of(st.binary(max_size=600), _soup(GRAPH_WORDS)))
def test_the_kustomization_graph_walker_holds_its_invariants_on_any_input(data: bytes) -> None:
    kustomization_graph(data)


def test_the_targets_find_what_they_are_for() -> None:
    """Known inputs: the targets accept a real command and a real graph (a linked base and a remote one)."""
    container_command(b"sudo docker run --rm -it --shm-size=1g -v <path>:/data --gpus all img python t.py\n")
    kustomization_graph(b"resources:\n  - ../k1\n" + FILE_SEPARATOR + b"resources:\n  - HTTP://example.com/x\n")


def test_the_atheris_entry_point_names_its_targets() -> None:
    with pytest.raises(SystemExit, match="container-command,kustomization-graph"):
        main(["fuzz_targets"])


@pytest.mark.slow
@pytest.mark.parametrize("target", ["container-command", "kustomization-graph"])
def test_the_atheris_entry_point_runs_briefly(target: str) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("ATHERIS_PATH", "")]))}
    probe = subprocess.run([sys.executable, "-c", "import atheris"], env=env, capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip("atheris is not installed (optional: pip install atheris, or ATHERIS_PATH=<folder with it>)")
    done = subprocess.run(
        [sys.executable, "-m", "tests.fuzz_targets", target, "-runs=2000", "-seed=1", "-max_len=2048"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0 and "Done 2000 runs" in done.stderr, done.stderr[-3000:]
