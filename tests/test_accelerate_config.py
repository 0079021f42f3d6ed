"""Accelerate config files as the launcher reads them (``shmlint.project.configs.accelerate_config``): the local
GPU processes ``accelerate launch --config_file`` starts."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shmlint.project.configs import accelerate_config

_YAML = "compute_environment: LOCAL_MACHINE\ndistributed_type: {kind}\nnum_machines: {machines}\nnum_processes: {n}\n"


@pytest.mark.parametrize(
    ("text", "local"),
    [
        (_YAML.format(kind="MULTI_GPU", machines=1, n=8), 8),
        (_YAML.format(kind="FSDP", machines=2, n=16), 8),  # num_processes is the total over the machines
        (_YAML.format(kind="DEEPSPEED", machines=1, n=4), 4),
        (_YAML.format(kind="MEGATRON_LM", machines=1, n=2), 2),
        (_YAML.format(kind="'NO'", machines=1, n=1), 0),
        (_YAML.format(kind="MULTI_CPU", machines=1, n=8), 0),  # gloo between CPU processes, not NCCL
        (_YAML.format(kind="XLA", machines=1, n=8), 0),
        (_YAML.format(kind="MULTI_GPU", machines=4, n=4), 1),  # one process a machine
        ("distributed_type: MULTI_GPU\nnum_processes: 2\n", 2),  # num_machines defaults to 1
        ('{\n  "distributed_type": "MULTI_GPU",\n  "num_processes": 4\n}\n', 4),  # JSON
        ("distributed_type: MULTI_GPU\nfsdp_config:\n  num_processes: 8\nnum_processes: 1\n", 1),  # nested key
    ],
)
def test_local_gpu_processes(text: str, local: int) -> None:
    config = accelerate_config(text)
    assert config is not None and config.local_gpu_processes == local


@pytest.mark.parametrize(
    "text",
    [
        "compute_environment: AMAZON_SAGEMAKER\ndistributed_type: MULTI_GPU\nnum_processes: 8\n",  # not launched here
        "distributed_type: MULTI_GPU\n",  # no count: the launcher's own default decides
        "distributed_type: MULTI_GPU\nnum_processes: ${N}\n",
        "",
    ],
)
def test_no_count_read(text: str) -> None:
    assert accelerate_config(text) is None


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet="{}\"': \n_abcdeilmnoprstuMGPUFSD0123456789", max_size=400))
def test_never_raises(text: str) -> None:
    config = accelerate_config("num_processes: 2\n" + text)
    assert config is None or config.processes >= 0


_NESTED_JSON = """\
{
  "distributed_type": "DEEPSPEED",
  "deepspeed_config": {
    "num_machines": 4,
    "num_processes": 2
  },
  "num_machines": 1,
  "num_processes": 8
}
"""


@pytest.mark.parametrize(
    ("text", "local", "line"),
    [
        (_NESTED_JSON, 8, 8),  # the nested keys are DeepSpeed's, not the launch's
        ('{"distributed_type": "MULTI_GPU", "num_machines": 1, "num_processes": 4}', 4, 1),  # one line
        ('{"distributed_type": "FSDP", "num_processes": "2"}\n', 2, 1),
    ],
)
def test_a_json_config_is_read_by_its_top_level_keys(text: str, local: int, line: int) -> None:
    config = accelerate_config(text)
    assert config is not None and (config.local_gpu_processes, config.line) == (local, line)


@pytest.mark.parametrize(
    "text",
    [
        '{"distributed_type": "MULTI_GPU", "num_processes": true}',  # no count
        '{"distributed_type": "MULTI_GPU", "num_processes": 1' + "0" * 5000 + "}",  # beyond int()'s digits
        '{"distributed_type": "MULTI_GPU", "num_processes": 8',  # not JSON
        '{"deepspeed_config": {"distributed_type": "MULTI_GPU", "num_processes": 8}}',  # nested only
        "[" * 100_000,
    ],
)
def test_a_json_config_without_a_top_level_count_is_not_read(text: str) -> None:
    assert accelerate_config(text) is None


@settings(max_examples=100, deadline=None)
@given(
    processes=st.integers(0, 64),
    machines=st.integers(1, 8),
    decoy=st.dictionaries(st.sampled_from(["num_processes", "num_machines", "x"]), st.integers(0, 99), max_size=3),
    indent=st.sampled_from([None, 1, 4]),
)
def test_json_top_level_keys_win_over_nested_ones(processes: int, machines: int, decoy: dict, indent: int | None):
    import json

    document = {"nested": decoy, "distributed_type": "MULTI_GPU", "num_machines": machines, "num_processes": processes}
    config = accelerate_config(json.dumps(document, indent=indent))
    assert config is not None and config.local_gpu_processes == processes // machines


#: a key repeated on every line of a large config: the line it is read from is counted once (YAML: the first
#: wins) or as the scan goes (JSON: the last wins), not from the file's start at every repeat (115 s and 155 s for
#: 200,000 repeats; bench/bounds.py times it)
REPEATS = 20_000


def test_a_key_repeated_on_every_line_is_read_from_its_first_yaml_line() -> None:
    config = accelerate_config("num_processes: 4\n" * REPEATS + "distributed_type: MULTI_GPU\n")
    assert config is not None and (config.processes, config.line) == (4, 1)


def test_a_key_repeated_in_json_is_read_from_its_last_line() -> None:
    body = ",\n".join(f'"num_processes": {index}' for index in range(REPEATS))
    config = accelerate_config("{" + body + ',\n"a:b": 1, "distributed_type": "MULTI_GPU"}')
    assert config is not None and (config.processes, config.line) == (REPEATS - 1, REPEATS)
