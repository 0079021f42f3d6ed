"""``shmlint policy``: the generated CEL and Rego, run by real engines on every pod of the fixtures, judge as
``shmlint check`` judges the same pod; the mutation leaves no SHM001; the manifests fit their schemas."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from shmlint.policy import cel as policy_cel
from shmlint.policy.knowledge import export
from shmlint.policy.manifests import Options, documents

if os.environ.get("CI") == "true":  # CI installs .[test]: there the engines must run, not skip
    from tests import policy_engines as engines
else:
    engines = pytest.importorskip(
        "tests.policy_engines",
        reason="the policy engines (common-expression-language, hobofan-regorus) are not installed: pip install -e .[test]",
    )

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
CODES = ("SHM001", "SHM003", "SHM007", "SHM008", "SHM012", "SHM013")
SIZE = 8 * 2**30


@cache
def knowledge():  # type: ignore[no-untyped-def]
    return export()


@cache
def pods() -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(engines.fixture_pods(FIXTURES))


def _shmlint(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "shmlint", *args],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ,
    )


def _linter_verdicts(folder: Path, pods: list[dict[str, Any]]) -> dict[str, set[tuple[str, str, str]]]:
    """(code, severity, workload) of the pod rules' findings, per pod name, from one `shmlint check` run."""
    for pod in pods:
        (folder / f"{pod['metadata']['name']}.yaml").write_text(yaml.safe_dump(pod, sort_keys=False), encoding="utf-8")
    result = _shmlint("check", "--format", "json", "--exit-zero", "--no-respect-gitignore", ".", cwd=folder)
    assert result.returncode == 0, result.stderr
    found: dict[str, set[tuple[str, str, str]]] = {pod["metadata"]["name"]: set() for pod in pods}
    messages: dict[tuple[str, str, str], str] = {}
    for finding in json.loads(result.stdout)["findings"]:
        if finding["code"] in CODES:
            name = Path(finding["path"]).stem
            key = (finding["code"], finding["severity"], finding["workload"])
            found[name].add(key)
            messages[(name, *key)] = finding["message"]
    _linter_verdicts.messages = messages  # type: ignore[attr-defined]
    return found


_HEAD = re.compile(r"^(SHM\d{3}) (\S+) \((\w+)\): ")


def _skeleton(message: str) -> str:
    """The message without what it puts in parentheses (the evidence, which the two tools word differently)."""
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
    return "".join(out)


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


def _compare(tmp_path: Path, found: list[tuple[str, dict[str, Any]]]) -> tuple[list[str], int]:
    """Mismatches between the policies' verdicts (CEL and Rego) and `shmlint check`'s on the same pods, and how
    many pods the linter flags."""
    linter = _linter_verdicts(tmp_path, [pod for _, pod in found])
    messages = _linter_verdicts.messages  # type: ignore[attr-defined]
    docs = documents(knowledge(), ("validating", "gatekeeper"), Options(SIZE))
    cel_policy = engines.CelPolicy(docs[0]["spec"]["variables"])
    validations = policy_cel.validations(knowledge())
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


def test_every_pod_of_the_fixtures_gets_the_linters_verdict_from_cel_and_rego(tmp_path: Path) -> None:
    found = list(pods())
    assert len(found) >= 40, f"only {len(found)} pods found in the fixtures"
    mismatches, flagged = _compare(tmp_path, found)
    print(f"{len(found)} fixture pods checked, {flagged} with findings of the pod rules")
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    assert flagged >= 15


@pytest.mark.slow
def test_drawn_pods_get_the_linters_verdict_from_cel_and_rego(tmp_path: Path) -> None:
    """Pods combining every value the rules turn on (images and commands of each tier, accelerators, counts,
    device variables, NCCL_SHM_DISABLE, volumes, mounts, hostIPC, runtimes, annotations), seeded."""
    found = [(pod["metadata"]["name"], pod) for pod in engines.drawn_pods(150, seed=30)]
    mismatches, flagged = _compare(tmp_path, found)
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    assert flagged >= 50


def _mutate(policy: Any, expression: str, pod: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the apply configuration, the pod after server-side apply merged it)."""
    values = policy.bind(pod)
    patch = policy.evaluate(expression, pod, values)
    return patch, engines.server_side_apply(pod, patch)


def _volumes(pod: dict[str, Any]) -> list[dict[str, Any]]:
    return pod["spec"].get("volumes", [])


@pytest.mark.slow
def test_the_mutation_leaves_no_missing_shm_and_never_touches_what_a_pod_has(tmp_path: Path) -> None:
    found = [pod for _, pod in pods()] + engines.drawn_pods(150, seed=30)
    spec = documents(knowledge(), ("mutating",), Options(SIZE))[0]["spec"]
    policy = engines.CelPolicy(spec["variables"])
    expression = engines.untyped(spec["mutations"][0]["applyConfiguration"]["expression"])
    (tmp_path / "before").mkdir()
    before = _linter_verdicts(tmp_path / "before", found)
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
            limits = [
                engines._as_integer(engines._quantity(c["resources"]["limits"]["memory"]))
                for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", [])
                if "memory" in c.get("resources", {}).get("limits", {})
            ]
            assert size == (min(SIZE, min(limits) // 2 // 2**20 * 2**20) if limits else SIZE)
            again, _ = _mutate(policy, expression, after)
            assert again == {}, "a mutated pod is mutated again"
        mutated.append(after)
    (tmp_path / "after").mkdir()
    after_verdicts = _linter_verdicts(tmp_path / "after", mutated)
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
    result = _shmlint("validate", "--jobs", "2", "--timeout", "60", "--max-memory", "1Gi", ".", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "4 probe(s), 0 disagreement(s)" in result.stderr, result.stdout + result.stderr


def test_the_corpus_pods_get_the_linters_verdict_from_cel_and_rego(tmp_path: Path, corpus: Path) -> None:
    """The shared corpus's real manifests (Kubernetes and rendered Helm charts) as admitted pods."""
    found = [
        (where, pod) for folder in ("k8s", "helm-template") for where, pod in engines.fixture_pods(corpus / folder)
    ]
    assert len(found) >= 50, len(found)
    mismatches, flagged = _compare(tmp_path, found)
    assert not mismatches, "\n".join(mismatches[:40]) + f"\n({len(mismatches)} mismatches)"
    assert flagged >= 10
