"""A finding's message is one short line naming the workload, the evidence and the fix; the long
explanation is its ``detail`` (shown by ``--show-source``, JSON, SARIF and the editor's hover). Measured over every
fixture, with the figures printed (``pytest -s``) and the bounds asserted."""

from __future__ import annotations

import statistics

from shmlint.rules.rule import MAX_MESSAGE
from shmlint.runner import check_paths
from shmlint.settings import Settings
from tests.support import FIXTURES

MEDIAN_AT_MOST = 120


def test_messages_over_every_fixture_are_short() -> None:
    report = check_paths(Settings(undecided="show"), [str(FIXTURES)])
    lengths = sorted(len(f.message) for f in report.findings)
    assert len(lengths) >= 150, "the fixtures should hold findings of every rule"
    median, longest = statistics.median(lengths), lengths[-1]
    figures = f"{len(lengths)} messages over {len(report.files)} fixture files: median {median}, max {longest}"
    print(f"\n{figures}")
    assert median <= MEDIAN_AT_MOST, figures
    assert longest < MAX_MESSAGE == 200, figures  # below: a message the guard cut is exactly MAX_MESSAGE long
    assert all("\n" not in f.message for f in report.findings)


def test_a_long_explanation_goes_to_the_detail() -> None:
    report = check_paths(Settings(undecided="show"), [str(FIXTURES / "k8s")])
    explained = [f for f in report.findings if f.code != "SHM000"]
    assert explained and all(len(f.detail) > len(f.message) for f in explained if f.detail)
    assert sum(1 for f in explained if f.detail) >= len(explained) * 3 // 4


def test_an_unresolved_setting_is_named_whole() -> None:
    """The setting a message calls unresolved is named without its explanation (the detail's), never cut inside it
    ("Fargate's own /dev/shm (F... is unresolved" said nothing)."""
    report = check_paths(Settings(undecided="show"), [str(FIXTURES)])
    named = [f.message for f in report.findings if " is unresolved;" in f.message]
    assert named, "the fixtures hold a workload whose /dev/shm setting cannot be resolved (Fargate)"
    assert all(m.count("(") == m.count(")") and "... is unresolved" not in m for m in named), named


def test_evidence_in_a_script_without_an_extension_is_quoted_whole(tmp_path) -> None:
    """A file and line of a script named without an extension (``imitation/train_script:50``) is the evidence's
    place like any other: it was clipped as plain words, and ``DataLoader(...`` lost its value and the message
    its closing parenthesis."""
    (tmp_path / "imitation").mkdir()
    (tmp_path / "imitation" / "train_script").write_text(
        "#!/usr/bin/env python3\nfrom torch.utils.data import DataLoader\nloader = DataLoader(data, num_workers=4)\n"
    )
    (tmp_path / "run.sh").write_text(
        "docker run --gpus all -v $(pwd):/w -w /w acme/app python3 imitation/train_script\n"
    )
    (finding,) = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert "(train_script:3 DataLoader(num_workers=4)), has 64 MiB" in finding.message, finding.message
