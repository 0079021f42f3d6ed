"""The parts of ``shmlint policy``: RE2 translation, the exported patterns in both engines, the Kubernetes CEL
library functions the test engine provides, the single-purpose patterns against the linter's own readers, the
manifests against their schemas, and the command."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.policy.knowledge import export
from shmlint.policy.manifests import CONSTRAINT_KIND, Options, documents
from shmlint.policy.re2 import Re2Pattern, UnsupportedPattern, glob_to_re2, split_lookahead, to_re2, to_re2_pattern
from shmlint.runtime.nccl import disables_shm
from shmlint.signals import Globs, positive_count
from tests.support import ROOT, run_shmlint

if os.environ.get("CI") == "true":  # CI installs .[test]: there the engines must run, not skip
    from tests import policy_engines as engines
else:
    engines = pytest.importorskip(
        "tests.policy_engines",
        reason="the policy engines (common-expression-language, hobofan-regorus) are not installed: pip install -e .[test]",
    )
import cel  # installed with the engines

SCHEMAS = ROOT / "tests" / "data" / "schemas"
K = export()


def _cel_matches(pattern: str, values: list[str]) -> list[bool]:
    return cel.evaluate("values.map(v, v.matches(p))", {"values": values, "p": pattern})


def _rego_matches(pattern: str, values: list[str]) -> list[bool]:
    policy = engines.RegoPolicy(
        "package t\nimport future.keywords.in\nresult := [regex.match(input.review.object.p, v) | some v in input.review.object.values]\n"
    )
    return policy.query({"p": pattern, "values": values}, "data.t.result")


def _all_patterns() -> list[str]:
    singles = [
        K.gpu_resource,
        K.gpu_runtime,
        K.counted_resource,
        K.no_gpu_visible,
        K.gpu_device,
        K.non_workload_tag,
        K.utility_command,
        K.shm_path,
        K.host_shm,
        K.nccl_disables,
        K.positive_count,
        K.dataloader_hint,
        K.dataloader_workers,
    ]
    listed = [
        part
        for entry in K.software
        for pattern in (*entry.commands, *entry.images, *entry.image_tags)
        for part in pattern
        if part is not None
    ]
    return singles + listed + list(K.torch_images) + list(K.torch_commands)


def _tier_patterns() -> list[str]:
    """Every pattern of the tier data, as the linter reads it (Python ``re``, any case)."""
    from shmlint.build_data import read_need_yaml

    return [p for e in read_need_yaml()["software"] for ps in e["match"].values() for p in ps]


def _split_verdicts(pattern: Re2Pattern, values: list[str]) -> list[bool]:
    """What a policy decides with an exported pattern: the head matches and its veto (if any) does not."""
    heads = _cel_matches(pattern.head, values)
    vetoes = _cel_matches(pattern.unless, values) if pattern.unless is not None else [False] * len(values)
    return [head and not veto for head, veto in zip(heads, vetoes, strict=True)]


#: values the patterns meet: commands and images of the drawn pods, and text that tells Python from RE2 apart
SAMPLES = sorted(
    {" ".join(c) for c in engines.COMMANDS}
    | {i.split(":")[0] for i in engines.IMAGES}
    | {
        "torchrun\n",
        "torchrun\n\n",
        "python -m\u00a0torch.distributed.run",
        "IMPORT TORCH",
        "vllm\n",
        "x\u3000--num_workers=2",
        "yolo train data=coco.yaml",
        "yolo detect train data=coco.yaml workers=0",
        "yolo train; echo workers=0",
        "yolo train workers=08",
        "python tools/train_net.py --num-gpus 2 DATALOADER.NUM_WORKERS 0",
        "python plain_train_net.py --config-file x.yaml",
        "python tools/train.py -f exps/x.py -d 8 -b 64 data_num_workers 0",
        "python3 -m yolox.tools.eval -n yolox-s -c yolox_s.pth -b 64 -d 1",
        "python3 -m piper_train --dataset-dir /d --batch-size 16",
        "ns-train nerfacto --machine.num-devices 4 --data /d",
        "ns-train neus-facto --machine.num-gpus=1",
        "python3 -m piper_train.export_onnx m.ckpt m.onnx",
        "python tools/train.py -f exps/x.py\ndata_num_workers 0",
    }
)


@pytest.mark.slow
def test_every_exported_pattern_compiles_in_both_engines_and_searches_as_python_does() -> None:
    patterns = _all_patterns()
    assert len(patterns) > 60
    for pattern in patterns:
        assert _cel_matches(pattern, SAMPLES) == _rego_matches(pattern, SAMPLES), pattern
    for original in _tier_patterns():
        expected = [re.search(original, s, re.IGNORECASE) is not None for s in SAMPLES]
        assert _split_verdicts(to_re2_pattern(original), SAMPLES) == expected, original


def test_every_tier_data_pattern_is_valid_re2_or_a_head_with_an_unless() -> None:
    """No look-around or back reference reaches a policy: a pattern is translated as it is, or it ends in a
    negative lookahead and becomes a head and the pattern that vetoes it (the shipped data has such patterns)."""
    split = 0
    for original in _tier_patterns():
        exported = to_re2_pattern(original)  # raises UnsupportedPattern for anything else
        for part in exported:
            if part is not None:
                assert not re.search(r"\(\?(?:[=!]|<[=!]|P=)|\\[1-9]", part), (original, part)
        if "(?!" in original:
            head, tail = split_lookahead(original)
            assert tail is not None and exported == Re2Pattern(to_re2(head), to_re2(f"{head}(?:{tail})"))
            split += 1
        else:
            assert exported == Re2Pattern(to_re2(original))
    assert split >= 2


def test_only_a_trailing_negative_lookahead_on_the_whole_pattern_is_split() -> None:
    assert split_lookahead("ab(?!c)") == ("ab", "c")
    assert split_lookahead(r"a(?!b(?!c))") == ("a", "b(?!c)")  # a nested one stays in the tail, which is refused
    for kept in ("a|b(?!x)", "a(?!x)b", "(a(?!x))", "[(?!x)]", "a(?=x)"):
        assert split_lookahead(kept)[1] is None, kept
        with pytest.raises(UnsupportedPattern):
            to_re2_pattern(kept)
    with pytest.raises(UnsupportedPattern):
        to_re2_pattern(r"a(?!b(?!c))")


#: pieces of commands around the tier data's split patterns (the tools, their modes, the settings their lookaheads
#: test, and the separators that end them)
_PIECES = (
    "yolo",
    "detect",
    "pose",
    "train",
    "val",
    "workers=0",
    "workers=01",
    "workers=2",
    "data=coco.yaml",
    "train_net.py",
    "tools/plain_train_net.py",
    "lazyconfig_train_net.py",
    "DATALOADER.NUM_WORKERS",
    "NUM_WORKERS=0",
    "tools/train.py",
    "-f",
    "exps/default/yolox_s.py",
    "data_num_workers",
    "0",
    "4",
    ";",
    "&&",
    "|",
    "x" * 120,
)


@pytest.mark.slow
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), st.sampled_from((" ", "  ", "/")))
@settings(max_examples=150, deadline=None)
def test_a_split_pattern_decides_as_python_does(pieces: list[str], glue: str) -> None:
    """Where the head occurs once the pair's verdict is Python's; where it occurs more often the pair never
    matches what Python does not (the difference the output's header notes)."""
    command = glue.join(pieces)
    for original in _tier_patterns():
        head, tail = split_lookahead(original)
        if tail is None:
            continue
        expected = re.search(original, command, re.IGNORECASE) is not None
        (found,) = _split_verdicts(to_re2_pattern(original), [command])
        if len(re.findall(head, command, re.IGNORECASE)) <= 1:
            assert found == expected, (original, command)
        else:
            assert expected or not found, (original, command)


def test_re2_translation_keeps_pythons_meaning_and_refuses_what_re2_lacks() -> None:
    """A repetition over 1,000 is refused too: Go's ``regexp/syntax`` (CEL's ``matches()``, Rego's ``regex.match``)
    rejects it, where the Rust engine these tests run accepts it (eight tier patterns wrote ``{0,1024}`` to
    ``{0,4096}`` and every policy carrying them would have been refused by the API server)."""
    assert to_re2(r"a{0,1000}\{0,2048\}") == "(?i)a{0,1000}\\{0,2048\\}"
    assert to_re2("a$") == "(?i)a(?:\\n?\\z)"
    assert _cel_matches(to_re2("torchrun( |$)"), ["torchrun\n", "torchrun\nx", "torchrun"]) == [True, False, True]
    assert _cel_matches(to_re2(r"a\sb"), ["a\u00a0b", "a\u2003b", "a-b"]) == [True, True, False]
    assert _cel_matches(to_re2(r"[=\s]x"), ["=x", "\u3000x", "yx"]) == [True, True, False]
    assert to_re2("x", ignore_case=False) == "x"
    assert _cel_matches(to_re2(r"\u00e9t\U0001F600"), ["\u00c9t\U0001f600", "et"]) == [True, False]
    for refused in (
        "a(?=b)",
        "(?<!a)b",
        r"(a)\1",
        "a*+",
        "(?>a)",
        "(?#c)a",
        r"[\S]",
        "a{,3}",
        r"\N{BULLET}",
        "a{0,1024}",
    ):
        with pytest.raises(UnsupportedPattern):
            to_re2(refused)
    with pytest.raises(UnsupportedPattern):
        glob_to_re2("nvidia.com/[ab]")


@given(
    st.sampled_from(("nvidia.com/gpu", "nvidia.com/mig-*", "amd.com/gpu", "gpu.intel.com/*", "a?c")),
    st.text("nvidia.com/gpuig-1*?abc", max_size=20),
)
@settings(max_examples=200, deadline=None)
def test_globs_read_as_fnmatch_reads_them(glob: str, name: str) -> None:
    assert _cel_matches(glob_to_re2(glob), [name]) == [Globs([glob]).match(name)]


@given(st.text(" \t+-0123456789xXaAfF18", max_size=8))
@settings(max_examples=300, deadline=None)
def test_nccl_shm_disable_pattern_reads_values_as_nccl_does(value: str) -> None:
    assert _cel_matches(K.nccl_disables, [value]) == [disables_shm(value)]


@given(
    st.one_of(
        st.text("0123456789.+-eE _'\"m", max_size=7),
        st.sampled_from(
            ("1", "0", "2", "0.5", "1e3", "0e1", "500m", "'1'", "1_0", "1_", "_1", ".", "1.", ".5", "inf", "nan")
        ),
        st.sampled_from(("+1", "-1", "\u00a01 ", "\" '1' \"", "1 '", "0.0", "00010", "1e-3", "\u00b2")),
    )
)
@settings(max_examples=300, deadline=None)
def test_positive_count_pattern_reads_counts_as_the_extractor_does(value: str) -> None:
    """Drawn values, and the edges: signs, blanks Python strips (no-break space), quotes with blanks inside,
    zeros, a non-ASCII digit."""
    try:
        expected = positive_count(value)
    except OverflowError:
        return
    if re.search(r"[eE][+-]?[0-9]{3}", value):
        return  # 1e-400 is 0.0 and 1e400 inf to float(): no count is written so, and the pattern says positive
    assert _cel_matches(K.positive_count, [value]) == [expected], value


def test_the_kubernetes_cel_functions_the_engine_provides_behave_as_documented() -> None:
    context = cel.Context(functions=engines.K8S_FUNCTIONS)
    cases = {
        "['hello', 'mellow'].join(' ')": "hello mellow",
        "['a', 'b'].join()": "ab",
        "'hello hello'.split(' ')": ["hello", "hello"],
        "'hello mellow'.lastIndexOf('ello')": 7,
        "'abc'.lastIndexOf('z')": -1,
        "'tacocat'.substring(4)": "cat",
        "'tacocat'.substring(0, 4)": "taco",
        "[1, 2, 3].sum()": 6,
        "quantity('1Gi').asInteger()": 2**30,
        "quantity('1.5Gi').asInteger()": 3 * 2**29,
        "quantity('16G').asInteger()": 16 * 10**9,
        "quantity('1e3').asInteger()": 1000,
        "quantity('500m').isInteger()": False,
        "quantity('2').isInteger()": True,
    }
    for expression, expected in cases.items():
        assert cel.evaluate(expression, context) == expected, expression
    for failing in ("'abc'.substring(2, 9)", "quantity('500m').asInteger()", "quantity('12 apples').isInteger()"):
        with pytest.raises(RuntimeError):
            cel.evaluate(failing, context)


def _kyverno_schema() -> dict[str, Any]:
    return json.loads(gzip.decompress((SCHEMAS / "kyverno-mutatingpolicy-v1beta1.json.gz").read_bytes()))


@pytest.mark.parametrize("options", [Options(8 * 2**30), Options(2**30, deny=True, exclude_namespaces=("ml", "ci"))])
def test_the_manifests_fit_the_kubernetes_kyverno_and_gatekeeper_schemas(options: Options) -> None:
    docs = documents(K, ("mutating", "kyverno", "validating", "gatekeeper"), options)
    kinds = [d["kind"] for d in docs]
    assert kinds == [
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "MutatingPolicy",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "ConstraintTemplate",
        CONSTRAINT_KIND,
    ]
    for doc in docs:
        if doc["apiVersion"].startswith("admissionregistration.k8s.io/"):
            kubernetes_validate.validate(doc, "1.34.0", strict=True)  # raises on any error
    jsonschema.validate(docs[2], _kyverno_schema())
    template = json.loads((SCHEMAS / "gatekeeper-constrainttemplate-v1.json").read_text())
    jsonschema.validate(docs[5], template)
    assert docs[5]["metadata"]["name"] == CONSTRAINT_KIND.lower()
    jsonschema.validate(docs[6]["spec"]["match"], json.loads((SCHEMAS / "gatekeeper-match.json").read_text()))
    assert docs[6]["spec"]["enforcementAction"] == ("deny" if options.deny else "warn")
    assert docs[4]["spec"]["validationActions"] == (["Deny", "Audit"] if options.deny else ["Warn", "Audit"])
    # a broken document is refused: the validation above can fail
    broken = dict(docs[3], spec={**docs[3]["spec"], "failurePolicy": 3})
    with pytest.raises(kubernetes_validate.utils.ValidationError):
        kubernetes_validate.validate(broken, "1.34.0", strict=True)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**docs[2], "spec": {**docs[2]["spec"], "mutations": "x"}}, _kyverno_schema())


