"""Fuzz target for the kustomization graph walker (it reads hostile
kustomizations from any checked tree).

Generated graphs of kustomizations that refer to each other through every key kustomize follows, with one remote
reference planted (or not) in a random kustomization, under a random key, spelled in a random way: any letter case,
YAML escapes, ``!!binary``, a ``key=`` prefix. Invariants: the walker never raises; it blocks exactly when a planted
reference is reachable outside data-only keys; without a block it names every reachable kustomization once; and it
stays within its bounds on cycles, aliases and arbitrary text. Fixed examples (``derandomize``) unless
``SHMLINT_FUZZ_RANDOM=1``; ``SHMLINT_FUZZ_SCALE`` multiplies the counts.
"""

from __future__ import annotations

import base64
import os
import tempfile
import time
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shmlint.render.graph import MAX_KUSTOMIZATIONS, is_remote, walk

SCALE = float(os.environ.get("SHMLINT_FUZZ_SCALE", "1"))
FUZZ = settings(
    max_examples=int(150 * SCALE),
    deadline=None,
    derandomize=not os.environ.get("SHMLINT_FUZZ_RANDOM"),
    database=None,
    suppress_health_check=list(HealthCheck),
)
PLACEHOLDER = "PLANTED-REFERENCE"
#: where a reference can sit in a kustomization, as (top-level key, how to wrap the value)
PLACES = {
    "resources": lambda v: [v],
    "bases": lambda v: [v],
    "components": lambda v: [v],
    "generators": lambda v: [v],
    "transformers": lambda v: [v],
    "crds": lambda v: [v],
    "configurations": lambda v: [v],
    "patchesStrategicMerge": lambda v: [v],
    "patches": lambda v: [{"path": v, "target": {"kind": "Deployment"}}],
    "patchesJson6902": lambda v: [{"path": v, "target": {"kind": "Pod", "name": "x"}}],
    "replacements": lambda v: [{"path": v}],
    "openapi": lambda v: {"path": v},
    "configMapGenerator": lambda v: [{"name": "c", "files": [v]}],
    "secretGenerator": lambda v: [{"name": "s", "envs": [v]}],
    "someFutureField": lambda v: {"nested": [{"deeper": v}]},
}
DATA_PLACES = {
    "commonAnnotations": lambda v: {"source": v},
    "labels": lambda v: [{"pairs": {"repo": v}}],
    "configMapGenerator": lambda v: [{"name": "c", "literals": [f"URL={v}"]}],
}
FOLLOWED = ("resources", "bases", "components", "transformers")


def spell(url: str, how: str) -> str:
    """A YAML scalar that parses to ``url`` (or a value kustomize would fetch), written in one of many ways."""
    if how == "escape":
        return '"' + "".join(f"\\x{ord(c):02x}" if c in "ht" else c for c in url) + '"'
    if how == "unicode-escape":
        return '"' + "".join(f"\\u{ord(c):04x}" if c == "p" else c for c in url) + '"'
    if how == "binary":
        return "!!binary " + base64.b64encode(url.encode()).decode()
    if how == "single-quoted":
        return f"'{url}'"
    if how == "key-prefixed":
        return f"k={url}"
    return url


SCHEMES = st.sampled_from(["http", "https", "git", "ssh", "file", "s3"]).flatmap(
    lambda s: st.tuples(*[st.sampled_from([c.lower(), c.upper()]) for c in s]).map("".join)
)
REMOTES = st.one_of(
    st.builds(lambda s, p: f"{s}://127.0.0.1:9/{p}", SCHEMES, st.sampled_from(["x.yaml", "repo//sub?ref=v1", ""])),
    st.sampled_from(
        [
            "github.com/org/repo/deploy?ref=v1",
            "GitHub.com/org/repo",
            "git@github.com:org/repo.git",
            "gh:org/repo",
            "git::https://example.com/r.git",
            "example.com/org/repo//base",
        ]
    ),
)
GRAPHS = st.integers(1, 6).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from(FOLLOWED)), max_size=12),
    )
)


