"""The shell's ``cd`` in what a container runs: a relative name after it is looked for where it went first
(audit51b, dlrover's xpu_timer guide: ``cd /build/demo/train_fsdp/ && bash train.sh`` in the image, the script at
``demo/train_fsdp/train.sh`` of the repository, which ``torch.distributed.launch``-es 8 processes). A script's
own ``cd`` stays in its shell."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.project.follow import moved
from shmlint.runner import check_paths
from shmlint.settings import Settings

LAUNCH = "python -m torch.distributed.launch --nproc_per_node=8 train.py\n"


@pytest.mark.parametrize(
    ("cwd", "arguments", "expected"),
    [
        ("", ["/build/demo/"], "/build/demo"),
        ("/build", ["demo/x"], "/build/demo/x"),
        ("", ["sub"], "sub"),
        ("sub", [".."], "."),
        ("/w", [], "/w"),  # ``cd`` alone: home, not known here
        ("/w", ["-"], "/w"),
        ("/w", ["~/x"], "/w"),
        ("/w", ["$DIR"], "/w"),
        ("/w", ["\x00$DIR"], "/w"),  # a word whose value the text does not give
        ("/w", ["a", "b"], "/w"),
    ],
)
def test_where_cd_goes(cwd: str, arguments: list[str], expected: str) -> None:
    assert moved(cwd, arguments) == expected


def findings(root: Path) -> list[tuple[str, str]]:
    return [(f.severity.label, f.detail) for f in check_paths(Settings(undecided="show"), [root], jobs=1).findings]


def test_a_script_typed_after_cd_is_found_there(tmp_path: Path) -> None:
    (tmp_path / "demo" / "train_fsdp").mkdir(parents=True)
    (tmp_path / "demo" / "train_fsdp" / "train.sh").write_text(f"#!/bin/bash\n{LAUNCH}")
    (tmp_path / "train.sh").write_text("#!/bin/bash\necho nothing to train here\n")
    readme = "```bash\ndocker run -it --rm --gpus all --entrypoint bash acme/dev:1.0\ncd /build/demo/train_fsdp/\nbash train.sh\n```\n"
    (tmp_path / "README.md").write_text(readme)
    ((severity, detail),) = findings(tmp_path)
    assert severity == "error" and "demo/train_fsdp/train.sh:2" in detail, detail
    (tmp_path / "README.md").write_text(readme.replace("cd /build/demo/train_fsdp/\n", ""))
    ((severity, detail),) = findings(tmp_path)  # without the cd: the script at the top, which trains nothing
    assert severity == "info", detail


def test_a_scripts_own_cd_stays_in_its_shell(tmp_path: Path) -> None:
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "prepare.sh").write_text("#!/bin/bash\ncd tools\necho ready\n")
    (tmp_path / "tools" / "train.py").write_text("print('not this one')\n")
    (tmp_path / "train.py").write_text(
        "from torch.utils.data import DataLoader\nloader = DataLoader([], num_workers=6)\n"
    )
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\ndocker run --rm --gpus all -v $PWD:/w -w /w acme/dev:1.0 bash -c 'bash tools/prepare.sh && python train.py'\n"
    )
    ((severity, detail),) = findings(tmp_path)
    assert severity == "error" and "train.py:2 DataLoader(num_workers=6)" in detail, detail


def test_cd_into_another_projects_clone_finds_nothing_here(tmp_path: Path) -> None:
    """Found (review): ``git clone .../benchmark; cd benchmark; bash train.sh`` took the checked repository's own
    ``train.sh``. A relative ``cd`` into a folder the repository does not have leaves the name unfound, unless the
    folder is the repository's own clone."""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text('[remote "origin"]\n\turl = https://github.com/acme/ours.git\n')
    (tmp_path / "train.sh").write_text(f"#!/bin/bash\n{LAUNCH}")
    readme = (
        "```bash\ndocker run -it --rm --gpus all --entrypoint bash acme/dev:1.0\n"
        "git clone https://github.com/other/benchmark\ncd benchmark\nbash train.sh\n```\n"
    )
    (tmp_path / "README.md").write_text(readme)
    ((severity, detail),) = findings(tmp_path)
    assert severity == "info", detail
    (tmp_path / "README.md").write_text(
        readme.replace("other/benchmark", "acme/ours").replace("cd benchmark", "cd ours")
    )
    ((severity, detail),) = findings(tmp_path)
    assert severity == "error" and "train.sh:2" in detail, detail
