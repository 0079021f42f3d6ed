"""The image a container runs, as the repository builds it: the one build of its name (``BuildIndex``) or the
Dockerfile its own file builds or sits beside, read for what the image starts (``shmlint.parsers.dockerfile``), and
whether that build is a torch image.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shmlint.model import Launch
from shmlint.project.index import ProjectFiles, Reader

if TYPE_CHECKING:
    from shmlint.parsers.dockerfile import RunFacts
    from shmlint.project.builds import BuildIndex, ImageBuild
    from shmlint.signals import Signals

#: the different builds of one image named in a note, and read to tell whether they are one image (more are not
#: read: they would spend the workload's budget, and so many builds of one name are rarely alike)
MAX_QUOTED_BUILDS = 3
MAX_COMPARED_BUILDS = 4


def may_build(image: str | None, facts: RunFacts) -> bool:
    """Whether the Dockerfile beside a file can be what builds the image it runs: not for a name left to a variable
    (``${IMAGE}``: any image, the file does not say which) nor for the image the Dockerfile's running stage starts
    from, registry spellings alike, by tag or digest (``FROM x:1`` beside a run of ``x:1`` is where it starts, not
    what it builds; a stage built from an earlier release only to copy from it is not)."""
    from shmlint.project.builds import image_key
    from shmlint.signals import split_image

    def named(reference: str) -> tuple[str | None, str]:  # by digest when it has one, else by tag
        digest = reference.partition("@")[2]
        return image_key(reference), digest or split_image(reference)[1] or "latest"

    if not image or image_key(image) is None:  # a variable in its path (a registry or tag left to one still names it)
        return False
    return not facts.start or named(facts.start) != named(image)


def image_build(launch: Launch, image: str | None, reader: Reader) -> tuple[ImageBuild | None, tuple[str, ...]]:
    """The one build of the named image among the repository's (``ProjectIndex.builds``), for a container that
    names no build of its own; with builds that read differently (``_reads_as``), none, and a note that says so."""
    if not image or launch.build_context or launch.dockerfile_inline:
        return None, ()
    index = image_builds(reader)
    if index is None:
        return None, ()
    builds = index.of(image)
    alike = 1 < len(builds) <= MAX_COMPARED_BUILDS and len({_reads_as(build, reader) for build in builds}) == 1
    if len(builds) == 1 or alike:
        return builds[0], ()
    own = _written_in(builds, launch.manifest, reader)
    if own is not None:
        return own, ()
    if builds:
        ways = "; ".join(f"{b.where} {reader.display(b.dockerfile)}" for b in builds[:MAX_QUOTED_BUILDS])
        return None, (f"{image} is built {len(builds)} different ways ({ways}), so no build was followed",)
    if index.truncated:
        return None, (f"the repository's image builds were read up to a bound; {image} was not among them",)
    return None, ()


def torch_build(launch: Launch, image: str | None, reader: Reader, signals: Signals) -> str | None:
    """Why the one build the repository makes of the named image (``image_build``) is a torch image, with where
    that build is ("Dockerfile FROM pytorch/pytorch:2.4, built by run.sh:3"), or None; worked out once an image a
    run (the review: 2,000 runs of one image parsed its Dockerfile 2,000 times)."""
    if not image or launch.build_context or launch.dockerfile_inline:
        return None
    known = reader.index.tree(reader.index.max_bytes).per_folder(_torch_builds, "")
    if image not in known:
        known[image] = _torch_build(launch, image, reader, signals)
    return known[image]


def _torch_builds(_: ProjectFiles, folder: str) -> dict[str, str | None]:
    """``torch_build``'s answers by image, filled as images are asked about: one for the run."""
    return {}


def _torch_build(launch: Launch, image: str, reader: Reader, signals: Signals) -> str | None:
    build, _ = image_build(launch, image, reader)
    text = _dockerfile_text(build, reader) if build is not None else None
    if build is None or text is None:
        return None
    from shmlint.parsers.dockerfile import torch_evidence_text

    reason = torch_evidence_text(text, signals, build_args=dict(build.args), target=build.target or None)
    return f"{reason}, built by {build.where}" if reason else None


def image_builds(reader: Reader) -> BuildIndex | None:
    """The builds an image is looked up in: the checked files', and, for a run that checks a part of its
    repositories, every file's there too (found on the first lookup), so the part gets the answer the whole does
    (a file named though the walk leaves it out, ignored or excluded, keeps its own builds)."""
    index, files = reader.index, reader.index.files
    if files is None or files.whole is None or not index.roots:
        return index.builds
    from shmlint.project.build_marks import repository_builds

    whole = files.per_folder(repository_builds, index.roots[0])
    if whole is None or index.builds is None:
        return whole or index.builds
    return index.builds.merged(whole)


def _written_in(builds: Sequence[ImageBuild], manifest: str, reader: Reader) -> ImageBuild | None:
    """The one build of the image the file that runs it writes itself (a guide's ``docker build -t myimage:1.0 .``
    before its ``docker run ... myimage:1.0``, where the repository's other guides build the same name otherwise:
    audit87c, twelve builds of one name across a course's folders); None where it writes none, or several."""
    if not manifest:
        return None
    shown = reader.display(os.path.abspath(manifest))
    own = {build.same_as: build for build in builds if build.where.rpartition(":")[0] == shown}
    return next(iter(own.values())) if len(own) == 1 else None


def _reads_as(build: ImageBuild, reader: Reader) -> tuple[object, ...]:
    """What a build gives the walk: its context and its Dockerfile's facts with its arguments and target (builds
    that differ only in an argument nothing reads, or in where they are written, are one image here); an unreadable
    Dockerfile is unlike any other."""
    text = _dockerfile_text(build, reader)
    if text is None:
        return (build.where,)
    from shmlint.parsers.dockerfile import run_facts

    return build.context, run_facts(text, dict(build.args), build.target or None)


def _dockerfile_text(build: ImageBuild, reader: Reader) -> str | None:
    """The text of the Dockerfile a build reads: its file, or the code block of a document that writes it (with the
    document's lines, so what it says is quoted where the document says it)."""
    text = reader.text(build.dockerfile)
    if text is None or build.block is None:
        return text
    from shmlint.source import alone

    return alone(text, *build.block)


def built_image(launch: Launch, reader: Reader, build: ImageBuild | None) -> tuple[str, RunFacts] | None:
    """The Dockerfile the image is built from (compose ``build:``, a build of the image's name found in the
    repository (``build``, with its arguments and target: a file, or a guide's code block), or one beside a
    Kubernetes manifest or a compose file whose services pull their images) and its facts, with
    the name the report gives it. A ``docker run`` line in a README or script is not paired with a Dockerfile
    beside it: its image is as often built from another folder. A Dockerfile only beside the file is a guess
    (``ProjectFacts.guessed``)."""
    if launch.dockerfile_inline:
        where, text = "dockerfile_inline", launch.dockerfile_inline
    elif build is not None and build.block is not None:
        found = _dockerfile_text(build, reader)
        if found is None:
            return None
        where, text = reader.display(build.dockerfile), found
    elif not launch.build_context and not launch.dockerfile_beside:
        return None
    else:
        path = next(filter(None, map(reader.inside, launch.dockerfile_paths)), None)
        found = reader.text(path) if path is not None else None
        if path is None or found is None:
            return None
        where, text = reader.display(path), found
    from shmlint.parsers.dockerfile import run_facts  # dockerfile-parse loads only when there is a Dockerfile

    if build is None:
        return where, run_facts(text)
    return where, run_facts(text, dict(build.args), build.target or None)
