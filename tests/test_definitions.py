"""CustomResourceDefinitions left out of a stream too large to compose with them (a kustomization rendering an
operator's CRDs): the documents around them keep every offset, and their findings their lines."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.engine import Engine
from shmlint.format_descriptor import FileKind
from shmlint.parsers.yaml_definitions import blank_definitions
from shmlint.parsers.yamlnodes import MAX_EVENTS
from shmlint.settings import Settings
from shmlint.source import SourceText
from tests.support import run_shmlint

POD = """apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  containers:
    - name: trainer
      image: pytorch/pytorch
      command: [torchrun, --nproc_per_node=4, train.py]
      resources: {limits: {nvidia.com/gpu: 4}}
"""


def crd(properties: int) -> str:
    fields = "".join(f"            field{i}: {{type: string, description: 'a [b] {{c}}'}}\n" for i in range(properties))
    return (
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x.example.com}\n"
        "spec:\n  names: {kind: ServingRuntime}\n  versions:\n    - name: v1\n      schema:\n"
        f"        openAPIV3Schema:\n          properties:\n{fields}"
    )


#: a Pod between two CRDs that take the stream past the node budget (a kustomization rendering an operator's CRDs)
OVER_BUDGET = "---\n".join([crd(MAX_EVENTS // 8), POD, crd(MAX_EVENTS // 8)])


def test_a_render_over_the_node_budget_because_of_its_crds_is_checked_without_them() -> None:
    text = OVER_BUDGET
    result = Engine(Settings()).check_source(SourceText("rendered.yaml", text), FileKind.YAML, "rendered.yaml")
    pod_line = text[: text.index("kind: Pod")].count("\n")  # the Pod's apiVersion line, 1-based
    assert [(f.code, f.span.line) for f in result.findings] == [("SHM001", pod_line + 5)]


def test_every_reader_of_the_stream_composes_it_without_the_crds(tmp_path) -> None:
    """The whole run, not one engine: CRDs named ``ServingRuntime`` send the file through KServe's runtime index
    too, CRLF line breaks are read as line breaks, and the fixer finds the Pod to edit."""
    text = OVER_BUDGET.replace("\n", "\r\n")
    (tmp_path / "rendered.yaml").write_bytes(text.encode())
    run = run_shmlint("check", "rendered.yaml", "--format", "json", cwd=tmp_path)
    ((finding,),) = [json.loads(run.stdout)["findings"]]
    assert run.returncode == 1 and (finding["code"], finding["fixable"]) == ("SHM001", True), run.stderr
    fixed = run_shmlint("fix", "--write", "rendered.yaml", cwd=tmp_path)
    assert fixed.returncode == 0 and b"/dev/shm" in (tmp_path / "rendered.yaml").read_bytes(), fixed.stdout


def test_a_stream_over_the_budget_without_crds_is_still_too_complex() -> None:
    text = POD + "---\n" + "".join(f"k{i}: [a, b]\n" for i in range(MAX_EVENTS // 4))
    result = Engine(Settings()).check_source(SourceText("big.yaml", text), FileKind.YAML, "big.yaml")
    assert [f.code for f in result.findings] == ["SHM000"] and "too complex" in result.findings[0].message


documents = st.lists(
    st.sampled_from(
        [
            POD,
            crd(3),
            "kind: CustomResourceDefinition\n",
            "kind: CustomResourceDefinition\r\nx: 1\r\n",
            "a: [1]\n",
            "\n",
        ]
    ),
    min_size=1,
    max_size=6,
)


@given(documents, st.sampled_from(["---\n", "--- \n", "...\n---\n", "---\r\n"]), st.booleans())
@settings(max_examples=200, deadline=None)
def test_blanking_keeps_every_offset_and_every_other_document(parts: list[str], marker: str, leading: bool) -> None:
    text = (marker if leading else "") + marker.join(parts)
    blanked = blank_definitions(text)
    if "kind: CustomResourceDefinition" not in text:
        assert blanked is None
        return
    assert blanked is not None and len(blanked) == len(text)
    assert [i for i, c in enumerate(blanked) if c in "\r\n"] == [i for i, c in enumerate(text) if c in "\r\n"]
    assert "CustomResourceDefinition" not in blanked
    assert blanked.count("kind: Pod") == text.count("kind: Pod")
    for index, char in enumerate(blanked):
        assert char == text[index] or char == " "


def test_without_libyaml_the_blanked_stream_is_parsed_once_not_recursively(monkeypatch) -> None:
    """Where libyaml is missing the syntax check is the pure-Python event walk, never a compose that would refuse
    the stream again (it recursed until Python's limit)."""
    import yaml

    from shmlint.parsers import yamlnodes

    monkeypatch.setattr(yamlnodes, "_SyntaxLoader", yaml.SafeLoader)  # the pure-Python parser: no raw_parse
    text = OVER_BUDGET
    documents = yamlnodes.compose(SourceText("rendered.yaml", text), tags=False)
    assert [type(d).__name__ for d in documents if d.value] == ["MappingNode"]  # the Pod; the CRDs' bodies are blank
