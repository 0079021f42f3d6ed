"""The need of each workload: from its names, and where they leave it undecided, from the files it runs. Apart from
the package's ``__init__`` so that a run over clean files (which loads ``index``) never loads the tier model."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from shmlint.model import Evidence, Launch, Need, ProjectFacts, Tier, Workload, WorkloadFormat
from shmlint.need import MPI_LOCAL_RANKS, by_option, decide, knows_image, own_script

if TYPE_CHECKING:
    from shmlint.need import Knowledge
    from shmlint.project.index import ProjectIndex, Reader
    from shmlint.signals import Signals


def with_needs(
    workloads: list[Workload],
    knowledge: Knowledge,
    project: ProjectIndex | None,
    texts: dict[str, str | None],
    signals: Signals,
) -> list[Workload]:
    """Each workload with its need: from its names, and where they leave it undecided, from the files it runs
    (``project``: the run's tree, None where there is none, as for stdin; ``texts``: the caller's cache of files)."""
    decided = []
    workloads = [_torch_built(_own_image_beside(w, knowledge, project), project, texts, signals) for w in workloads]
    ambiguous = _beside_ambiguous(workloads, knowledge, project, texts)
    for workload in workloads:
        found = _with_need(workload, knowledge, project, texts, ambiguous)
        later = workload.later_steps
        named = workload.launch.name if workload.launch is not None and not workload.launch.exec_into else ""
        undecided = found.need is not None and found.need.tier is not Tier.NEEDS
        if later is None and named and workload.gpu and project is not None and undecided:
            from shmlint.project.exec_marks import execed_steps  # loaded for a named container only

            later = execed_steps(workload, project)
        if later is not None and (found.need is None or found.need.tier is not Tier.NEEDS):
            steps = _with_need(_own_image_beside(later, knowledge, project), knowledge, project, texts, ambiguous)
            found = steps if steps.need is not None and steps.need.tier is Tier.NEEDS else found
        decided.append(found._replace(later_steps=None))
    if len(decided) > 1 and any(_over_ssh(workload) for workload in decided):
        from shmlint.project.ssh_ranks import with_ssh_ranks  # loaded for a file with an ssh daemon or MPI hosts

        return with_ssh_ranks(decided)
    return decided


def _with_need(
    workload: Workload,
    knowledge: Knowledge,
    project: ProjectIndex | None,
    texts: dict[str, str | None],
    ambiguous: bool,
) -> Workload:
    """The workload with its need: from its names, and where they leave it open, from the files it runs."""
    need = decide(workload, knowledge, walked=project is not None)
    optional = by_option(workload, need, knowledge)
    followed = need is not None and (need.tier is Tier.UNKNOWN or optional or own_script(workload) is not None)
    if followed and workload.launch is not None and project is not None and _leads_somewhere(workload, project):
        # names leave it open, the script a replaced entrypoint runs may be the repository's (then the image's
        # name is not evidence), or a setting of a program that may be the repository's decided (its code may
        # keep that option away from loaders)
        from shmlint.project.follow import gather  # loaded only for a container names leave undecided
        from shmlint.project.index import Reader

        launch = workload.launch
        if launch.dockerfile_beside and (ambiguous or knows_image(workload.image, knowledge)):
            launch = launch._replace(dockerfile_beside=False)  # a known image is not what that Dockerfile builds
        reader = Reader(project, texts)  # the container's budget: what it runs, then what it holds
        facts = gather(launch, workload.accelerator_count, reader, workload.image)
        if optional and not facts.kept:
            return workload._replace(need=need)  # the setting stands: the names' need, as before the walk
        need = decide(workload._replace(project=facts), knowledge)
        kept: ProjectFacts | None = facts
        if facts.guessed and (need is None or need.tier is not Tier.NEEDS):
            need, kept = _unguessed(workload, launch, knowledge, Reader(project, texts), need, facts)
        if need is not None and need.tier is Tier.UNKNOWN and kept is not None and kept.held:
            need, kept = _held(workload._replace(project=kept), knowledge, reader, need)
        workload = workload._replace(project=kept)
    return workload._replace(need=need)


def _leads_somewhere(workload: Workload, project: ProjectIndex) -> bool:
    """Whether following the container could read a file: it names a command, a build, a mount or a ConfigMap, a
    Dockerfile is beside it, or the repository builds its image. A Deployment of a pulled image with none of them
    leads nowhere, and the walk's module is not loaded for it (one flagged manifest's check: 1.355x its imports'
    instructions, over the 1.35x target)."""
    launch = workload.launch
    if launch is None:
        return False
    if launch.entrypoint or launch.arguments or launch.build_context or launch.dockerfile_inline:
        return True
    if launch.mounts or launch.configs:
        return True
    if launch.dockerfile_beside and any(os.path.isfile(path) for path in launch.dockerfile_paths):
        return True  # a Dockerfile beside the file is taken to build the image (``image_build.built_image``)
    return _may_be_built(workload.image, project)


def _may_be_built(image: str | None, project: ProjectIndex) -> bool:
    """Whether the repository may build the image: the run's files build it, or the run checks a part of a
    repository, whose other files may."""
    if project.files is not None and project.files.whole is not None:
        return True  # a part of a repository: the image may be built in a file the run does not check
    return project.builds is not None and bool(project.builds.of(image))


def _torch_built(
    workload: Workload, project: ProjectIndex | None, texts: dict[str, str | None], signals: Signals
) -> Workload:
    """A container given no accelerator, and torch by no name, whose image the repository builds from a torch image
    or with torch installed, is torch work on the CPU (audit67a: a challenge's template runs ``docker run IMAGE`` of
    a build FROM pytorch/pytorch whose training has six loader workers). Only a need the walk finds makes a missing
    /dev/shm a finding (unknown torch work on the CPU gets none: ``rules.common.claims_missing_shm``); a /dev/shm
    it declares is judged as any torch work's is."""
    launch = workload.launch
    if workload.is_gpu_or_torch or launch is None or project is None or not _may_be_built(workload.image, project):
        return workload
    from shmlint.project.image_build import torch_build
    from shmlint.project.index import Reader

    reason = torch_build(launch, workload.image, Reader(project, texts), signals)
    if reason is None:
        return workload
    return workload._replace(torch=(Evidence(f"image {workload.image}: {reason}", workload.span),))


