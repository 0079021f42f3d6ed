"""The rules: one Python module per rule beside its catalog entry, listed in ``registry.RULES``.

``shm005_shm_too_small.yaml`` says what SHM005 is (slug, default severity, rationale, docs, examples) and
``shm005_shm_too_small.py`` how it is found. Importing this package loads nothing: a file with no workload never
imports a rule, and a rule reads its own catalog entry only when it reports.
"""
