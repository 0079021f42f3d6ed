"""``shmlint policy``: the generated CEL and Rego, run by real engines on every pod of the fixtures, judge as
``shmlint check`` judges the same pod; the mutation leaves no SHM001; the manifests fit their schemas."""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from shmlint.policy import cel as policy_cel
from shmlint.policy.knowledge import export
from shmlint.policy.manifests import Options, documents
from shmlint.settings import UNDECIDED, Settings
from tests.support import ROOT, run_shmlint

if os.environ.get("CI") == "true":  # CI installs .[test]: there the engines must run, not skip
    from tests import policy_engines as engines
else:
    engines = pytest.importorskip(
        "tests.policy_engines",
        reason="the policy engines (common-expression-language, hobofan-regorus) are not installed: pip install -e .[test]",
    )

FIXTURES = ROOT / "fixtures"
CODES = ("SHM001", "SHM003", "SHM007", "SHM008", "SHM012", "SHM013")
SIZE = 8 * 2**30
#: pods drawn for the parity and mutation tests: each costs the engines about 0.85 s (the Rust CEL and Rego crates
#: compile a ``matches()`` pattern at each evaluation); 50 seeded draws hold every image, command, resources, env and
#: volume (``test_the_drawn_pods_hold_every_value_the_rules_turn_on``)
DRAWN = 50


@cache
def knowledge(undecided: str = "summary"):  # type: ignore[no-untyped-def]
    return export(Settings(undecided=undecided))


@cache
def pods() -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(engines.fixture_pods(FIXTURES))


def _linter_verdicts(folder: Path, pods: list[dict[str, Any]], undecided: str) -> dict[str, set[tuple[str, str, str]]]:
    """(code, severity, workload) of the pod rules' findings, per pod name, from one `shmlint check` run with the
    given ``--undecided``."""
    for pod in pods:
        (folder / f"{pod['metadata']['name']}.yaml").write_text(yaml.safe_dump(pod, sort_keys=False), encoding="utf-8")
    result = run_shmlint(
        "check",
        "--format",
        "json",
        "--exit-zero",
        "--no-respect-gitignore",
        "--undecided",
        undecided,
        ".",
        cwd=folder,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    found: dict[str, set[tuple[str, str, str]]] = {pod["metadata"]["name"]: set() for pod in pods}
    messages: dict[tuple[str, str, str], str] = {}
    for finding in json.loads(result.stdout)["findings"]:
        if finding["code"] in CODES:
            name = Path(finding["path"]).stem
            key = (finding["code"], finding["severity"], finding["workload"])
            found[name].add(key)
            messages[(name, *key)] = finding["detail"] or finding["message"]  # the long explanation, as policies say it
    _linter_verdicts.messages = messages  # type: ignore[attr-defined]
    return found


_HEAD = re.compile(r"^(SHM\d{3}) (\S+) \((\w+)\): ")


def _skeleton(message: str) -> str:
    """The message without what it puts in parentheses (the evidence, which the two tools word differently, and
    what the linter says of the repository's files, which an admission policy never sees: one group more)."""
    out, depth = [], 0
    for char in message:
        if char == "(":
            depth += 1
            if depth == 1:
                out.append("(...)")
        elif char == ")":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out).replace("(...) (...)", "(...)")


