"""The autofix contract on real files: every corpus file (Kubernetes, compose, shell, Markdown) that has a fixable
finding is copied into a temporary folder, fixed with ``fix_source`` and written with ``shmlint fix --write``.

Afterwards: the CLI wrote exactly what ``fix_source`` made; the file still parses and has no safe-fixable finding
left; a second ``shmlint fix`` changes nothing; every original line is byte-identical or was rewritten in place by
one edit; line breaks are kept; Kubernetes documents / compose files / shell scripts that were valid (kubernetes-
validate, the compose-spec schema, ``bash -n``) still are; in Markdown only lines inside code blocks change.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePosixPath

import pytest
import yaml

from shmlint.discover import Candidate, FileKind
from shmlint.fix.apply import fix_source
from shmlint.model import Applicability
from tests import proofs
from tests.support import corpus_dir, corpus_params, corpus_rows, default_engine

KIND_OF = {"k8s": FileKind.YAML, "compose": FileKind.YAML, "shell": FileKind.SHELL, "markdown": FileKind.MARKDOWN}
ENGINE = default_engine()


def _safe_fixable(findings) -> list:  # type: ignore[no-untyped-def]
    return [f for f in findings if f.fix is not None and f.fix.applicability is Applicability.SAFE]


def _fixable_rows() -> list[dict[str, str]]:
    """Rows whose file, checked where it lies, has at least one safe-fixable finding."""
    found = []
    for row in corpus_rows():
        if row["kind"] not in KIND_OF:
            continue
        candidate = Candidate(corpus_dir() / row["local_name"], KIND_OF[row["kind"]], explicit=True)
        if _safe_fixable(ENGINE.check_candidate(candidate).findings):
            found.append(row)
    return found


ROWS = _fixable_rows()


def place(row: dict[str, str], folder: Path) -> Path:
    """The copy keeps the corpus name; a compose file gets its repository name (``docker-compose.yml``...) in a
    folder of its own, so shmlint recognises it by name as compose does."""
    local = Path(row["local_name"])
    if row["kind"] == "compose":
        home = folder / local.stem
        home.mkdir()
        return home / PurePosixPath(row["path"]).name
    return folder / local.name


# -- Markdown: what is code ----------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def markdown_code_lines(lines: list[str]) -> set[int]:
    """Indexes of lines inside fenced code blocks (not the fences) and of indented (4 spaces / tab) lines."""
    code: set[int] = set()
    fence: str | None = None
    for index, line in enumerate(lines):
        marker = _FENCE.match(line)
        if fence is not None:
            if (
                marker
                and marker.group(1)[0] == fence[0]
                and len(marker.group(1)) >= len(fence)
                and not line[marker.end() :].strip()
            ):
                fence = None
            else:
                code.add(index)
            continue
        if marker:
            fence = marker.group(1)
            continue
        if line.startswith(("    ", "\t")):
            code.add(index)
    return code


def assert_markdown_prose_kept(before: str, after: str) -> int:
    """Only lines inside code blocks change; returns how many lines changed."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    assert len(old) == len(new), "a Markdown fix added or removed lines"
    code = markdown_code_lines(old)
    changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    outside = [old[i] for i in changed if i not in code]
    assert not outside, f"text outside code blocks changed: {outside}"
    return len(changed)


_SHM_OPTION = re.compile(r" --shm-size=\d+[kmg]")


def assert_command_lines_only_gain_shm_size(before: str, after: str) -> None:
    """A ``docker run`` fix (SHM001) inserts `` --shm-size=N`` right after the ``run``/``create`` word, nothing else."""
    for old, new in zip(before.splitlines(), after.splitlines(), strict=True):
        if old == new:
            continue
        match = _SHM_OPTION.search(new)
        assert match, (old, new)
        assert new[: match.start()] + new[match.end() :] == old, f"more than --shm-size changed: {old!r} -> {new!r}"
        assert re.search(r"\b(run|create)$", new[: match.start()]), f"--shm-size not right after run: {new!r}"


# -- Kubernetes: volumes and mounts make sense ---------------------------------------------------------------


def assert_pod_volumes_consistent(before: str, after: str) -> None:
    """In every pod spec: volume names stay unique (a new ``dshm`` never clashes), at most one mount at /dev/shm
    per container, and every /dev/shm mount names a Memory emptyDir of that pod with a sizeLimit."""
    for spec in [s for d in proofs._documents(after) for s in proofs._pod_specs(d)]:
        volumes = [v for v in spec.get("volumes") or [] if isinstance(v, dict)]
        names = [v.get("name") for v in volumes]
        assert len(names) == len(set(names)), f"volume names clash: {names}"
        by_name = {v.get("name"): v for v in volumes}
        for container in spec.get("containers") or []:
            mounts = [m for m in container.get("volumeMounts") or [] if m.get("mountPath") in ("/dev/shm", "/dev/shm/")]
            assert len(mounts) <= 1, f"container {container.get('name')} mounts /dev/shm twice: {mounts}"
            for mount in mounts:
                volume = by_name.get(mount.get("name"))
                if volume is None:
                    continue  # a volume the pod gets elsewhere (CRD overrides); not something the fix wrote
                empty_dir = volume.get("emptyDir")
                if isinstance(empty_dir, dict) and empty_dir.get("medium") == "Memory":
                    assert empty_dir.get("sizeLimit"), f"/dev/shm volume {volume.get('name')} has no sizeLimit"
    assert len(proofs._documents(before)) == len(proofs._documents(after)), "documents added or lost"


