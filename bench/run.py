"""Side-by-side benchmark: shmlint against the parsing floor (and checkov/yamllint when installed).

Every measurement is a separate process timed with ``os.wait4`` (wall, user+system CPU of the whole process tree,
peak RSS of its largest process). Commands alternate within each repetition so that a noisy neighbour hurts them
alike; the report gives medians and the ratios the targets are stated in.

    python bench/run.py                # full run: 10,000 and 20,000 files, the one-file case, fix on 1,000
    python bench/run.py --quick        # smaller, for a smoke run
    python bench/run.py --others       # also install checkov and yamllint and compare them on 1,000 files
    python bench/run.py --one-file     # only the one-file case: wall time, and instructions where valgrind is
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import instructions
from corpus import flagged_k8s, generate

FLOOR = """
import sys, pathlib, yaml
for path in sorted(pathlib.Path(sys.argv[1]).rglob("*")):
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        if path.suffix in (".yaml", ".yml"):
            for _ in yaml.compose_all(text, Loader=yaml.CSafeLoader):
                pass
"""


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    rss_mib: float


def measure(command: list[str], cwd: Path | None = None) -> Run:
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{command[:3]} failed with exit code {code}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def median(runs: list[Run]) -> Run:
    return Run(*(statistics.median(getattr(r, f) for r in runs) for f in ("wall", "cpu", "rss_mib")))


def shmlint_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "shmlint", *args]


def compare(label: str, commands: dict[str, list[str]], repetitions: int) -> dict[str, Run]:
    runs: dict[str, list[Run]] = {name: [] for name in commands}
    for _ in range(repetitions):
        for name, command in commands.items():
            runs[name].append(measure(command))
    result = {name: median(values) for name, values in runs.items()}
    _print_runs(f"{label} (median of {repetitions})", result)
    return result


def _print_runs(label: str, result: dict[str, Run]) -> None:
    print(f"\n{label}")
    floor = result.get("floor")
    for name, run in result.items():
        ratio = f"  {run.wall / floor.wall:5.2f}x floor" if floor and name != "floor" else ""
        print(f"  {name:<12} wall {run.wall:7.3f} s  cpu {run.cpu:7.3f} s  peak RSS {run.rss_mib:6.1f} MiB{ratio}")


def compare_sizes(small: Path, large: Path, repetitions: int) -> tuple[dict[Path, dict[str, Run]], dict[str, float]]:
    """shmlint and the floor on both corpora, all four in each repetition: the machine's speed drifts by a third
    within an hour, so sizes measured one after the other compare two moments, not two sizes (one such run read
    a growth of 2.87x where the work grows 2.02x, counted in instructions). Each ratio is taken within a
    repetition, then the median of those."""
    runs: dict[Path, dict[str, list[Run]]] = {corpus: {"shmlint": [], "floor": []} for corpus in (small, large)}
    for _ in range(repetitions):
        for corpus, by_name in runs.items():
            for name, command in corpus_commands(corpus, {}).items():
                by_name[name].append(measure(command))

    def ratio(top: list[Run], bottom: list[Run], field: str = "wall") -> float:
        return float(statistics.median(getattr(a, field) / getattr(b, field) for a, b in zip(top, bottom, strict=True)))

    result = {corpus: {name: median(values) for name, values in by_name.items()} for corpus, by_name in runs.items()}
    for corpus, medians in result.items():
        _print_runs(f"{corpus.name} (median of {repetitions})", medians)
    ratios = {
        "small vs floor": ratio(runs[small]["shmlint"], runs[small]["floor"]),
        "small vs floor cpu": ratio(runs[small]["shmlint"], runs[small]["floor"], "cpu"),
        "growth": ratio(runs[large]["shmlint"], runs[small]["shmlint"]),
        "growth cpu": ratio(runs[large]["shmlint"], runs[small]["shmlint"], "cpu"),
        "floor growth": ratio(runs[large]["floor"], runs[small]["floor"]),
    }
    print(
        f"\n  per-repetition medians: shmlint / floor {ratios['small vs floor']:.2f}x wall, "
        f"{ratios['small vs floor cpu']:.2f}x cpu (shmlint's two workers need two free cores to beat the one-process "
        f"floor); growth {ratios['growth']:.2f}x wall, {ratios['growth cpu']:.2f}x cpu (the floor's: "
        f"{ratios['floor growth']:.2f}x wall)"
    )
    return result, ratios


def verdict(name: str, value: float, limit: float, unit: str = "x") -> bool:
    ok = value <= limit
    print(f"  [{'met' if ok else 'MISSED'}] {name}: {value:.2f}{unit} (target <= {limit}{unit})")
    return ok


def virtual_environment(folder: Path, *requirements: str, timeout: float) -> Path:
    """A fresh virtual environment with ``requirements`` pip-installed; its ``bin`` folder. Raises
    ``subprocess.SubprocessError`` or ``OSError`` when it cannot be built (no package index)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=300)
    pip = [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, *requirements], check=True, capture_output=True, timeout=timeout)
    return folder / "bin"