def _cel_verdict(policy: Any, validations: list[Any], pod: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    values = policy.bind(pod)
    verdict = {}
    for validation in validations:
        if policy.evaluate(validation.expression, pod, values):
            continue  # the API server reads messageExpression only for a failed validation
        message = policy.evaluate(validation.message, pod, values)
        assert message, validation.code
        for text in filter(None, message.split(policy_cel.SEPARATOR)):
            code, _, severity = _HEAD.match(text).groups()
            verdict[(code, severity, _workload(text))] = _HEAD.sub("", text)
    return verdict


def _workload(text: str) -> str:
    body = _HEAD.sub("", text)
    match = re.match(r'(Pod/\S+, (?:init )?container "[^"]*")', body)
    assert match, body
    return match.group(1)


def _rego_verdict(policy: Any, pod: dict[str, Any]) -> dict[tuple[str, str, str], str]:
    verdict = {}
    for violation in policy.query(pod, "data.shmlint.violation") or []:
        text = violation["msg"]
        code, _, severity = _HEAD.match(text).groups()
        assert violation["details"]["code"] == code
        verdict[(code, severity, _workload(text))] = _HEAD.sub("", text)
    return verdict


def _compare(
    tmp_path: Path, found: list[tuple[str, dict[str, Any]]], undecided: str = "summary"
) -> tuple[list[str], int]:
    """Mismatches between the validating policies' verdicts (CEL and Rego, generated with ``undecided``) and
    `shmlint check`'s (run with the same ``--undecided``) on the same pods, and how many pods the linter flags."""
    linter = _linter_verdicts(tmp_path, [pod for _, pod in found], undecided)
    messages = _linter_verdicts.messages  # type: ignore[attr-defined]
    docs = documents(knowledge(undecided), ("validating", "gatekeeper"), Options(SIZE))
    cel_policy = engines.CelPolicy(docs[0]["spec"]["variables"])
    validations = policy_cel.validations(knowledge(undecided))
    rego_policy = engines.RegoPolicy(docs[2]["spec"]["targets"][0]["rego"])
    mismatches = []
    flagged = 0
    for where, pod in found:
        name = pod["metadata"]["name"]
        expected = linter[name]
        flagged += bool(expected)
        cel_found = _cel_verdict(cel_policy, validations, pod)
        rego_found = _rego_verdict(rego_policy, pod)
        for engine, verdict in (("CEL", cel_found), ("Rego", rego_found)):
            if set(verdict) != expected:
                mismatches.append(f"{where} ({name}) {engine}: policy {sorted(verdict)} != check {sorted(expected)}")
                continue
            for key, message in verdict.items():
                if _skeleton(message) != _skeleton(messages[(name, *key)]):
                    mismatches.append(
                        f"{where} {engine} message:\n  policy {message}\n  check  {messages[(name, *key)]}"
                    )
    return mismatches, flagged


@pytest.mark.slow
@pytest.mark.parametrize("undecided", ["summary", "strict"])  # "show" is "strict" at info: the drawn pods run "show"
def test_every_pod_of_the_fixtures_gets_the_linters_verdict_from_cel_and_rego(tmp_path: Path, undecided: str) -> None:
    found = list(pods())
    assert len(found) >= 40, f"only {len(found)} pods found in the fixtures"
    mismatches, flagged = _compare(tmp_path, found, undecided)
    print(f"{len(found)} fixture pods checked, {flagged} with findings of the pod rules")
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    assert flagged >= (15 if undecided == "summary" else 20)


def test_the_drawn_pods_hold_every_value_the_rules_turn_on() -> None:
    """``DRAWN`` seeded pods are enough to draw each image, command, resources, env and volume of the drawing."""
    found = engines.drawn_pods(DRAWN, seed=30)
    containers = [c for pod in found for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", [])]
    assert {c["image"] for c in containers} == set(engines.IMAGES)
    argv = {tuple(c.get("command", []) + c.get("args", [])) for c in containers}
    assert all(tuple(words) in argv for words in engines.COMMANDS)
    for values, key in ((engines.RESOURCES, "resources"), (engines.ENVS, "env")):
        assert all(any(c.get(key) == value for c in containers) for value in values if value), key
    assert all(any(v in pod["spec"].get("volumes", []) for pod in found) for v in engines.VOLUMES)


@pytest.mark.slow
def test_drawn_pods_get_the_linters_verdict_from_cel_and_rego(tmp_path: Path) -> None:
    """Pods combining every value the rules turn on (images and commands of each tier, accelerators, counts,
    device variables, NCCL_SHM_DISABLE, volumes, mounts, hostIPC, runtimes, annotations), seeded."""
    found = [(pod["metadata"]["name"], pod) for pod in engines.drawn_pods(DRAWN, seed=30)]
    mismatches, flagged = _compare(tmp_path, found, "show")
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    assert flagged >= 25


def _mutate(policy: Any, expression: str, pod: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the apply configuration, the pod after server-side apply merged it)."""
    values = policy.bind(pod)
    patch = policy.evaluate(expression, pod, values)
    return patch, engines.server_side_apply(pod, patch)


def _volumes(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return pod["spec"].get("volumes", [])


@pytest.mark.slow
def test_the_mutation_leaves_no_missing_shm_and_never_touches_what_a_pod_has(tmp_path: Path) -> None:
    found = [pod for _, pod in pods()] + engines.drawn_pods(DRAWN, seed=30)
    spec = documents(knowledge(), ("mutating",), Options(SIZE))[0]["spec"]
    policy = engines.CelPolicy(spec["variables"])
    expression = engines.untyped(spec["mutations"][0]["applyConfiguration"]["expression"])
    (tmp_path / "before").mkdir()
    before = _linter_verdicts(tmp_path / "before", found, "show")  # undecided findings too: the mutation sizes them
    mutated, changed = [], 0
    for pod in found:
        patch, after = _mutate(policy, expression, pod)
        flagged = any(code == "SHM001" for code, _, _ in before[pod["metadata"]["name"]])
        assert bool(patch) == flagged, (pod, patch)  # a change exactly where check reports SHM001
        if patch:
            changed += 1
            assert _volumes(after)[: len(_volumes(pod))] == _volumes(pod)  # what the pod had is kept as it was
            added = _volumes(after)[-1]
            size = int(added["emptyDir"]["sizeLimit"])
            limits = [  # of the containers given the volume: a sidecar's limit bounds nothing in it (SHM005)
                engines._as_integer(engines._quantity(c["resources"]["limits"]["memory"]))
                for c in after["spec"]["containers"] + after["spec"].get("initContainers", [])
                if "memory" in c.get("resources", {}).get("limits", {})
                and any(m.get("name") == added["name"] for m in c.get("volumeMounts", []))
            ]
            assert size == (min(SIZE, min(limits) // 2 // 2**20 * 2**20) if limits else SIZE)
            again, _ = _mutate(policy, expression, after)
            assert again == {}, "a mutated pod is mutated again"
        mutated.append(after)
    (tmp_path / "after").mkdir()
    after_verdicts = _linter_verdicts(tmp_path / "after", mutated, "show")
    left = {name: codes for name, codes in after_verdicts.items() if any(code == "SHM001" for code, _, _ in codes)}
    assert not left, left
    assert changed >= 40


@pytest.mark.slow
@pytest.mark.validation  # a real torch DataLoader (the validation extra)
def test_mutated_pods_pass_the_validation_suite(tmp_path: Path) -> None:
    """A real DataLoader in the /dev/shm each mutated container gets (bounded: the first four fixture pods the
    mutation changes, one probe each at most 60 s)."""
    spec = documents(knowledge(), ("mutating",), Options(SIZE))[0]["spec"]
    policy = engines.CelPolicy(spec["variables"])
    expression = engines.untyped(spec["mutations"][0]["applyConfiguration"]["expression"])
    chosen = []
    for _, pod in pods():
        patch, after = _mutate(policy, expression, pod)
        if patch and len(after["spec"]["containers"]) == 1 and not after["spec"].get("initContainers"):
            chosen.append(after)
        if len(chosen) == 4:
            break
    assert len(chosen) == 4
    for pod in chosen:
        (tmp_path / f"{pod['metadata']['name']}.yaml").write_text(yaml.safe_dump(pod), encoding="utf-8")
    result = run_shmlint(
        "validate", "--jobs", "2", "--timeout", "60", "--max-memory", "1Gi", ".", cwd=tmp_path, timeout=600
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^4 row\(s\), .* 0 disagreement\(s\)", result.stderr, re.MULTILINE), result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.parametrize("undecided", ["summary", "strict"])
def test_the_corpus_pods_get_the_linters_verdict_from_cel_and_rego(
    tmp_path: Path, corpus: Path, undecided: str
) -> None:
    """The shared corpus's real manifests (Kubernetes and rendered Helm charts) as admitted pods."""
    found = [
        (where, pod) for folder in ("k8s", "helm-template") for where, pod in engines.fixture_pods(corpus / folder)
    ]
    assert len(found) >= 50, len(found)
    mismatches, flagged = _compare(tmp_path, found, undecided)
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    # pods with a finding, so that the comparison is not only of clean pods: 6 in summary mode since a DeepSpeed
    # image on one GPU and a training runtime with no GPUs of its own are undecided (listed, not reported)
    assert flagged >= 5


def _gpu_pod(name: str, image: str, *command: str) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": image, "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    if command:
        container["command"] = list(command)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}}


