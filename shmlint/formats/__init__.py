"""Formats as units: one package per format, each exporting its descriptor (``shmlint.format_descriptor.Format``)
as ``FORMAT``: how its files are recognised, read, fixed and worded. ``shmlint.file_formats`` finds them and is the
one place that says what kind a file is and which format reads or fixes it.
"""
