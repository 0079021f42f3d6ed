"""Data shmlint ships: the tier model's knowledge (``shm_need.yaml``, the source, and ``shm_need.py``, its compiled
copy that a run imports) and, in an installed wheel, the rule catalog (``rules/``)."""