@pytest.mark.slow
def test_undecided_pods_are_mutated_and_reported_only_when_the_setting_lists_them() -> None:
    """A GPU alone (software not known): the validating policies stay silent by default and warn with strict, as
    check lists it; the mutation sizes it either way. Software known not to use /dev/shm is never mutated."""
    unknown = _gpu_pod("unknown", "example.com/team/app:1")
    needs = _gpu_pod("needs", "nvcr.io/nvidia/tritonserver:24.08-vllm-python-py3")
    free = _gpu_pod("free", "busybox", "nvidia-smi")
    reported = {}
    for mode in UNDECIDED:
        docs = documents(knowledge(mode), ("validating", "gatekeeper", "mutating"), Options(SIZE))
        cel_policy = engines.CelPolicy(docs[0]["spec"]["variables"])
        rego_policy = engines.RegoPolicy(docs[2]["spec"]["targets"][0]["rego"])
        validations = policy_cel.validations(knowledge(mode))
        for pod in (unknown, needs, free):
            cel_found = {code for code, _, _ in _cel_verdict(cel_policy, validations, pod)}
            rego_found = {code for code, _, _ in _rego_verdict(rego_policy, pod)}
            assert cel_found == rego_found, (mode, pod)
            reported[(mode, pod["metadata"]["name"])] = {
                (code, severity) for code, severity, _ in _cel_verdict(cel_policy, validations, pod)
            }
        mutation = docs[4]["spec"]
        mutating = engines.CelPolicy(mutation["variables"])
        expression = engines.untyped(mutation["mutations"][0]["applyConfiguration"]["expression"])
        assert [bool(_mutate(mutating, expression, pod)[0]) for pod in (unknown, needs, free)] == [True, True, False]
    code = policy_cel.MISSING_SHM.code
    assert reported[("summary", "unknown")] == set()
    assert reported[("show", "unknown")] == {(code, "info")}
    assert reported[("strict", "unknown")] == {(code, "warning")}
    assert all(reported[(mode, "needs")] == {(code, "error")} for mode in UNDECIDED)
    assert all(reported[(mode, "free")] == set() for mode in UNDECIDED)


