"""Every rule's findings on a labelled benchmark set, scored per rule and per severity, and its fixes checked.

A benchmark set is a folder with ``repos.toml`` (as in ``run.py``) and ``labels.toml``: ``[[label]]`` entries name
each workload by repository, path and line (its container ``name:``, compose service key or ``docker run`` line) with
``label`` crash | no-risk | unknown, ``class`` and ``reason``; ``[[verdict]]`` entries judge other rules' findings
(``code``, the finding's ``line``, ``verdict`` correct | incorrect, ``reason``). Labels are written by reading the
files, never from shmlint's answer. The trees are obtained exactly as ``run.py`` obtains them (same code).

    python bench/precision/score.py --mirror /work/.mirror --cache /tmp/fresh          # bench/precision/fresh
    python bench/precision/score.py --set DIR --cache ~/.cache/shmlint-precision         # another set, cloning

An SHM001 finding belongs to the label whose line lies inside the finding's span (the nearest to its first line), or
else to the nearest labelled line at most ten lines above the finding in the same file (listed as ``matched_above``).
``shmlint fix --write`` runs on a copy of each tree; a fix "lowers" /dev/shm when a size it replaces is larger than
the size it writes, or when an override file's new ``shm_size`` is smaller than its compose base's for the same
service (the merged value drops).

Exit status: 0 when every finding is labelled or judged and every label points into the tree; 1 otherwise
(``--report`` always exits 0); 2 when a repository cannot be obtained.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import shutil
import sys
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as common  # the precision benchmark's repository, tree and shmlint code, shared

HERE = Path(__file__).resolve().parent
SEVERITIES = ("error", "warning", "info")
VERDICTS = ("correct", "incorrect")
#: shm sizes as files write them: compose ``shm_size``, ``--shm-size`` flags, emptyDir ``sizeLimit``
SHM_SIZE = re.compile(
    r"""(?:shm_size:|--shm-size(?:=|\s+)|sizeLimit:)\s*["']?([0-9]{1,12}(?:\.[0-9]{1,6})?)\s?([A-Za-z]{0,3})["']?"""
)
UNIT = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
#: how far above a finding its workload's labelled line may be when the line is not inside the finding's span
ABOVE_WINDOW = 10
COMPOSE_BASES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


@dataclass(frozen=True)
class Label:
    """What a workload really risks, decided by reading it."""

    repo: str
    path: str
    line: int
    label: str
    kind: str
    reason: str


@dataclass(frozen=True)
class Verdict:
    """Whether another rule's finding is right, decided by reading the file."""

    repo: str
    path: str
    line: int
    code: str
    verdict: str
    reason: str


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    end_line: int
    code: str
    severity: str
    workload: str

    def __str__(self) -> str:
        return f"{self.repo}: {self.path}:{self.line} {self.code} [{self.severity}] {self.workload}"


def read_set(folder: Path) -> tuple[list[Label], list[Verdict]]:
    """The set's labels and verdicts, checked for shape (SystemExit names the bad entry)."""
    data = tomllib.loads((folder / "labels.toml").read_text(encoding="utf-8"))
    labels, verdicts = [], []
    for n, entry in enumerate(data.get("label", []), 1):
        label = Label(entry["repo"], entry["path"], int(entry["line"]), entry["label"], entry["class"], entry["reason"])
        if label.label not in common.LABELS or not label.reason.strip() or not label.kind.strip() or label.line < 1:
            raise SystemExit(f"{folder}/labels.toml: label {n} ({label.path}): bad label, class, reason or line")
        labels.append(label)
    for n, entry in enumerate(data.get("verdict", []), 1):
        verdict = Verdict(
            entry["repo"], entry["path"], int(entry["line"]), entry["code"], entry["verdict"], entry["reason"]
        )
        if verdict.verdict not in VERDICTS or not verdict.reason.strip() or not re.fullmatch(r"SHM\d{3}", verdict.code):
            raise SystemExit(f"{folder}/labels.toml: verdict {n} ({verdict.path}): bad code, verdict or reason")
        verdicts.append(verdict)
    return labels, verdicts


def findings_of(repo: common.Repo, tree: Path) -> list[Finding]:
    return [
        Finding(
            repo.name,
            common.relative(item["path"]),
            int(item["line"]),
            int(item.get("end_line") or item["line"]),
            item["code"],
            item["severity"],
            item.get("workload") or "",
        )
        for item in common.check_json(repo, tree)
    ]


