"""Formats as units: one package per format, holding how its files are recognised, read, fixed and worded."""
