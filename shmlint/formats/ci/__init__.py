"""The ci format."""
