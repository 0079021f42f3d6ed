"""justfiles (``shmlint.parsers.embedded.justfile``): recipes are read as shell with the file's offsets, ``{{ x }}``
as the shell's ``${x}`` in the same characters, the file's string assignments as its variables; settings,
attributes, aliases and other languages' shebang recipes are not shell (audit69a: a justfile's ``docker run --gpus
all ... --num-workers 8`` had no finding, the same line in a Makefile an error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shmlint.discover import FileKind, kind_by_name
from shmlint.parsers.embedded.justfile import just_assignments, mask_justfile
from shmlint.parsers.embedded.mask import UNKNOWN, shell_reference
from shmlint.runner import check_paths
from shmlint.settings import Settings

RUN = "docker run --rm --gpus all myorg/trainer python train.py --num-workers 8"


def _kept(text: str) -> list[str]:
    return [line.strip() for line in mask_justfile(text).split("\n") if line.strip()]


@pytest.mark.parametrize("name", ["justfile", "Justfile", ".justfile", "ci.just"])
def test_justfiles_are_found_by_name(name: str) -> None:
    found = kind_by_name(Path(name))
    assert found is not None and found.value == FileKind.JUSTFILE.value


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (f"train:\n    {RUN}\n", [RUN]),
        (f"@train epochs='10' *args: build\n\t@{RUN}\n", [RUN]),  # parameters, quiet recipe, a tab
        (f"train:\n    -{RUN}\n\n    echo done\n", [RUN, "echo done"]),  # a blank line inside the body
        (f"[linux]\n# trains\ntrain:\n    {RUN}\n", [RUN]),  # an attribute and a comment above it
        (f"set shell := ['bash', '-c']\nalias t := train\nimage := 'x'\n    {RUN}\n", []),  # no recipe above
        (f"train:\n    #!/usr/bin/env python3\n    import os\n    os.system('{RUN}')\n", []),  # another language
        (f"train:\n    #!/usr/bin/env bash\n    set -e\n    {RUN}\n", ["#!/usr/bin/env bash", "set -e", RUN]),
        (f"train:\n    {RUN}\nnext := 'x'\n    {RUN}\n", [RUN]),  # an assignment ends the recipe
        # a continued line's ``-`` is an option's, not just's prefix (the review: ``--gpus`` lost its first dash)
        (
            "train:\n    @docker run --rm \\\n        --gpus all img \\\n        -v /d:/d x\n",
            ["docker run --rm \\", "--gpus all img \\", "-v /d:/d x"],
        ),
        (
            f"train:\n    #!/usr/bin/env -S bash -euo pipefail\n    {RUN}\n",
            ["#!/usr/bin/env -S bash -euo pipefail", RUN],
        ),
        (f"train:\n    #!/opt/homebrew/bin/bash\n    {RUN}\n", ["#!/opt/homebrew/bin/bash", RUN]),
        (f"train:\n    #!/usr/bin/env bashful\n    {RUN}\n", []),  # not a shell of ours
    ],
)
def test_recipe_bodies_are_the_shell(text: str, kept: list[str]) -> None:
    assert _kept(text) == kept


@pytest.mark.parametrize(
    ("written", "shell"),
    [
        ("{{image}}", "${image-}"),
        ("{{ image }}", '${image-}""'),
        ("{{ image  }}", '${image}""""'),
        ("{{my-image}}", "${my_image-}"),
        ("{{ env_var('IMAGE') }}", "${" + UNKNOWN + "}" + '""' * 5),
    ],
)
def test_an_interpolation_is_the_shells_variable_in_its_own_characters(written: str, shell: str) -> None:
    assert shell_reference(written[2:-2], len(written)) == shell


@given(st.text(alphabet="{} \tab_-('x')", max_size=40))
def test_an_interpolation_always_keeps_its_length(expression: str) -> None:
    written = "{{" + expression + "}}"
    assert len(shell_reference(expression, len(written))) == len(written)


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=400))
def test_any_text_masks_to_the_same_length_and_lines(text: str) -> None:
    masked = mask_justfile(text)
    assert len(masked) == len(text)
    assert [i for i, c in enumerate(masked) if c == "\n"] == [i for i, c in enumerate(text) if c == "\n"]


def test_string_assignments_are_the_variables() -> None:
    text = "image := \"acme/t:1\"\nexport tag := 'v2'\nwhen := `date`\n  indented := 'no'\nimage := 'acme/t:2'\n"
    assert just_assignments(text) == {"image": ("acme/t:2",), "tag": ("v2",)}


def test_a_justfile_run_is_judged_and_fixed_as_a_makefiles(tmp_path: Path, invoke) -> None:
    """The file's variable names the image the recipe runs, whose build the file writes too: its code decides."""
    (tmp_path / "justfile").write_text(
        'image := "acme/trainer:1"\n\nbuild:\n    docker build -t {{image}} .\n\n'
        "train: build\n    docker run --rm --gpus all {{ image }}\n"
    )
    (tmp_path / "Dockerfile").write_text('FROM python:3.11\nCOPY t.py /t.py\nCMD ["python", "/t.py"]\n')
    (tmp_path / "t.py").write_text("from torch.utils.data import DataLoader\nDataLoader(range(9), num_workers=6)\n")
    (finding,) = check_paths(Settings(), [tmp_path], jobs=1).findings
    assert (finding.code, finding.severity.label, finding.span.line) == ("SHM001", "error", 7)
    assert "t.py:2 DataLoader(num_workers=6)" in finding.message
    assert invoke("fix", "--write", str(tmp_path)).exit_code == 0
    assert "    docker run --shm-size=8g --rm --gpus all {{ image }}\n" in (tmp_path / "justfile").read_text()
