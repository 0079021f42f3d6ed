"""What makes a fix trustworthy, asserted the same way for fixtures, generated documents and the corpus.

- Kubernetes: every document (and every pod spec inside a CRD, wrapped as a Pod) that validated against the
  Kubernetes schema before the fix still validates after it.
- compose: a file that validated against the Compose Specification schema still does.
- shell: a script that passed ``bash -n`` still does.
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import Any

import yaml

K8S_VERSION = "1.30"
COMPOSE_SCHEMA = Path(__file__).resolve().parent.parent.parent / "shared" / "schemas" / "compose-spec.json"


def _documents(text: str) -> list[Any]:
    return [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]


def _pod_specs(document: Any) -> list[dict]:
    """Every mapping with a ``containers`` list, wherever a CRD keeps it."""
    found: list[dict] = []
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("containers"), list) and all(isinstance(c, dict) for c in node["containers"]):
                found.append(node)
                continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _k8s_valid(resource: dict) -> bool:
    import kubernetes_validate

    try:
        kubernetes_validate.validate(resource, K8S_VERSION, strict=True)
    except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError):
        return False
    except Exception:  # noqa: BLE001 - a malformed resource the validator chokes on is simply not valid
        return False
    return True


def _k8s_units(text: str) -> list[dict]:
    """Whole documents plus each pod spec wrapped as a Pod, so CRDs are validated where it matters."""
    units: list[dict] = []
    for document in _documents(text):
        if isinstance(document, dict):
            units.append(document)
            for spec in _pod_specs(document):
                units.append({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "probe"}, "spec": spec})
    return units


def assert_kubernetes_still_valid(before: str, after: str) -> int:
    """Returns how many units were validated both before and after (so callers can see it did something)."""
    old, new = _k8s_units(before), _k8s_units(after)
    assert len(old) <= len(new)
    checked = 0
    for index, unit in enumerate(old):
        if _k8s_valid(unit):
            checked += 1
            assert _k8s_valid(new[index]), f"fix broke Kubernetes schema validity of {new[index].get('kind')}"
    return checked


@functools.cache
def _compose_validator() -> Any:
    import jsonschema

    schema = json.loads(COMPOSE_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema)


def compose_valid(text: str) -> bool:
    documents = _documents(text)
    return len(documents) == 1 and _compose_validator().is_valid(documents[0])


def assert_compose_still_valid(before: str, after: str) -> bool:
    if not compose_valid(before):
        return False
    assert compose_valid(after), "fix broke compose schema validity"
    return True


def bash_ok(path: Path) -> bool:
    return subprocess.run(["bash", "-n", str(path)], capture_output=True, timeout=30).returncode == 0


def assert_bash_still_ok(tmp: Path, before: str, after: str) -> bool:
    original, fixed = tmp / "before.sh", tmp / "after.sh"
    original.write_text(before, encoding="utf-8", errors="surrogateescape")
    fixed.write_text(after, encoding="utf-8", errors="surrogateescape")
    if not bash_ok(original):
        return False
    assert bash_ok(fixed), "fix broke bash -n"
    return True
