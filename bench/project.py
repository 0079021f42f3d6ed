"""What following containers into the repository costs (issue 26, point 2): ``shmlint check`` on a repository of
10,000 Python files with one Kubernetes Job that runs ``train.py``, against the same Job and its two files alone.

Discovery reads every file either way; following reads only what the Job names (``train.py`` and its local import),
so the difference between two checkouts (``--compare``) is the cost of following, and the big tree costs the same
with and without it.

    python bench/project.py                        # this checkout
    python bench/project.py --compare ../main      # this checkout and another, side by side
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: registry.example.com/team/trainer:1
          command: ["python", "train.py"]
          resources:
            limits:
              nvidia.com/gpu: 1
"""
TRAIN = (
    "from torch.utils.data import DataLoader\nfrom lib.data import make\nloader = DataLoader(make(), num_workers=4)\n"
)


def tree(root: Path, modules: int) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "job.yaml").write_text(JOB, encoding="utf-8")
    (root / "train.py").write_text(TRAIN, encoding="utf-8")
    (root / "lib" / "__init__.py").write_text("", encoding="utf-8")
    (root / "lib" / "data.py").write_text("def make():\n    return list(range(10))\n", encoding="utf-8")
    for index in range(modules):
        folder = root / f"pkg{index // 100}"
        folder.mkdir(exist_ok=True)
        (folder / f"mod{index}.py").write_text(f"X = DataLoader([], num_workers={index % 5})\n", encoding="utf-8")
    return root


def measure(checkout: Path, path: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the process and the workers it waited for) of one ``shmlint check``."""
    start = time.perf_counter()
    env = dict(os.environ, PYTHONPATH=str(checkout))
    command = [sys.executable, "-m", "shmlint", "check", "--exit-zero", str(path)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--compare", type=Path, help="another shmlint checkout to measure alongside")
    parser.add_argument("--modules", type=int, default=10_000)
    parser.add_argument("--repetitions", type=int, default=5)
    args = parser.parse_args()
    checkouts = {"this": Path(__file__).resolve().parent.parent}
    if args.compare:
        checkouts["other"] = args.compare.resolve()
    with tempfile.TemporaryDirectory() as folder:
        trees = {
            "job alone": tree(Path(folder) / "small", 0),
            f"{args.modules:,} files": tree(Path(folder) / "big", args.modules),
        }
        for label, path in trees.items():
            for name, checkout in checkouts.items():
                runs = [measure(checkout, path) for _ in range(args.repetitions)]
                wall = statistics.median(run[0] for run in runs)
                cpu = statistics.median(run[1] for run in runs)
                print(f"{label:>14}  {name:<6} wall {wall:6.2f} s  cpu {cpu:6.2f} s")


if __name__ == "__main__":
    main()
