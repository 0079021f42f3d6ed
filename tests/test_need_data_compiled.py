"""The tier data a run reads (``shmlint/data/shm_need.py``) is the YAML source's exact content, so editing the YAML
without regenerating its compiled copy (``python -m shmlint.need``) cannot go unnoticed."""

from __future__ import annotations

from shmlint import need
from shmlint.data import shm_need


def test_the_compiled_copy_holds_exactly_the_yaml_data() -> None:
    assert need.read_yaml() == shm_need.DATA, "shm_need.py is stale: run `python -m shmlint.need` and commit it"


def test_the_compiled_copy_is_what_the_generator_writes() -> None:
    assert need.DATA_MODULE.read_text(encoding="utf-8") == need.compiled_text(need.read_yaml())


def test_a_run_reads_the_compiled_copy(monkeypatch) -> None:
    """The control: ``builtin()`` reads the compiled copy, so a different copy gives different knowledge."""
    monkeypatch.setattr(shm_need, "DATA", {**shm_need.DATA, "accelerators": {"multi_device": {"min_devices": 7}}})
    need.builtin.cache_clear()
    try:
        assert need.builtin().multi_device_min == 7
    finally:
        need.builtin.cache_clear()
