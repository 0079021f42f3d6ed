"""Kustomize patches and components are judged through the overlays that use them (``tests/data/kustomize``): rendered,
the overlay's output is judged and its finding points at the patch; not rendered, the patch is a note naming the
overlay, never an SHM001 of its own; a component is never rendered alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from shmlint.project.kustomize import find_fragments
from tests.support import ROOT

TREE = ROOT / "tests" / "data" / "kustomize"
PATCH = TREE / "overlays" / "gpu" / "gpu-patch.yaml"
COMPONENT_PATCH = TREE / "components" / "gpu" / "gpu.yaml"


def _json(invoke, *args: str) -> tuple[int, dict]:
    result = invoke("check", "--format", "json", *args)
    return result.exit_code, json.loads(result.stdout)


def test_unrendered_patches_are_notes_naming_their_overlay_never_findings(invoke) -> None:
    code, report = _json(invoke, "--render", "never", str(TREE))
    assert code == 0 and report["findings"] == []
    notes = {n["path"]: n["message"] for n in report["notices"]}
    assert f"in '{TREE / 'overlays' / 'gpu'}': not judged on its own" in notes[str(PATCH)]
    assert f"in '{TREE / 'overlays' / 'with-component'}': not judged" in notes[str(COMPONENT_PATCH)]


def test_a_patch_named_alone_is_a_note_found_through_the_kustomization_beside_it(invoke) -> None:
    """As a pre-commit hook names the changed file: the kustomization beside it says it is a patch."""
    code, report = _json(invoke, str(PATCH))
    assert code == 0 and report["findings"] == []
    assert [n["path"] for n in report["notices"]] == [str(PATCH)]


def test_rendered_overlays_judge_the_merged_object_at_the_patch(invoke) -> None:
    if shutil.which("kubectl") is None:
        pytest.fail("kubectl is part of this machine image; kustomize overlays cannot be rendered without it")
    code, report = _json(invoke, str(TREE))
    assert code == 1
    found = sorted((f["code"], f["path"], f["line"]) for f in report["findings"])
    assert found == [("SHM001", str(COMPONENT_PATCH), 10), ("SHM001", str(PATCH), 10)]
    assert not any("could not be rendered" in f["message"] for f in report["findings"])  # the component alone
    assert not any(n["path"] in (str(PATCH), str(COMPONENT_PATCH)) for n in report["notices"])


def test_fix_does_not_write_into_a_patch(tmp_path: Path, invoke) -> None:
    """The merged object's /dev/shm is not the patch's to decide: no fix is offered, as the check offers none."""
    shutil.copytree(TREE, tmp_path / "tree")
    patch = tmp_path / "tree" / "overlays" / "gpu" / "gpu-patch.yaml"
    before = patch.read_bytes()
    result = invoke("fix", "--write", str(tmp_path / "tree"))
    assert result.exit_code == 0, result.output
    assert patch.read_bytes() == before


def test_fragments_are_read_from_kustomizations_and_a_resource_stays_a_workload(tmp_path: Path) -> None:
    (tmp_path / "k").mkdir()
    (tmp_path / "k" / "kustomization.yaml").write_text(
        "resources: [app.yaml]\npatchesStrategicMerge: [p1.yaml, 'inline: {a: 1}\n']\n"
        "patches:\n  - path: p2.yaml\n  - patch: |-\n      - op: remove\n        path: /x\n"
        "patchesJson6902:\n  - target: {kind: Deployment, name: x}\n    path: app.yaml\n"
    )
    folder = str(tmp_path / "k")
    fragments = find_fragments([folder])
    assert fragments.of(str(tmp_path / "k" / "p1.yaml")) == (folder,)
    assert fragments.of(str(tmp_path / "k" / "p2.yaml")) == (folder,)
    assert fragments.of(str(tmp_path / "k" / "app.yaml")) == ()  # a resource here, whatever else patches it
    assert fragments.components == frozenset()


def test_a_component_no_checked_overlay_names_is_owned_by_itself(tmp_path: Path) -> None:
    component = tmp_path / "c"
    component.mkdir()
    (component / "kustomization.yaml").write_text(
        "kind: Component\nresources: [extra.yaml]\npatches: [{path: p.yaml}]\n"
    )
    fragments = find_fragments([str(component)])
    assert fragments.components == frozenset({str(component)})
    assert fragments.of(str(component / "p.yaml")) == fragments.of(str(component / "extra.yaml")) == (str(component),)


def test_an_unreadable_or_hostile_kustomization_is_no_fragment(tmp_path: Path) -> None:
    for text in ("[unclosed", "- a list\n", "patches: {path: x.yaml}\n", "patches: [{path: https://x/p.yaml}]\n"):
        (tmp_path / "kustomization.yaml").write_text(text)
        fragments = find_fragments([str(tmp_path)])
        assert fragments.owners == (), text


def test_the_editor_says_what_check_says_of_a_patch() -> None:
    from shmlint.server.analysis import Analyzer

    checked = Analyzer().check(PATCH, PATCH.read_text(encoding="utf-8"))
    assert checked.result.findings == ()
    (note,) = checked.result.notices
    assert note.message.startswith("a kustomize patch or component file used by")