#: yamllint for the one-file comparison, pinned so that its side of the ratio does not move on its own
YAMLLINT = "yamllint==1.38.0"


def hook_interpreter(base: Path) -> tuple[str, str]:
    """An interpreter with shmlint installed the way pre-commit installs a hook: a fresh virtual environment and
    ``pip install`` of this checkout (and the pinned yamllint, compared on the same file). A hook starts without
    the site-packages of the machine's interpreter, so without their ``.pth`` start-up hooks (this sandbox has one
    that imports certifi on every start). Falls back to the current interpreter, saying why, when the environment
    cannot be built (no package index)."""
    try:
        checkout = str(Path(__file__).resolve().parent.parent)
        bin_folder = virtual_environment(base / "hook-venv", checkout, YAMLLINT, timeout=900)
    except (subprocess.SubprocessError, OSError) as exc:
        print(f"  (no hook environment: {exc}; the one-file case runs in this interpreter instead)")
        return sys.executable, "this interpreter"
    return str(bin_folder / "python"), "a fresh virtual environment, as pre-commit builds for the hook"


#: a one-file check may take at most this many times the start of Python importing only what shmlint requires
ONE_FILE_RATIO = 1.35


def one_file_commands(python: str, clean_file: Path, flagged_file: Path) -> dict[str, list[str]]:
    """The one-file commands, each started by the interpreter binary itself (a console script is run as
    ``python script``: valgrind must start the interpreter, not read a ``#!`` line)."""
    bin_folder = Path(python).parent
    if python == sys.executable:
        shmlint = [python, "-m", "shmlint"]
        yamllint = [python, "-m", "yamllint"] if importlib.util.find_spec("yamllint") else None
    else:
        shmlint = [python, str(bin_folder / "shmlint")]
        yamllint = [python, str(bin_folder / "yamllint")] if (bin_folder / "yamllint").exists() else None
    commands = {
        "imports": [python, "-c", "import click, yaml"],
        "clean file": [*shmlint, "check", str(clean_file)],
        "flagged file": [*shmlint, "check", str(flagged_file)],
    }
    if yamllint is not None:  # its default configuration, on the flagged file
        commands["yamllint"] = [*yamllint, str(flagged_file)]
    return commands


def one_file_case(base: Path, corpus: Path, repetitions: int) -> list[bool]:
    """The pre-commit case: ``shmlint check`` on one file, a clean one (what a hook sees most) and one with a
    finding, each against the start of Python importing only the libraries shmlint requires (click, PyYAML) and
    against yamllint on the same file, measured side by side in the same loop so that the machine's load hits
    them alike; and, where valgrind is installed, the instructions each executes, which no load moves. The
    verdicts use the instruction counts when there are some, the wall-time ratios otherwise."""
    python, where = hook_interpreter(base)
    (base / "one-flagged").mkdir()
    empty = base / "one-file-cwd"  # `python -c` lists its current folder on every import: an empty one
    empty.mkdir()
    clean_file = min((corpus / "k8s").rglob("*.yaml"))
    flagged_file = flagged_k8s(base / "one-flagged", 1)[0]
    commands = one_file_commands(python, clean_file, flagged_file)
    walls: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repetitions):
        for name, command in commands.items():
            walls[name].append(measure(command, cwd=empty).wall * 1000)
    ms = {name: statistics.median(values) for name, values in walls.items()}
    # each repetition's ratio, then their median: a repetition's runs share the machine's load of the moment
    wall_ratio = {
        name: statistics.median(wall / floor for wall, floor in zip(walls[name], walls["imports"], strict=True))
        for name in commands
    }
    counted = _instruction_counts(commands, python, empty)
    seeds = len(instructions.SEEDS)
    print(
        f"\none file, in {where}: wall median of {repetitions}; instructions counted by callgrind, median of {seeds} hash seeds"
    )
    print(f"  {'':<14}{'wall':>10}{'/ imports':>11}{'instructions':>15}{'/ imports':>11}")
    for name in commands:
        count = f"{counted[name] / 1e6:12.1f} M" if counted else f"{'-':>14}"
        ratio = f"{counted[name] / counted['imports']:10.3f}x" if counted else f"{'-':>11}"
        print(f"  {name:<14}{ms[name]:7.1f} ms{wall_ratio[name]:10.3f}x {count}{ratio}")
    ratios = {name: counted[name] / counted["imports"] for name in commands} if counted else wall_ratio
    measure_name = "instructions" if counted else "median wall"
    results = [
        verdict(f"one clean file vs imports, {measure_name} ratio", ratios["clean file"], ONE_FILE_RATIO),
        verdict(f"one flagged file vs imports, {measure_name} ratio", ratios["flagged file"], ONE_FILE_RATIO),
    ]
    if "yamllint" in commands:
        flagged_vs_yamllint = ratios["flagged file"] / ratios["yamllint"]
        results.append(verdict(f"one flagged file vs yamllint, {measure_name} ratio", flagged_vs_yamllint, 1.0))
    return results


