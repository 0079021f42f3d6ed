"""The Dockerfile reader against a model of multi-stage builds: torch evidence exactly when the stage that runs (or
the ``build.target``), or a stage it is built FROM or copies out of, starts from a torch image or installs torch.

The reader has no catch-all: a crash on odd input is a bug the fuzz tests must see (one was: ``FROM ²``).
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.parsers.dockerfile import torch_evidence_text, torch_install
from shmlint.signals import Signals

TORCH_IMAGE = "pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime"
PLAIN_IMAGES = ("python:3.12-slim", "ubuntu:24.04", "scratch")
TORCH_RUNS = ("pip install torch==2.3.0", "pip3 install --no-cache-dir torchvision", "conda install -y pytorch")
PLAIN_RUNS = ("pip install numpy", "apt-get update && apt-get install -y git", "pip install -r requirements.txt")


@dataclass(frozen=True)
class Stage:
    """One generated stage: ``base`` is an image, ``@N`` (stage N by name) or ``#N`` (stage N by number)."""

    base: str
    runs: tuple[str, ...]
    copies_from: int | None


def render(stages: list[Stage], default_base: str) -> str:
    lines = [f"ARG BASE={default_base}"]
    for index, stage in enumerate(stages):
        base = stage.base
        if base.startswith("@"):
            base = f"s{base[1:]}"
        elif base.startswith("#"):
            base = base[1:]
        lines.append(f"FROM {base} AS s{index}")
        lines.extend(f"RUN {run}" for run in stage.runs)
        if stage.copies_from is not None:
            lines.append(f"COPY --from=s{stage.copies_from} /opt /opt")
    return "\n".join(lines) + "\n"


def expected_evidence(stages: list[Stage], start: int, base_arg: str) -> set[str]:
    """Every evidence the reader may cite (it reports the first it meets); empty when there is none."""
    found: set[str] = set()
    pending, seen = [start], set()
    while pending:
        index = pending.pop()
        if index in seen:
            continue
        seen.add(index)
        stage = stages[index]
        if stage.base[0] in "@#":
            pending.append(int(stage.base[1:]))
        else:
            image = base_arg if stage.base == "${BASE}" else stage.base
            if image == TORCH_IMAGE:
                found.add(f"Dockerfile FROM {image}")
        found.update(f"Dockerfile RUN {run}" for run in stage.runs if run in TORCH_RUNS)
        if stage.copies_from is not None:
            pending.append(stage.copies_from)
    return found


@st.composite
def builds(draw) -> tuple[list[Stage], int | None, str, dict[str, str]]:
    count = draw(st.integers(1, 5))
    stages = []
    for index in range(count):
        bases = [TORCH_IMAGE, *PLAIN_IMAGES, "${BASE}"]
        if index:
            bases += [f"@{n}" for n in range(index)] + [f"#{n}" for n in range(index)]
        runs = tuple(draw(st.lists(st.sampled_from(TORCH_RUNS + PLAIN_RUNS), max_size=2)))
        copies = draw(st.one_of(st.none(), st.integers(0, index - 1))) if index else None
        stages.append(Stage(draw(st.sampled_from(bases)), runs, copies))
    target = draw(st.one_of(st.none(), st.integers(0, count - 1)))
    default_base = draw(st.sampled_from([TORCH_IMAGE, PLAIN_IMAGES[0]]))
    build_args = draw(st.sampled_from([{}, {"BASE": TORCH_IMAGE}, {"BASE": PLAIN_IMAGES[1]}]))
    return stages, target, default_base, build_args


@settings(max_examples=200, derandomize=True, database=None, deadline=None)
@given(builds())
def test_evidence_follows_the_stages_that_end_up_in_the_image(build) -> None:
    stages, target, default_base, build_args = build
    text = render(stages, default_base)
    start = len(stages) - 1 if target is None else target
    possible = expected_evidence(stages, start, build_args.get("BASE", default_base))
    evidence = torch_evidence_text(
        text, Signals(), build_args=build_args, target=None if target is None else f"s{target}"
    )
    if possible:
        assert evidence in possible, text
    else:
        assert evidence is None, text


@pytest.mark.parametrize(
    "text",
    ["FROM ²\n", "FROM python:3.12 AS a\nCOPY --from=² / /\n", "FROM python:3.12\nFROM ¹\nRUN pip install numpy\n"],
    ids=["superscript-base", "superscript-copy", "superscript-second-stage"],
)
def test_a_stage_number_is_ascii_digits(text: str) -> None:
    """``"²".isdigit()`` is true but ``int("²")`` raises: such a reference is an image name, not a stage number."""
    assert torch_evidence_text(text, Signals()) is None


def test_a_stage_named_by_number_is_followed() -> None:
    text = f"FROM {TORCH_IMAGE}\nFROM python:3.12\nCOPY --from=0 /opt /opt\n"
    assert torch_evidence_text(text, Signals()) == f"Dockerfile FROM {TORCH_IMAGE}"


def test_cited_install_reads_back_as_an_install() -> None:
    cited = torch_install("apt-get update && pip install --no-cache-dir -i https://x torch==2.3 && echo done")
    assert cited == "pip install --no-cache-dir -i https://x torch==2.3"
    assert torch_install(cited) == cited