def _launcher_pod(name: str, command: list[str], gpus: int | str) -> dict[str, Any]:
    resources = {"limits": {"nvidia.com/gpu": gpus}} if gpus else {}
    container = {"name": "main", "image": "registry.example/team/train:1", "command": command, "resources": resources}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}}


def test_launchers_that_need_a_gpu_count_get_the_linters_verdict_from_cel_and_rego(tmp_path: Path) -> None:
    """Entries with ``min_devices`` (a launcher that starts one process per visible GPU): the policies count the
    GPUs as the linter does, on both sides of the count and with an uncounted request."""
    cases = [
        (["torchrun", "--nproc_per_node=gpu", "train.py"], 4),
        (["torchrun", "--nproc_per_node=gpu", "train.py"], 1),
        (["torchrun", "--nproc_per_node=$NGPU", "train.py"], 8),
        (["accelerate", "launch", "train.py"], 2),
        (["accelerate", "launch", "train.py"], 1),
        (["torchrun", "train.py", "--workers=0"], 1),
        (["mpirun", "-np", "2", "all_reduce_perf"], 2),
        (["mpirun", "-np", "1", "all_reduce_perf"], 1),
        # DeepSpeed by the processes its launcher starts, Ray by the object store it is told to hold
        (["deepspeed", "train.py"], 4),
        (["deepspeed", "train.py"], 1),
        (["deepspeed", "--num_gpus", "1", "train.py"], 4),
        (["deepspeed", "--num_gpus=$NGPU", "train.py"], 4),
        (["deepspeed", "--include", "localhost:0", "train.py"], 4),
        (["ray", "start", "--head", "--object-store-memory=20000000000"], 1),
        (["ray", "start", "--head"], 1),
    ]
    found = [
        (f"launcher-{i}", _launcher_pod(f"launcher-{i}", command, gpus)) for i, (command, gpus) in enumerate(cases)
    ]
    mismatches, flagged = _compare(tmp_path, found, "show")
    assert not mismatches, "\n".join(mismatches)
    assert flagged == len(cases) - 1  # the one-process torchrun without workers is free
