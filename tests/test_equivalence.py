"""The same findings whatever the route: with or without the prefilter, in one process or several, run after run.

On the real-world corpus (``corpus`` fixture) and on a generated corpus of 2,000 files (bench/corpus.py); output
order is deterministic whatever the parallelism, and two CLI runs print the same bytes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import shmlint.parallel as pool_module
from bench.corpus import generate
from shmlint.discover import FileKind, discover, kind_by_name
from shmlint.engine import Engine
from shmlint.results import Report
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.source import InputError, SourceText

pytestmark = pytest.mark.slow  # a generated corpus of 2,000 files, checked many ways

GENERATED_FILES = 2_000


def key(report: Report) -> tuple:
    """Everything a reporter can show, in the order it is shown."""
    files = tuple(r.path for r in report.files)
    findings = tuple(
        (
            f.span.path,
            f.span.line,
            f.span.column,
            f.span.end_line,
            f.span.end_column,
            f.code,
            f.severity,
            f.message,
            f.fixable,
            f.fix.applicability if f.fix else None,
        )
        for f in report.findings
    )
    notices = tuple((n.path, n.message) for n in report.notices)
    return files, findings, notices


def describe_difference(a: tuple, b: tuple) -> str:
    for label, left, right in zip(("files", "findings", "notices"), a, b, strict=True):
        if left != right:
            only_left = [x for x in left if x not in set(right)][:3]
            only_right = [x for x in right if x not in set(left)][:3]
            return f"{label} differ: only in the first {only_left}, only in the second {only_right}"
    return "same"


#: YAML that does not parse, or only parses for the composer's eyes: files without a signal are checked by the
#: parser alone (``check_syntax``), the others are composed; both must report the same SHM000 at the same place
BROKEN_YAML = {
    "unclosed-flow": "kind: ConfigMap\ndata: {a: [1, 2\n",
    "bad-indent": "kind: ConfigMap\ndata:\n  a: 1\n b: 2\n",
    "undefined-alias": "kind: ConfigMap\ndata: *missing\n",
    "tab-indent": "kind: ConfigMap\ndata:\n\ta: 1\n",
    "control-char": 'kind: ConfigMap\ndata:\n  a: "x\x07"\n',
    "second-document-broken": "kind: ConfigMap\n---\nkind: [\n",
    "anchor-ok": "base: &b {a: 1}\nkind: ConfigMap\ndata: *b\n",
}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    generate(root, GENERATED_FILES - 2 * len(BROKEN_YAML))
    for name, text in BROKEN_YAML.items():  # each without a signal and with one
        (root / f"broken-{name}.yaml").write_text(text, encoding="utf-8")
        gpu = text.replace("kind: ConfigMap", "kind: ConfigMap  # nvidia.com/gpu", 1)
        (root / f"broken-gpu-{name}.yaml").write_text(gpu, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def serial_generated(generated: Path) -> tuple:
    return key(check_paths(Settings(undecided="show"), [generated], jobs=1))


def test_generated_corpus_is_big_enough_to_be_checked_in_parallel(generated: Path) -> None:
    candidates = list(discover([generated]))
    assert len(candidates) >= 2 * pool_module.PARALLEL_MIN_FILES, "jobs=2 would silently run serially"


def test_one_or_two_processes_give_identical_reports(generated: Path, serial_generated: tuple) -> None:
    parallel = key(check_paths(Settings(undecided="show"), [generated], jobs=2))
    assert parallel == serial_generated, describe_difference(serial_generated, parallel)
    files, findings, _ = serial_generated
    assert len(files) == GENERATED_FILES and findings, "the generated corpus has findings to compare"
    assert {f[5] for f in findings} >= {"SHM001", "SHM000"}
    invalid = {os.path.basename(f[0]) for f in findings if f[5] == "SHM000"}
    assert len(invalid) == 2 * (len(BROKEN_YAML) - 1), sorted(invalid)


def test_prefilter_changes_nothing_on_the_generated_corpus(generated: Path, serial_generated: tuple) -> None:
    unfiltered = key(check_paths(Settings(undecided="show", prefilter=False), [generated], jobs=2))
    assert unfiltered == serial_generated, describe_difference(serial_generated, unfiltered)


@pytest.mark.parametrize("prefilter", [True, False], ids=["prefilter", "no-prefilter"])
def test_shared_corpus_same_findings_in_every_mode(corpus: Path, prefilter: bool, monkeypatch) -> None:
    """The corpus is ~100 files, under the parallel threshold: lower it so that jobs=2 really uses two processes."""
    baseline = key(check_paths(Settings(undecided="show"), [corpus], jobs=1))
    assert baseline[1], "the corpus has findings"
    settings = Settings(undecided="show", prefilter=prefilter)
    serial = key(check_paths(settings, [corpus], jobs=1))
    assert serial == baseline, describe_difference(baseline, serial)
    monkeypatch.setattr(pool_module, "PARALLEL_MIN_FILES", 8)
    parallel = key(check_paths(settings, [corpus], jobs=2))
    assert parallel == baseline, describe_difference(baseline, parallel)


def test_prefilter_never_hides_a_finding_in_any_corpus_file(corpus: Path, engine: Engine, make_engine) -> None:
    """File by file, through check_source: what the prefilter skips never had a finding."""
    with_filter, without = engine, make_engine(prefilter=False)
    differing = []
    for path in sorted(corpus.rglob("*")):
        kind = kind_by_name(path)
        if not path.is_file() or kind is None or path.name == "INDEX.tsv":
            continue
        try:
            source = SourceText.from_bytes(str(path), path.read_bytes())
        except InputError:
            continue
        a = sorted((f.code, f.span.start, f.message) for f in with_filter.check_source(source, kind, path).findings)
        b = sorted((f.code, f.span.start, f.message) for f in without.check_source(source, kind, path).findings)
        if a != b:
            differing.append(path.name)
    assert not differing, differing


def test_stdin_and_file_give_the_same_findings(corpus: Path, engine: Engine) -> None:
    """``shmlint check - --stdin-filename x`` and ``shmlint check x`` judge the same text the same way."""
    from shmlint.discover import Candidate

    compared = 0
    for path in sorted(corpus.rglob("*")):
        kind = kind_by_name(path)
        if not path.is_file() or kind in (None, FileKind.DOCKERFILE):
            continue
        from_file = engine.check_candidate(Candidate(path, kind, explicit=True))
        source = SourceText.from_bytes(str(path), path.read_bytes())
        from_text = engine.check_source(source, kind, path)
        assert [(f.code, f.span, f.message) for f in from_file.findings] == [
            (f.code, f.span, f.message) for f in from_text.findings
        ], path
        compared += 1
    assert compared >= 90


def test_cli_prints_the_same_bytes_run_after_run(generated: Path, serial_generated: tuple, shmlint_process) -> None:
    """Two runs (in worker processes: 2,000 files) print identical bytes, and the same findings as one process."""
    first = shmlint_process("check", "--format", "json", "--undecided=show", ".", cwd=generated, timeout=300)
    second = shmlint_process("check", "--format", "json", "--undecided=show", ".", cwd=generated, timeout=300)
    assert first.returncode == second.returncode == 1
    assert "Traceback" not in first.stderr
    assert first.stdout == second.stdout
    document = json.loads(first.stdout)
    printed = [(f["path"], f["line"], f["column"], f["code"], f["message"]) for f in document["findings"]]
    expected = [(os.path.relpath(f[0], generated), f[1], f[2], f[5], f[7]) for f in serial_generated[1]]
    assert printed == expected


def test_fix_plans_the_same_edits_in_one_or_two_processes(generated: Path, shmlint_process) -> None:
    """``shmlint fix`` (diff mode) in worker processes, serially, and twice over: the same diffs in the same order."""
    from shmlint.fix.run import fix_candidates

    settings = Settings(undecided="show")
    jobs = [(settings, c) for c in discover([generated], settings)]
    serial = [
        (o.path, o.applied, o.diff, o.problems, o.error, o.changed)
        for o in fix_candidates(jobs, write=False, unsafe=False, processes=1)
    ]
    parallel = [
        (o.path, o.applied, o.diff, o.problems, o.error, o.changed)
        for o in fix_candidates(jobs, write=False, unsafe=False, processes=2)
    ]
    assert serial == parallel
    assert sum(1 for o in serial if o[2]) > 50, "the generated corpus has fixes to plan"
    first = shmlint_process("fix", "--undecided=show", ".", cwd=generated, timeout=300)
    second = shmlint_process("fix", "--undecided=show", ".", cwd=generated, timeout=300)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout and first.stdout.count("+++ b/") == sum(1 for o in serial if o[2])