@st.composite
def plans(draw: st.DrawFn) -> dict:
    count, edges = draw(GRAPHS)
    planted = draw(st.none() | st.integers(0, count - 1))
    data_only = draw(st.booleans())
    places = DATA_PLACES if data_only else PLACES
    return {
        "count": count,
        "edges": edges,
        "planted": planted,
        "data_only": data_only,
        "place": draw(st.sampled_from(sorted(places))),
        "remote": draw(REMOTES),
        "how": draw(st.sampled_from(["plain", "escape", "unicode-escape", "binary", "single-quoted", "key-prefixed"])),
    }


def build(root: Path, plan: dict) -> None:
    for index in range(plan["count"]):
        folder = root / f"k{index}"
        folder.mkdir()
        (folder / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
        document: dict = {"resources": ["cm.yaml"]}
        for source, target, key in plan["edges"]:
            if source == index:
                document.setdefault(key, []).append(f"../k{target}")
        if plan["planted"] == index:
            places = DATA_PLACES if plan["data_only"] else PLACES
            wrapped = places[plan["place"]](PLACEHOLDER)
            if plan["place"] in document and isinstance(wrapped, list):
                document[plan["place"]] += wrapped
            else:
                document[plan["place"]] = wrapped
        text = yaml.safe_dump(document, sort_keys=False)
        if plan["planted"] == index:
            literal = plan["data_only"] or "URL=" in text  # data is written plainly; a literal is one scalar
            text = text.replace(PLACEHOLDER, plan["remote"] if literal else spell(plan["remote"], plan["how"]))
        (folder / "kustomization.yaml").write_text(text)


def reachable(plan: dict) -> set[int]:
    seen, stack = {0}, [0]
    while stack:
        current = stack.pop()
        for source, target, _ in plan["edges"]:
            if source == current and target not in seen:
                seen.add(target)
                stack.append(target)
    return seen


@FUZZ
@given(plans())
def test_the_walker_blocks_exactly_the_graphs_that_name_something_remote(plan: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build(root, plan)
        graph = walk(root / "k0", 1 << 20)
        planted = plan["planted"] is not None and plan["planted"] in reachable(plan) and not plan["data_only"]
        assert (graph.blocker is not None) == planted, (graph, plan)
        if not planted:
            assert sorted(p.name for p in graph.folders) == sorted(f"k{i}" for i in reachable(plan))


def test_a_cycle_is_read_once() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        build(root, {"count": 2, "edges": [(0, 1, "resources"), (1, 0, "bases")], "planted": None, "data_only": False})
        assert [p.name for p in walk(root / "k0", 1 << 20).folders] == ["k0", "k1"]


def test_a_chain_longer_than_the_bound_blocks() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        count = MAX_KUSTOMIZATIONS + 5
        build(
            root,
            {
                "count": count,
                "edges": [(i, i + 1, "resources") for i in range(count - 1)],
                "planted": None,
                "data_only": False,
            },
        )
        graph = walk(root / "k0", 1 << 20)
        assert graph.blocker is not None and len(graph.folders) == MAX_KUSTOMIZATIONS


def test_aliases_that_multiply_nodes_stay_cheap() -> None:
    """A billion-laughs kustomization: each node is looked at once however many aliases point at it."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 30)]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "kustomization.yaml").write_text("\n".join(lines) + "\n")
        started = time.monotonic()
        assert walk(Path(folder), 1 << 20).blocker is None
        assert time.monotonic() - started < 2


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("abc:/-[]{}&*!|>'\"\\ \n\t#%@`,?=.hHtTpP0123456789")), max_size=300))
def test_the_walker_never_raises_on_any_text(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "kustomization.yaml").write_text(text)
        graph = walk(Path(folder), 1 << 20)
        assert graph.folders and graph.folders[0] == Path(folder)


@FUZZ
@given(REMOTES)
def test_every_remote_spelling_is_recognised(value: str) -> None:
    assert is_remote(value) or value.startswith("example.com/")  # host-like paths are judged against the disk