def label_for(finding: Finding, labels: list[Label]) -> Label | None:
    """The label inside the finding's span nearest its first line, else the nearest labelled line above it.

    Above means at most ``ABOVE_WINDOW`` lines up (a predictor key under its metadata, an Argo script under its
    template name): further up lies another workload's label, and the finding is unlabelled, to be read.
    """
    same_file = [label for label in labels if (label.repo, label.path) == (finding.repo, finding.path)]
    inside = [label for label in same_file if finding.line <= label.line <= finding.end_line]
    if inside:
        return min(inside, key=lambda label: label.line)
    above = [label for label in same_file if 0 <= finding.line - label.line <= ABOVE_WINDOW]
    return max(above, key=lambda label: label.line, default=None)


def verdict_for(finding: Finding, verdicts: list[Verdict]) -> Verdict | None:
    key = (finding.repo, finding.path, finding.line, finding.code)
    return next((v for v in verdicts if (v.repo, v.path, v.line, v.code) == key), None)


def ratio(part: int, whole: int) -> float | None:
    return common.ratio(part, whole)


def tier(counts: Counter[str]) -> dict:
    total = sum(counts.values())
    return {
        "findings": total,
        "labels": dict(sorted(counts.items())),
        "precision": ratio(counts["crash"], total),
        "precision_crash_or_unknown": ratio(counts["crash"] + counts["unknown"], total),
    }


def failing(fail_on: str) -> tuple[str, ...]:
    """The severities that fail a run whose fail-on is ``fail_on``."""
    return SEVERITIES[: SEVERITIES.index(fail_on) + 1]


def score_shm001(matched: dict[Finding, Label], labels: list[Label], fail_on: str) -> dict:
    """Per severity and at the failing severities: precision; recall of the crash labels; what no-risk stays quiet."""
    by_severity: dict[str, Counter[str]] = {severity: Counter() for severity in SEVERITIES}
    worst: dict[Label, str] = {}  # the most severe finding each label got
    for finding, label in matched.items():
        by_severity[finding.severity][label.label] += 1
        if label not in worst or SEVERITIES.index(finding.severity) < SEVERITIES.index(worst[label]):
            worst[label] = finding.severity
    fails = failing(fail_on)
    crashes = [label for label in labels if label.label == "crash"]

    def share(severities: tuple[str, ...]) -> float | None:
        return ratio(sum(worst.get(label) in severities for label in crashes), len(crashes))

    return {
        "fail_on": fail_on,
        "by_severity": {severity: tier(counts) for severity, counts in by_severity.items()},
        "failing": tier(sum((by_severity[severity] for severity in fails), Counter())),
        "recall": {
            "crash_workloads": len(crashes),
            "as_error": share(("error",)),
            "as_failing": share(fails),
            "as_error_or_warning": share(("error", "warning")),
            "as_any": share(SEVERITIES),
            "missed": sorted(f"{c.repo}: {c.path}:{c.line} {c.kind}" for c in crashes if c not in worst),
            "not_failing": sorted(
                f"{c.repo}: {c.path}:{c.line} {c.kind} ({worst[c]})"
                for c in crashes
                if c in worst and worst[c] not in fails
            ),
        },
        "no_risk_silenced": ratio(
            sum(label.label == "no-risk" and label not in worst for label in labels),
            sum(label.label == "no-risk" for label in labels),
        ),
        "failing_by_class": dict(
            Counter(
                f"{label.label} {label.kind}" for finding, label in matched.items() if finding.severity in fails
            ).most_common()
        ),
        "failing_not_crash": sorted(
            f"{label.label} {label.kind}: {finding}"
            for finding, label in matched.items()
            if finding.severity in fails and label.label != "crash"
        ),
    }


def score_other(judged: dict[Finding, Verdict]) -> dict:
    """Per rule and severity: findings, how many were judged correct, precision."""
    counts: dict[str, dict[str, Counter[str]]] = {}
    for finding, verdict in judged.items():
        counts.setdefault(finding.code, {}).setdefault(finding.severity, Counter())[verdict.verdict] += 1
    return {
        code: {
            severity: {
                "findings": sum(c.values()),
                "correct": c["correct"],
                "precision": ratio(c["correct"], sum(c.values())),
            }
            for severity, c in sorted(by_severity.items(), key=lambda item: SEVERITIES.index(item[0]))
        }
        for code, by_severity in sorted(counts.items())
    }