def _policy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_shmlint("policy", *args, cwd=cwd)


def test_the_command_prints_the_mutating_policy_by_default_with_how_to_install_dry_run_and_roll_back(
    tmp_path: Path,
) -> None:
    result = _policy(cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    docs = list(yaml.safe_load_all(result.stdout))
    assert docs == documents(K, ("mutating",), Options(8 * 2**30))  # the YAML reads back as what was tested
    for word in ("install:", "dry run:", "--dry-run=server", "roll back:"):
        assert word in result.stdout
    help_text = _policy("--help").stdout
    for word in ("kubectl delete constrainttemplate", "enforcementAction", "--dry-run=server", "kyverno apply"):
        assert word in help_text


def test_the_command_takes_size_namespaces_deny_configuration_and_output(tmp_path: Path) -> None:
    out = tmp_path / "p.yaml"
    result = _policy(
        "all", "--shm-size", "2g", "--deny", "--exclude-namespace", "ml", "--output", str(out), cwd=tmp_path
    )
    assert result.returncode == 0 and result.stdout == "", result.stderr
    docs = list(yaml.safe_load_all(out.read_text()))
    assert len(docs) == 7
    assert f"{2 * 2**30}" in json.dumps(docs[0]["spec"]["variables"])
    assert docs[1]["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][1]["values"] == ["ml"]
    bad = _policy("--shm-size", "lots", cwd=tmp_path)
    assert bad.returncode == 2 and "is not a size" in bad.stderr
    config = tmp_path / "shmlint.yaml"
    config.write_text("shm-images: ['(^|/)mytrainer$']\n")
    result = _policy("validating", "--config", str(config), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "mytrainer" in result.stdout and "configured as needs" in result.stdout
    config.write_text("shm-images: ['trainer(?=x)']\n")
    refused = _policy("--config", str(config), cwd=tmp_path)
    assert refused.returncode == 2 and "cannot be written for an admission policy" in refused.stderr, refused.stderr


def test_every_map_literal_value_is_dyn_as_the_api_servers_homogeneous_literals_require() -> None:
    """Kubernetes compiles CEL with cel.HomogeneousAggregateLiterals(): a map literal of a string and a boolean is
    a type error there, though this test engine (no type checker) would run it."""
    docs = documents(K, ("mutating", "validating"), Options(2**30))
    expressions = [v["expression"] for d in docs if "variables" in d.get("spec", {}) for v in d["spec"]["variables"]]
    entries = [m for e in expressions for m in re.finditer(r"'[A-Za-z0-9]+': (?P<value>.{0,4})", e)]
    assert len(entries) > 100
    assert all(m.group("value") == "dyn(" for m in entries), [
        m.group(0) for m in entries if m.group("value") != "dyn("
    ][:5]


def test_configured_patterns_reach_both_policies_and_a_backtick_does_not_break_the_rego() -> None:
    from shmlint.policy import cel as policy_cel
    from shmlint.policy import rego as policy_rego
    from shmlint.settings import Settings

    knowledge = export(Settings(shm_images=("(^|/)my`trainer$",), shm_free_commands=("^idle( |$)",)))
    assert knowledge.software[0].images == (Re2Pattern("(?i)(^|/)my`trainer(?:\\n?\\z)"),)
    pod = {
        "metadata": {"name": "p"},
        "spec": {
            "containers": [{"name": "c", "image": "reg/my`trainer:1", "resources": {"limits": {"amd.com/gpu": "1"}}}]
        },
    }
    rego = engines.RegoPolicy(policy_rego.module(knowledge))
    (violation,) = rego.query(pod, "data.shmlint.violation")
    assert violation["msg"].startswith("SHM001 missing-shm (error)") and "configured as needs" in violation["msg"]
    policy = engines.CelPolicy([{"name": n, "expression": e} for n, e in policy_cel.variables(knowledge)])
    (finding,) = policy.bind(pod)["findings"]
    assert finding["SHM001"] and finding["what"] == "configured as needs"


def test_the_command_takes_the_undecided_setting_from_the_option_or_the_configuration(tmp_path: Path) -> None:
    """Validating targets report SHM001 on unknown software only with show or strict (as check lists it); the
    output's header notes the patterns exported as a head and an unless pattern."""
    from shmlint.settings import Settings

    def generated(*args: str) -> str:
        result = _policy(*args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert "negative lookahead" in result.stdout.split("apiVersion")[0]
        docs = list(yaml.safe_load_all(result.stdout))
        mode = args[args.index("--undecided") + 1] if "--undecided" in args else configured
        assert docs == documents(export(Settings(undecided=mode)), args[:1], Options(8 * 2**30))
        return json.dumps(docs)

    configured = "summary"
    default = generated("validating")
    assert "whether its software" not in default and "missing-shm (warning)" not in default
    strict = generated("validating", "--undecided", "strict")
    assert "missing-shm (warning): " in strict and "whether its software" in strict
    (tmp_path / ".shmlint.yaml").write_text("undecided: show\n")
    configured = "show"
    shown = generated("gatekeeper")
    assert "missing-shm (info): " in shown and "whether its software" in shown
    assert _policy("--undecided", "maybe", cwd=tmp_path).returncode == 2


def test_the_prefilter_alternations_hold_every_pattern_within_their_weight() -> None:
    """One alternation of every command pattern outgrew the 10 MB program a Rust regex engine compiles: the
    patterns are split, each group within ``ALTERNATION_WEIGHT`` (a pattern heavier alone is a group of its own),
    and together they hold every entry's pattern once, in order."""
    from shmlint.policy.knowledge import ALTERNATION_WEIGHT, _weight, alternations, export

    k = export()
    for field in ("commands", "images", "image_tags"):
        heads = [f"(?:{p.head})" for entry in k.software for p in getattr(entry, field)]
        groups = alternations(k, field)
        assert "|".join(groups) == "|".join(heads)
        for group in groups:  # its weight, and the 5 characters of ``|(?:)`` around each pattern
            assert group in heads or _weight(group) <= ALTERNATION_WEIGHT + 5 * group.count("(?:"), group
    assert len(alternations(k, "commands")) > 1
