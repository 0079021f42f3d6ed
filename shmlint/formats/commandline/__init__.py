"""The commandline format."""