def _own_image_beside(workload: Workload, knowledge: Knowledge, project: ProjectIndex | None) -> Workload:
    """A command line's container whose image is the repository's own by its name, or its folder's
    (``shmlint.project.own_image``: ``unit:test`` run from ``UNIT/docker.sh``, audit77a), and that the data does not
    know takes the Dockerfile beside the line as its image's build, as a guess: a
    ``docker run`` line's image is as often built in another folder, or another project's, so only the name says
    it is this one's."""
    launch = workload.launch
    if (
        project is None
        or launch is None
        or workload.id.format is not WorkloadFormat.COMMAND
        or launch.dockerfile_beside
        or launch.build_context
        or launch.dockerfile_inline
        or not workload.image
    ):
        return workload
    from shmlint.project.index import within
    from shmlint.project.own_image import named_for, root_name

    root = next((root for root in project.roots if within(os.path.realpath(launch.base_dir), (root,))), None)
    if root is None:
        return workload
    name = root_name(project, root)
    folder = os.path.basename(os.path.realpath(launch.base_dir))  # a project of its own in a folder of the tree
    if not (named_for(workload.image, name) or named_for(workload.image, folder)):
        return workload
    if knows_image(workload.image, knowledge):  # the data's entries last
        return workload
    return workload._replace(launch=launch._replace(dockerfile_beside=True))


def _beside_ambiguous(
    workloads: list[Workload], knowledge: Knowledge, project: ProjectIndex | None, texts: dict[str, str | None]
) -> bool:
    """Whether the file's accelerator or torch containers that would take the Dockerfile beside it as their image's
    build pull two or more different images the data does not know and the repository builds nowhere: one
    Dockerfile builds one of them at most, and nothing says which (a compose file's vLLM server and the web proxy in
    front of it, each pulled by its own name: the proxy took the server's Dockerfile), so none is guessed."""
    pulled = {
        workload.image
        for workload in workloads
        if workload.launch is not None
        and workload.launch.dockerfile_beside
        and (workload.gpu or workload.torch)
        and workload.image
        and not knows_image(workload.image, knowledge)
    }
    if len(pulled) < 2 or project is None:
        return False
    from shmlint.project.builds import image_key  # loaded only for a file with two such containers
    from shmlint.project.image_build import image_builds
    from shmlint.project.index import Reader
    from shmlint.signals import split_image

    builds = image_builds(Reader(project, texts))
    left = [image for image in pulled if builds is None or not builds.of(image)]
    return len({image_key(image) or split_image(image)[0].lower() for image in left}) > 1  # a tag is not another


def _unguessed(
    workload: Workload,
    launch: Launch,
    knowledge: Knowledge,
    reader: Reader,
    need: Need | None,
    guessed: ProjectFacts,
) -> tuple[Need | None, ProjectFacts | None]:
    """The need without the Dockerfile beside the file, where that is stronger: the guess may add evidence, never
    take any away (an unrelated ENTRYPOINT before the container's own command, loaders without workers in code
    the image may not hold). A container with no command of its own has nothing else to follow: its names decide.
    The walk without the guess has a reader of its own (the budget is per walk); on a tie the guess stays, with
    the files it read named."""
    from shmlint.project.follow import gather

    facts = None
    if launch.entrypoint or launch.arguments:
        facts = gather(launch._replace(dockerfile_beside=False), workload.accelerator_count, reader, workload.image)
    unguessed = decide(workload._replace(project=facts), knowledge)
    if unguessed is not None and (need is None or unguessed.tier > need.tier):
        return unguessed, facts
    return need, guessed


def _held(workload: Workload, knowledge: Knowledge, reader: Reader, need: Need) -> tuple[Need, ProjectFacts | None]:
    """The need with what the folders a container that holds accelerators holds say people run in it
    (``shmlint.project.held.with_held``), unless the file says what it runs there (``docker exec``: the holder
    stays undecided)."""
    facts = workload.project
    launch = workload.launch
    if facts is None or not workload.gpu or (launch is not None and launch.exec_into):
        return need, facts  # on the CPU, or its work is what the file execs into it
    from shmlint.project.held import with_held  # loaded for a container with the repository in it

    return with_held(workload, knowledge, reader, need)


def _over_ssh(workload: Workload) -> bool:
    """A container that may start an ssh daemon, or whose need came from an MPI launcher's local ranks: the file's
    other workloads may receive or hold those ranks (``shmlint.project.ssh_ranks``)."""
    return "sshd" in (workload.command or "") or (workload.need is not None and workload.need.entry == MPI_LOCAL_RANKS)
