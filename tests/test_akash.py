"""Akash Network SDL (``shmlint.formats.akash``): a deployment's services with their compute profile's GPUs,
memory and storage, and the ram-class volume Akash backs with memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from shmlint.formats.akash.extract import is_akash_sdl
from shmlint.parsers.yamlnodes import compose
from shmlint.runner import check_paths
from shmlint.settings import Settings
from shmlint.source import SourceText

FIXTURE = Path(__file__).parent.parent / "fixtures" / "akash" / "SHM001-missing.yaml"


def _findings(root: Path) -> list[tuple[str, str, str]]:
    report = check_paths(Settings(undecided="show"), [root])
    return [(f.code, f.severity.label, f.message) for f in report.findings]


def test_an_sdl_is_not_a_compose_file() -> None:
    """Its ``services`` beside ``profiles`` and ``deployment`` are an SDL's: read as compose they had no GPU."""
    documents = compose(SourceText("deploy.yaml", FIXTURE.read_text()))
    assert is_akash_sdl(documents)
    compose_file = "services:\n  web:\n    image: nginx\n"
    assert not is_akash_sdl(compose(SourceText("compose.yaml", compose_file)))


def test_a_services_gpus_and_memory_come_from_the_profile_its_placement_names(tmp_path: Path) -> None:
    text = FIXTURE.read_text().replace("      profile: vllm\n", "      profile: small\n")
    small = "    small:\n      resources:\n        cpu:\n          units: 1\n        memory:\n          size: 4Gi\n"
    text = text.replace("  compute:\n", f"  compute:\n{small}")
    (tmp_path / "deploy.yaml").write_text(text)
    report = check_paths(Settings(undecided="show"), [tmp_path])
    assert all("gpu units" not in (f.detail or "") for f in report.findings)  # the profile it names has none
    (tmp_path / "deploy.yaml").write_text(FIXTURE.read_text())
    [(code, severity, message)] = _findings(tmp_path)
    assert (code, severity) == ("SHM001", "error")
    assert message.startswith('Akash service "vllm" needs /dev/shm (... --tensor-parallel-size 2)')


@pytest.mark.parametrize(
    ("mount", "expected"),
    [
        ("        shm:\n          mount: /dev/shm\n", []),  # the ram volume, sized 16Gi
        ("        shm:\n          mount: /dev/shm/\n", []),
        ("", [("SHM002", "error")]),  # declared for it, mounted nowhere
        ("        shm:\n          mount: /mnt/scratch\n", [("SHM001", "error")]),  # mounted elsewhere
    ],
)
def test_a_ram_volume_at_dev_shm_is_a_sized_memory_dev_shm(tmp_path: Path, mount: str, expected: list) -> None:
    text = FIXTURE.read_text().replace("          readOnly: false\n", f"          readOnly: false\n{mount}")
    text = text.replace(
        "              class: beta3\n",
        "              class: beta3\n          - name: shm\n            size: 16Gi\n"
        "            attributes:\n              persistent: false\n              class: ram\n",
    )
    (tmp_path / "deploy.yaml").write_text(text)
    assert [(code, severity) for code, severity, _ in _findings(tmp_path)] == expected


def test_a_storage_list_the_fix_cannot_extend_gets_no_fix(tmp_path: Path) -> None:
    """A profile whose storage is one mapping (not a list): a volume cannot be appended, so no fix is offered."""
    text = FIXTURE.read_text()
    start = text.index("        storage:\n          - size: 50Gi")
    end = text.index("  placement:")
    text = text[:start] + "        storage:\n          size: 50Gi\n" + text[end:]
    (tmp_path / "deploy.yaml").write_text(text)
    report = check_paths(Settings(), [tmp_path])
    [finding] = [f for f in report.findings if f.code == "SHM001"]
    assert not finding.fixable