def size_bytes(number: str, unit: str) -> int:
    """A Docker or Kubernetes size in bytes, binary units for both (8g and 8Gi are the same size here)."""
    return int(float(number) * UNIT.get(unit.lower()[:1], 0)) if unit.lower()[:1] in UNIT else -1


def shm_sizes(text: str) -> Counter[int]:
    return Counter(size_bytes(number, unit) for number, unit in SHM_SIZE.findall(text))


class _AnyTagLoader(yaml.SafeLoader):
    """Safe loading that keeps going over compose tags such as ``!reset`` (their values are dropped)."""


_AnyTagLoader.add_multi_constructor("!", lambda loader, suffix, node: None)


def compose_shm(path: Path) -> dict[str, int]:
    """Each compose service's ``shm_size`` in bytes (services without one are left out)."""
    try:
        document = yaml.load(path.read_text(encoding="utf-8", errors="replace"), Loader=_AnyTagLoader)
    except yaml.YAMLError:
        return {}
    services = document.get("services") if isinstance(document, dict) else None
    sizes = {}
    for name, service in (services or {}).items():
        if isinstance(service, dict) and service.get("shm_size") is not None:
            found = SHM_SIZE.search(f"shm_size: {service['shm_size']}")
            sizes[str(name)] = size_bytes(*found.groups()) if found else -1
    return sizes


def merged_shm(folder: Path) -> dict[str, int]:
    """``override file: service`` -> the shm_size compose gives that service when the file is merged over its base."""
    base = next((folder / name for name in COMPOSE_BASES if (folder / name).is_file()), None)
    if base is None:
        return {}
    base_sizes = compose_shm(base)
    merged = {}
    for other in sorted(folder.iterdir()):
        if other == base or "compose" not in other.name or other.suffix not in (".yaml", ".yml"):
            continue
        own = compose_shm(other)
        for service, size in {**base_sizes, **own}.items():
            merged[f"{other.name}: {service}"] = own.get(service, size)
    return merged


def lowered(before: Path, after: Path, changed: list[str]) -> list[str]:
    """Fixes that lower a size: a replaced size larger than what replaced it, or a merged compose size that drops."""
    problems = []
    for path in changed:
        old = shm_sizes((before / path).read_text(encoding="utf-8", errors="replace"))
        new = shm_sizes((after / path).read_text(encoding="utf-8", errors="replace"))
        gone, added = old - new, new - old
        if gone and added and min(added) < max(gone):
            problems.append(f"{path}: replaced {max(gone)} bytes with {min(added)}")
    for folder in sorted({str(Path(path).parent) for path in changed}):
        old_merged, new_merged = merged_shm(before / folder), merged_shm(after / folder)
        prefix = "" if folder == "." else f"{folder}/"
        for key, size in sorted(new_merged.items()):
            if key in old_merged and size < old_merged[key]:
                problems.append(f"{prefix}{key}: merged shm_size {old_merged[key]} -> {size} bytes")
    return problems


def check_fixes(repo: common.Repo, tree: Path, scratch: Path) -> dict:
    """``shmlint fix --write`` on a copy of the tree: files and hunks changed, and any fix that lowers a size."""
    copy = scratch / repo.slug
    shutil.copytree(tree, copy, symlinks=True)  # links as they are, as in a clone (one may point outside)
    done = common.shmlint(copy, "fix", "--write", ".")
    if "Traceback" in done.stderr:
        raise RuntimeError(f"shmlint fix failed on {repo.name}: {done.stderr.strip()[-500:]}")
    changed, hunks = [], 0
    for file in sorted(p for p in tree.rglob("*") if p.is_file() and p.name != ".complete"):
        path = file.relative_to(tree).as_posix()
        old = file.read_text(encoding="utf-8", errors="replace").splitlines()
        new = (copy / path).read_text(encoding="utf-8", errors="replace").splitlines()
        if old != new:
            changed.append(path)
            hunks += sum(1 for line in difflib.unified_diff(old, new, n=0, lineterm="") if line.startswith("@@"))
    return {"files": changed, "hunks": hunks, "lowered": lowered(tree, copy, changed)}


