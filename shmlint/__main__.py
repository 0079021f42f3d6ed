"""``python -m shmlint``."""

from shmlint.cli import main

main()