def _instruction_counts(commands: dict[str, list[str]], python: str, empty: Path) -> dict[str, int]:
    """Each command's instructions, or nothing (saying why) where valgrind or a real interpreter binary is missing."""
    if not instructions.available():
        print("  (no valgrind: the one-file verdicts use wall time)")
        return {}
    if not instructions.is_binary(python):
        print(f"  ({python} is a script, a version manager's shim: no instruction counts)")
        return {}
    return {name: instructions.count(command, empty) for name, command in commands.items()}


def other_tools(base: Path, install: bool) -> dict[str, str]:
    """checkov and yamllint: from PATH, or (``--others``) installed into a throwaway virtual environment."""
    found = {name: path for name in ("checkov", "yamllint") if (path := shutil.which(name))}
    missing = [name for name in ("checkov", "yamllint") if name not in found]
    if install and missing:
        try:
            bin_folder = virtual_environment(base / "others-venv", *missing, timeout=1800)
            found.update({name: str(bin_folder / name) for name in missing})
        except (subprocess.SubprocessError, OSError) as exc:
            print(f"  (could not install {', '.join(missing)}: {exc})")
    return found


def corpus_commands(corpus: Path, tools: dict[str, str]) -> dict[str, list[str]]:
    commands = {
        "shmlint": shmlint_command("check", "--quiet", str(corpus)),
        "floor": [sys.executable, "-c", FLOOR, str(corpus)],
    }
    if "checkov" in tools:
        commands["checkov"] = [tools["checkov"], "--quiet", "--framework", "kubernetes", "-d", str(corpus / "k8s")]
    if "yamllint" in tools:
        commands["yamllint"] = [tools["yamllint"], "-d", "relaxed", str(corpus)]
    return commands


def fix_case(base: Path, count: int, repetitions: int) -> list[bool]:
    """``fix --write`` on files that each need a fix, against ``check`` of the same files."""
    flagged = base / "flagged"
    flagged.mkdir()
    originals = {p: p.read_bytes() for p in flagged_k8s(flagged, count)}
    fix_runs, check_runs = [], []
    for _ in range(repetitions):
        for path, data in originals.items():
            path.write_bytes(data)
        check_runs.append(measure(shmlint_command("check", "--quiet", str(flagged))))
        fix_runs.append(measure(shmlint_command("fix", "--write", str(flagged))))
    check_median, fix_median = median(check_runs), median(fix_runs)
    print(f"\nfix --write on {count:,} flagged files: {fix_median.wall:.3f} s; check: {check_median.wall:.3f} s")
    return [verdict("fix --write vs check", fix_median.wall / check_median.wall, 3.0)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1,000/2,000 files and fewer repetitions")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument(
        "--others",
        action="store_true",
        help="install checkov and yamllint (when not on PATH) to compare on 1,000 files",
    )
    parser.add_argument("--one-file", action="store_true", help="only the one-file case (a few minutes with valgrind)")
    args = parser.parse_args()
    small, large = (1000, 2000) if args.quick else (10_000, 20_000)
    reps = 3 if args.quick else args.repetitions
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, corpus sizes {small:,} and {large:,}")
    # an installed wheel has its bytecode compiled by pip; do the same for a source checkout
    package = Path(__file__).resolve().parent.parent / "shmlint"
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if args.one_file:  # the clean file is the corpus's first Kubernetes file, the same bytes at any size
            generate(base / "corpus", 100)
            results = one_file_case(base, base / "corpus", 21 if not args.quick else 7)
            print("\nall targets met" if all(results) else "\nsome targets missed")
            return 0 if all(results) else 1
        corpora = {}
        for size in (small, large):
            corpora[size] = base / f"corpus-{size}"
            generate(corpora[size], size)
        timings, ratios = compare_sizes(corpora[small], corpora[large], reps)
        print("\ntargets")
        results.append(verdict(f"{small:,} files vs floor", ratios["small vs floor"], 0.9))
        results.append(verdict(f"growth {large:,} / {small:,}", ratios["growth"], 2.2))
        results.append(verdict(f"peak RSS at {large:,} files", timings[corpora[large]]["shmlint"].rss_mib, 150, " MiB"))
        results += one_file_case(base, corpora[small], 21 if not args.quick else 7)
        results += fix_case(base, 1000 if not args.quick else 200, reps)
        tools = other_tools(base, args.others)
        if tools:  # checkov takes minutes per thousand files: compared on a corpus of 1,000, no target
            others = base / "corpus-others"
            generate(others, 1000)
            compare("the tools a user would otherwise run, 1,000 files", corpus_commands(others, tools), 3)
    print("\nall targets met" if all(results) else "\nsome targets missed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
