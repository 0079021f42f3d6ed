"""Python given with ``-c`` in a container's command is a program, read with ``ast`` as a program's file is (its
loaders, their batches, the processes it starts), not a command line matched by the data's patterns: audit56b's two
false errors were AMD GPU operator demo pods whose ``python3 -c`` training loop loads CIFAR with one or two workers
(``num_workers=2`` matched ``pytorch-dataloader-workers``), and a comment that says ``num_workers=4`` was a need."""

from __future__ import annotations

from pathlib import Path

from shmlint.discover import FileKind
from shmlint.engine import Engine
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.source import SourceText

CUSTOM = """\
apiVersion: v1
kind: Pod
metadata: {name: custom}
spec:
  containers:
    - name: train
      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
      command: ["python3", "-c"]
      args:
        - |
          import torch
          from torch.utils.data import DataLoader, Dataset

          class Frames(Dataset):
              def __len__(self):
                  return 10000
              def __getitem__(self, i):
                  return torch.randn(3, 512, 512)

          loader = DataLoader(Frames(), batch_size=64, num_workers=8)
          for batch in loader:
              pass
      resources: {limits: {nvidia.com/gpu: 1}}
"""


def pod(command: str) -> str:
    return f"""\
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers:
    - name: c
      image: pytorch/pytorch:2.3.0-cuda12.1-cudnn8-runtime
      command: {command}
      resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


def findings(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "pod.yaml").write_text(text)
    found = check_paths(Settings(undecided="show"), [tmp_path], jobs=1).findings
    return [f"{f.code} {f.severity.label} {f.message}" for f in found]


def test_a_loader_in_the_code_is_named_with_its_line(tmp_path: Path) -> None:
    (found,) = findings(tmp_path, CUSTOM)
    assert found.startswith("SHM001 error") and "(python -c:10 DataLoader(num_workers=8))" in found


def test_small_torchvision_batches_in_the_code_are_no_need(tmp_path: Path) -> None:
    code = (
        "import torch, torchvision.datasets as datasets, torchvision.transforms as T\n"
        "data = datasets.CIFAR10(root='/d', download=True, transform=T.ToTensor())\n"
        "loader = torch.utils.data.DataLoader(data, batch_size=4, num_workers=2)\n"
    )
    assert findings(tmp_path, pod(f"[python3, -c, {code!r}]")) == []


def test_words_in_the_code_are_not_a_command_line(tmp_path: Path) -> None:
    """Before, the pattern ``num_workers *= *[1-9]`` found a comment in the code."""
    command = '[python3, -c, "import torch; print(torch.cuda.is_available())  # num_workers=4 elsewhere"]'
    (found,) = findings(tmp_path, pod(command))
    assert found.startswith("SHM001 info") and "need unknown" in found


def test_code_inside_a_shell_string_is_read_too(tmp_path: Path) -> None:
    code = "import torch; from torch.utils.data import DataLoader; DataLoader(range(10), batch_size=256, num_workers=6)"
    (found,) = findings(tmp_path, pod(f"[bash, -c, \"pip install tqdm && python -c '{code}'\"]"))
    assert found.startswith("SHM001 error") and "python -c:1 DataLoader(num_workers=6)" in found


def test_flags_joined_to_c_give_code_too(tmp_path: Path) -> None:
    """``python3 -uc CODE`` is ``-u -c CODE`` (review: the comment's ``num_workers=4`` was still a need there)."""
    command = '[python3, -uc, "import torch; print(torch.cuda.is_available())  # num_workers=4 elsewhere"]'
    (found,) = findings(tmp_path, pod(command))
    assert found.startswith("SHM001 info") and "need unknown" in found


def test_where_no_walk_reads_the_code_its_text_is_still_evidence(engine: Engine) -> None:
    """Standard input (``helm template ... | shmlint check -``) has no project walk to read the code: the data's
    patterns read its text, as before and as the admission policies do (review: the need vanished there)."""
    result = engine.check_source(SourceText("pod.yaml", CUSTOM), FileKind.YAML, "pod.yaml")
    (found,) = [f for f in result.findings if f.code == "SHM001"]
    assert found.severity.label == "error"