# -- the tests -------------------------------------------------------------------------------------------------


def test_the_corpus_has_fixable_files(corpus: Path) -> None:
    kinds = {row["kind"] for row in ROWS}
    # at least 23: CPU-only torch, CUDA samples and other software known not to use /dev/shm have no finding, and
    # SHM003's fix is unsafe under a memory limit (two files have only that one)
    assert len(ROWS) >= 23 and kinds == set(KIND_OF), (len(ROWS), kinds)


@pytest.mark.parametrize("row", corpus_params(ROWS, ids=lambda row: row["local_name"]))
def test_corpus_file_fixes_cleanly(row: dict[str, str], corpus: Path, tmp_path: Path, invoke) -> None:
    kind = KIND_OF[row["kind"]]
    path = place(row, tmp_path)
    shutil.copyfile(corpus / row["local_name"], path)
    original_bytes = path.read_bytes()
    checked = ENGINE.check_candidate(Candidate(path, kind, explicit=True))
    source = checked.source
    assert source is not None
    wanted = _safe_fixable(checked.findings)
    assert wanted, "the copy lost the findings the corpus file has"

    with proofs.recording_rounds() as rounds:
        result = fix_source(ENGINE, source, kind, path)
    assert not result.problems, result.problems
    assert result.changed, f"fixable findings but nothing fixed: {[f'{f.code} {f.message}' for f in wanted]}"

    # the command line writes exactly that, and says so
    written = invoke("fix", "--write", "--undecided=show", str(path))
    left_failing = "at or above fail-on remain" in written.stdout  # findings without a safe fix fail the run
    assert written.exit_code == (1 if left_failing else 0), written.output
    assert f"{path}: fixed {len(result.applied)} finding(s)" in written.stdout
    assert path.read_bytes() == source.encode(result.text)
    assert path.read_bytes().startswith(source.bom) and original_bytes.startswith(source.bom)

    # nothing fixable left, still parses, a second fix changes nothing
    after = ENGINE.check_candidate(Candidate(path, kind, explicit=True))
    assert not [f for f in after.findings if f.code == "SHM000"], after.findings
    left = _safe_fixable(after.findings)
    assert not left, f"safe-fixable findings survived: {[f'{f.code} {f.message}' for f in left]}"
    assert not fix_source(ENGINE, source.with_text(result.text), kind, path).changed
    again = invoke("fix", "--undecided=show", str(path))
    assert again.exit_code == 0 and again.stdout == "", again.output

    # byte-minimal
    edit_map = proofs.assert_byte_minimal(source.text, result.text, rounds)
    proofs.assert_line_breaks_kept(source.text, result.text)
    if "\t" in source.text:
        assert all(line in result.text.splitlines() for line in source.text.splitlines() if line.startswith("\t"))

    # still valid
    proven = f"{len(result.applied)} fix(es), {edit_map.edits} edit(s), {len(edit_map.rewritten)} line(s) rewritten"
    if row["kind"] in ("k8s", "compose"):
        proofs.assert_no_new_duplicate_keys(source.text, result.text)
        proofs.assert_strict_readers_still_load(source.text, result.text)
    if row["kind"] == "k8s":
        units = proofs.assert_kubernetes_still_valid(source.text, result.text)
        assert_pod_volumes_consistent(source.text, result.text)
        proven += f", {units} Kubernetes unit(s) validated"
    elif row["kind"] == "compose":
        valid = proofs.assert_compose_still_valid(source.text, result.text)
        before_services = (yaml.safe_load(source.text) or {}).get("services") or {}
        after_services = (yaml.safe_load(result.text) or {}).get("services") or {}
        assert set(before_services) == set(after_services)
        proven += ", compose schema " + ("validated" if valid else "not valid before (skipped)")
    elif row["kind"] == "shell":
        ok = proofs.assert_bash_still_ok(tmp_path, source.text, result.text)
        assert_command_lines_only_gain_shm_size(source.text, result.text)
        proven += ", bash -n " + ("passed" if ok else "failed before (skipped)")
    else:
        changed = assert_markdown_prose_kept(source.text, result.text)
        assert_command_lines_only_gain_shm_size(source.text, result.text)
        proven += f", {changed} code line(s) changed, prose identical"
    print(f"{row['local_name']}: {proven}")  # what was proven, shown with -rP
