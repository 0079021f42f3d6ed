"""The need of each workload: from its names, and where they leave it undecided, from the files it runs. Apart from
the package's ``__init__`` so that a run over clean files (which loads ``index``) never loads the tier model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.model import Launch, Tier, Workload
from shmlint.need import decide

if TYPE_CHECKING:
    from shmlint.need import Knowledge
    from shmlint.project.index import ProjectIndex


def with_needs(
    workloads: list[Workload], knowledge: Knowledge, project: ProjectIndex | None, texts: dict[str, str | None]
) -> list[Workload]:
    """Each workload with its need: from its names, and where they leave it undecided, from the files it runs
    (``project``: the run's tree, None where there is none, as for stdin; ``texts``: the caller's cache of files)."""
    decided = []
    builds = _builds(workloads)
    for workload in workloads:
        need = decide(workload, knowledge)
        if need is not None and need.tier is Tier.UNKNOWN and workload.launch is not None and project is not None:
            from shmlint.project.follow import gather  # loaded only for a container names leave undecided
            from shmlint.project.index import Reader

            facts = gather(
                _built_here(workload.launch, workload.image, builds), workload.accelerator_count, Reader(project, texts)
            )
            workload = workload._replace(project=facts)
            need = decide(workload, knowledge)
        decided.append(workload._replace(need=need))
    return decided


def _builds(workloads: list[Workload]) -> dict[str, Launch]:
    """Image name -> the launch of a workload in the same file that builds it (compose ``image:`` with ``build:``):
    the file itself says which Dockerfile makes that image."""
    builds: dict[str, Launch] = {}
    for workload in workloads:
        launch = workload.launch
        if workload.image and launch is not None and (launch.build_context or launch.dockerfile_inline):
            builds.setdefault(workload.image, launch)
    return builds


def _built_here(launch: Launch, image: str | None, builds: dict[str, Launch]) -> Launch:
    """A launch that names no build of its own (a ``docker run`` line) takes the build of the same image name from
    the same file (a README's compose service that builds it), keeping its own command and folder."""
    builder = builds.get(image) if image and not (launch.build_context or launch.dockerfile_inline) else None
    if builder is None or launch.dockerfile_beside:
        return launch
    context = os.path.relpath(os.path.join(builder.base_dir, builder.build_context or "."), launch.base_dir or ".")
    return launch._replace(
        build_context=context, dockerfile=builder.dockerfile, dockerfile_inline=builder.dockerfile_inline
    )
