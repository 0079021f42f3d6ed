"""Extractors: parsed files become ``Workload`` values, one per container as it will run."""
