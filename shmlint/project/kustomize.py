"""Kustomize's fragments: the files a kustomization applies as patches, and the patches and resources a component
adds, each with the kustomizations that use it.

Such a file is not an object that runs: a strategic-merge patch that adds a GPU container to a Deployment reads as
a Deployment, but its /dev/shm is the merged object's (a volume in the base, a mount in another patch). It is
judged in the rendered output of the overlays that use it, and where that is not rendered it is named in the
report, not judged alone. A component is rendered only through the overlays that name it (alone, kustomize has
nothing to patch). Read from the kustomizations the runner names (those among the checked files and, for a file
named on its own, as a pre-commit hook names a changed patch, the one beside it); bounded in files and bytes, never
fetched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from shmlint.discover import KUSTOMIZATION_NAMES
from shmlint.named_tuple import NamedTuple
from shmlint.source import InputError, read_bytes
from shmlint.visible import visible

#: kustomizations read for one run (those checked, and the components they name)
MAX_KUSTOMIZATIONS = 1_000
#: the most a kustomization file may hold to be read here (real ones are a few KB)
MAX_BYTES = 256 * 1024
#: keys whose entries name patch files (as a string, or a mapping's ``path``)
PATCH_KEYS = ("patches", "patchesStrategicMerge", "patchesJson6902")


class Kustomization(NamedTuple):
    """What one kustomization file says about the files around it (paths normalised, relative as discovered)."""

    folder: str
    component: bool  # ``kind: Component``: rendered only through the kustomizations that name it
    patches: tuple[str, ...]  # local files it applies as patches
    resources: tuple[str, ...]  # local files and folders it names as resources
    components: tuple[str, ...]  # component folders it names


class Fragments(NamedTuple):
    """The run's kustomize fragments: each file with the kustomization folders whose output completes it, and the
    component folders (never rendered alone)."""

    owners: tuple[tuple[str, tuple[str, ...]], ...] = ()
    components: frozenset[str] = frozenset()

    def of(self, path: str) -> tuple[str, ...]:
        """The folders of the kustomizations that complete the file, or () when it is not a fragment."""
        if not self.owners:
            return ()
        return dict(self.owners).get(os.path.normpath(path), ())

    def note(self, path: str) -> str | None:
        """What the report says of a fragment whose overlays were not rendered (a rendered one is judged in their
        output, and never checked on its own): never judged alone, never silent. None for any other file."""
        owners = self.of(path)
        if not owners:
            return None
        named = ", ".join(f"'{visible(owner)}'" for owner in owners)
        return (
            f"a kustomize patch or component file used by the kustomization in {named}: not judged on its own, "
            "only in that kustomization's rendered output, which was not rendered"
        )


def find_fragments(folders: Iterable[str]) -> Fragments:
    """The fragments the kustomizations in ``folders`` (and the components they name) apply."""
    read: dict[str, Kustomization] = {}
    queue = list(folders)
    while queue and len(read) < MAX_KUSTOMIZATIONS:
        folder = queue.pop(0)
        if folder in read:
            continue
        found = read_kustomization(folder)
        if found is not None:
            read[folder] = found
            queue += [c for c in found.components if c not in read]
    return _owners(read)


def _owners(read: Mapping[str, Kustomization]) -> Fragments:
    users: dict[str, list[str]] = {}
    owners: dict[str, list[str]] = {}
    resources = {r for k in read.values() if not k.component for r in k.resources}
    for k in read.values():
        for component in k.components:
            users.setdefault(component, []).append(k.folder)
    for k in read.values():
        if k.component:
            files, using = (*k.patches, *k.resources), users.get(k.folder) or [k.folder]
        else:
            files, using = k.patches, [k.folder]
        for path in files:
            if path not in resources:  # a real resource elsewhere stays a workload of its own
                owners.setdefault(path, []).extend(u for u in using if u not in owners.get(path, ()))
    components = frozenset(k.folder for k in read.values() if k.component)
    return Fragments(tuple((path, tuple(found)) for path, found in sorted(owners.items())), components)


def _kustomization_file(folder: str) -> str | None:
    for name in KUSTOMIZATION_NAMES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path
    return None


def read_kustomization(folder: str) -> Kustomization | None:
    """The kustomization in ``folder``, or None when there is none or it cannot be read as one (it is then
    reported where it is checked or rendered, not here)."""
    import yaml

    path = _kustomization_file(folder)
    if path is None:
        return None
    try:
        data = yaml.load(read_bytes(path, MAX_BYTES), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (InputError, yaml.YAMLError, RecursionError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    patches = [entry for key in PATCH_KEYS for entry in _entries(data.get(key))]
    files = [f for f in (_local(folder, e.get("path") if isinstance(e, dict) else e) for e in patches) if f]
    named = [_local(folder, r) for r in _entries(data.get("resources"))]
    components = [_local(folder, c) for c in _entries(data.get("components"))]
    return Kustomization(
        folder,
        data.get("kind") == "Component",
        tuple(files),
        tuple(r for r in named if r),
        tuple(c for c in components if c and os.path.isdir(c)),
    )


def _entries(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _local(folder: str, value: object) -> str | None:
    """A local path a kustomization names (an inline patch, a URL or a remote reference is none)."""
    if not isinstance(value, str) or not value.strip() or "\n" in value or "://" in value:
        return None
    return os.path.normpath(os.path.join(folder, value.strip()))
