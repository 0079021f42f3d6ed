"""Admission policies generated from the linter's own knowledge: ``shmlint policy``.

The catalog (codes, slugs, severities) and the tier data (``shmlint/data/shm_need.yaml``, ``shmlint/signals.py``)
are exported as lists (``knowledge``), translated to RE2 (``re2``), and written into Kubernetes
ValidatingAdmissionPolicy and MutatingAdmissionPolicy CEL (``cel``), Gatekeeper Rego (``rego``) and a Kyverno
mutate policy (``kyverno``); ``manifests`` assembles what a cluster administrator applies. ``check`` never imports
this package.
"""
