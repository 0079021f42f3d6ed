"""A RoleBasedGroup's roles run pods composed from a roleTemplate and patches (a strategic merge patch), not the
template or the patches alone: audit53b's six false errors were SGLang patches (a command with ``--tp 2``) judged
without the template that gives their pod one GPU and a 15Gi /dev/shm."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from shmlint.discover import discover
from shmlint.engine import Engine
from shmlint.formats.kubernetes.strategic_merge import MAX_DEPTH, NotMerged, StrategicMerge
from shmlint.parsers.yamlnodes import Mappings, compose
from shmlint.source import SourceText


def node(text: str) -> Node:
    (document,) = compose(SourceText("t.yaml", text))
    return document


def plain(value: Node | None) -> Any:
    """The Python value a node stands for (scalars as their text)."""
    if isinstance(value, MappingNode):
        return {key.value: plain(item) for key, item in value.value}
    if isinstance(value, SequenceNode):
        return [plain(item) for item in value.value]
    return value.value if isinstance(value, ScalarNode) else None


def merged(base: Node | None, patch: Node | None) -> Node | None:
    return StrategicMerge(Mappings()).merged(base, patch)


def merge_texts(base: str, patch: str) -> Any:
    return plain(merged(node(base), node(patch)))


def test_containers_merge_by_name_and_lists_of_words_are_replaced() -> None:
    base = """\
spec:
  volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 15Gi}}]
  containers:
  - name: engine
    image: sglang:v0.5
    command: [sleep, infinity]
    env: [{name: A, value: "1"}]
    volumeMounts: [{name: dshm, mountPath: /dev/shm}]
    resources: {limits: {nvidia.com/gpu: "1", memory: 48Gi}}
"""
    patch = """\
spec:
  containers:
  - name: engine
    command: [python3, -m, sglang.launch_server, --tp, "2"]
    env: [{name: B, value: "2"}]
    resources: {limits: {nvidia.com/gpu: "2"}}
  - name: sidecar
    image: busybox
"""
    spec = merge_texts(base, patch)["spec"]
    engine, sidecar = spec["containers"]
    assert engine["image"] == "sglang:v0.5"
    assert engine["command"] == ["python3", "-m", "sglang.launch_server", "--tp", "2"]
    assert engine["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    assert engine["resources"] == {"limits": {"nvidia.com/gpu": "2", "memory": "48Gi"}}
    assert engine["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]
    assert spec["volumes"][0]["emptyDir"]["sizeLimit"] == "15Gi"
    assert sidecar == {"name": "sidecar", "image": "busybox"}


def test_a_null_deletes_and_a_mount_merges_by_its_path() -> None:
    base = "spec: {hostIPC: true, containers: [{name: a, volumeMounts: [{name: x, mountPath: /dev/shm}]}]}"
    patch = "spec: {hostIPC: null, containers: [{name: a, volumeMounts: [{name: dshm, mountPath: /dev/shm}]}]}"
    spec = merge_texts(base, patch)["spec"]
    assert "hostIPC" not in spec
    assert spec["containers"][0]["volumeMounts"] == [{"name": "dshm", "mountPath": "/dev/shm"}]


def test_a_directive_is_refused_wherever_it_is() -> None:
    for patch in (
        "spec: {containers: [{name: a, $patch: delete}]}",
        "spec: {$retainKeys: [containers]}",
        "spec: {volumes: [{name: new, emptyDir: {$patch: replace}}]}",
    ):
        try:
            merged(node("spec: {containers: [{name: a}]}"), node(patch))
        except NotMerged:
            continue
        raise AssertionError(f"{patch} merged")


def test_merged_values_keep_where_they_are_written() -> None:
    text = "spec:\n  containers:\n  - name: a\n    image: x\n"
    patch_text = "spec:\n  containers:\n  - name: a\n    command: [run]\n"
    base, patch = node(text), node(patch_text)
    result = merged(base, patch)
    assert isinstance(result, MappingNode) and result.start_mark.index == base.start_mark.index
    container = plain(result)["spec"]["containers"][0]
    assert container == {"name": "a", "image": "x", "command": ["run"]}
    m = Mappings()
    merged_container = m.path(result, "spec", "containers")
    assert isinstance(merged_container, SequenceNode)
    command = m.get(merged_container.value[0], "command")
    assert command is not None and patch_text[command.start_mark.index :].startswith("[run]")


_KEYS = st.sampled_from(["name", "image", "command", "env", "containers", "volumes", "resources", "limits", "a"])
_SCALARS = st.sampled_from(["x", "y", "1", "2Gi"])
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(
            st.fixed_dictionaries({"name": _SCALARS}, optional={"v": inner}), max_size=3, unique_by=lambda d: d["name"]
        )
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=12,
)
_TEMPLATES = st.dictionaries(_KEYS, _VALUES, max_size=5)


@settings(max_examples=150, deadline=None)
@given(_TEMPLATES, _TEMPLATES)
def test_merge_properties(base: dict[str, Any], patch: dict[str, Any]) -> None:
    """(Lists hold one item of a merge key, as Kubernetes validates them.) A patch applied twice is the patch applied once; a template merged with itself is itself; the result has the
    keys of both; each key only the patch writes has the patch's value."""
    base_node, patch_node = node(yaml.safe_dump(base)), node(yaml.safe_dump(patch))
    once = merged(base_node, patch_node)
    assert once is not None
    twice = merged(once, patch_node)
    assert plain(twice) == plain(once)
    assert plain(merged(base_node, base_node)) == plain(base_node)
    result = plain(once)
    assert set(result) == set(base) | set(patch)
    for key in set(patch) - set(base):
        assert result[key] == plain(patch_node)[key]


