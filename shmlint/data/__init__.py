"""Data shmlint ships: the tier model's knowledge (``shm_need.yaml``, the source), the modules a run imports instead
of working things out on each start (``shm_need.py``, ``signal_words.py``: written by ``python -m shmlint.build_data``)
and, in an installed wheel, the rule catalog (``rules/``)."""