def fail_on_of(tree: Path) -> str:
    """The fail-on shmlint's own configuration gives (``shmlint config``), so the score follows the tool's default."""
    shown = common.shmlint(tree, "config", ".").stdout
    found = re.search(r'^fail-on:\s*"?(error|warning|info)"?', shown, re.M)
    return found.group(1) if found else "warning"


def stale(labels: list[Label], verdicts: list[Verdict], trees: dict[str, Path]) -> list[str]:
    """Labels and verdicts whose repository is not in the set or whose file or line is not in the tree."""
    problems = []
    entries: list[Label | Verdict] = [*labels, *verdicts]
    for entry in entries:
        tree = trees.get(entry.repo)
        file = tree / entry.path if tree else None
        if file is None or not (file.is_file() or file.is_symlink()):  # a link a clone holds, dangling or not
            problems.append(f"{entry.repo}: {entry.path}: not in the benchmark's trees")
        elif file.is_file() and entry.line > file.read_text(encoding="utf-8", errors="replace").count("\n") + 1:
            problems.append(f"{entry.repo}: {entry.path}:{entry.line}: past the end of the file")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=HERE / "fresh", help="folder with repos.toml and labels.toml")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "shmlint-precision")
    parser.add_argument(
        "--mirror", type=Path, help="git dirs: DIR/<owner+name>/repo (bare, or its .git), DIR/<owner+name> or DIR"
    )
    parser.add_argument("--remote-base", default="https://github.com", help="where to clone from without --mirror")
    parser.add_argument("--no-fix", action="store_true", help="skip running shmlint fix on copies of the trees")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    parser.add_argument("--report", action="store_true", help="only print; exit 0 even with unlabelled findings")
    args = parser.parse_args(argv)

    repos = common.read_repos(args.set / "repos.toml")
    labels, verdicts = read_set(args.set)
    try:
        trees = common.obtain(repos, args.mirror, args.cache, args.remote_base)
    except (LookupError, common.subprocess.CalledProcessError) as error:
        print(f"cannot obtain a repository: {error}", file=sys.stderr)
        return 2
    findings = [finding for repo in repos for finding in findings_of(repo, trees[repo.name])]
    fail_on = fail_on_of(trees[repos[0].name])
    matched = {f: label for f in findings if f.code == "SHM001" and (label := label_for(f, labels)) is not None}
    judged = {f: verdict for f in findings if f.code != "SHM001" and (verdict := verdict_for(f, verdicts)) is not None}
    unlabelled = [str(f) for f in findings if f.code == "SHM001" and f not in matched]
    unjudged = [str(f) for f in findings if f.code != "SHM001" and f not in judged]
    fixes: dict[str, dict] = {}
    if not args.no_fix:
        with tempfile.TemporaryDirectory(prefix="shmlint-fresh-fix-") as scratch:
            fixes = {repo.name: check_fixes(repo, trees[repo.name], Path(scratch)) for repo in repos}
    problems = stale(labels, verdicts, trees)
    result = {
        "shmlint_commit": common.head_commit(),
        "repositories": len(repos),
        "files": sum(1 for tree in trees.values() for p in tree.rglob("*") if p.is_file() and p.name != ".complete"),
        "labels": dict(sorted(Counter(f"{label.label} {label.kind}" for label in labels).items())),
        "findings": dict(sorted(Counter(f"{f.code} {f.severity}" for f in findings).items())),
        "shm001": score_shm001(matched, labels, fail_on),
        "other_rules": score_other(judged),
        "fixes": {
            "files": sum(len(fix["files"]) for fix in fixes.values()),
            "hunks": sum(fix["hunks"] for fix in fixes.values()),
            "lowered": [f"{name}: {problem}" for name, fix in fixes.items() for problem in fix["lowered"]],
            "by_repository": {name: len(fix["files"]) for name, fix in fixes.items() if fix["files"]},
        }
        if fixes
        else None,
        "matched_above": sorted(
            f"{finding} -> line {label.line} {label.label} {label.kind}"
            for finding, label in matched.items()
            if not finding.line <= label.line <= finding.end_line
        ),
        "unlabelled": unlabelled,
        "unjudged": unjudged,
        "stale": problems,
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    if (unlabelled or unjudged or problems) and not args.report:
        print(f"{len(unlabelled)} unlabelled, {len(unjudged)} unjudged, {len(problems)} stale", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