def findings(engine: Engine, tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "rbg.yaml"
    path.write_text(text)
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    return [f"{f.code} {f.severity.label} {f.message}" for f in result.findings] + [n.message for n in result.notices]


ROLES = """\
apiVersion: workloads.x-k8s.io/v1alpha2
kind: RoleBasedGroup
metadata: {name: g}
spec:
  roleTemplates:
  - name: base
    template:
      spec:
        containers:
        - {name: engine, image: lmsysorg/sglang:v0.5.4, resources: {limits: {nvidia.com/gpu: "2"}}}
  - name: unused
    template:
      spec:
        containers:
        - {name: engine, image: lmsysorg/sglang:v0.5.4, command: [python3, -m, sglang.launch_server, --tp, "2"]}
  roles:
  - name: missing
    standalonePattern: {templateRef: {name: nowhere}}
  - name: directive
    standalonePattern:
      templateRef:
        name: base
        patch: {spec: {containers: [{name: engine, $patch: delete}]}}
  - name: served
    leaderWorkerPattern:
      size: 2
      templateRef: {name: base}
      leaderTemplatePatch: {spec: {containers: [{name: engine, command: [python3, -m, sglang.launch_server, --tp, "2"]}]}}
"""


def test_roles_are_judged_as_composed_and_what_is_not_composed_is_said(engine: Engine, tmp_path: Path) -> None:
    said = findings(engine, tmp_path, ROLES)
    errors = [line for line in said if line.startswith("SHM001 error")]
    assert len(errors) == 1 and "g served leader" in errors[0] and "--tp 2" in errors[0], said
    # the worker runs the template as written: two GPUs and no command (need unknown, never an error)
    assert any("served worker" in line and "SHM001 info" in line for line in said), said
    assert any('role "missing" not judged: it names roleTemplate "nowhere"' in line for line in said), said
    assert any('role "directive" not judged' in line and "$patch" in line for line in said), said
    assert any('roleTemplate "unused" not judged: no role of this object uses it' in line for line in said), said


def test_a_null_patch_is_no_patch_and_other_shapes_are_said(engine: Engine, tmp_path: Path) -> None:
    """Found (review): ``patch:`` with nothing after it (a chart's ``toYaml`` of an unset value) dropped the role
    without a word; the controller reads a nil patch as none. A patch that is no mapping is a notice."""
    empty = ROLES.replace("templateRef: {name: base}\n", "templateRef: {name: base, patch: }\n")
    assert merged(node("a: 1"), node("null")) is not None
    null_leader = empty.replace("      leaderTemplatePatch: {spec", "      leaderTemplatePatch:\n      unused: {spec")
    said = findings(engine, tmp_path, null_leader)
    assert any(line.startswith("SHM001") and "g served" in line for line in said), said
    scalar_patch = ROLES.replace("leaderTemplatePatch: {spec", "leaderTemplatePatch: oops\n      x: {spec")
    said = findings(engine, tmp_path, scalar_patch)
    assert any('leader pods of role "served" not judged: its pod template is not a mapping' in s for s in said), said
    assert any("served worker" in line for line in said), said  # the worker is still judged


def test_a_directive_in_one_part_leaves_the_other_judged(engine: Engine, tmp_path: Path) -> None:
    text = ROLES.replace(
        "leaderTemplatePatch: {spec",
        "workerTemplatePatch: {spec: {containers: [{name: engine, $patch: replace}]}}\n      leaderTemplatePatch: {spec",
    )
    said = findings(engine, tmp_path, text)
    assert any('worker pods of role "served" not judged: the strategic merge directive $patch' in s for s in said)
    assert any(line.startswith("SHM001 error") and "served leader" in line for line in said), said


def test_deep_patches_and_aliased_ones_stay_bounded() -> None:
    deep = "{a: " * (MAX_DEPTH + 5) + "1" + "}" * (MAX_DEPTH + 5) + "\n"
    try:
        merged(node(deep), node(deep.replace("1", "2")))
    except NotMerged as why:
        assert "nested deeper" in str(why)
    else:
        raise AssertionError("merged past the depth bound")
    # a subtree many aliases share is merged once: 2**16 paths through 16 levels of two aliases each
    levels = ["l0: &l0 {x: 1}"] + [f"l{i}: &l{i} {{a: *l{i - 1}, b: *l{i - 1}}}" for i in range(1, 17)]
    text = "\n".join(levels) + "\n"
    merge = StrategicMerge(Mappings())
    result = merge.merged(node(text), node(text))
    assert isinstance(result, MappingNode) and len(merge._merged) < 100


def test_a_composed_pod_is_offered_no_fix(engine: Engine, tmp_path: Path) -> None:
    """Found (review): a fix wrote into the roleTemplate that other roles share, judged from one role: it lowered
    a 16Gi /dev/shm an 8-GPU role needs to what a 4Gi role's limit allows. A composed pod is judged, not fixed."""
    path = tmp_path / "rbg.yaml"
    path.write_text(ROLES)
    (candidate,) = discover([path])
    result = engine.check_candidate(candidate)
    assert [f.code for f in result.findings if f.severity.label == "error"] == ["SHM001"]
    assert not any(f.fixable for f in result.findings)
